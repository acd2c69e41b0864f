"""The assembler: a document to kernels of encoded instructions, and from there to `.wbin`.

`assemble` refuses what `wave-asm` refuses (the first problem, in source order, as an
`AssemblyError` with its line and columns) and otherwise produces upstream's bytes — exactly in
compatibility mode, and with the three documented corrections by default (DESIGN.md §1).
Rich diagnostics are the analysis layer's job; these checks only guard the encoder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..syntax.ast import Directive, Instruction, OperandSyntax
from ..syntax.document import Document
from .encoder import EncodingError, encode_instruction, scope_value
from .ir import DecodedInstruction, KernelCode
from ..analysis.layout import CodeLayout, KernelLayout, layout_document
from .wbin import write_wbin

_DIRECTIVE_ARGS = {"kernel": 1, "end": 0, "registers": 1, "local_memory": 1, "workgroup_size": 3}


class AssemblyError(Exception):
    """Source that cannot be assembled: message, 0-based line, columns [start, end)."""

    def __init__(self, message: str, line: int, start: int = 0, end: int = 0) -> None:
        super().__init__(f"line {line + 1}: {message}")
        self.message = message
        self.line = line
        self.start = start
        self.end = end


@dataclass
class Assembly:
    """The result of assembling: kernels with their code and decoded instructions."""

    kernels: list[KernelCode]
    compat: bool = False
    layout: CodeLayout | None = field(default=None, repr=False)

    @property
    def code(self) -> bytes:
        """The whole code section."""
        return b"".join(k.code for k in self.kernels)

    def wbin(self, no_symbols: bool = False) -> bytes:
        """The `.wbin` file bytes."""
        return write_wbin(self.kernels, no_symbols)


def assemble(source: str | Document, compat: bool = False) -> Assembly:
    """Assemble WAVE source (text or a `Document`); `compat` reproduces wave-asm's bytes
    exactly, defects included. Raises `AssemblyError` for the first unassemblable line."""
    document = source if isinstance(source, Document) else Document(source)
    layout = layout_document(document)
    _check_structure(document, layout)
    kernels = [_assemble_kernel(k, layout, compat) for k in layout.kernels]
    return Assembly(kernels, compat, layout)


def _assemble_kernel(kl: KernelLayout, layout: CodeLayout, compat: bool) -> KernelCode:
    def target_of(name: str) -> int | None:
        return layout.call_target(name, kl, compat)

    instructions: list[DecodedInstruction] = []
    chunks: list[bytes] = []
    for placed in kl.placed:
        try:
            ins = encode_instruction(placed.instruction, placed.offset, target_of, compat,
                                     placed.line)
        except EncodingError as err:
            raise AssemblyError(err.message, placed.line, err.start, err.end) from None
        instructions.append(ins)
        chunks.append(ins.word0.to_bytes(4, "little"))
        if ins.word1 is not None:
            chunks.append(ins.word1.to_bytes(4, "little"))
    k = kl.kernel
    return KernelCode(k.name, k.register_count, k.local_memory, k.workgroup_size,
                      kl.code_offset, b"".join(chunks), tuple(instructions))


def _check_structure(document: Document, layout: CodeLayout) -> None:
    """Raise for the first line wave-asm would reject before encoding anything."""
    problems: list[AssemblyError] = []
    for number, syntax in enumerate(document.syntax):
        if syntax.problem is not None:
            p = syntax.problem
            problems.append(AssemblyError(p.message, number, p.start, p.end))
            break
        for stmt in syntax.statements:
            if isinstance(stmt, Directive):
                problem = _directive_problem(stmt, number)
                if problem:
                    problems.append(problem)
                    break
            elif isinstance(stmt, Instruction):
                problem = _label_reference_problem(stmt, number, layout)
                if problem:
                    problems.append(problem)
                    break
    program = document.program
    for kernel in program.kernels:
        if kernel.closed_by is not None:
            d = kernel.directive
            problems.append(AssemblyError(f"kernel '{kernel.name}' not closed with .end",
                                          kernel.line, d.start, d.end))
    for number, d in program.stray_ends:
        problems.append(AssemblyError("unexpected token (expected .kernel before .end)",
                                      number, d.start, d.end))
    for placed in layout.stray:
        ins = placed.instruction
        problems.append(AssemblyError("instruction outside kernel", placed.line, ins.start,
                                      ins.end))
    for place in layout.duplicate_labels:
        problems.append(AssemblyError(f"duplicate label '{place.name}'", place.line,
                                      place.label.start, place.label.end))
    if problems:
        raise min(problems, key=lambda p: (p.line, p.start))


def _directive_problem(d: Directive, line: int) -> AssemblyError | None:
    name = d.name.text
    wanted = _DIRECTIVE_ARGS.get(name)
    if wanted is None:
        return AssemblyError(f"invalid directive '.{name}'", line, d.start, d.end)
    if len(d.args) != wanted:
        return AssemblyError(f"'.{name}' takes {wanted} argument(s), got {len(d.args)}",
                             line, d.start, d.end)
    for arg in d.args:
        if name == "kernel":
            if arg.syntax is not OperandSyntax.NAME:
                return AssemblyError("expected a kernel name", line, arg.start, arg.end)
        elif arg.syntax is not OperandSyntax.INTEGER or not isinstance(arg.value, int):
            return AssemblyError(f"'.{name}' expects integers", line, arg.start, arg.end)
    return None


def _label_reference_problem(ins: Instruction, line: int,
                             layout: CodeLayout) -> AssemblyError | None:
    """wave-asm requires every identifier operand (other than a scope word) to be a label."""
    for op in ins.operands:
        if op.syntax is OperandSyntax.NAME and scope_value(op) is None \
                and op.text not in layout.labels:
            return AssemblyError(f"undefined label '{op.text}'", line, op.start, op.end)
    return None
