"""Incremental analysis of a `Document`: after an edit, only the changed lines and the kernels
that contain them are checked again.

State is kept per document (weakly). Line findings are stored per line and updated from the
document's edit log while edits keep the line count; kernel diagnostics are cached per kernel
object and revision (the document patches kernels in place for such edits). Anything else — a
new line, a label or directive changed, a full replacement — recomputes everything, which is
still linear and fast.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from ..syntax.document import Document
from ..syntax.program import Kernel, Program
from .diagnostic import Diagnostic
from .findings import LineFinding
from .line_checks import check_line
from .kernel_checks import KernelSummary, check_kernel
from .structure import reference_diagnostics, shape_diagnostics
from .suppression import line_suppression


@dataclass
class _KernelResult:
    kernel: Kernel
    revision: int
    diagnostics: list[Diagnostic]
    summary: KernelSummary


@dataclass
class _State:
    revision: int = -1
    findings: dict[int, tuple[LineFinding, ...]] = field(default_factory=dict)
    marked: set[int] = field(default_factory=set)   # lines with a suppression marker
    kernels: dict[int, _KernelResult] = field(default_factory=dict)
    shape: tuple[Program | None, list[Diagnostic]] = (None, [])  # shape diagnostics, by program
    findings_version: int = 0   # bumped whenever a line's findings or markers change
    result_key: tuple | None = None
    result: list[Diagnostic] = field(default_factory=list)


_STATES: "weakref.WeakKeyDictionary[Document, _State]" = weakref.WeakKeyDictionary()


def _line_state(state: _State, lines: list[str], numbers) -> None:
    for number in numbers:
        text = lines[number]
        found = check_line(text)
        if state.findings.get(number, ()) != found:
            state.findings_version += 1
            if found:
                state.findings[number] = found
            else:
                del state.findings[number]
        marked = line_suppression(text) is not None
        if marked != (number in state.marked):
            state.findings_version += 1
            if marked:
                state.marked.add(number)
            else:
                state.marked.discard(number)


def refresh(document: Document) -> _State:
    """Bring the document's line-level state up to date and return it."""
    state = _STATES.get(document)
    edits = document.edits_since(state.revision) if state is not None else None
    if state is None or edits is None or any(e.old_count != e.new_count for e in edits):
        state = _State()
        _STATES[document] = state
        _line_state(state, document.lines, range(len(document.lines)))
    else:
        for edit in edits:
            _line_state(state, document.lines, range(edit.first, edit.first + edit.new_count))
    state.revision = document.revision
    return state


def kernel_results(state: _State, program: Program, extra) -> list[_KernelResult]:
    """Per-kernel diagnostics (plus `extra(kernel)`), reusing the cache for unchanged kernels."""
    fresh: dict[int, _KernelResult] = {}
    results = []
    for kernel in program.kernels:
        cached = state.kernels.get(id(kernel))
        if cached is None or cached.kernel is not kernel or cached.revision != kernel.revision:
            diags, summary = check_kernel(kernel)
            cached = _KernelResult(kernel, kernel.revision, diags + extra(kernel), summary)
        fresh[id(kernel)] = cached
        results.append(cached)
    state.kernels = fresh
    return results


def cached_result(document: Document, key: tuple, compute) -> list[Diagnostic]:
    """`compute()` unless nothing that analysis depends on changed since the last call with
    the same `key` (configuration); the line state is refreshed either way."""
    state = refresh(document)
    program = document.program
    full_key = (key, state.findings_version, id(program),
                tuple(k.revision for k in program.kernels))
    if state.result_key != full_key:
        state.result = compute()
        state.result_key = full_key
    return list(state.result)


def collect(document: Document, compat: bool, extra) -> tuple[list[Diagnostic], _State]:
    """Every diagnostic before configuration and suppression."""
    state = refresh(document)
    program = document.program
    found: list[Diagnostic] = []
    for number, findings in state.findings.items():
        found.extend(f.at(number) for f in findings)
    results = kernel_results(state, program, extra)
    for result in results:
        found.extend(result.diagnostics)
    if state.shape[0] is not program:
        state.shape = (program, shape_diagnostics(program))
    found.extend(state.shape[1])
    found.extend(reference_diagnostics(program, [r.summary for r in results], compat))
    return found, state
