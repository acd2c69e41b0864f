"""Operand checks for one instruction: count, kind of every operand, ranges, legacy forms.

Messages follow wave-asm's wording (reference §2.7) where wave-asm reports the same problem.
"""

from __future__ import annotations

import re
import struct

from ..isa import (LEGACY_SPECIAL_REGISTERS, MAX_REGISTER, PREDICATE_COUNT, REGISTER_SUFFIXES,
                   SCOPE_BY_NAME, SPECIAL_BY_NAME, Field, InstructionSpec, OperandKind,
                   OperandSpec)
from ..syntax.ast import Instruction, Operand, OperandSyntax as Syn
from .findings import LineFinding, replace_fix
from .mnemonics import suggest

_MEMORY = re.compile(r"\[\s*(r\d+)\s*(?:\+\s*0+\s*)?\]")
SCOPE_LIST = "(.wave, .workgroup, .device, .system)"


def bad_name(name: str) -> str | None:
    """Why wave-asm's lexer cannot read `name` as a label or kernel name, or None."""
    if not name:
        return None
    if not name[0].isascii():
        return "starts with a non-ASCII letter (wave-asm's lexer fails on it)"
    if len(name) > 1 and name[0] in "rp" and name[1].isdigit():
        kind = "a register" if name[0] == "r" else "a predicate"
        return f"starts like {kind} ({name[:2]}...)"
    if name.startswith("sr"):
        return "starts with 'sr', which wave-asm reads as a special register"
    return None


def check_operands(ins: Instruction, spec: InstructionSpec | None,
                   scope_suffix: str | None) -> list[LineFinding]:
    """All operand findings of `ins`; without a spec only the spec-independent ones."""
    if spec is None:
        out: list[LineFinding] = []
        for op in ins.operands:
            out.extend(_legacy_operand(op) or [])
        return out
    written: list[Operand | None] = list(ins.operands)
    if scope_suffix is not None:
        written.append(None)  # the suffix stands for the scope operand
    specs = _align(spec, len(written))
    missing_scope = (specs is not None and specs and specs[-1].field is Field.SCOPE
                     and written[-1] is not None and written[-1].syntax is Syn.REGISTER
                     and len(specs) < len(spec.operands))
    if specs is None or missing_scope:
        return [_count_finding(ins, spec, len(written))] + _spec_free(ins)
    findings: list[LineFinding] = []
    for op, ospec in zip(written, specs):
        if op is not None:
            findings.extend(_check_kind(op, ospec, spec, ins))
    return findings


def _spec_free(ins: Instruction) -> list[LineFinding]:
    out: list[LineFinding] = []
    for op in ins.operands:
        out.extend(_legacy_operand(op) or [])
    return out


def _align(spec: InstructionSpec, n: int) -> tuple[OperandSpec, ...] | None:
    ops = spec.operands
    if n == len(ops):
        return ops
    if ops and ops[0].optional and n == len(ops) - 1:
        return ops[1:]
    return None


def _count_finding(ins: Instruction, spec: InstructionSpec, got: int) -> LineFinding:
    expected = str(spec.max_operands)
    if spec.min_operands != spec.max_operands:
        expected = f"{spec.max_operands} or {spec.min_operands}"
    if ins.operands:
        start, end = ins.operands[0].start, ins.operands[-1].end
    else:
        start, end = ins.mnemonic.start, ins.head_end
    message = f"invalid operand count: expected {expected}, got {got} (syntax: {spec.syntax})"
    fix = None
    if (spec.operands and spec.operands[-1].field is Field.SCOPE and got == spec.max_operands - 1
            and ins.operands and ins.operands[-1].syntax is Syn.REGISTER):
        message = (f"'{spec.mnemonic}' needs a scope as its last operand {SCOPE_LIST} "
                   f"(syntax: {spec.syntax})")
        end_col = ins.operands[-1].end
        fix = replace_fix("Add the .device scope", end_col, end_col, ", .device")
    elif got > spec.max_operands and not spec.operands and ins.operands:
        message += f"; put '{ins.operands[0].text}' on its own line if it is an instruction"
    return LineFinding("O202", start, end, message, fix)


def _check_kind(op: Operand, ospec: OperandSpec, spec: InstructionSpec,
                ins: Instruction) -> list[LineFinding]:
    legacy = _legacy_operand(op)
    if legacy is not None:
        return legacy
    kind = ospec.kind
    if kind is OperandKind.REGISTER:
        return _register(op, ospec)
    if kind is OperandKind.PREDICATE:
        if op.syntax is Syn.PREDICATE:
            return _predicate_index(op)
        return [LineFinding("O204", op.start, op.end,
                            f"expected predicate register (p0-p3) for {ospec.name}, found '{op.text}'")]
    if kind is OperandKind.SPECIAL:
        if op.syntax is Syn.SPECIAL:
            return _special_name(op)
        return [LineFinding("O205", op.start, op.end,
                            f"expected special register (sr_*) for {ospec.name}, found '{op.text}'")]
    if kind is OperandKind.IMMEDIATE:
        return _immediate(op)
    if kind is OperandKind.LABEL:
        if op.syntax is Syn.NAME and op.text not in SCOPE_BY_NAME:
            why = bad_name(op.text)
            return [LineFinding("S104", op.start, op.end, f"label name '{op.text}' {why}")] if why else []
        return [LineFinding("O207", op.start, op.end, f"expected label operand, found '{op.text}'")]
    return _scope(op)


def _register(op: Operand, ospec: OperandSpec) -> list[LineFinding]:
    if op.syntax is Syn.REGISTER:
        out = []
        if op.value is not None and op.value > MAX_REGISTER:
            out.append(LineFinding("O209", op.start, op.end,
                                   f"invalid register index {op.value}: must be 0-{MAX_REGISTER}"))
        if op.suffix is not None and op.suffix not in REGISTER_SUFFIXES:
            dot = op.text.index(".")
            out.append(LineFinding("O213", op.start + dot, op.end,
                                   f"invalid register suffix '.{op.suffix}': only .lo and .hi",
                                   replace_fix("Remove the suffix", op.start + dot, op.end, "")))
        return out
    if op.syntax is Syn.SPECIAL:
        found = _special_name(op)
        if found or ospec.also_special:
            return found
        sr = SPECIAL_BY_NAME[op.text]
        return [LineFinding(
            "U503", op.start, op.end,
            f"wave-asm encodes special register '{op.text}' here as register r{sr.index}; "
            f"read it into a register with 'mov_sr' first")]
    if op.syntax in (Syn.INTEGER, Syn.FLOAT):
        return [LineFinding(
            "L408", op.start, op.end,
            f"only mov_imm takes an immediate: load {op.text} into a register with "
            f"'mov_imm rN, {op.text}' and use rN here")]
    return [LineFinding("O203", op.start, op.end,
                        f"expected register operand for {ospec.name}, found '{op.text}'")]


def _predicate_index(op: Operand) -> list[LineFinding]:
    if op.value is not None and op.value >= PREDICATE_COUNT:
        return [LineFinding("O210", op.start, op.end,
                            f"invalid predicate register index {op.value}: must be 0-3")]
    return []


def _special_name(op: Operand) -> list[LineFinding]:
    if op.text in SPECIAL_BY_NAME:
        return []
    close = suggest(op.text, SPECIAL_BY_NAME)
    message = f"invalid special register '{op.text}'"
    fix = None
    if close:
        message += f"; did you mean '{close[0]}'?"
        fix = replace_fix(f"Replace with '{close[0]}'", op.start, op.end, close[0])
    return [LineFinding("O211", op.start, op.end, message, fix)]


def _immediate(op: Operand) -> list[LineFinding]:
    if op.syntax is Syn.INTEGER:
        if op.value is None:
            return [_bad_number(op)]
        if not -(1 << 31) <= op.value <= 0xFFFFFFFF:
            return [LineFinding("O212", op.start, op.end, f"immediate value {op.value} out of range")]
        return []
    if op.syntax is Syn.FLOAT:
        return [_float_immediate(op)]
    if op.syntax is Syn.DOTTED and op.text[1:2].isdigit():
        return [LineFinding("S102", op.start, op.end,
                            f"invalid number literal '{op.text}': write a digit before the point",
                            replace_fix("Add the leading 0", op.start, op.start, "0"))]
    return [LineFinding("O206", op.start, op.end, f"expected immediate operand, found '{op.text}'")]


def _bad_number(op: Operand) -> LineFinding:
    text = op.text.replace("_", "")
    fix = None
    if text.startswith("+"):
        why, fix = "a leading '+' is not accepted", replace_fix("Remove the '+'", op.start,
                                                                  op.start + 1, "")
    elif text.startswith("-0x") or text.startswith("-0X"):
        why = "negative hexadecimal literals are not accepted"
        try:
            fix = replace_fix("Write it in decimal", op.start, op.end, str(-int(text[3:], 16)))
        except ValueError:
            pass
    elif text[:2] == "0X":
        why = "the hexadecimal prefix is a lower-case '0x'"
        fix = replace_fix("Use '0x'", op.start, op.start + 2, "0x")
    else:
        why = "not a decimal, 0x-hexadecimal or float literal"
    return LineFinding("S102", op.start, op.end, f"invalid number literal '{op.text}': {why}", fix)


def _float_immediate(op: Operand) -> LineFinding:
    value = float(op.value or 0.0)
    f64_low = struct.unpack("<Q", struct.pack("<d", value))[0] & 0xFFFFFFFF
    try:
        f32 = struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:
        f32 = None
    message = (f"float immediate: wave-asm emits 0x{f64_low:08X} (the low 32 bits of the f64 "
               f"pattern) for {op.text}")
    fix = None
    if f32 is not None:
        message += (f"; its f32 pattern is 0x{f32:08X}, which wave-lsp emits unless compatibility "
                    f"mode is on — write the pattern to get the same bytes everywhere")
        fix = replace_fix(f"Write the f32 bit pattern 0x{f32:08X}", op.start, op.end, f"0x{f32:08X}")
    return LineFinding("U504", op.start, op.end, message, fix)


def _scope(op: Operand) -> list[LineFinding]:
    word = op.text[1:] if op.syntax is Syn.DOTTED else op.text
    if op.syntax in (Syn.DOTTED, Syn.NAME) and word in SCOPE_BY_NAME:
        return []
    message = f"expected scope specifier {SCOPE_LIST}, found '{op.text}'"
    close = suggest(word, SCOPE_BY_NAME) if op.syntax in (Syn.DOTTED, Syn.NAME) else []
    fix = None
    if close:
        message += f"; did you mean '.{close[0]}'?"
        fix = replace_fix(f"Replace with '.{close[0]}'", op.start, op.end, f".{close[0]}")
    return [LineFinding("O208", op.start, op.end, message, fix)]


def _legacy_operand(op: Operand) -> list[LineFinding] | None:
    """Findings for operand forms that are never valid today, or None if `op` is not one."""
    if op.syntax is Syn.MEMORY:
        m = _MEMORY.fullmatch(op.text)
        if m:
            return [LineFinding("L402", op.start, op.end,
                                f"memory operands have no brackets: write '{m.group(1)}'",
                                replace_fix(f"Replace with '{m.group(1)}'", op.start, op.end,
                                            m.group(1)))]
        return [LineFinding("L402", op.start, op.end,
                            "memory operands have no brackets or offsets: add the offset to the "
                            "address register with 'iadd' first, then pass that register")]
    if op.syntax is Syn.LEGACY_SPECIAL:
        current = LEGACY_SPECIAL_REGISTERS.get(op.text)
        if current:
            return [LineFinding("L403", op.start, op.end,
                                f"'{op.text}' is spec v0.1 syntax; the special register is '{current}'",
                                replace_fix(f"Replace with '{current}'", op.start, op.end, current))]
        return [LineFinding("L403", op.start, op.end,
                            f"'{op.text}' is not a WAVE special register (use the sr_* names)")]
    if op.syntax is Syn.NEGATED_PREDICATE:
        return [LineFinding("L404", op.start, op.end,
                            f"negated predicate operands are not accepted: invert the comparison "
                            f"that sets p{op.value} (for example icmp_lt <-> icmp_ge) and write "
                            f"'p{op.value}'")]
    return None
