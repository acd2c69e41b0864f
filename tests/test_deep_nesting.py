"""Blocks nested 10,000 deep: formatting indents at most 32 levels (its answer
grew with the square of the depth), the uniformity and divergence analysis stops at
MAX_ANALYSED_DEPTH levels and K309 says so (it raised RecursionError at ~1,000), and no other
pass recurses or goes quadratic over the nesting. The suite runs in strict mode: a pass that
fails inside `guarded` raises here."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from wave_lsp.analysis import analyze
from wave_lsp.analysis.uniformity import uniformity_of
from wave_lsp.analysis.uniformity_steps import MAX_ANALYSED_DEPTH
from wave_lsp.ide.folding import MAX_BLOCKS, folds, selection_chain
from wave_lsp.ide.formatting import INDENT, MAX_INDENT_DEPTH, format_lines, format_text
from wave_lsp.ide.highlight import encode_document
from wave_lsp.ide.hover import hover_markdown
from wave_lsp.ide.inlay import hints
from wave_lsp.ide.locate import target_at
from wave_lsp.ide.state import DocumentState
from wave_lsp.ide.symbols import outline
from wave_lsp.isa import MIN_DIVERGENCE_DEPTH
from wave_lsp.isa.backends import TARGET_NAMES
from wave_lsp.syntax.blocks import loop_writes

DEPTH = 10_000


def nested(depth: int, inner: str = "iadd r1, r1, r0", kinds: str = "il") -> str:
    """A kernel whose blocks nest `depth` deep (alternating `kinds`: i = if, l = loop), each
    with one instruction, `inner` at the bottom; nothing indented."""
    out = [".kernel k", ".registers 8", "mov_sr r0, sr_lane_id", "icmp_lt p1, r1, r0"]
    closes = []
    for level in range(depth):
        loop = kinds[level % len(kinds)] == "l"
        out += ["loop" if loop else "if p1", "iadd r1, r1, r0"]
        closes.append(["break p1", "endloop"] if loop else ["endif"])
    out.append(inner)
    for close in reversed(closes):
        out += close
    return "\n".join(out + ["halt", ".end", ""])


def indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def test_formatting_indents_at_most_32_levels():
    lines = nested(DEPTH).split("\n")
    out = format_lines(lines)
    assert max(map(indent, out)) == INDENT * (1 + MAX_INDENT_DEPTH) == 4 * 33
    assert MAX_INDENT_DEPTH == MIN_DIVERGENCE_DEPTH
    # the answer grows with the text, not with its square (3,000 levels were 36 MB)
    assert sum(map(len, out)) < len(lines) * (INDENT * (1 + MAX_INDENT_DEPTH) + 20)
    assert [indent(line) for line in out[4:40:2]] == [INDENT * (1 + n) for n in range(18)]
    assert format_lines(out) == out                      # still a fixed point


def test_the_analysis_of_10000_levels_says_it_stops_and_never_recurses():
    found = analyze(nested(DEPTH))
    [deep] = [d for d in found if d.code == "K309"]
    assert deep.range.start_line == 4 + 2 * MIN_DIVERGENCE_DEPTH
    assert deep.message == (
        f"control flow nested 33 levels deep; the specification guarantees only 32 "
        f"(MIN_DIVERGENCE_DEPTH), and formatting indents at most 32 levels; at 10,000 levels "
        f"the kernel is too deep for the uniformity and divergence analysis (it follows "
        f"{MAX_ANALYSED_DEPTH})")


def barrier_under(depth: int) -> list[str]:
    """The codes found for a barrier under `depth` ifs on a per-thread condition."""
    return [d.code for d in analyze(nested(depth, "barrier", "i"))]


def test_the_divergence_analysis_follows_up_to_its_depth():
    def divergence(codes) -> set[str]:
        return {code for code in codes if code.startswith("D6")}
    divergent = divergence(barrier_under(MAX_ANALYSED_DEPTH))
    assert divergent, "a barrier under per-thread ifs is reported"
    assert not divergence(barrier_under(MAX_ANALYSED_DEPTH + 1))


def test_every_feature_answers_at_10000_levels():
    state = DocumentState("file:///deep.wave", nested(DEPTH), 1)
    middle = 4 + 2 * 5_000 + 1                            # an iadd 5,000 blocks deep
    assert state.lines[middle] == "iadd r1, r1, r0"
    assert len(folds(state)) == DEPTH + 1
    assert MAX_BLOCKS < len(selection_chain(state, middle, 1)) <= MAX_BLOCKS + 6   # its own cap
    assert [item.name for item in outline(state)] == ["k"]
    assert encode_document(state.lines, "utf-16")
    assert hints(state, 0, len(state.lines) - 1) is not None
    for line, col in ((middle, 1), (middle, 6), (0, 9)):
        assert hover_markdown(state, target_at(state, line, col), False, TARGET_NAMES)
    result = uniformity_of(state.program, "k")
    assert result.too_deep and result.level(middle, "r1") is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["loop", "endloop", "w1", "w2", "w3", "if", "endif"]),
                max_size=60))
def test_loop_writes_equal_a_scan_of_each_body(words):
    """`loop_writes` (one pass) against the definition: everything up to the `endloop` that
    ends the loop, or to the end of the kernel."""
    class Ins:
        def __init__(self, word: str) -> None:
            self.word = word
            self.mnemonic = type("M", (), {"text": word})()

    items = [(n, Ins(word)) for n, word in enumerate(words)]
    written = lambda ins: (int(ins.word[1]),) if ins.word.startswith("w") else ()  # noqa: E731
    expected = {}
    for start, (_n, ins) in enumerate(items):
        if ins.word != "loop":
            continue
        depth, body = 0, set()
        for _m, other in items[start:]:
            depth += (other.word == "loop") - (other.word == "endloop")
            if depth == 0:
                break
            body.update(written(other))
        expected[start] = body
    assert loop_writes(items, written) == expected


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["if p1", "else", "endif", "loop", "break p1", "endloop",
                                 "iadd r1, r1, r0", "barrier", "halt"]), max_size=400),
       st.integers(0, 2_000))
def test_random_deep_nesting_never_raises(body, depth):
    """Random block soup under `depth` well-nested blocks: analysed (strict mode) and formatted
    with a bounded indent."""
    rng = random.Random(depth)
    text = nested(depth, "\n".join(body), rng.choice(["i", "l", "il", "lli"]))
    analyze(text)
    out = format_text(text).split("\n")
    assert max(map(indent, out)) <= INDENT * (1 + MAX_INDENT_DEPTH)


def test_emitted_c_family_code_is_indented_at_most_32_levels_more():
    """HIP, Metal and SYCL translations indent as the formatter does (10,000 levels took 37 s
    and hundreds of megabytes; found by benchmarks/fuzz_hostile.py)."""
    from wave_lsp.asm.backends import emit
    text = nested(DEPTH)
    for target in ("hip", "metal", "sycl"):
        lines = emit(text, target).text.split("\n")
        deepest = max(map(indent, lines))
        assert 4 * MIN_DIVERGENCE_DEPTH <= deepest <= 4 * (MIN_DIVERGENCE_DEPTH + 4), target
        assert sum(map(len, lines)) < len(lines) * (deepest + 80), target
