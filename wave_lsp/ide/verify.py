"""Static verification in the editor, as plain values: one kernel of one revision verified
(`wave-lsp verify`'s work, `launch.verify`) off the event loop, the verdict kept on the
document's state for that revision only (an edit hides it, closing drops it), the lenses that
show it, the diagnostics that point at a witness's two accesses, and the replay of a witness.

Per kernel: "Verify" until a verdict is kept, then the verdict's title (`✓ race-free
(proved, 0.3 s)`, `✕ race: line 12 ↔ line 15`, `✕ divergent barrier: line 9`, `? unknown: …`;
a click verifies again) and, with a witness, "▶ Replay witness" and "Debug witness" (a debug
session of the witness's launch paused at its first access, `ide.moments.witness_moment`);
"⟳ verifying…" while it runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from ..analysis.codes import diagnostic
from ..analysis.diagnostic import Diagnostic, Range, Related
from .lenses import Action, Lens
from .state import DocumentState

if TYPE_CHECKING:
    from pathlib import Path

    from ..analysis.verify import Verdict
    from ..launch.verify import Replay

KIND = "verification"       # the document's record (`DocumentState.verification`)
SOURCE = "wave-lsp verify"


@dataclass(frozen=True)
class Verification:
    """A kernel's verdict and, where it has a witness, what its replay showed."""

    verdict: "Verdict"
    replay: "Replay | None"

    def as_dict(self) -> dict:
        out = self.verdict.as_json()
        if out["witness"] is not None:
            out["witness"]["replayed"] = None if self.replay is None else self.replay.shown
            out["replay"] = None if self.replay is None else self.replay.line
        return out


def verify_text(text: str, kernel: str, cancel: Callable[[], bool]) -> Verification | None:
    """Verify `kernel` of `text` (and replay its witness): seconds of work, for the one
    worker; None when it was cancelled before it began or the kernel is gone."""
    from ..launch.verify import verify_source
    from ..syntax.document import Document
    if cancel():
        return None
    document = Document(text)
    found = verify_source(text, document.program, {}, kernel, True, None, document.syntax,
                          cancel)
    if not found or cancel():
        return None
    return Verification(*found[0])


def keep(doc: DocumentState, revision: int, kernel: str, result: Verification) -> None:
    doc.check_state(KIND).store(kernel, revision, result)


def current(doc: DocumentState) -> dict[str, Verification]:
    """The verdicts of the document's current revision, by kernel."""
    record = doc.verification
    return record.current(doc.revision) if record is not None else {}


VERIFYING = "⟳ verifying…"


def verify_lenses(doc: DocumentState, path: "Path | None" = None,
                  running: Iterable[str] = ()) -> list[Lens]:
    """Each kernel's verification lens: "⟳ verifying…" while a kernel in `running` has no
    verdict of this revision, else "Verify" or the verdict; with a witness, "▶ Replay witness"
    and, for a document on disk (`path`), "Debug witness"."""
    from .moments import witness_moment
    results = current(doc)
    out = []
    for k in doc.program.kernels:
        where = (k.line, k.directive.start, k.directive.end)
        found = results.get(k.name)
        if found is None and k.name in running:
            out.append(Lens(*where, VERIFYING, Action.VERIFY, (doc.uri, k.name),
                            tooltip="wave-lsp verify runs (an edit cancels it)"))
            continue
        if found is None:
            out.append(Lens(*where, "Verify", Action.VERIFY, (doc.uri, k.name),
                            tooltip="prove the kernel free of data races and divergent "
                                    "barriers (wave-lsp verify)"))
            continue
        v = found.verdict
        tip = v.reason + (f"\nwave-lsp run {v.launch()}" if v.witness is not None else "")
        out.append(Lens(*where, v.summary(), Action.VERIFY, (doc.uri, k.name),
                        tooltip=tip + "\n(click: verify again)"))
        if v.witness is not None:
            out.append(Lens(*where, "▶ Replay witness", Action.REPLAY_WITNESS,
                            (doc.uri, k.name), tooltip="wave-lsp run " + v.launch()))
            moment = witness_moment(path, v) if path is not None else None
            if moment is not None:
                out.append(Lens(*where, "Debug witness", Action.DEBUG_WITNESS,
                                (moment.configuration,), tooltip="a debug session paused at "
                                f"{moment.configuration['stopAt']['reason']}"))
    return out


def witness_moments(doc: DocumentState, path: "Path") -> list:
    """"Debug witness" of each witness of the current revision (`ide.moments`), shown on its
    first access's line."""
    from .moments import witness_moment
    found = (witness_moment(path, v.verdict) for v in current(doc).values())
    return [m for m in found if m is not None]


def witness_diagnostics(doc: DocumentState) -> list[Diagnostic]:
    """Each witness of the current revision as an error on its first access (or barrier): R031
    for a race, with both accesses as related information; R032 for a divergent barrier."""
    out = []
    for found in current(doc).values():
        v, w = found.verdict, found.verdict.witness
        if w is None:
            continue
        first, second = (_line_range(doc, line) for line in w.lines)
        a, b = w.threads
        if w.kind == "race":
            message = (f"data race ({v.kernel}): thread {a.global_id} {w.accesses[0]}s "
                       f"{w.space} byte {w.address}, thread {b.global_id} {w.accesses[1]}s it "
                       f"(line {w.lines[1] + 1}) with nothing ordering them; "
                       f"wave-lsp run {v.launch()}")
            related = (Related(first, f"thread {a.global_id}: {w.accesses[0]}"),
                       Related(second, f"thread {b.global_id}: {w.accesses[1]}"))
            code = "R031"
        else:
            message = (f"divergent barrier ({v.kernel}): thread {a.global_id} reaches it, "
                       f"thread {b.global_id} of the same workgroup does not; "
                       f"wave-lsp run {v.launch()}")
            related = (Related(first, f"thread {a.global_id} waits here"),)
            code = "R032"
        out.append(diagnostic(code, first.start_line, first.start_col, first.end_col, message,
                              related))
    return out


def _line_range(doc: DocumentState, line: int) -> Range:
    text = doc.lines[line] if line < len(doc.lines) else ""
    start = len(text) - len(text.lstrip())
    return Range(line, start, line, len(text.rstrip()))


def replay_text(text: str, result: Verification) -> "Replay":
    """Run the witness's launch (seconds at most: for the one worker)."""
    from ..launch.verify import replay
    return replay(text, result.verdict)
