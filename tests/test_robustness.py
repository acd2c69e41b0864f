"""The parser and the analysis never raise, whatever the text."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from wave_lsp.analysis import analyze
from wave_lsp.syntax.document import Document
from wave_lsp.syntax.parser import parse_line

WAVE_BITS = [".kernel k", ".end", ".registers 8", "iadd r1, r2, r3", "@!p1 ", "if p1", "endif",
             "loop", "break p1", "endloop", "halt", "call f", "f:", "mov_imm r1, 1.5", "[r1+4]",
             "%tid.x", ";c", "#c", ",", "\t", "\r\n", "\r", "\n", "\x00", "𝔘", "é", "sr_", "p9",
             "r300", "-0x", "0X1", ".5", "@", "!", "ADD", "add.s32", "atomic_add.device"]

wave_like = st.lists(st.sampled_from(WAVE_BITS) | st.text(max_size=5), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text(text):
    analyze(Document(text))


@settings(max_examples=300, deadline=None)
@given(wave_like)
def test_wave_like_text(text):
    diags = analyze(Document(text))
    for d in diags:
        assert d.range.start_line <= d.range.end_line
        assert d.message


def test_huge_and_truncated_lines():
    huge = "    iadd r1, r2, r3 ; " + "x" * 100_000
    line = parse_line(huge)
    assert line.problem is None and line.comment.end == len(huge)
    assert line.statements[0].mnemonic.text == "iadd"
    assert analyze(".kernel k\n" + huge + "\n    halt\n.end\n") == []
    diags = analyze(".kernel k\n" + "    iadd " + "r1, " * 30_000 + "\n.end\n")
    assert diags
    for cut in range(0, len("    atomic_add r1, r2, r3, .device"), 3):
        analyze(".kernel k\n" + "    atomic_add r1, r2, r3, .device"[:cut] + "\n.end\n")
