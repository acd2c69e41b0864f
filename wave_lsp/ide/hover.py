"""Hover content: documentation for the element under the cursor, as Markdown.

On a mnemonic: its syntax, operands, semantics, spec section and required capability (all from
the ISA table), then the encoding of this very instruction (words in hex, a table of fields and
values) and its byte offset in the kernel. On registers, special registers, predicates,
directives, scopes, labels and kernels: what they are and what this document says about them.
"""

from __future__ import annotations

from ..isa import (CACHE_HINTS, DIRECTIVE_BY_NAME, INSTRUCTIONS, LEGACY_DIRECTIVES,
                   LEGACY_MNEMONICS, LEGACY_SPECIAL_REGISTERS, MAX_REGISTER, PREDICATE_COUNT,
                   SCOPE_BY_NAME, SPECIAL_BY_NAME, InstructionSpec)
from ..isa.backends import TARGET_NAMES
from ..syntax.ast import Instruction
from .encoding import instruction_views, label_offset
from .locate import Target, TargetKind
from .resources import resources_of
from .state import DocumentState


def spec_markdown(spec: InstructionSpec) -> str:
    """Documentation of a mnemonic, entirely from the ISA table."""
    operands = "\n".join(
        f"- `{op.name}`: {op.kind.value} → field `{op.field.value}`"
        + (" (optional)" if op.optional else "")
        + (" (or a special register, as mov_sr)" if op.also_special else "")
        for op in spec.operands) or "- none"
    capability = f"\n\n**Requires** `{spec.capability.value}`" if spec.capability else ""
    return (f"```wave\n{spec.syntax}\n```\n**{spec.summary}** ({spec.iclass.value})\n\n"
            f"**Operands**\n{operands}\n\n**Semantics** `{spec.semantics}`\n\n"
            f"**Encoding** opcode `0x{spec.opcode:02X}`, modifier {spec.modifier}, "
            f"{spec.size} bytes\n\n**Spec** {spec.spec_section}{capability}")


def encoding_markdown(state: DocumentState, line: int, ins: Instruction, compat: bool = False) -> str:
    """The encoding of the instruction on `line`: offset, words and a table of fields."""
    views = instruction_views(state, line, compat)
    if not views:
        return ""
    view = views[-1] if len(views) == 1 else next(
        (v for v in views if getattr(v, "line", line) == line), views[-1])
    kernel = f" in kernel `{view.kernel}`" if getattr(view, "kernel", None) else ""
    rows = "\n".join(
        f"| {f.name} | {f.hi}:{f.lo} | {_value(f.value)} | {f.meaning or ''} |"
        for f in view.fields)
    return (f"\n\n---\n**This instruction**: byte offset `0x{view.offset:04X}` "
            f"({view.offset}){kernel}, {view.size} bytes: `{view.hex}`\n\n"
            f"| field | bits | value | meaning |\n|---|---|---|---|\n{rows}")


def _value(value) -> str:
    return f"{value} (0x{value:X})" if isinstance(value, int) and value > 9 else str(value)


def mnemonic_markdown(state: DocumentState, target: Target, compat: bool = False) -> str:
    ins = target.statement
    assert isinstance(ins, Instruction)
    name = ins.mnemonic.text
    spec = INSTRUCTIONS.get(name)
    if spec is None:
        legacy = LEGACY_MNEMONICS.get(ins.head) or LEGACY_MNEMONICS.get(ins.head.lower()) \
            or LEGACY_MNEMONICS.get(name.lower())
        if legacy is None:
            lower = INSTRUCTIONS.get(name.lower())
            if lower is None:
                return f"`{ins.head}`: not a WAVE instruction"
            return f"`{name}` is written in upper case; wave-asm only accepts `{lower.mnemonic}`" \
                   f"\n\n{spec_markdown(lower)}"
        text = f"`{ins.head}` is obsolete syntax ({legacy.note})"
        if legacy.canonical is not None:
            text += f"; write `{legacy.replacement}`\n\n" + spec_markdown(legacy.canonical)
        return text
    return spec_markdown(spec) + encoding_markdown(state, target.line, ins, compat)


def register_markdown(state: DocumentState, target: Target) -> str:
    text = target.text
    number, _, suffix = text[1:].partition(".")
    try:
        index = int(number)
    except ValueError:
        return f"`{text}`: not a valid register"
    width = _register_width(target)
    if width == 1:
        out = [f"**`{text}`** general-purpose register {index} (32 bits)"]
    else:
        last = index + width - 1
        out = [f"**`{text}`** general-purpose registers r{index}..r{last}: "
               + (f"a 64-bit pair, r{index} the low 32 bits and r{last} the high ones"
                  if width == 2 else f"{32 * width} bits, r{index} the lowest 32")]
        if index % 2:
            out.append("**odd first register**: the spec (§3.3 Register Pairs) has a pair start at an even register")
    if suffix:
        half = {"lo": "bits 15:0", "hi": "bits 31:16"}.get(suffix, "an invalid suffix")
        out.append(f"`.{suffix}`: {half} (the assembler accepts and ignores the suffix)")
    if index + width - 1 > MAX_REGISTER:
        out.append(f"**not encodable**: registers go up to r{MAX_REGISTER}")
    kernel = state.document.program.kernel_at(target.line)
    if kernel is not None:
        count = kernel.register_count
        where = f"`.registers {count}`" if kernel.declares_registers else \
            f"the default of {count} registers"
        if index + width - 1 >= count:
            out.append(f"**beyond** {where} of kernel `{kernel.name}` (valid: r0..r{count - 1})")
        else:
            out.append(f"kernel `{kernel.name}` declares {count} registers ({where})")
    return "\n\n".join(out)


def _register_width(target: Target) -> int:
    """How many registers the hovered operand covers (2 for a pair of an f64 or u64)."""
    stmt = target.statement
    if not isinstance(stmt, Instruction) or target.operand_index is None:
        return 1
    spec = INSTRUCTIONS.get(stmt.mnemonic.text)
    specs = spec.written_operands(len(stmt.operands)) if spec is not None else None
    if specs is None or target.operand_index >= len(specs):
        return 1
    return spec.register_width(specs[target.operand_index])


def special_markdown(text: str) -> str:
    sr = SPECIAL_BY_NAME.get(text)
    if sr is None:
        if text in LEGACY_SPECIAL_REGISTERS:
            new = LEGACY_SPECIAL_REGISTERS[text]
            return f"`{text}` is PTX-style syntax of spec v0.1" + (
                f"; write `{new}`\n\n" + special_markdown(new) if new else "; it has no equivalent")
        return f"`{text}`: not a special register"
    return (f"**`{sr.name}`** special register {sr.index} (read with `mov_sr`)\n\n"
            f"{sr.meaning}\n\n**Range** {sr.value_range}\n\n**Varies per** {sr.varies_per}")


def predicate_markdown(text: str, as_guard: bool) -> str:
    name = text.lstrip("!")
    out = [f"**`{name}`** predicate register (one bit per thread; p0..p{PREDICATE_COUNT - 1})"]
    if text.startswith("!"):
        out.append("`!` negation in an operand is obsolete syntax")
    if as_guard and name == "p0":
        out.append("**`@p0` is encoded as no guard**: wave-asm ignores it (reference §2.5)")
    return "\n\n".join(out)


def directive_markdown(state: DocumentState, target: Target) -> str:
    name = target.text
    directive = DIRECTIVE_BY_NAME.get(name)
    if directive is None:
        new = LEGACY_DIRECTIVES.get(name)
        return f"`.{name}`: unknown directive" + (f"; write `.{new}`" if new else "")
    text = f"```wave\n{directive.syntax}\n```\n{directive.summary}"
    if directive.default:
        text += f"\n\n**Default** {directive.default}"
    if directive.applies_to_kernel:
        text += "\n\nApplies to the most recently opened kernel."
    return text


def label_markdown(state: DocumentState, name: str) -> str:
    defs = state.document.program.labels.get(name)
    if not defs:
        return f"**label `{name}`**: not defined in this file"
    line = defs[0][0]
    text = f"**label `{name}`** defined on line {line + 1}"
    if len(defs) > 1:
        text += f" ({len(defs)} definitions: duplicate)"
    place = label_offset(state, name)
    if place is not None:
        kernel, offset = place
        text += f"\n\nbyte offset `0x{offset:04X}` ({offset})" + (
            f" in kernel `{kernel}`" if kernel else " (outside any kernel)")
    return text


def kernel_markdown(state: DocumentState, name: str, targets=TARGET_NAMES, vendor=()) -> str:
    """A kernel's resource table; `vendor`: the vendors' compilers' figures for it (their
    register counts replace the `.registers` estimate in the occupancy rows)."""
    resources = resources_of(state, name, targets)
    if resources is None:
        return f"`{name}`"
    return (resources.with_vendor(vendor) if vendor else resources).markdown()


def hover_markdown(state: DocumentState, target: Target, compat: bool = False,
                   targets=TARGET_NAMES) -> str | None:
    """The hover text (Markdown) for the element `target` of a document."""
    kind = target.kind
    if kind is TargetKind.MNEMONIC:
        return mnemonic_markdown(state, target, compat)
    if kind is TargetKind.REGISTER:
        return register_markdown(state, target)
    if kind is TargetKind.SPECIAL:
        return special_markdown(target.text)
    if kind in (TargetKind.PREDICATE, TargetKind.GUARD):
        return predicate_markdown(target.text, kind is TargetKind.GUARD)
    if kind is TargetKind.DIRECTIVE:
        return directive_markdown(state, target)
    if kind is TargetKind.SCOPE:
        scope = SCOPE_BY_NAME.get(target.text.lstrip("."))
        return f"**scope `.{scope.name}`** (encoded {scope.value}): {scope.meaning}" if scope \
            else None
    if kind in (TargetKind.LABEL_DEFINITION, TargetKind.LABEL_REFERENCE):
        return label_markdown(state, target.text)
    if kind is TargetKind.KERNEL:
        return kernel_markdown(state, target.text, targets)
    if kind is TargetKind.HINT:
        hint = CACHE_HINTS.get(target.text.lstrip("."))
        return f"`{target.text}`: cache {hint} (no encoding bits)" if hint else None
    return None
