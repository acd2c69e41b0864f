"""The vendors' compilers' rejections as diagnostics (P824): where ptxas or hipcc rejects the
code `wave-lsp emit` writes for a document (for a configured target whose compiler is here),
each error becomes a diagnostic on the kernel's source line that produced the generated line it
names (the emit view's line map, `vendor_usage.compiler_messages`), else on the `.kernel` line
of the kernel it names or surrounds, so it is seen without opening Show PTX/HIP.

Protocol-free and slow (a compiler run per architecture): the server calls `rejections` off the
event loop. The compiler runs are `asm.vendors`' own, cached by the emitted text and shared with
the kernel hover's figures, so only an edit that changes the translation runs them again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..analysis import Config, Diagnostic
from ..analysis.codes import diagnostic
from ..analysis.suppression import is_suppressed, suppressions
from ..asm import AssemblyError
from ..syntax.program import Kernel
from .state import DocumentState
from .vendor_usage import VENDOR_TARGETS, CompilerMessage, VendorTools, compiler_messages

if TYPE_CHECKING:
    from ..asm.backends import Emitted

CODE = "P824"
_QUOTED = re.compile(r"'([\w$.]+)'")


@dataclass(frozen=True)
class Rejections:
    """The diagnostics of one revision, and the translations they were computed from (a
    result for the same texts is the same)."""

    revision: int
    texts: tuple[tuple[str, str], ...]      # (target, emitted text) for each target checked
    diagnostics: tuple[Diagnostic, ...]


def checked_targets(tools: VendorTools, targets: tuple[str, ...]) -> tuple[str, ...]:
    """The configured vendor targets whose compiler is here."""
    return tuple(t for t in VENDOR_TARGETS if t in targets and tools.compiler(t))


def rejections(state: DocumentState, tools: VendorTools, targets: tuple[str, ...],
               config: Config | None = None) -> Rejections:
    """Every error of the vendors' compilers on the document's translation to each target of
    `targets` whose compiler is here (none when the document does not translate: the analysis
    says why), as P824 diagnostics under `config` (disabled codes, severities, suppressions)."""
    from ..asm.backends import EmitError, emit   # the translators load with the first check

    revision = state.revision
    texts, found = [], []
    for target in checked_targets(tools, targets):
        try:
            emitted = emit(state.document, target)
        except (AssemblyError, EmitError):
            continue
        texts.append((target, emitted.text))
        _verdicts, messages = compiler_messages(emitted, tools)
        found.extend(_diagnostics(state, emitted, [m for m in messages
                                                   if m.severity == "error"]))
    return Rejections(revision, tuple(texts), tuple(_configured(state, found, config)))


def _diagnostics(state: DocumentState, emitted: Emitted,
                 errors: list[CompilerMessage]) -> list[Diagnostic]:
    """One diagnostic per (line, compiler, message), naming every architecture that says it."""
    kernels = state.program.kernels
    grouped: dict[tuple[int, str, str], list[CompilerMessage]] = {}
    for m in errors:
        line = m.source_line if m.source_line is not None else _kernel_line(kernels, emitted, m)
        if line is not None:
            grouped.setdefault((line, m.compiler, m.text), []).append(m)
    out = []
    lines = state.document.lines
    for (line, compiler, text), ms in grouped.items():
        source = lines[line] if line < len(lines) else ""
        start = len(source) - len(source.lstrip())
        end = len(source.split(";", 1)[0].rstrip()) or len(source)
        arches = ", ".join(dict.fromkeys(m.arch for m in ms))
        where = f" (generated line {ms[0].line + 1})" if ms[0].line is not None else ""
        out.append(diagnostic(CODE, line, start, max(end, start), (
            f"{compiler} ({arches}) rejects this kernel's {emitted.target.upper()} "
            f"translation{where}: {text}")))
    return out


def _kernel_line(kernels: list[Kernel], emitted: Emitted, m: CompilerMessage) -> int | None:
    """The `.kernel` line for a message without a source line: the kernel it names (ptxas:
    "Entry function 'k' ..."), else the one whose generated code surrounds its line, else the
    first kernel."""
    if not kernels:
        return None
    from ..asm.backends.names import code_name

    names = {code_name(k.name, i): k for i, k in enumerate(kernels)}
    for name in _QUOTED.findall(m.text):
        if name in names:
            return names[name].line
    if m.line is not None:
        mapped = emitted.source_lines
        before = [s for s in mapped[:m.line + 1] if s is not None]
        after = [s for s in mapped[m.line:] if s is not None]
        nearest = before[-1] if before else (after[0] if after else None)
        if nearest is not None:
            for k in kernels:
                if k.line <= nearest and (k.end_line is None or nearest <= k.end_line):
                    return k.line
    return kernels[0].line


def _configured(state: DocumentState, found: list[Diagnostic],
                config: Config | None) -> list[Diagnostic]:
    """`found` as the settings want them: dropped when P824 is disabled or suppressed on its
    line, with the configured severity."""
    config = config or Config()
    if CODE in config.disabled:
        return []
    lines = state.document.lines
    marked = sorted({d.range.start_line for d in found})
    by_line, _problems = suppressions(lines, marked)
    severity = config.severities.get(CODE)
    return sorted((replace(d, severity=severity) if severity else d for d in found
                   if not is_suppressed(d, by_line)), key=lambda d: d.sort_key)
