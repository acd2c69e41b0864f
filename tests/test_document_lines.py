"""The document's lines equal the client's after any edit.

A client keeps the whole text and splits it at LF, CRLF and CR (LSP); `Document` keeps lines and
re-splits only what an edit touched. The reference model here is the client's: one string, edited
by offsets. Random texts and edits mix CR, LF and CRLF so that breaks meet across edit ends.
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from client_text import ClientText
from wave_lsp.syntax.document import Document
from wave_lsp.syntax.parser import parse_line

PIECES = ["\r", "\n", "\r\n", "a", "x y", " ", "\r\r", "\n\n", "halt", "é𝔘"]
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
positions = st.tuples(st.integers(-1, 9), st.integers(0, 5))
edits = st.lists(st.tuples(positions, positions, texts), min_size=1, max_size=12)


def assert_same(doc: Document, ref: ClientText) -> None:
    assert doc.text == ref.text
    assert doc.lines == ref.lines()
    assert doc.line_count() == len(ref.lines())
    assert len(doc.breaks) == len(doc.lines) and doc.breaks[-1] == ""
    assert doc.syntax == [parse_line(line) for line in doc.lines]


@settings(max_examples=1500, deadline=None)
@given(texts, edits)
def test_lines_equal_the_clients_after_random_edits(initial, changes):
    doc, ref = Document(initial), ClientText(initial)
    for start, end, new_text in changes:
        doc.apply_edit(start, end, new_text)
        ref.edit(start, end, new_text)
        assert_same(doc, ref)
    assert doc.program == Document(ref.text).program


def test_deleting_between_cr_and_lf_makes_one_crlf():
    """The reproducer of the issue: the X between a CR and an LF goes, the two become one break."""
    text = ".kernel k\r.registers 4\rX\n    mov_imm r1,   1\n    halt  ; end\n.end\n"
    doc, ref = Document(text), ClientText(text)
    doc.apply_edit((2, 0), (2, 1), "")
    ref.edit((2, 0), (2, 1), "")
    assert_same(doc, ref)
    assert doc.lines[:4] == [".kernel k", ".registers 4", "    mov_imm r1,   1", "    halt  ; end"]
    assert doc.breaks[1] == "\r\n"


def test_emptying_a_whitespace_line_between_cr_and_lf():
    doc = Document("a:\r   \nb:\n")
    doc.apply_edit((1, 0), (1, 3), "")
    assert doc.lines == ["a:", "b:", ""] and doc.breaks == ["\r\n", "\n", ""]


def test_inserting_lf_after_a_final_cr():
    doc = Document("a:\r")
    doc.apply_edit((1, 0), (1, 0), "\nb:")
    assert doc.lines == ["a:", "b:"] and doc.breaks == ["\r\n", ""]
