"""Checks that need nothing but one line: syntax, guards, mnemonics, operands, directive forms.

Results are cached by the line's text, so re-analysing a document after an edit only checks the
lines that changed.
"""

from __future__ import annotations


from ..isa import BY_ENCODING, DIRECTIVE_BY_NAME, LEGACY_DIRECTIVES, MAX_REGISTER, ArgKind
from ..syntax.ast import Directive, Guard, Instruction, Label, OperandSyntax as Syn
from ..syntax.memo import line_memo
from ..syntax.parser import BOM, parse_line
from .findings import LineFinding, replace_fix
from .mnemonics import resolve, suggest
from .operand_checks import bad_name, check_operands



@line_memo
def check_line(text: str) -> tuple[LineFinding, ...]:
    """Every finding on one line of source."""
    if text.startswith(BOM):     # wave-asm rejects it: one error, the line itself analysed
        return (LineFinding("S101", 0, 1, "a UTF-8 byte order mark: wave-asm rejects it as an "
                            "unexpected character; save the file without it",
                            replace_fix("Remove the byte order mark", 0, 1, "")),
                *check_line(" " + text[1:]))
    syntax = parse_line(text)
    if syntax.problem:
        p = syntax.problem
        return (LineFinding("S101", p.start, max(p.end, p.start), p.message),)
    out: list[LineFinding] = []
    for stmt in syntax.statements:
        if isinstance(stmt, Instruction):
            out.extend(_instruction(stmt))
        elif isinstance(stmt, Label):
            why = bad_name(stmt.name.text)
            if why:
                out.append(LineFinding("S104", stmt.name.start, stmt.name.end,
                                       f"label name '{stmt.name.text}' {why}"))
        else:
            out.extend(_directive(stmt))
    return tuple(out)


def _instruction(ins: Instruction) -> list[LineFinding]:
    out: list[LineFinding] = []
    if ins.guard is not None:
        out.extend(_guard(ins.guard))
    resolution = resolve(ins)
    out.extend(resolution.findings)
    out.extend(check_operands(ins, resolution.spec, resolution.scope_suffix))
    spec = resolution.spec
    if spec is not None and spec.mnemonic == ins.mnemonic.text:
        span = (ins.mnemonic.start, ins.mnemonic.end)
        if spec.upstream_modifier != spec.modifier:     # the CAS pair (reference §8.3 #1)
            plain = BY_ENCODING[(spec.opcode, spec.upstream_modifier)].mnemonic
            out.append(LineFinding(
                "U507", *span,
                f"wave-asm encodes {spec.mnemonic} with modifier 0, the same bits as {plain}: "
                f"the upstream emulator adds instead of comparing; wave-lsp emits modifier "
                f"{spec.modifier} unless compatibility mode is on"))
        elif spec.mnemonic == "continue":
            out.append(LineFinding(
                "U508", *span,
                "the upstream wave-emu live-locks when every active lane continues, and restarts "
                "the iteration for the others; wave-lsp's emulator follows the specification"))
    return out


def _guard(guard: Guard) -> list[LineFinding]:
    reg = guard.register
    bang = "!" if guard.negated else ""
    if guard.index is None:
        return [LineFinding("S103", guard.start, guard.end,
                            f"invalid predicate syntax: a guard is @pN or @!pN (p0-p3), "
                            f"found '{reg.text}'")]
    if guard.index > 3:
        return [LineFinding("O210", reg.start, reg.end,
                            f"invalid predicate register index {guard.index}: must be 0-3")]
    if guard.spaced:
        return [LineFinding("S103", guard.start, guard.end,
                            "invalid predicate syntax: no spaces inside a guard",
                            replace_fix("Remove the spaces", guard.start, guard.end,
                                        f"@{bang}{reg.text}"))]
    if guard.index == 0 and not guard.negated:
        return [LineFinding("U501", guard.start, guard.end,
                            "wave-asm encodes '@p0' as no guard: the instruction runs "
                            "unconditionally; use p1-p3 for guards")]
    return []


def _directive(d: Directive) -> list[LineFinding]:
    name = d.name.text
    spec = DIRECTIVE_BY_NAME.get(name)
    span = (d.start, d.name.end)
    if spec is None:
        if name in LEGACY_DIRECTIVES:
            current = LEGACY_DIRECTIVES[name]
            return [LineFinding("L410", *span, f"'.{name}' does not exist: write '.{current}'",
                                replace_fix(f"Replace with '.{current}'", d.name.start,
                                            d.name.end, current))]
        close = suggest(name, DIRECTIVE_BY_NAME)
        message = (f"invalid directive '.{name}' (directives: "
                   f"{', '.join('.' + k for k in DIRECTIVE_BY_NAME)})")
        fix = None
        if close:
            message = f"invalid directive '.{name}'; did you mean '.{close[0]}'?"
            fix = replace_fix(f"Replace with '.{close[0]}'", d.name.start, d.name.end, close[0])
        return [LineFinding("K310", *span, message, fix)]
    args = d.args
    if name == "workgroup_size" and len(args) == 1 and args[0].syntax is Syn.INTEGER:
        a = args[0]
        return [LineFinding("L407", a.start, a.end,
                            ".workgroup_size takes three values X, Y, Z",
                            replace_fix(f"Write '{a.text}, 1, 1'", a.start, a.end,
                                        f"{a.text}, 1, 1"))]
    if len(args) != len(spec.args):
        where = (args[0].start, args[-1].end) if args else span
        return [LineFinding("K311", *where,
                            f"'.{name}' takes {len(spec.args)} argument(s): {spec.syntax}")]
    out: list[LineFinding] = []
    for arg, (arg_name, kind) in zip(args, spec.args):
        if kind is ArgKind.NAME:
            if arg.syntax is not Syn.NAME:
                out.append(LineFinding("K311", arg.start, arg.end,
                                       f"expected a kernel name, found '{arg.text}'"))
            elif bad_name(arg.text):
                out.append(LineFinding("S104", arg.start, arg.end,
                                       f"kernel name '{arg.text}' {bad_name(arg.text)}"))
        elif arg.syntax is not Syn.INTEGER or arg.value is None:
            out.append(LineFinding("K311", arg.start, arg.end,
                                   f"expected an integer for {arg_name}, found '{arg.text}'"))
        elif name == "registers" and not 0 <= arg.value <= MAX_REGISTER + 1:
            out.append(LineFinding("U509", arg.start, arg.end,
                                   f"wave-asm stores {arg.value % (1 << 32)} registers, but only "
                                   f"r0-r{MAX_REGISTER} can be named"))
        elif arg.value < 0 or arg.value > 0xFFFFFFFF:
            out.append(LineFinding("U509", arg.start, arg.end,
                                   f"wave-asm stores {arg.text} as the u32 {arg.value % (1 << 32)}"))
    return out
