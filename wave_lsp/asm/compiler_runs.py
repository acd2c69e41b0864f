"""Running a vendor compiler as a child process, bounded: at most `MAX_RUNNING` of them at once in
this process (more wait for a slot), each stopped (its whole process group: hipcc starts clang,
which starts lld) when the calling job's token is cancelled (`cancellation.py`: the document was
edited or closed, the server shuts down) or when it outlives its time limit. A large kernel keeps
ptxas / hipcc busy for minutes; without a bound every hover, lens and view would start more.

`Outcomes` caches what `run` gives by key, and makes a second caller with the same key wait for
the first one's run instead of starting another: the kernel hover, `wave-lsp.kernelResources`
and Show PTX/HIP compile the same text. A cancelled run is not kept (the next caller runs it);
a timed-out one is, for callers with that limit or a shorter one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Hashable

from ..cancellation import checkpoint

MAX_RUNNING = 2          # compiler processes at once, in all
POLL_S = 0.05            # how often a waiting or running compiler looks at its token


@dataclass(frozen=True)
class Finished:
    """A compiler's exit status and output (stdout then stderr), or why it has none."""

    status: int | None          # None: it could not start, or was stopped
    output: str
    timed_out: float | None = None   # the limit it outlived (seconds), when it did
    failure: str | None = None       # why it could not start


_slots = threading.BoundedSemaphore(MAX_RUNNING)


def _take_slot() -> None:
    while not _slots.acquire(timeout=POLL_S):
        checkpoint()


def _stop(process: subprocess.Popen) -> None:
    """Kill the compiler and everything it started (its own session: one process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
    process.wait()


def run(argv: list[str], timeout: float, env: dict | None = None,
        cwd: str | None = None) -> Finished:
    """`argv` run to its end, its output captured; stopped after `timeout` seconds, and at once
    (raising `Cancelled`) when the job's token is cancelled, while it waits for a slot too."""
    _take_slot()
    try:
        checkpoint()
        try:
            process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       stdin=subprocess.DEVNULL, text=True, env=env, cwd=cwd,
                                       start_new_session=True)
        except OSError as err:
            return Finished(None, "", failure=str(err))
        output: dict[str, str] = {}
        readers = [threading.Thread(target=lambda name=name, stream=stream:
                                    output.__setitem__(name, stream.read()), daemon=True)
                   for name, stream in (("out", process.stdout), ("err", process.stderr))]
        for reader in readers:
            reader.start()
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    process.wait(POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    pass
                checkpoint()
                if time.monotonic() > deadline:
                    _stop(process)
                    return Finished(None, "", timed_out=timeout)
        except BaseException:            # Cancelled (or anything else): no compiler left behind
            _stop(process)
            raise
        for reader in readers:
            reader.join()
        return Finished(process.returncode, output.get("out", "") + output.get("err", ""))
    finally:
        _slots.release()


class Outcomes:
    """Results by key, at most `size` of them; one run per key at a time."""

    def __init__(self, size: int = 64) -> None:
        self._done: OrderedDict[Hashable, tuple[object, float | None]] = OrderedDict()
        self._running: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()
        self._size = size

    def get(self, key: Hashable, timeout: float,
            compute: Callable[[], tuple[object, float | None]]) -> object:
        """The result for `key`: cached, another caller's (waited for), or `compute()`'s, which
        returns (result, the limit it outlived or None). A result that timed out under a
        shorter limit than `timeout` is computed again."""
        while True:
            with self._lock:
                found = self._done.get(key)
                if found is not None and (found[1] is None or found[1] >= timeout):
                    self._done.move_to_end(key)
                    return found[0]
                busy = self._running.get(key)
                if busy is None:
                    busy = self._running[key] = threading.Event()
                    break
            while not busy.wait(POLL_S):
                checkpoint()
        try:
            result, timed_out = compute()
            with self._lock:
                self._done[key] = (result, timed_out)
                while len(self._done) > self._size:
                    self._done.popitem(last=False)
            return result
        finally:
            with self._lock:
                del self._running[key]
            busy.set()

    def clear(self) -> None:
        with self._lock:
            self._done.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._done)
