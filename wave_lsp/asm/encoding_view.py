"""The encoding view: for an instruction in a document, its offset, words and every field.

Computed from the syntax tree and the ISA table only: instruction offsets come from the layout
pass (sizes from the ISA; the IDE layer's document state keeps one layout per revision and passes
it in) and only the instructions on the asked line are encoded, so a hover on a 20,000-line
document costs a dictionary lookup and one encode. An instruction that cannot be encoded gets a
partial view with its error; any other failure is reported (analysis/failures.py).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..isa import OPCODE_NAMES, SCOPE_BY_VALUE, SPECIAL_BY_INDEX, Field, OperandKind
from ..isa.encoding import MODIFIER, OPCODE, PRED_NEG, PRED_REG, RD, RS1, RS2, RS3, RS4, SCOPE
from ..isa.encoding import WORD1_VALUE, BitField
from ..analysis.failures import guarded
from ..syntax.document import Document
from .disassembler import immediate_text, upstream_cas
from .encoder import EncodingError, encode_instruction
from .ir import DecodedInstruction
from ..analysis.layout import CodeLayout, Placed, layout_document

_FIELD_OF_BITS = {RD: Field.RD, RS1: Field.RS1, RS2: Field.RS2, RS3: Field.RS3, RS4: Field.RS4,
                  SCOPE: Field.SCOPE}


@dataclass(frozen=True)
class FieldView:
    """One encoded field: `name` bits `hi:lo` of word `word` hold `value`, which means
    `meaning` (e.g. rd 23:16 = 4, meaning `r4`)."""

    name: str
    hi: int
    lo: int
    value: int
    meaning: str
    word: int = 0

    @property
    def text(self) -> str:
        return f"{self.name} = {self.meaning}"


@dataclass(frozen=True)
class InstructionView:
    """An instruction's encoding as the editor shows it."""

    kernel: str | None        # None outside any kernel
    line: int
    start: int                # columns of the instruction on its line
    end: int
    mnemonic: str             # as encoded (`mov rX, sr_*` is mov_sr)
    offset: int               # bytes from the kernel's start
    size: int
    words: tuple[int, ...]    # empty when the instruction cannot be encoded
    fields: list[FieldView] = field(default_factory=list)
    error: str | None = None

    @property
    def hex(self) -> str:
        """The words as wave-asm tables print them, e.g. `3D010200 03000002`."""
        return " ".join(f"{w:08X}" for w in self.words)

    @property
    def bytes_hex(self) -> str:
        """The bytes as they lie in the file (little-endian), e.g. `00 02 01 3d`."""
        return " ".join(f"{b:02x}" for w in self.words for b in w.to_bytes(4, "little"))


def kernel_code_sizes(document: Document, layout: CodeLayout | None = None) -> dict[str, int]:
    """Code bytes per kernel name (the first kernel of a duplicated name)."""
    sizes: dict[str, int] = {}
    for kl in (layout or layout_document(document)).kernels:
        sizes.setdefault(kl.name, kl.size)
    return sizes


def instruction_views(document: Document, line: int, compat: bool = False,
                      layout: CodeLayout | None = None,
                      fields: bool = True) -> list[InstructionView]:
    """Views of the instructions on a source line (0-based); [] when there are none. `layout`
    is the document's current layout (computed when not given); `fields=False` leaves out the
    field views (for what only shows the words: inlay hints)."""
    views: list[InstructionView] = []
    with guarded(f"encoding view of line {line + 1}"):
        layout = layout or layout_document(document)
        views = [_view(placed, layout, compat, fields)
                 for placed in layout.by_line.get(line, ())]
    return views


def _view(placed: Placed, layout: CodeLayout, compat: bool,
          fields: bool = True) -> InstructionView:
    ins = placed.instruction
    kernel = placed.kernel
    spec = placed.spec
    common = dict(kernel=kernel.name if kernel else None, line=placed.line, start=ins.start,
                  end=ins.end, offset=placed.offset, size=placed.size)
    if spec is None:
        return InstructionView(mnemonic=ins.mnemonic.text, words=(),
                               error=f"unknown instruction '{ins.mnemonic.text}'", **common)

    def target_of(name: str) -> int | None:
        return layout.call_target(name, kernel, compat)

    try:
        decoded = encode_instruction(ins, placed.offset, target_of, compat, placed.line)
    except EncodingError as err:
        partial = [FieldView(OPCODE.name, OPCODE.hi, OPCODE.lo, spec.opcode,
                             _opcode_meaning(spec.opcode, spec.mnemonic)),
                   FieldView(MODIFIER.name, MODIFIER.hi, MODIFIER.lo, spec.modifier,
                             spec.mnemonic)]
        return InstructionView(mnemonic=spec.mnemonic, words=(), fields=partial,
                               error=err.message, **common)
    words = (decoded.word0,) if decoded.word1 is None else (decoded.word0, decoded.word1)
    label = ins.operands[0].text if spec.mnemonic == "call" and ins.operands else None
    return InstructionView(mnemonic=spec.mnemonic, words=words,
                           fields=field_views(decoded, compat, label) if fields else [],
                           **common)


def _opcode_meaning(opcode: int, mnemonic: str) -> str:
    group = OPCODE_NAMES.get(opcode)
    return f"0x{opcode:02X} ({group})" if group else f"0x{opcode:02X} ({mnemonic})"


def _bits(bits: BitField, value: int, meaning: str) -> FieldView:
    return FieldView(bits.name, bits.hi, bits.lo, value, meaning, bits.word)


def field_views(ins: DecodedInstruction, compat: bool = False,
                label: str | None = None) -> list[FieldView]:
    """Every field of an encoded instruction with its meaning, word0 first."""
    spec = ins.spec
    cas = upstream_cas(ins) if compat else None
    shown = cas or spec
    slots = {op.field: op for op in shown.operands}
    modifier = f"{spec.mnemonic}" if cas is None else \
        f"{spec.mnemonic} (wave-asm's encoding of {cas.mnemonic}; the spec says " \
        f"{cas.modifier})"
    views = [_bits(OPCODE, spec.opcode, _opcode_meaning(spec.opcode, spec.mnemonic)),
             _register_view(RD, ins.rd, slots),
             _register_view(RS1, ins.rs1, slots),
             _bits(MODIFIER, spec.modifier, modifier),
             _pred_view(ins)]
    if ins.word1 is None:
        return views
    whole = slots.get(Field.IMM) or slots.get(Field.TARGET)
    if whole is not None:
        if whole.field is Field.IMM:
            meaning = f"{immediate_text(ins.imm)} ({ins.imm}; as f32 {_f32(ins.imm)})"
            name = "imm"
        else:
            meaning = f"0x{ins.imm:04X}" + (f" ({label})" if label else "")
            name = "target"
        views.append(FieldView(name, WORD1_VALUE.hi, WORD1_VALUE.lo, ins.imm, meaning, 1))
        return views
    for bits, value in ((RS2, ins.rs2), (RS3, ins.rs3), (RS4, ins.rs4)):
        views.append(_register_view(bits, value, slots))
    scope_slot = slots.get(Field.SCOPE)
    meaning = "." + SCOPE_BY_VALUE[ins.scope].name if scope_slot else "unused"
    views.append(_bits(SCOPE, ins.scope, meaning))
    return views


def _register_view(bits: BitField, value: int, slots: dict) -> FieldView:
    slot = slots.get(_FIELD_OF_BITS[bits])
    if slot is None:
        return _bits(bits, value, "unused" if value == 0 else f"unused ({value})")
    kind = slot.kind
    if kind is OperandKind.PREDICATE:
        text = f"p{value}"
    elif kind is OperandKind.SPECIAL:
        sr = SPECIAL_BY_INDEX.get(value)
        text = f"{sr.name} (index {value})" if sr else f"special register {value}"
    else:
        text = f"r{value}"
    if slot.name not in (bits.name, "pd", "ps", "sr") and not slot.optional:
        text = f"{text} ({slot.name})"
    elif slot.optional and value == 0:
        text = "r0 (no result: non-returning)"
    return _bits(bits, value, text)


def _pred_view(ins: DecodedInstruction) -> FieldView:
    value = (int(ins.pred_neg) << PRED_NEG.lo) | (ins.pred_reg << PRED_REG.lo)
    if ins.pred_neg:
        meaning = f"!p{ins.pred_reg}"
    elif ins.pred_reg:
        meaning = f"p{ins.pred_reg}"
    else:
        meaning = "none (unconditional; @p0 also encodes as none)"
    return FieldView("pred", PRED_NEG.hi, PRED_REG.lo, value, meaning, 0)


def _f32(word: int) -> str:
    return repr(struct.unpack("<f", word.to_bytes(4, "little"))[0])


def encoding_listing(document: Document, compat: bool = False,
                     layout: CodeLayout | None = None) -> str:
    """The document's encoded words beside its source, one row per instruction, as a read-only
    listing for an editor pane: a header per kernel, then `OFFSET  WORDS  LINE  SOURCE`.
    Instructions that do not encode show their error instead of words. `layout` is the
    document's current layout (computed when not given)."""
    layout = layout or layout_document(document)
    views = [view for line in sorted(layout.by_line)
             for view in instruction_views(document, line, compat, layout)]
    width = max((len(view.hex) for view in views), default=8)
    mode = "wave-asm compatibility" if compat else "specification"
    rows = [f"; {document.uri or 'document'}: encoded words ({mode} mode)"]
    kernel: object = object()
    for view in views:
        if view.kernel != kernel:
            kernel = view.kernel
            rows += ["", f"; kernel {kernel}" if kernel else "; outside any kernel"]
        words = view.hex if view.words else f"<{view.error}>"
        source = document.lines[view.line][view.start:view.end]
        rows.append(f"{view.offset:04x}  {words:<{width}}  {view.line + 1:>5}  {source}")
    return "\n".join(rows) + "\n"
