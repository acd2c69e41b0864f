"""Backend previews: what each vendor's translator makes of a program (`wave-lsp emit`).

`emit(program, target)` translates assembled kernels to PTX, HIP C++, Metal or SYCL C++ text as
upstream's `wave-ptx`, `wave-hip`, `wave-metal` and `wave-sycl` do, except where those are wrong
(`corrections.py`, `ptx_waves.py`, lints P811-P823; local memory without `.local_memory`:
`declared_local_memory`); `compat=True` reproduces upstream's text exactly, defects
included (and assembles source as `wave-asm` does, as upstream's pipeline would). The result
maps every generated line back to the source line of its instruction. Kernel names that are
not identifiers are mangled once, before any backend (`names.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...isa.backends import LOCAL_MEMORY_MNEMONICS, TARGET_NAMES
from ...isa.launch_defaults import DEFAULT_LOCAL_MEMORY

from ...isa import register_count_problem
from ..ir import KernelCode
from . import hip, metal, sycl
from .c_family import EmitError, emit_c
from .names import with_code_names
from .ptx import emit_ptx

TARGETS = TARGET_NAMES          # the backends, as isa.backends names them
_C_STYLES = {"hip": hip.STYLE, "metal": metal.STYLE, "sycl": sycl.STYLE}

__all__ = ["TARGETS", "Emitted", "EmitError", "emit", "emit_kernels"]


@dataclass(frozen=True)
class Emitted:
    """Generated text and, per generated line (0-based), the source line it came from."""

    target: str
    text: str
    source_lines: tuple[int | None, ...]

    def map(self) -> list[list[int]]:
        """[[generated line, source line], ...] for the lines that come from an instruction."""
        return [[i, s] for i, s in enumerate(self.source_lines) if s is not None]

    def generated_for(self, source_line: int) -> list[int]:
        """The generated lines that an instruction on `source_line` produced."""
        return [i for i, s in enumerate(self.source_lines) if s == source_line]


def emit_kernels(kernels: list[KernelCode], target: str, compat: bool = False) -> Emitted:
    """Translate decoded kernels; raises EmitError for what the backend cannot translate."""
    if target not in TARGETS:
        raise ValueError(f"unknown target '{target}' (use {', '.join(TARGETS)})")
    for kernel in kernels:          # the C backends declare one variable per register
        problem = kernel.register_count and register_count_problem(kernel.register_count)
        if problem:
            raise EmitError(f"kernel '{kernel.name}': {problem}")
    kernels = with_code_names(kernels)   # names.py: never a name that is not an identifier
    if not compat:
        kernels = [declared_local_memory(k) for k in kernels]
    if target == "ptx":
        lines = emit_ptx(kernels, compat)
    else:
        lines = emit_c(_C_STYLES[target], kernels, compat)
    text = "".join(line + "\n" for line, _ in lines)
    return Emitted(target, text, tuple(where for _, where in lines))


def declared_local_memory(kernel: KernelCode) -> KernelCode:
    """`kernel`, with the emulator's default local memory (DEFAULT_LOCAL_MEMORY bytes, what
    `wave-lsp run` gives it) when it uses local memory without `.local_memory`: upstream then
    writes code that uses an undeclared buffer, which no vendor compiler accepts."""
    if kernel.local_memory > 0 or not any(ins.spec.mnemonic in LOCAL_MEMORY_MNEMONICS
                                          for ins in kernel.instructions):
        return kernel
    return replace(kernel, local_memory=DEFAULT_LOCAL_MEMORY)


def emit(program, target: str, compat: bool = False) -> Emitted:
    """Translate `.wave` source (text or Document), `.wbin` bytes, or an `Assembly`. Raises
    AssemblyError when source does not assemble, EmitError when the backend cannot translate."""
    if isinstance(program, (bytes, bytearray, memoryview)):
        from ..wbin import read_wbin
        kernels = list(read_wbin(bytes(program)).kernels)
    elif hasattr(program, "kernels") and not hasattr(program, "lines"):
        kernels = list(program.kernels)
    else:
        from ..assembler import assemble
        kernels = list(assemble(program, compat=compat).kernels)
    return emit_kernels(kernels, target, compat)
