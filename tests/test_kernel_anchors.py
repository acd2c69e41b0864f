"""Kernel-anchored analysis results (analysis/anchors.py): what the analysis keeps for a kernel is
stored relative to the kernel's first line and made absolute when it is read, so an edit inside
one kernel leaves every other kernel's results as they are (the same objects) while the
positions reported for them move; lines quoted in messages are data, rendered when read; and
no code rewrites message text with a regex over "line N"."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import given, settings, strategies as st

from wave_lsp.analysis import Config, Severity, analyze
from wave_lsp.analysis.anchors import KernelDiagnostic, LineMention, Text, anchored
from wave_lsp.analysis.diagnostic import Range
from wave_lsp.analysis.divergence import divergence_diagnostics
from wave_lsp.ide.state import DocumentState
from wave_lsp.syntax.document import Document

PACKAGE = Path(__file__).resolve().parents[1] / "wave_lsp"

BASE = """; kernel alpha, then beta: both with diagnostics that quote other lines
.kernel alpha
.registers 16
    mov_sr r0, sr_lane_id
    icmp_lt p1, r0, r1
    if p1
        barrier
        wave_reduce_add r2, r0
    endif
    call helper
    halt
helper:
    return
.end
; between the kernels
.kernel beta
.registers 16
    mov_sr r1, sr_thread_id_x
    icmp_lt p2, r1, r3
    @p2 halt
    loop
        icmp_ge p3, r1, r3
        break p3
        wave_shuffle r4, r1, r2
        barrier
    endloop
    dadd r6, r8, r10
    mov_imm r2, 1.5
    halt
.end
"""
CONFIG = Config(severities={"P806": Severity.WARNING}, targets=("ptx", "metal", "hip"))
BETA = BASE.splitlines().index(".kernel beta")


def _beta_state():
    state = DocumentState("file:///anchors.wave", BASE, 1)
    first = state.diagnostics(CONFIG)
    beta = state.program.kernels[1]
    return state, beta, first


def test_an_edit_in_one_kernel_keeps_the_other_kernels_results_and_moves_their_positions():
    state, beta, before = _beta_state()
    analysis = state.analysis
    result = analysis.kernels[id(beta)]
    stored = result.diagnostics.stored
    findings = analysis.portability_findings(beta)
    portability = analysis._portability_diagnostics[id(beta)]
    portability_stored = portability.diagnostics.stored
    u504 = BASE.splitlines().index("    mov_imm r2, 1.5")
    line_findings = analysis.findings[u504]         # a line check's finding in beta
    assert any(d.code.startswith("P8") for d in portability_stored)
    assert any(type(d.message) is Text and any(type(p) is LineMention for p in d.message.parts)
               for d in stored), "beta's messages quote lines as data"

    state.apply_edit((4, 0), (4, 0), "    nop\n    nop\n    nop\n", 2)   # inside alpha
    after = state.diagnostics(CONFIG)

    assert state.program.kernels[1] is beta and beta.line == BETA + 3
    # beta's results: the very same objects, nothing re-created, nothing shifted
    assert analysis.kernels[id(beta)] is result
    assert result.diagnostics.stored is stored
    assert all(a is b for a, b in zip(result.diagnostics.stored, stored))
    assert analysis.portability_findings(beta) is findings
    assert analysis._portability_diagnostics[id(beta)] is portability
    assert portability.diagnostics.stored is portability_stored
    assert analysis.findings[u504 + 3] is line_findings and u504 not in analysis.findings
    # ... while the positions reported for them moved by 3, and their quoted lines with them
    old = [d for d in before if d.range.start_line > BETA]
    new = [d for d in after if d.range.start_line > BETA + 3]
    assert len(old) == len(new) and old
    for o, n in zip(old, new):
        assert (n.code, n.range.start_line) == (o.code, o.range.start_line + 3)
        assert [r.range.start_line for r in n.related] == \
            [r.range.start_line + 3 for r in o.related]
    d604 = next(d for d in new if d.code == "D604")
    halt = BASE.splitlines().index("    @p2 halt")            # 0-based, before the edit
    assert d604.message.startswith(f"barrier after the `halt` at line {halt + 3 + 1},")
    assert d604.related[-1].message.endswith(f"varies per thread, line {BETA + 2 + 3 + 1}")
    assert after == analyze(Document(state.text), CONFIG)


def test_reading_again_at_the_same_place_gives_the_same_objects():
    state, beta, before = _beta_state()
    state.apply_edit((BETA + 2, 0), (BETA + 2, 0), "    nop\n", 2)   # inside beta
    after = state.diagnostics(CONFIG)
    alpha = [d for d in after if d.range.start_line < BETA and d.code[0] in "DP"]
    assert alpha and all(any(a is b for b in before) for a in alpha), \
        "alpha did not move: its kernel diagnostics are the objects read before"


def test_texts_render_their_mentions_where_the_kernel_is():
    text = Text("barrier under the `loop` at ", LineMention(17), ", which may differ")
    assert text.render() == "barrier under the `loop` at line 18, which may differ"
    relative = text.relative_to(15)
    assert relative.parts[1] == LineMention(2)
    assert relative.render(15) == text.render() and relative.render(20) == \
        "barrier under the `loop` at line 23, which may differ"
    joined = Text("a ", Text("b ", LineMention(0)), " c") + " d"
    assert joined.parts == ("a b ", LineMention(0), " c d") and str(joined) == "a b line 1 c d"
    assert text.replace("loop", Text("`if` (", LineMention(3), ")")).render() == \
        "barrier under the ``if` (line 4)` at line 18, which may differ"


def test_anchoring_and_rendering_are_inverse():
    kd = KernelDiagnostic("D601", Severity.ERROR, Range(20, 4, 20, 11),
                          Text("under ", LineMention(18)))
    (stored,) = anchored([kd], 15)
    assert stored.range == Range(5, 4, 5, 11) and stored.message.render(0) == "under line 4"
    back = stored.at(15)
    assert back.range == kd.range and back.message == "under line 19"


# ---- (b) random edits in and between kernels give a fresh analysis's diagnostics ---------------
N = BASE.count("\n")
PIECES = ["    nop", "    iadd r1, r2, r3", "    mov_sr r5, sr_lane_id", "; comment", "",
          "    barrier", "    @p1 mov_imm r2, 7", "    dadd r2, r4, r6", "    if p1",
          "    endif", "    wave_ballot p1, r0", "x:", "\n\n", ".end", ".kernel gamma",
          ".registers 4", "    loop\n    break p1\n    endloop"]


def _edits():
    line = st.integers(0, N + 6)
    return st.lists(st.one_of(
        st.tuples(st.just("insert"), line, st.sampled_from(PIECES)),
        st.tuples(st.just("delete"), line, st.integers(1, 3)),
        st.tuples(st.just("split"), line, st.integers(0, 12))), min_size=1, max_size=10)


def _apply(state: DocumentState, edit, version: int) -> None:
    kind, line, arg = edit
    lines = state.lines
    line = min(line, len(lines) - 1)
    if kind == "insert":
        state.apply_edit((line, 0), (line, 0), arg + "\n", version)
    elif kind == "delete":
        state.apply_edit((line, 0), (min(line + arg, len(lines) - 1), 0), "", version)
    else:
        col = min(arg, len(lines[line]))
        state.apply_edit((line, col), (line, col), "\n", version)


@settings(max_examples=300, deadline=None)
@given(_edits(), st.integers(0, 2))
def test_random_edit_sequences_give_exactly_a_fresh_analysis(edits, read_every):
    state = DocumentState("file:///anchors.wave", BASE, 1)
    state.diagnostics(CONFIG)
    for version, edit in enumerate(edits, 2):
        _apply(state, edit, version)
        if read_every and version % read_every == 0:   # sometimes several edits per read
            state.diagnostics(CONFIG)
    got = state.diagnostics(CONFIG)
    want = analyze(Document(state.text), CONFIG)
    assert [(d.range, d.code, d.message, [(r.range, r.message) for r in d.related])
            for d in got] == \
        [(d.range, d.code, d.message, [(r.range, r.message) for r in d.related]) for d in want]
    assert got == want
    # and the divergence lints, computed without anchors (absolute lines, nothing cached), agree
    plain = sorted(divergence_diagnostics(Document(state.text).program), key=lambda d: d.sort_key)
    assert [d for d in got if d.code.startswith("D6")] == plain


# ---- (c) no message text is rewritten with a regex over "line N" ------------------------------
_PROBES = ("see line 12 here", "(line 7)", "at line 3,")
_REWRITES = {"sub", "subn"}


def _matches_line_numbers(text: str) -> bool:
    """Whether `text`, as a regular expression, matches the digits of "line N"."""
    if "line" not in text.lower() or not re.search(r"\\d|\[0-9\]", text):
        return False
    try:
        pattern = re.compile(text)
    except re.error:
        return False
    return any((m := pattern.search(probe)) and "line" in m.group()
               and any(c.isdigit() for c in m.group()) for probe in _PROBES)


def _line_number_rewrites(tree: ast.AST):
    """Rewrites (`re.sub`, `pattern.sub`, `subn`) with a pattern that matches "line N": the
    pattern given directly, or a name (or attribute) bound to `re.compile(pattern)`."""
    compiled = {}                        # name -> pattern text
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "compile" \
                and node.value.args and isinstance(node.value.args[0], ast.Constant) and \
                isinstance(node.value.args[0].value, str):
            for target in node.targets:
                name = target.id if isinstance(target, ast.Name) else \
                    target.attr if isinstance(target, ast.Attribute) else None
                if name:
                    compiled[name] = node.value.args[0].value
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _REWRITES):
            continue
        owner = node.func.value
        name = owner.id if isinstance(owner, ast.Name) else \
            owner.attr if isinstance(owner, ast.Attribute) else None
        if name == "re" and node.args and isinstance(node.args[0], ast.Constant):
            text = node.args[0].value
        else:
            text = compiled.get(name)
        if isinstance(text, str) and _matches_line_numbers(text):
            yield node.lineno, text


def test_no_code_rewrites_line_numbers_inside_message_text():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [(str(path.relative_to(PACKAGE)), n, text)
                  for n, text in _line_number_rewrites(tree)]
    assert not found, f"a regex rewrite of 'line N' (quote lines as LineMentions): {found}"


def test_the_probe_finds_the_rewrites_it_forbids():
    tree = ast.parse(
        '_LINE_NUMBER = re.compile(r"\\bline (\\d+)")\n'
        'def moved(m, d):\n'
        '    return _LINE_NUMBER.sub(lambda g: str(int(g.group(1)) + d), m)\n'
        'def other(m):\n'
        '    return re.subn(r"(?i)lines?\\s+[0-9]+", "", m)\n'
        'def reads(m):\n'
        '    return re.search(r"line (\\d+)", m)\n'
        'BYTES = re.compile(r"\\d+ bytes")\n'
        'def fine(m):\n'
        '    return BYTES.sub("", m)\n')
    assert [n for n, _ in _line_number_rewrites(tree)] == [3, 5]
