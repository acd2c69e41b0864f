"""The analysis host: the open documents (one `DocumentState` each) and the worker thread that
computes off the event loop.

- `open(uri, text, version)` makes the state. A large text is parsed by the worker (a 100,000-line
  file takes seconds), and so is any but a tiny one once the loop's budget of inline work
  (`LoopBudget`) is spent: until it is ready, `ready(uri)` waits for it and edits that arrive
  are queued and applied, in order, as soon as it is.
- `run(state, fn)` computes `fn(state)` off the event loop for a large document, on the calling
  thread for a small one (at most INLINE_LINES lines and INLINE_CHARS characters: a thread hop
  costs more than the work) while the loop's budget lasts and no job of the document is in a
  worker. A job that uses the analysis
  state (`state.diagnostics()`) is a *writer*: it runs in the analysis worker with the state's
  lock held. Any other job is a *reader* (`reader=True`: hover, formatting, semantic tokens...):
  it only reads the document, which only the event loop changes, so it runs in a second worker
  without the lock, and is answered even while the analysis of its document runs: the writer
  waits at its checkpoints while a reader runs (`cancellation.foreground`). A job that
  waits for another program (`external=True`: the vendors' compilers, which take minutes on a
  large kernel) runs in a pool of its own (`EXTERNAL_JOBS` threads), never holding the reader.
- An edit of the document cancels its running jobs (`cancellation.py`) before it changes
  anything; the awaiting coroutine then gets `Cancelled` (a reader's result computed across
  the edit is dropped the same way). A coroutine cancelled while it waits (a `$/cancelRequest`)
  cancels its job.
- Requests for other documents are answered meanwhile: the event loop never waits for a worker,
  except for the few milliseconds an edit waits for a writer to reach its next checkpoint.

Protocol-free: the server translates; a debugger or the command line can use the same host.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import logging
import math
import threading
import time
import urllib.parse
from contextlib import nullcontext
from typing import Any, Callable

from ..cancellation import CancelToken, Cancelled, foreground, running
from ..syntax.document import Document, collector_paused
from ..syntax.memo import clear_memos, memo_entries
from .jobs import JobService
from .state import DocumentState

logger = logging.getLogger("wave_lsp.ide")

INLINE_LINES = 2_000      # documents up to this size are computed on the calling thread
INLINE_CHARS = 1 << 16    # ... and up to this many characters (one long line may cost too)
OPEN_IN_WORKER_LINES = 5_000  # larger texts are parsed by the worker when they are opened
INLINE_OPEN_LINES = 200   # smaller texts are parsed at once when they are opened
SETTLE_SECONDS = 5.0
EXTERNAL_JOBS = 2         # jobs that wait for another program, at once (`run(external=True)`)
RELEASE_SECONDS = 1.0     # after the last of a burst of closes, memory is given back
MEMO_SLACK = 65_536       # memo entries kept whatever the open documents hold


class LoopBudget:
    """How much of the event loop's time work done inline (on the loop, for a small document)
    may take: `SECONDS` of it, forgotten over `WINDOW` seconds. A burst of work (200 documents
    opened at once: each parse and first analysis is small, all together seconds) goes to the
    worker once the budget is spent, so the loop keeps answering; one small job stays inline,
    where a thread hop would cost more than the work."""

    SECONDS = 0.05
    WINDOW = 0.25

    def __init__(self) -> None:
        self._spent = 0.0
        self._at = time.monotonic()

    def _now(self) -> float:
        now = time.monotonic()
        self._spent *= math.exp(-(now - self._at) / self.WINDOW)
        self._at = now
        return now

    def allows(self) -> bool:
        self._now()
        return self._spent < self.SECONDS

    def charge(self, began: float) -> None:
        """Count inline work that began at `began` (a `time.monotonic()` reading)."""
        self._spent += self._now() - began


class AnalysisHost:
    """Open documents by URI, and the worker that computes for them."""

    def __init__(self) -> None:
        self._states: dict[str, DocumentState] = {}
        self.jobs = JobService()      # the one worker and trust gate of emulator jobs
        self._opening: dict[str, tuple[asyncio.Future, list[Callable[[], None]]]] = {}
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="wave-lsp-worker")
        self._readers = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="wave-lsp-reader")
        self._external = concurrent.futures.ThreadPoolExecutor(
            max_workers=EXTERNAL_JOBS, thread_name_prefix="wave-lsp-external")
        self.loop: asyncio.AbstractEventLoop | None = None   # the event loop, once seen
        self._settled = -SETTLE_SECONDS
        self.budget = LoopBudget()
        self._release: asyncio.TimerHandle | None = None

    def call_on_loop(self, fn: Callable[[], None]) -> None:
        """Call `fn` on the event loop's thread (now when already there): for a job that must
        talk to the client, whose transport is not thread-safe."""
        loop = self.loop
        if loop is None or loop.is_closed():
            fn()
            return
        try:
            running_loop = asyncio.get_running_loop()
        except RuntimeError:
            running_loop = None
        if running_loop is loop:
            fn()
        else:
            loop.call_soon_threadsafe(fn)

    # ---- documents -----------------------------------------------------------------------------
    def open(self, uri: str, text: str, version: int) -> DocumentState:
        """Open (or reopen) a document. A large text is parsed off the event loop when one is
        running; the state is returned at once and `ready(uri)` waits for the parse."""
        self.close(uri)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            self.loop = loop
        lines = text.count("\n", 0, 1 << 22)
        if loop is None or lines < INLINE_OPEN_LINES or \
                (lines < OPEN_IN_WORKER_LINES and self.budget.allows()):
            began = time.monotonic()
            state = self._states[uri] = DocumentState(uri, text, version)
            self.budget.charge(began)
            return state
        state = self._states[uri] = DocumentState(uri, "", version)   # until parsed
        token = CancelToken()
        state.jobs.add(token)

        def parse() -> Document:
            with running(token), collector_paused():
                document = Document(text, uri=uri, version=version)
                # what `settle` does once the parse is installed, done before the collector
                # resumes: its first collection would otherwise scan every object of the
                # parse (a sixth of a second on 100,000 lines, in the worker)
                gc.freeze()
                return document

        future = loop.run_in_executor(self._executor, parse)
        pending: list[Callable[[], None]] = []
        self._opening[uri] = (future, pending)

        def loaded(done: asyncio.Future) -> None:
            state.jobs.discard(token)
            if self._opening.get(uri, (None,))[0] is not done:
                if not done.cancelled():
                    done.exception()         # retrieved: a parse the close cancelled is no error
                return                       # closed or reopened meanwhile
            del self._opening[uri]
            if done.cancelled() or done.exception() is not None:
                if not done.cancelled() and not isinstance(done.exception(), Cancelled):
                    logger.error("parsing %s failed: %r", uri, done.exception())
                state.replace(text, version)
            else:
                state.adopt(done.result(), text)
                self.settle(state, force=True)
            for change in pending:       # one that fails must not lose the ones after it
                try:
                    change()
                except Exception:
                    logger.exception("a change of %s queued during its parse failed", uri)

        future.add_done_callback(loaded)
        return state

    def change(self, uri: str, apply: Callable[[DocumentState], None]) -> DocumentState | None:
        """Apply a change (`apply(state)`, on the event loop), now or, while the document is
        still being parsed, right after it; None for an unknown document."""
        state = self._states.get(uri)
        if state is None:
            return None
        opening = self._opening.get(uri)
        if opening is not None:
            opening[1].append(lambda: apply(state))
        else:
            apply(state)
        return state

    def close(self, uri: str) -> None:
        state = self._states.pop(uri, None)
        self._opening.pop(uri, None)
        if state is not None:
            state.cancel_jobs("the document was closed")
            state.stop_jobs()              # every kind's: runs, profiles, tests
            self._release_soon()

    def _release_soon(self) -> None:
        """`release_memory` once no document has closed for `RELEASE_SECONDS`."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        if self._release is not None:
            self._release.cancel()
        self._release = loop.call_later(RELEASE_SECONDS, self.release_memory)

    def release_memory(self) -> None:
        """Give back what closed documents left behind: the memos of lines and instructions
        when they hold far more than the open documents' lines (only closed ones filled
        them), and the allocator's free memory to the system (glibc keeps freed memory of
        every thread's arena; a worker parsed and analysed the closed documents)."""
        self._release = None
        open_lines = sum(len(s.document.lines) for s in self._states.values())
        entries = memo_entries()
        if entries > 4 * open_lines + MEMO_SLACK:
            clear_memos()
        urllib.parse.clear_cache()     # its 128 URIs, most of them closed documents'
        logger.info("documents closed: %d memo entries (%d lines open)%s", entries, open_lines,
                    ", cleared" if entries > 4 * open_lines + MEMO_SLACK else "")
        threading.Thread(target=_trim_allocator, name="wave-lsp-trim", daemon=True).start()

    def get(self, uri: str) -> DocumentState | None:
        """The state, whether or not it is ready."""
        return self._states.get(uri)

    def all(self) -> list[DocumentState]:
        return list(self._states.values())

    def is_ready(self, uri: str) -> bool:
        return uri in self._states and uri not in self._opening

    async def ready(self, uri: str) -> DocumentState | None:
        """The state once its text is parsed (None for an unknown document)."""
        while (opening := self._opening.get(uri)) is not None:
            await asyncio.wait([opening[0]])
            await asyncio.sleep(0)           # the parse's done-callback installs the result
        return self._states.get(uri)

    # ---- computing -----------------------------------------------------------------------------
    async def run(self, state: DocumentState, fn: Callable[[DocumentState], Any],
                  name: str = "job", inline: bool | None = None, reader: bool = False,
                  external: bool = False) -> Any:
        """`fn(state)`, off the event loop for a large document: a writer with the state's lock
        held, a reader (`reader=True`, a job that does not use the analysis state) without it;
        with `external` (a reader that waits for another program), always off the loop, in the
        pool for such jobs. Raises `Cancelled` when an edit (or the caller's own cancellation)
        stops it first."""
        if external:
            inline, reader = False, True
        if inline is None:      # small, and no job of the document in a worker (its lock)
            inline = small(state.document.lines) and not state.jobs and self.budget.allows()
        # a writer in a worker is background work: it yields to the readers requests wait for
        # (but for those that wait for another program, for minutes)
        token = CancelToken(background=not reader and not inline)
        revision = state.revision
        large = len(state.document.lines) > OPEN_IN_WORKER_LINES

        def job() -> Any:
            with running(token), (collector_paused() if large and not inline else nullcontext()):
                token.check()
                if reader:
                    with foreground() if not (inline or external) else nullcontext():
                        result = fn(state)
                else:
                    with state.lock:
                        token.check()
                        if state.revision != revision:
                            raise Cancelled(f"{name}: the document changed")
                        result = fn(state)
                token.check()            # computed across an edit: never returned
                return result

        state.jobs.add(token)
        try:
            self.loop = asyncio.get_running_loop()
            if inline:
                began = time.monotonic()
                try:
                    return job()
                finally:
                    self.budget.charge(began)
            executor = self._external if external else self._readers if reader \
                else self._executor
            future = asyncio.get_running_loop().run_in_executor(executor, job)
            future.add_done_callback(_consume)   # a job left behind by its caller may fail
            try:
                return await asyncio.shield(future)
            except asyncio.CancelledError:
                token.cancel(f"{name}: the request was cancelled")
                raise
        finally:
            state.jobs.discard(token)

    def settle(self, state: DocumentState, force: bool = False) -> None:
        """After a large document is parsed and analysed: move every tracked object out of the
        cyclic collector's reach (`gc.freeze`, which costs nothing, unlike a collection), so
        that the full collections the next edits trigger do not scan hundreds of thousands of
        long-lived syntax objects (that took hundreds of milliseconds per edit, on whichever
        thread triggered it). Frozen objects are still freed by reference counting; only garbage
        cycles that existed at that moment are never reclaimed. At most once every few seconds
        unless `force`."""
        now = time.monotonic()
        if len(state.document.lines) <= INLINE_LINES or \
                (now - self._settled < SETTLE_SECONDS and not force):
            return
        self._settled = now
        gc.freeze()

    def cancel_all(self, reason: str) -> None:
        """Cancel every document's jobs (a compiler they wait for is stopped)."""
        for state in self._states.values():
            state.cancel_jobs(reason)

    def shutdown(self) -> None:
        """Cancel every job and stop the workers."""
        self.cancel_all("shutting down")
        for state in self._states.values():
            state.stop_jobs()
        self.jobs.shutdown()
        for pool in (self._executor, self._readers, self._external):
            pool.shutdown(wait=False, cancel_futures=True)


def small(lines: list[str]) -> bool:
    """Whether a document's jobs run on the calling thread (see `AnalysisHost.run`)."""
    if len(lines) > INLINE_LINES:
        return False
    chars = 0
    for line in lines:
        chars += len(line)
        if chars > INLINE_CHARS:
            return False
    return True


def _trim_allocator() -> None:
    """Collect the closed documents' cycles, then return the C allocator's free memory to the
    system (glibc's `malloc_trim`; elsewhere nothing to do). What `settle` froze is thawed
    first: the garbage cycles frozen with it (a parse runs with the collector paused) would
    otherwise never be reclaimed, and the few of them kept whole arenas of the allocator. The
    survivors are frozen again, so that edits' collections still skip them."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _consume(future: asyncio.Future) -> None:
    """Retrieve a finished job's exception (a `Cancelled` nobody waits for any more)."""
    if not future.cancelled():
        future.exception()
