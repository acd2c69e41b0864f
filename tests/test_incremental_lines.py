"""Edits that add or remove lines keep the incremental state exact: the patched program equals a
fresh build, and the incremental analysis equals a fresh one (diagnostics of the kernels after
the edit move with them, messages included)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from wave_lsp.analysis import AnalysisState, analyze
from wave_lsp.syntax.document import Document
from wave_lsp.syntax.program import build_program

BASE = """; two kernels and a function
.kernel first
.registers 8
    mov_sr r0, sr_lane_id
    icmp_lt p1, r0, r1
    if p1
        wave_reduce_add r2, r0
        barrier
    endif
    call helper
    halt
helper:
    mov_imm r9, 1.5
    return
.end
.registers 12
.kernel second
    mov_sr r1, sr_thread_id_x
    loop
        icmp_ge p2, r1, r3
        break p2
        wave_shuffle r4, r1, r2
        barrier
    endloop
    @p0 nop
.end
"""
PIECES = ["    nop", "    iadd r1, r2, r3", "    mov_sr r5, sr_lane_id", "; comment",
          "", "    wave_ballot p1, r0", "    barrier", "    @p1 mov_imm r2, 7",
          "    iadd r1, r2, r3\n    nop", "\n", "    if p1", "    endif", "x:", ".end",
          ".registers 4", "    @p0 nop ; between"]
N = BASE.count("\n")
STRAY = ["    nop", "    iadd r1, r2, r3", "", "; note", "    barrier\n    nop"]


def edit_strategy():
    line = st.integers(0, N + 4)
    return st.one_of(
        st.tuples(st.just("insert"), line, st.sampled_from(PIECES)),
        st.tuples(st.just("delete"), line, st.integers(1, 3)),
        st.tuples(st.just("split"), line, st.integers(0, 12)),
    )


def apply(doc: Document, edit) -> None:
    kind, line, arg = edit
    line = min(line, len(doc.lines) - 1)
    if kind == "insert":
        doc.apply_edit((line, 0), (line, 0), arg + "\n")
    elif kind == "delete":
        last = min(line + arg, len(doc.lines) - 1)
        doc.apply_edit((line, 0), (last, 0), "")
    else:
        doc.apply_edit((line, arg), (line, arg), "\n")


def test_edits_between_kernels_keep_the_kernels():
    doc = Document(BASE.replace(".end\n.registers 12", ".end\n\n.registers 12"))
    state = AnalysisState(doc)
    analyze(doc, state=state)
    kernels = list(doc.program.kernels)
    assert doc.lines[15] == ""
    for piece in STRAY:                       # after the first .end, before `.registers 12`
        doc.apply_edit((15, 0), (15, 0), piece + "\n")
        assert doc.edits[-1].patched and doc.program.kernels == kernels
        assert all(a is b for a, b in zip(doc.program.kernels, kernels))
        assert doc.program == build_program(doc.syntax)
        assert analyze(doc, state=state) == analyze(Document(doc.text))


@settings(max_examples=500, deadline=None)
@given(st.lists(edit_strategy(), min_size=1, max_size=8))
def test_line_insertions_and_deletions_stay_exact(edits):
    doc = Document(BASE)
    state = AnalysisState(doc)
    analyze(doc, state=state)
    for edit in edits:
        apply(doc, edit)
        incremental = analyze(doc, state=state)
        assert doc.program == build_program(doc.syntax)
        assert incremental == analyze(Document(doc.text))


def test_kernels_after_an_inserted_line_keep_their_objects():
    doc = Document(BASE)
    state = AnalysisState(doc)
    before = analyze(doc, state=state)
    second = doc.program.kernels[1]
    doc.apply_edit((3, 0), (3, 0), "    nop\n    nop\n")
    after = analyze(doc, state=state)
    assert doc.program.kernels[1] is second and second.line == 18
    assert doc.edits[-1].patched
    moved = [d for d in after if d.range.start_line > 16]
    assert moved and [d.range.start_line - 2 for d in moved] == \
        [d.range.start_line for d in before if d.range.start_line > 14]
    assert after == analyze(Document(doc.text))


def multi_change_strategy():
    """One `didChange` with several changes, in any order (multi-cursor edits, replace-all):
    each change is an edit of the text as the changes before it left it."""
    return st.lists(edit_strategy(), min_size=2, max_size=6)


@settings(max_examples=400, deadline=None)
@given(st.lists(edit_strategy(), min_size=0, max_size=3), multi_change_strategy())
def test_several_changes_in_one_notification_equal_a_fresh_analysis(before, changes):
    doc = Document(BASE)
    state = AnalysisState(doc)
    analyze(doc, state=state)
    for edit in before:
        apply(doc, edit)
        analyze(doc, state=state)
    for edit in changes:                     # no analysis between the changes of one batch
        apply(doc, edit)
    assert doc.program == build_program(doc.syntax)
    assert analyze(doc, state=state) == analyze(Document(doc.text))


def test_a_change_above_an_earlier_one_keeps_the_earlier_lines_diagnostics():
    doc = Document(BASE)
    state = AnalysisState(doc)
    analyze(doc, state=state)
    doc.apply_edit((12, 0), (12, 0), "    mov_imm r1, 1.5\n")   # a warning at line 12
    doc.apply_edit((2, 0), (2, 0), "    nop\n    nop\n")          # then two lines above it
    got = analyze(doc, state=state)
    assert got == analyze(Document(doc.text))
    assert any(d.range.start_line == 14 for d in got)
