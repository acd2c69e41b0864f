"""The incremental analysis of a document state gives what a fresh analysis of the same text
gives, after any sequence of edits (comments, suppressions, instructions, inserted and removed
lines, severity overrides), and keeps its result (the same objects) across an edit that changes
only a comment; the formatter never changes what a line means; the clean corpus is clean."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from conftest import distinct_source
from wave_lsp.analysis import Config, Severity, analyze
from wave_lsp.ide.formatting import _signature, format_lines
from wave_lsp.ide.state import DocumentState
from wave_lsp.syntax.document import Document
from wave_lsp.syntax.parser import parse_line

CONFIGS = (Config(), Config(severities={"P806": Severity.WARNING, "U504": Severity.ERROR}))
MARKERS = (" ; wave-lsp: ignore", " ; wave-lsp: ignore[U504]", " ; wave-lsp: ignore[X1]")


def _edit(state: DocumentState, rng: random.Random, step: int):
    lines = state.lines
    n = rng.randrange(len(lines) - 2)
    kind = step % 5
    if kind == 0:
        return (n, 0), (n, 0), f"    iadd r{step % 40}, r2, r3 ; line {n}\n"
    if kind == 1:
        return (n, 0), (n + 1, 0), ""
    if kind == 2:
        return (n, len(lines[n])), (n, len(lines[n])), f" ; note {step}"
    if kind == 3:       # a suppression marker on a line with a diagnostic
        found = state.diagnostics(CONFIGS[0])
        m = found[rng.randrange(len(found))].range.start_line if found else n
        return (m, len(lines[m])), (m, len(lines[m])), rng.choice(MARKERS)
    marked = [m for m, text in enumerate(lines) if "wave-lsp: ignore" in text]
    if marked:          # a marker removed again
        m = rng.choice(marked)
        return (m, lines[m].index(" ; wave-lsp")), (m, len(lines[m])), ""
    col = lines[n].find(",")
    return (n, col + 1), (n, col + 1), " " if col >= 0 else ""


@pytest.mark.parametrize("clean", [False, True], ids=["many diagnostics", "clean"])
def test_incremental_diagnostics_equal_a_fresh_analysis_after_edits(clean):
    # 1,200 lines (five kernels): every regression of the incremental analysis that 3,000 lines
    # caught is caught here at the same step (each mechanism broken in turn)
    state = DocumentState("file:///a.wave", distinct_source(1_200, seed=5, clean=clean), 1)
    rng = random.Random(7)
    state.diagnostics(CONFIGS[0])
    for step in range(2, 90):
        state.apply_edit(*_edit(state, rng, step), step)
        config = CONFIGS[step % 2]
        got = state.diagnostics(config)
        # A fresh analysis (0.1 s) after every third edit and the last: every edit kind meets
        # both configurations there (3, 5 and 2 are coprime), each edit still updates the state.
        if step % 3 and step != 89:
            continue
        want = analyze(Document(state.text), config)
        assert got == want, (step, [d for d in got if d not in want][:2],
                             [d for d in want if d not in got][:2])


def test_a_comment_edit_keeps_the_diagnostics_and_a_marker_does_not():
    state = DocumentState("file:///a.wave", distinct_source(3_000, seed=6), 1)
    before = state.diagnostics()
    target = next(d for d in before if d.code == "U504")
    line = target.range.start_line
    state.apply_edit((line, len(state.lines[line])), (line, len(state.lines[line])),
                     " ; a comment", 2)
    after = state.diagnostics()
    assert len(after) == len(before) and all(a is b for a, b in zip(after, before))
    state.apply_edit((line, len(state.lines[line])), (line, len(state.lines[line])),
                     " wave-lsp: ignore[U504]", 3)
    suppressed = state.diagnostics()
    assert target not in suppressed and len(suppressed) == len(before) - 1
    assert suppressed == analyze(Document(state.text))


@pytest.mark.parametrize("clean", [False, True], ids=["many diagnostics", "clean"])
def test_formatting_only_changes_blanks(clean):
    text = distinct_source(4_000, seed=8, clean=clean)
    lines = text.split("\n")
    # blanks moved around, as a file written by hand has them
    rng = random.Random(3)
    lines = [l.replace(", ", rng.choice((",", ", ", " , ", ",\t"))).replace("    ", rng.choice(
        ("", "  ", "\t", "        "))) for l in lines]
    formatted = format_lines(lines)
    changed = [(old, new) for old, new in zip(lines, formatted) if old != new]
    assert len(changed) > len(lines) // 2
    for old, new in changed:
        assert _signature(parse_line(new)) == _signature(parse_line(old)), (old, new)
    assert format_lines(formatted) == formatted


def test_the_clean_corpus_is_mostly_clean_and_the_other_is_not():
    clean = Counter(d.code for d in DocumentState(
        "file:///c.wave", distinct_source(6_000, seed=9, clean=True), 1).diagnostics())
    many = Counter(d.code for d in DocumentState(
        "file:///m.wave", distinct_source(6_000, seed=9), 1).diagnostics())
    assert sum(clean.values()) < 6_000 // 200, clean
    assert not {"P801", "U504", "D605", "D606"} & set(clean), clean
    assert sum(many.values()) > 6_000 // 20, many


@pytest.mark.parametrize("name", ["structured", "math", "calls", "annotated"])
def test_incremental_diagnostics_equal_a_fresh_analysis_on_every_generator(name):
    from corpus_kernels import GENERATORS
    state = DocumentState("file:///g.wave", GENERATORS[name](1_500, 12), 1)
    rng = random.Random(13)
    state.diagnostics(CONFIGS[0])
    for step in range(2, 40):
        state.apply_edit(*_edit(state, rng, step), step)
        config = CONFIGS[step % 2]
        assert state.diagnostics(config) == analyze(Document(state.text), config), step


def test_program_level_diagnostics_stay_the_same_objects_across_an_instruction_edit():
    """A file of many calls has a thousand C701s, recomputed on every edit: those that stay
    equal are the previous objects (the server reuses its conversions by identity)."""
    from corpus_kernels import GENERATORS
    state = DocumentState("file:///c.wave", GENERATORS["calls"](6_000, 3), 1)
    before = state.diagnostics()
    calls = [d for d in before if d.code == "C701"]
    assert len(calls) > 100
    row = next(n for n, text in enumerate(state.lines)
               if text.startswith("    iadd ") and ", r" in text)
    col = state.lines[row].rindex(", r") + 3
    state.apply_edit((row, col), (row, col + 1), "9", 2)
    after = state.diagnostics()
    assert after == analyze(Document(state.text))
    kept = {id(d) for d in before}
    assert all(id(d) in kept for d in after if d.code == "C701")
