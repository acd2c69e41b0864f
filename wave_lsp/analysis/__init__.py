"""Analysis layer: diagnostics with stable codes, symbols, control-flow structure, uniformity
and lints.

`analyze(document, config)` runs every check and returns the diagnostics sorted by position,
after configuration (disabled codes, severity overrides) and suppression comments.
"""

from __future__ import annotations

from dataclasses import replace

from ..syntax.document import Document
from .codes import CODES
from .config import Config, ConfigProblem, config_from_mapping, find_config, load_config
from .diagnostic import Diagnostic, Fix, Range, Related, Severity, TextEdit
from .line_checks import check_line
from .structure import structure_diagnostics
from .suppression import is_suppressed, suppressions

__all__ = ["analyze", "Diagnostic", "Severity", "Range", "Fix", "TextEdit", "Related", "Config",
           "ConfigProblem", "config_from_mapping", "find_config", "load_config", "CODES"]


def analyze(document: Document | str, config: Config | None = None) -> list[Diagnostic]:
    """Every diagnostic of a document (or source text), sorted by position."""
    if isinstance(document, str):
        document = Document(document)
    config = config or Config()
    found: list[Diagnostic] = []
    for number, text in enumerate(document.lines):
        findings = check_line(text)
        if findings:
            found.extend(f.at(number) for f in findings)
    program = document.program
    found.extend(structure_diagnostics(program, document.lines, config.compat))
    found.extend(_divergence(program))
    by_line, problems = suppressions(document.syntax)
    found.extend(problems)
    out = []
    for diag in found:
        if diag.code in config.disabled or (by_line and is_suppressed(diag, by_line)):
            continue
        severity = config.severities.get(diag.code)
        if severity is not None and severity != diag.severity:
            diag = replace(diag, severity=severity)
        out.append(diag)
    out.sort(key=lambda d: d.sort_key)
    return out


def _divergence(program) -> list[Diagnostic]:
    try:
        from .divergence import divergence_diagnostics
    except ImportError:  # the divergence analysis is optional while it is being built
        return []
    return divergence_diagnostics(program)
