"""Analysis layer: diagnostics with stable codes, symbols, control-flow structure, uniformity
and lints.

`analyze(document, config)` runs every check and returns the diagnostics sorted by position,
after configuration (disabled codes, severity overrides) and suppression comments.
"""

from __future__ import annotations

from dataclasses import replace

from ..syntax.document import Document
from .codes import CODES, enabled_by_default
from .config import Config, ConfigProblem, config_from_mapping, find_config, load_config
from .diagnostic import Diagnostic, Fix, Range, Related, Severity, TextEdit
from ..syntax.program import Kernel, Program
from .divergence import divergence_diagnostics
from .incremental import cached_result, collect
from .portability import portability_diagnostics
from .suppression import is_suppressed, suppressions

__all__ = ["analyze", "Diagnostic", "Severity", "Range", "Fix", "TextEdit", "Related", "Config",
           "ConfigProblem", "config_from_mapping", "find_config", "load_config", "CODES"]


def analyze(document: Document | str, config: Config | None = None) -> list[Diagnostic]:
    """Every diagnostic of a document (or source text), sorted by position."""
    if isinstance(document, str):
        document = Document(document)
    config = config or Config()
    key = (config.disabled, tuple(sorted(config.severities.items())), config.compat,
           config.targets)
    return cached_result(document, key, lambda: _analyze(document, config))


def _analyze(document: Document, config: Config) -> list[Diagnostic]:
    found, state = collect(document, config.compat, _divergence)
    by_line, problems = suppressions(document.lines, sorted(state.marked))
    found.extend(problems)
    found.extend(portability_diagnostics(document.program, config.targets))
    out = []
    for diag in found:
        if diag.code in config.disabled or (by_line and is_suppressed(diag, by_line)):
            continue
        if not enabled_by_default(diag.code) and diag.code not in config.severities:
            continue
        severity = config.severities.get(diag.code)
        if severity is not None and severity != diag.severity:
            diag = replace(diag, severity=severity)
        out.append(diag)
    out.sort(key=lambda d: d.sort_key)
    return out


def _divergence(kernel: Kernel) -> list[Diagnostic]:
    return divergence_diagnostics(Program(kernels=[kernel]))
