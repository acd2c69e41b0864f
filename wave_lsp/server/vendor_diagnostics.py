"""The vendors' compilers' rejections in the document's diagnostics (P824).

When an edit settles (and on open, and on new settings) and the document then stays unchanged
for `QUIET_S`, its translation to each configured target whose compiler is here (ptxas for PTX,
hipcc for HIP: `vendor_compilers.tools`) is compiled off the event loop
(`vendor_compilers.rejection_check`; the runs are cached by the emitted text and shared with
the kernel hover, so an edit that leaves the translation alone runs no compiler), and every
error is published with the analysis' diagnostics, on the source line it maps to
(`ide.vendor_diagnostics`). hipcc takes seconds: the checks run one at a time on their own
thread (never in the way of hovers and Show PTX/HIP), and a document's check waiting for that
thread is dropped when a newer revision comes. Until the new result arrives, the previous
diagnostics stay on the lines whose text did not change, so they do not blink while typing.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from lsprotocol import types

from ..cancellation import CancelToken, Cancelled, running
from ..ide.state import DocumentState
from ..ide.vendor_diagnostics import Rejections
from . import proto, vendor_compilers
from .server import Feature, WaveLanguageServer, report_failure

QUIET_S = 1.0      # a document left alone this long after an edit settles is checked


@dataclass
class _Shown:
    doc: DocumentState
    rejections: Rejections | None = None
    texts: dict[int, str] | None = None     # the text of each line a diagnostic is on
    task: asyncio.Future | None = None
    generation: int = 0


class VendorRejections(Feature):
    """Compiles each settled revision's translations and contributes their errors."""

    def __init__(self, server: WaveLanguageServer) -> None:
        super().__init__(server)
        self._shown: dict[str, _Shown] = {}
        self._pool: ThreadPoolExecutor | None = None
        self.closing = False

    @property
    def pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wave-vendor")
        return self._pool

    def _state(self, doc: DocumentState) -> _Shown:
        held = self._shown.get(doc.uri)
        if held is None or held.doc is not doc:
            held = self._shown[doc.uri] = _Shown(doc)
        return held

    def document_settled(self, doc: DocumentState) -> None:
        if doc.binary or self.closing:
            return
        held = self._state(doc)
        if held.task is not None and not held.task.done():
            held.task.cancel()
        held.task = asyncio.ensure_future(self._check(doc, held))

    async def _check(self, doc: DocumentState, held: _Shown) -> None:
        revision = doc.revision
        try:
            await asyncio.sleep(QUIET_S)
            job = vendor_compilers.rejection_check(self.server)

            token = CancelToken()        # an edit cancels it, as the host's reader jobs

            def check() -> Rejections | None:
                with running(token):
                    if token.cancelled or doc.revision != revision or self.closing:
                        return None      # a newer revision came while this one waited
                    found = job(doc)
                    token.check()        # computed across an edit: never kept
                    return found

            found = None
            if job is not None:
                doc.jobs.add(token)
                try:
                    found = await asyncio.get_running_loop().run_in_executor(self.pool, check)
                except asyncio.CancelledError:
                    token.cancel("a newer check of the document superseded it")
                    raise
                finally:
                    doc.jobs.discard(token)
        except (Cancelled, asyncio.CancelledError):
            return
        except Exception as exc:         # read across an edit: the next check comes
            if self.server.document(doc.uri) is doc and doc.revision == revision:
                report_failure(self.server,
                               "checking the translation with the vendors' compilers", exc)
            return
        if self.server.document(doc.uri) is not doc or self.closing or doc.revision != revision:
            return
        if job is not None and (found is None or found.revision != revision):
            return
        before = held.rejections.diagnostics if held.rejections is not None else ()
        held.rejections = found
        lines = doc.lines
        held.texts = {d.range.start_line: lines[d.range.start_line]
                      for d in (found.diagnostics if found else ())
                      if d.range.start_line < len(lines)}
        if (found.diagnostics if found else ()) != before:
            held.generation += 1
            self.server.broadcast("results_changed", doc)

    def document_closed(self, uri: str) -> None:
        held = self._shown.pop(uri, None)
        if held is not None and held.task is not None:
            held.task.cancel()

    def shutdown(self) -> None:
        self.closing = True
        for held in self._shown.values():
            if held.task is not None:
                held.task.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def results_generation(self, doc: DocumentState) -> int:
        held = self._shown.get(doc.uri)
        return held.generation if held is not None and held.doc is doc else 0

    def diagnostics(self, doc: DocumentState) -> list[types.Diagnostic]:
        """The last result's diagnostics: all of them for the revision they were computed on,
        else those whose line still has the same text."""
        held = self._shown.get(doc.uri)
        if held is None or held.doc is not doc or held.rejections is None:
            return []
        found = held.rejections.diagnostics
        if held.rejections.revision != doc.revision:
            lines, texts = doc.lines, held.texts or {}
            found = tuple(d for d in found if d.range.start_line < len(lines)
                          and lines[d.range.start_line] == texts.get(d.range.start_line))
        related = self.server.client.related_information
        return [proto.diagnostic(doc, d, self.server.codec, related) for d in found]


def setup(server: WaveLanguageServer) -> None:
    server.add_feature(VendorRejections(server))
