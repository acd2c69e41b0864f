"""The line parser's syntax tree (exact ranges) and the document model (incremental edits)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from wave_lsp.syntax.ast import Directive, Instruction, Label, OperandSyntax as Syn
from wave_lsp.syntax.document import Document
from wave_lsp.syntax.parser import parse_line
from wave_lsp.syntax.program import build_program


def spans(text: str, statement) -> list[str]:
    return [text[o.start:o.end] for o in statement.operands]


def test_instruction_ranges():
    text = "  @!p2 atomic_add r1, r2,r3 , .device ; note"
    line = parse_line(text)
    (ins,) = line.statements
    assert isinstance(ins, Instruction)
    assert text[ins.guard.start:ins.guard.end] == "@!p2" and ins.guard.negated and ins.guard.index == 2
    assert text[ins.mnemonic.start:ins.mnemonic.end] == "atomic_add"
    assert spans(text, ins) == ["r1", "r2", "r3", ".device"]
    assert [o.syntax for o in ins.operands] == [Syn.REGISTER] * 3 + [Syn.DOTTED]
    assert text[line.comment.start:line.comment.end] == "; note"


def test_several_statements_on_a_line():
    line = parse_line("top: .kernel main")
    assert [type(s) for s in line.statements] == [Label, Directive]
    line = parse_line(".end junk")
    assert [type(s) for s in line.statements] == [Directive, Instruction]
    assert parse_line("iadd r1, r2, r3 halt").statements[1].mnemonic.text == "halt"
    # upstream reads `halt nop` as halt with a label operand
    assert parse_line("halt nop").statements[0].operands[0].syntax is Syn.NAME


@pytest.mark.parametrize("text,kind,value", [
    ("mov_imm r1, 0x1F", Syn.INTEGER, 31), ("mov_imm r1, -5", Syn.INTEGER, -5),
    ("mov_imm r1, 1_000", Syn.INTEGER, 1000), ("mov_imm r1, 2.5e1", Syn.FLOAT, 25.0),
    ("mov_imm r1, 1.", Syn.FLOAT, 1.0), ("mov_imm r1, -0x10", Syn.INTEGER, None),
    ("mov r1, r2.hi", Syn.REGISTER, 2), ("break !p1", Syn.NEGATED_PREDICATE, 1),
    ("mov r1, %tid.x", Syn.LEGACY_SPECIAL, None), ("LOAD r1, [r2 + 4]", Syn.MEMORY, None),
])
def test_operand_forms(text, kind, value):
    op = parse_line(text).statements[0].operands[-1]
    assert op.syntax is kind and op.value == value


def test_unicode_columns_are_code_points():
    text = "    nop ; 𝔘𝔫𝔦 ✓"
    line = parse_line(text)
    assert line.comment.start == 8 and line.comment.end == len(text)


def test_problem_position():
    p = parse_line("    iadd r1, r2, r3 ]").problem
    assert (p.start, p.end) == (20, 21) and "']'" in p.message


def test_program_structure_and_directive_quirks():
    doc = Document(".registers 4\n.kernel a\n.registers 8\nl1:\n    halt\n.end\n"
                   ".local_memory 64\n.kernel b\n    nop\n")
    p = doc.program
    assert [k.name for k in p.kernels] == ["a", "b"]
    a, b = p.kernels
    assert a.register_count == 8 and a.local_memory == 64  # applies after .end, to the last kernel
    assert b.register_count == 32 and b.closed_by == "eof"
    assert [l.name.text for _, l in a.labels] == ["l1"]
    assert p.outside_settings[0][2] is None and p.outside_settings[1][2] is a
    assert p.kernel_at(4) is a and p.kernel_at(8) is b and p.kernel_at(0) is None


def test_edit_reparses_only_changed_lines():
    doc = Document(".kernel k\n    nop\n    nop\n    halt\n.end\n")
    before = list(doc.syntax)
    changed = doc.apply_edit((2, 4), (2, 7), "iadd r1, r2, r3")
    assert list(changed) == [2]
    assert all(doc.syntax[i] is before[i] for i in (0, 1, 3, 4))
    assert doc.syntax[2].statements[0].mnemonic.text == "iadd"
    assert doc.text == ".kernel k\n    nop\n    iadd r1, r2, r3\n    halt\n.end\n"


def test_line_breaks_lf_crlf_cr():
    doc = Document("a:\r\nb:\rc:\n")
    assert doc.lines == ["a:", "b:", "c:", ""]
    doc.apply_edit((0, 2), (1, 0), "\n")
    assert doc.text == "a:\nb:\rc:\n"


def test_parse_cache_shares_identical_lines():
    doc = Document("    nop\n    nop\n")
    assert doc.syntax[0] is doc.syntax[1]


# ---- property: incremental edits give the same result as parsing the final text -------------
line_text = st.text(alphabet=st.sampled_from(list("iadd r1,2 .kernel:end@p!\t;#\r\n𝔘x")), max_size=30)
positions = st.tuples(st.integers(0, 8), st.integers(0, 40))


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120), st.lists(st.tuples(positions, positions, line_text), max_size=8))
def test_incremental_edits_equal_fresh_parse(initial, edits):
    doc = Document(initial)
    for start, end, new_text in edits:
        doc.program  # noqa: B018 - keep a program alive so that edits patch it in place
        doc.apply_edit(start, end, new_text)
    fresh = Document(doc.text)
    assert doc.lines == fresh.lines
    assert doc.syntax == fresh.syntax
    assert doc.program == fresh.program


KERNEL = ".kernel k\n    nop\n    iadd r1, r2, r3\n    halt\n.end\n"
kernel_edits = st.lists(st.tuples(st.integers(1, 3), st.integers(0, 20), st.integers(0, 20),
                                   st.sampled_from(["nop", "x", " ", "r9", ", r4", "; c",
                                                    "if p1", "endif", "halt"])), max_size=10)


@settings(max_examples=150, deadline=None)
@given(kernel_edits)
def test_in_place_patches_equal_fresh_program(edits):
    """Edits inside one line of a kernel patch the program in place; it must stay exact."""
    doc = Document(KERNEL * 3)
    program = doc.program
    for line, a, b, text in edits:
        doc.apply_edit((line, a), (line, b), text)
        assert doc.program == Document(doc.text).program
    if all(e.patched for e in doc.edits):
        assert doc.program is program


def test_grammar_is_built_in_process_and_never_stored(tmp_path, monkeypatch):
    """The grammar is never cached on disk (a pickle there could run code planted by anyone who
    can write to the cache folder)."""
    from wave_lsp.syntax import grammar

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    grammar.wave_grammar.cache_clear()
    try:
        assert grammar.wave_grammar().parse("halt") is not None
        assert grammar.wave_grammar() is grammar.wave_grammar()  # once per process
        assert not (tmp_path / "wave-lsp").exists()
    finally:
        grammar.wave_grammar.cache_clear()


def test_long_lines_are_parsed_but_never_kept_in_the_line_memo():
    from wave_lsp.syntax.memo import MEMO_MAX_LINE
    from wave_lsp.syntax.parser import parse_line

    long_line = "    iadd r1, r2, r3 ; " + "x" * MEMO_MAX_LINE
    before = parse_line.cache_info().currsize
    assert parse_line(long_line).statements[0].mnemonic.text == "iadd"
    assert parse_line.cache_info().currsize == before
    parse_line("    iadd r1, r2, r4 ; a short line is kept")
    assert parse_line.cache_info().currsize == before + 1
