"""The encoding view: offsets, words and fields of the instructions on a line, from the syntax
tree alone, cached per document revision, and never raising."""

from __future__ import annotations

import pytest

from wave_lsp.asm import assemble
from wave_lsp.asm.encoding_view import instruction_views, kernel_code_sizes
from wave_lsp.syntax.document import Document

SOURCE = """\
.kernel first
    mov r4, sr_lane_id
    @!p2 fcos r4, r1
    call fn
    atomic_cas r1, r2, r3, r4, .device
fn: iadd r1, r2, bogus
    mov_imm r9, 1.5
    halt
.end
.kernel second
    @p1 device_store_u32 r5, r4
    frobnicate r1
.end
"""


def _view(document: Document, line: int, compat: bool = False):
    (view,) = instruction_views(document, line, compat)
    return view


def _fields(view) -> dict[str, str]:
    return {f.name: f.meaning for f in view.fields}


def test_fields_of_a_guarded_unary_op():
    view = _view(Document(SOURCE), 2)
    assert (view.kernel, view.offset, view.size, view.mnemonic) == ("first", 4, 4, "fcos")
    assert view.words == (0x1B040196,) and view.hex == "1B040196"
    assert view.bytes_hex == "96 01 04 1b"
    fields = {f.name: f for f in view.fields}
    assert (fields["rd"].hi, fields["rd"].lo, fields["rd"].value) == (23, 16, 4)
    assert fields["rd"].text == "rd = r4"
    assert (fields["modifier"].value, fields["modifier"].meaning) == (9, "fcos")
    assert fields["pred"].text == "pred = !p2" and fields["pred"].value == 0b110
    assert fields["opcode"].meaning == "0x1B (FUnaryOps)"


def test_mov_of_special_register_shows_mov_sr():
    view = _view(Document(SOURCE), 1)
    assert view.mnemonic == "mov_sr" and view.words == (0x41040420,)
    assert _fields(view)["rs1"].startswith("sr_lane_id")


def test_call_target_in_both_modes():
    document = Document(SOURCE)
    ours, upstream = _view(document, 3), _view(document, 3, compat=True)
    # fn is after mov_sr (4), fcos (4), call (8), atomic_cas (8): true offset 24;
    # wave-asm's label pass counts 4 + 4 + 8 + 8 = 24 as well here
    assert ours.words[1] == 24 and _fields(ours)["target"] == "0x0018 (fn)"
    assert upstream.words[1] == 24
    assert [f.word for f in ours.fields][-1] == 1


def test_cas_modifier_per_mode():
    document = Document(SOURCE)
    ours, upstream = _view(document, 4), _view(document, 4, compat=True)
    assert _fields(ours)["modifier"] == "atomic_cas"
    assert "wave-asm's encoding of atomic_cas" in _fields(upstream)["modifier"]
    assert ours.words[0] ^ upstream.words[0] == 0x80
    assert _fields(ours)["rs3"] == "r4 (rdesired)" and _fields(ours)["scope"] == ".device"


def test_float_immediate_per_mode():
    document = Document(SOURCE)
    assert _view(document, 6).words[1] == 0x3FC00000
    assert _view(document, 6, compat=True).words[1] == 0
    assert "as f32 1.5" in _fields(_view(document, 6))["imm"]


def test_line_with_an_error_gives_a_partial_view():
    view = _view(Document(SOURCE), 5)
    assert view.words == () and "expected register operand" in view.error
    assert (view.offset, view.size) == (24, 8)
    assert _fields(view)["opcode"] == "0x00 (iadd)"
    unknown = _view(Document(SOURCE), 11)
    assert unknown.error == "unknown instruction 'frobnicate'" and unknown.size == 0


def test_offsets_are_per_kernel_and_unused_fields_are_marked():
    view = _view(Document(SOURCE), 10)
    assert (view.kernel, view.offset) == ("second", 0)
    fields = _fields(view)
    assert fields["rd"] == "unused" and fields["rs1"] == "r5 (raddr)"
    assert fields["pred"] == "p1"


@pytest.mark.parametrize("line", [0, 8, 9, 12, 13, 100, -1])
def test_lines_without_instructions(line):
    assert instruction_views(Document(SOURCE), line) == []


def test_kernel_code_sizes_match_the_assembler():
    source = ".kernel a\n    iadd r1, r2, r3\n    halt\n.end\n.kernel b\n.end\n"
    assert kernel_code_sizes(Document(source)) == {"a": 12, "b": 0}
    assert [len(k.code) for k in assemble(source).kernels] == [12, 0]


def test_views_follow_edits():
    document = Document(SOURCE)
    assert _view(document, 2).offset == 4
    document.apply_edit((1, 0), (1, 0), "    iadd r1, r2, r3\n")
    assert _view(document, 3).offset == 12
    assert kernel_code_sizes(document)["first"] == 44 + 8


def test_views_agree_with_the_assembler_on_a_real_program():
    source = ".kernel k\n" + "".join(
        f"    iadd r{i}, r{i}, r1\n    mov_imm r2, {i}\n    @!p0 fsin r3, r{i}\n"
        for i in range(20)) + "    halt\n.end\n"
    document = Document(source)
    (kernel,) = assemble(document).kernels
    for ins in kernel.instructions:
        (view,) = instruction_views(document, ins.line)
        words = (ins.word0,) if ins.word1 is None else (ins.word0, ins.word1)
        assert (view.offset, view.words) == (ins.offset, words)
