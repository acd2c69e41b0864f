"""The disassembler: a `.wbin` back to source text that assembles to the same bytes.

Unlike upstream `wave-dis` (reference §3.6), atomics are written `atomic_add r1, r2, r3, .device`,
`@!p0` guards are kept, `call` targets get generated labels (`loc_XXXX`, XXXX = the label's
offset in the code section) placed where the target lands, and every kernel directive is
written. `compat=True` reads the file as `wave-asm` wrote it: `call` targets are label-pass
offsets (reference §3.4) and a modifier-0 atomic that fills rs3 is `atomic_cas`.
"""

from __future__ import annotations

from typing import Callable

from ..isa import (INSTRUCTIONS, SCOPE_BY_VALUE, SPECIAL_BY_INDEX, Field, InstructionSpec,
                   OperandKind)
from ..analysis.operand_checks import bad_name
from ..syntax.ast import Directive
from ..syntax.parser import parse_line
from .ir import DecodedInstruction, KernelCode
from .wbin import CODE_OFFSET, WbinFile
from .words import WORD_MASK

# (opcode, modifier wave-asm emits) -> the mnemonic it emits it for, where that differs.
UPSTREAM_ALIASES: dict[tuple[int, int], InstructionSpec] = {
    (s.opcode, s.upstream_modifier): s for s in INSTRUCTIONS.values()
    if s.upstream_modifier != s.modifier
}
_COMMENT_COLUMN = 40
_FIELD_VALUE = {
    Field.RD: lambda i: i.rd, Field.RS1: lambda i: i.rs1, Field.RS2: lambda i: i.rs2,
    Field.RS3: lambda i: i.rs3, Field.RS4: lambda i: i.rs4, Field.SCOPE: lambda i: i.scope,
    Field.IMM: lambda i: i.imm, Field.TARGET: lambda i: i.imm,
}


def immediate_text(value: int) -> str:
    """`mov_imm` value as wave-dis prints it: 0-9 in decimal, otherwise 0x + upper-case hex."""
    return str(value) if value < 10 else f"0x{value:X}"


def upstream_cas(ins: DecodedInstruction) -> InstructionSpec | None:
    """The CAS mnemonic when `ins` is wave-asm's encoding of one (modifier 0, rs3 filled)."""
    if ins.rs3 and not any(op.field is Field.RS3 for op in ins.spec.operands):
        return UPSTREAM_ALIASES.get((ins.spec.opcode, ins.spec.modifier))
    return None


def shown_spec(ins: DecodedInstruction, compat: bool) -> InstructionSpec:
    """The mnemonic to print for an instruction under the given reading."""
    if compat:
        return upstream_cas(ins) or ins.spec
    return ins.spec


def format_instruction(ins: DecodedInstruction, label_of: Callable[[int], str] | None = None,
                       compat: bool = False) -> str:
    """One instruction as source text (no indentation); `label_of(word1)` names call targets."""
    spec = shown_spec(ins, compat)
    parts = []
    for slot in spec.operands:
        value = _FIELD_VALUE[slot.field](ins)
        kind = slot.kind
        if slot.optional and value == 0:
            continue  # non-returning atomic: rd 0 and no rd written encode the same
        if kind is OperandKind.REGISTER:
            parts.append(f"r{value}")
        elif kind is OperandKind.PREDICATE:
            parts.append(f"p{value}")
        elif kind is OperandKind.SPECIAL:
            sr = SPECIAL_BY_INDEX.get(value)
            parts.append(sr.name if sr else f"sr_{value}")
        elif kind is OperandKind.SCOPE:
            parts.append("." + SCOPE_BY_VALUE[value].name)
        elif kind is OperandKind.IMMEDIATE:
            parts.append(immediate_text(value))
        else:
            parts.append(label_of(value) if label_of else f"loc_{value:04x}")
    guard = ""
    if ins.pred_neg:
        guard = f"@!p{ins.pred_reg} "
    elif ins.pred_reg:
        guard = f"@p{ins.pred_reg} "
    text = guard + spec.mnemonic
    return f"{text} {', '.join(parts)}" if parts else text


def _boundaries(kernels: list[KernelCode], compat: bool) -> dict[int, int]:
    """Map the value a call would carry to the code-section offset of the position it names.
    Default: true offsets. compat: wave-asm's label-pass offsets (true offsets come back)."""
    out: dict[int, int] = {}
    upstream = 0
    for kernel in kernels:
        for ins in kernel.instructions:
            position = kernel.code_offset + ins.offset
            out.setdefault(upstream if compat else position, position)
            upstream += shown_spec(ins, compat).upstream_label_size
        end = kernel.code_offset + len(kernel.code)
        out.setdefault(upstream if compat else end, end)
    return out


def disassemble(wbin: WbinFile, offsets: bool = False, raw: bool = False,
                compat: bool = False) -> str:
    """Source text for every kernel of a `.wbin`. `offsets` / `raw` add a trailing comment with
    the file offset / the words in hex (so the text still assembles)."""
    kernels = wbin.kernels
    positions = _boundaries(kernels, compat)
    labels: dict[int, str] = {}       # code-section offset -> generated label
    unplaced: set[str] = set()

    def target_position(kernel: KernelCode, value: int) -> int | None:
        key = value if compat else (kernel.code_offset + value) & WORD_MASK
        return positions.get(key)

    for kernel in kernels:
        for ins in kernel.instructions:
            if Field.TARGET in (op.field for op in ins.spec.operands):
                pos = target_position(kernel, ins.imm)
                if pos is not None:
                    labels[pos] = f"loc_{pos:04x}"
    out: list[str] = []
    for index, kernel in enumerate(kernels):
        if index:
            out.append("")
        out.extend(_kernel_header(kernel, index))
        for ins in kernel.instructions:
            position = kernel.code_offset + ins.offset
            if position in labels:
                out.append(f"{labels.pop(position)}:")

            def label_of(value: int, kernel: KernelCode = kernel) -> str:
                pos = target_position(kernel, value)
                if pos is None:
                    name = f"loc_{value:04x}"
                    unplaced.add(name)
                    return name
                return f"loc_{pos:04x}"

            text = "    " + format_instruction(ins, label_of, compat)
            notes = []
            if offsets:
                notes.append(f"0x{CODE_OFFSET + position:04X}")
            if raw:
                words = f"{ins.word0:08X}" + ("" if ins.word1 is None else f" {ins.word1:08X}")
                notes.append(words)
            if not compat and upstream_cas(ins):
                notes.append(f"wave-asm's {upstream_cas(ins).mnemonic} (rs3 = r{ins.rs3}); "
                             f"runs as {ins.spec.mnemonic}")
            if notes:
                text = f"{text.ljust(_COMMENT_COLUMN)} ; {' '.join(notes)}"
            out.append(text)
        end = kernel.code_offset + len(kernel.code)
        if end in labels and not _starts_kernel(kernels, index + 1, end):
            out.append(f"{labels.pop(end)}:")
        out.append(".end")
    if unplaced:
        out.append("")
        out.append("; call targets that are not instruction boundaries: "
                   + ", ".join(sorted(unplaced)))
    return "\n".join(out) + "\n"


def _starts_kernel(kernels: list[KernelCode], index: int, position: int) -> bool:
    return any(k.code_offset == position and k.instructions for k in kernels[index:index + 1])


def source_name(name: str) -> bool:
    """Whether `name` reads back from `.kernel NAME` as exactly that name (one identifier
    that wave-asm's lexer accepts), so a listing can print it as it is."""
    if not name or bad_name(name):
        return False
    line = parse_line(f".kernel {name}")
    if line.problem is not None or len(line.statements) != 1:
        return False
    (directive,) = line.statements
    return isinstance(directive, Directive) and len(directive.args) == 1 and \
        directive.args[0].text == name


def _kernel_header(kernel: KernelCode, index: int) -> list[str]:
    x, y, z = kernel.workgroup_size
    lines = []
    name = kernel.name
    if name and not source_name(name):  # printable (wbin.py checks) but not an identifier
        lines.append(f"; kernel #{index} is named {ascii(name)} in the file, which is not an "
                     f"assembly name: listed as kernel_{index}")
        name = ""
    lines += [f".kernel {name or f'kernel_{index}'}", f".registers {kernel.register_count}"]
    if kernel.local_memory:
        lines.append(f".local_memory {kernel.local_memory}")
    lines.append(f".workgroup_size {x}, {y}, {z}")
    return lines
