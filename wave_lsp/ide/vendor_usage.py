"""What the vendors' own compilers say about a document: per target architecture, the resources
ptxas / hipcc give a kernel (registers, spills, shared memory and stack; VGPRs, SGPRs, LDS and
occupancy) for the resource hover and `wave-lsp.kernelResources`, and their errors and warnings
on the code `wave-lsp emit` writes, each mapped back to its source line, for Show PTX/HIP.

Protocol-free and slow (a compiler run per architecture, cached by text in `asm.vendors`, a few
at once, each stopped after `VendorTools.timeout` seconds or when the job is cancelled:
`asm.compiler_runs`): the server calls it off the event loop. Which compilers: `VendorTools`
(settings `backends.ptxas`, `backends.hipcc`: a path, or false for none; else PATH and the
nvidia wheel; `backends.timeoutSeconds`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..asm import AssemblyError
from ..cancellation import current, running
from ..asm import vendors
from ..asm.vendors import program_setting_ok  # noqa: F401  (the server's settings check)

if TYPE_CHECKING:
    from ..asm.backends import Emitted

VENDOR_TARGETS = ("ptx", "hip")
EDITOR_TIMEOUT_S = 30        # a compiler run in the editor is stopped after this long
_COMMENT = {"ptx": "//", "hip": "//"}


@dataclass(frozen=True)
class VendorTools:
    """The compiler to run per target (None: none found or turned off)."""

    compilers: tuple[tuple[str, str | None], ...]
    timeout: float = EDITOR_TIMEOUT_S     # seconds per compiler run

    @classmethod
    def find(cls, configured: dict[str, str | bool | None] | None = None,
             timeout: float = EDITOR_TIMEOUT_S) -> "VendorTools":
        """`configured`: target -> a path (or name on PATH), False for none, None to search."""
        configured = configured or {}
        out = []
        for target in VENDOR_TARGETS:
            setting = configured.get(target)
            out.append((target, None if setting is False else
                        vendors.find_compiler(target, setting or None)))
        return cls(tuple(out), timeout)

    def compiler(self, target: str) -> str | None:
        return dict(self.compilers).get(target)


@dataclass(frozen=True)
class KernelFigures:
    """One architecture's figures for one kernel (or why there are none)."""

    target: str
    compiler: str
    arch: str
    figures: tuple[tuple[str, int], ...]
    problem: str | None = None

    def as_dict(self) -> dict:
        out = {"target": self.target, "compiler": self.compiler, "arch": self.arch,
               "figures": dict(self.figures)}
        return {**out, "problem": self.problem} if self.problem else out


def _checks(text: str, target: str, tools: VendorTools) -> list[vendors.VendorCheck]:
    compiler = tools.compiler(target)
    return vendors.check_all(target, text, compiler, timeout=tools.timeout) if compiler else []


def _emitted(document, target: str) -> tuple[Emitted | None, str | None]:
    from ..asm.backends import EmitError, emit   # the translators load with the first kernel

    try:
        return emit(document, target), None
    except AssemblyError as err:
        return None, f"does not assemble (line {err.line + 1}: {err.message})"
    except EmitError as err:
        return None, str(err)


def kernel_figures(document, name: str, tools: VendorTools,
                   targets: tuple[str, ...] = VENDOR_TARGETS) -> list[KernelFigures]:
    """The vendor compilers' resource figures for kernel `name`, per target architecture, for
    the targets configured and whose compiler is found (ptxas and hipcc run side by side)."""
    wanted = [t for t in VENDOR_TARGETS if t in targets and tools.compiler(t)]

    def one(target: str) -> list[KernelFigures]:
        emitted, problem = _emitted(document, target)
        tool = vendors.COMPILERS[target]
        if emitted is None:
            return [KernelFigures(target, tool, "-", (), problem)]
        out = []
        for check in _checks(emitted.text, target, tools):
            usage = check.usage_of(name)
            problem = None
            if check.timed_out is not None:
                problem = check.messages[0].text
            elif not check.accepted:
                first = check.errors()[0] if check.errors() else None
                problem = f"rejected: {first.text}" if first else "rejected"
            out.append(KernelFigures(target, check.compiler, check.arch,
                                     usage.figures if usage else (), problem))
        return out

    if len(wanted) < 2:
        return [f for target in wanted for f in one(target)]
    token = current()         # the job's: an edit stops the compilers of both threads

    def under_token(target: str) -> list[KernelFigures]:
        with running(token):
            return one(target)

    with ThreadPoolExecutor(max_workers=len(wanted)) as pool:
        return [f for found in pool.map(under_token, wanted) for f in found]


def figures_markdown(figures: list[KernelFigures]) -> str:
    """A table of the figures, one row per target architecture ("" when there are none)."""
    if not figures:
        return ""
    rows = []
    for f in figures:
        value = f.problem or ", ".join(f"{k} {v}" for k, v in f.figures) or "no figures"
        rows.append(f"| {f.target} {f.arch} ({f.compiler}) | {value} |")
    note = ("\n\nHIP's local memory is `extern __shared__`, sized at launch: the LDS figure "
            "counts static LDS only." if any(f.target == "hip" for f in figures) else "")
    return ("**vendor compilers** (`wave-lsp emit` output)\n\n| target | reported |\n|---|---|\n"
            + "\n".join(rows) + note)


def figures_text(figures: list[KernelFigures]) -> str:
    """One line for a message: `ptx sm_75: registers 8, ... · hip gfx90a: ...`."""
    return " · ".join(f"{f.target} {f.arch}: " + (f.problem or ", ".join(
        f"{k} {v}" for k, v in f.figures)) for f in figures)


@dataclass(frozen=True)
class CompilerMessage:
    """An error or warning of a vendor compiler on emitted code, with its source line."""

    compiler: str
    arch: str
    severity: str
    text: str
    line: int | None            # generated line (0-based)
    source_line: int | None     # the instruction's line in the document (0-based)

    def as_dict(self) -> dict:
        return {"compiler": self.compiler, "arch": self.arch, "severity": self.severity,
                "message": self.text, "line": self.line, "sourceLine": self.source_line}


def compiler_messages(emitted: Emitted,
                      tools: VendorTools) -> tuple[list[dict], list[CompilerMessage]]:
    """Each architecture's verdict on `emitted` ({compiler, arch, accepted}) and every message,
    mapped back to the source line of the instruction that produced its line."""
    verdicts, messages = [], []
    for check in _checks(emitted.text, emitted.target, tools):
        verdicts.append({"compiler": check.compiler, "arch": check.arch,
                         "accepted": check.accepted, **({"timedOut": check.timed_out}
                                                        if check.timed_out is not None else {})})
        for m in check.messages:
            source = emitted.source_lines[m.line] if m.line is not None and \
                0 <= m.line < len(emitted.source_lines) else None
            messages.append(CompilerMessage(check.compiler, check.arch, m.severity, m.text,
                                            m.line, source))
    return verdicts, messages


def messages_block(target: str, verdicts: list[dict], messages: list[CompilerMessage]) -> list[str]:
    """Comment lines for the end of the Show PTX/HIP view: each verdict, then each message with
    its generated and source line (1-based, as an editor shows them)."""
    if not verdicts:
        return []
    mark = _COMMENT[target]
    out = ["", f"{mark} " + "; ".join(f"{v['compiler']} {v['arch']}: " + (
        f"STOPPED after {v['timedOut']:g} s" if "timedOut" in v else
        "accepted" if v["accepted"] else "REJECTED") for v in verdicts)]
    for m in messages:
        where = f"line {m.line + 1}" if m.line is not None else "no line"
        if m.source_line is not None:
            where += f" (source line {m.source_line + 1})"
        out.append(f"{mark} {m.compiler} {m.arch} {m.severity}: {where}: {m.text}")
    return out
