"""The analyzer: every check of a document, then its configuration (disabled codes, severity
overrides) and its suppression comments, as `analyze` (the package's entry point) returns them.
"""

from __future__ import annotations

from dataclasses import replace

from ..syntax.document import Document
from .codes import enabled_by_default
from .config import Config
from .diagnostic import Diagnostic
from .incremental import AnalysisState
from .suppression import is_suppressed, suppressions


def analyze(document: Document | str, config: Config | None = None,
            state: AnalysisState | None = None) -> list[Diagnostic]:
    """Every diagnostic of a document (or source text), sorted by position. `state` must be the
    document's own `AnalysisState` (it keeps results between calls)."""
    if isinstance(document, str):
        document = Document(document)
    if state is None:
        state = AnalysisState(document)
    elif state.document is not document:
        raise ValueError("the analysis state belongs to another document")
    config = config or Config()
    key = (config.disabled, tuple(sorted(config.severities.items())), config.compat,
           config.targets)
    return state.result(key, lambda: _analyze(state, config))


def _analyze(state: AnalysisState, config: Config) -> list[Diagnostic]:
    found = state.collect(config.compat)
    by_line, problems = suppressions(state.document.lines, sorted(state.marked))
    found.extend(problems)
    found.extend(state.portability_diagnostics(config.targets, frozenset(config.severities)))
    out = []
    overridden, kept = state.overridden, {}
    for diag in found:
        if diag.code in config.disabled or (by_line and is_suppressed(diag, by_line)):
            continue
        if not enabled_by_default(diag.code) and diag.code not in config.severities:
            continue
        severity = config.severities.get(diag.code)
        if severity is not None and severity != diag.severity:
            # the same object for the same diagnostic, run after run (see AnalysisState)
            hit = overridden.get(id(diag))
            if hit is None or hit[0] is not diag or hit[1].severity != severity:
                hit = (diag, replace(diag, severity=severity))
            kept[id(diag)] = hit
            diag = hit[1]
        out.append(diag)
    state.overridden = kept
    out.sort(key=lambda d: d.sort_key)
    return out
