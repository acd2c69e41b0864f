"""The line parser's fast path (one regular expression for the common instruction line) gives
exactly what the grammar gives, on distinct corpus lines, the project's examples and lines
mutated at random (characters that matter to the grammar inserted, deleted, replaced)."""

from __future__ import annotations

import random
from pathlib import Path

from parsimonious.exceptions import ParseError

from conftest import distinct_source
from wave_lsp.syntax.parser import (LineSyntax, _fast_line, _line, _problem,
                                    _simple_instruction, parse_line, wave_grammar)

ROOT = Path(__file__).resolve().parents[1]
CHARS = " \t,;#.@!:[]%+-_0123456789xXeEabcdprsluvwikn\u00e9"


def by_grammar(text: str) -> LineSyntax:
    try:
        return _line(wave_grammar().parse(text))
    except ParseError as err:
        return LineSyntax((), None, _problem(text, err.pos))


def mutated(lines: list[str], count: int, seed: int) -> set[str]:
    rng = random.Random(seed)
    out = set()
    for _ in range(count):
        chars = list(rng.choice(lines))
        for _ in range(rng.randint(1, 3)):
            at, what = rng.randint(0, len(chars)), rng.randint(0, 2)
            if what == 0:
                chars.insert(at, rng.choice(CHARS))
            elif chars:
                if what == 1:
                    del chars[min(at, len(chars) - 1)]
                else:
                    chars[min(at, len(chars) - 1)] = rng.choice(CHARS)
        out.add("".join(chars))
    return out


def test_the_fast_path_equals_the_grammar():
    lines = set(distinct_source(6000, seed=3).splitlines())
    lines |= set(distinct_source(3000, seed=4, clean=True).splitlines())
    for path in ROOT.glob("examples/**/*.wave"):
        lines |= set(path.read_text(encoding="utf-8").splitlines())
    lines |= mutated(sorted(lines), 20_000, seed=5)
    lines |= {"iadd r1, r2, r3", "  @ ! p1 iadd r1, r2, r3 ;x  ", "iadd .wg r1", "iadd r1,",
              "iadd r1 r2", "x: iadd r1, r2, r3", "iadd r1, .device", "bra !p1, loop ; #",
              "mov_imm r1, 0x1F", "mov_imm r1, -1.5e3", "iadd r1, r2, r3\t#c\t"}
    fast = [line for line in lines if _simple_instruction(line) is not None]
    assert len(fast) > len(lines) // 3          # the common shapes do take the fast path
    wrong = [line for line in fast if _simple_instruction(line) != by_grammar(line)]
    assert wrong == []


def test_lines_outside_the_fast_path_go_to_the_grammar():
    for line in ("iadd .wg r1", "label: iadd r1, r2", ".kernel k", "iadd r1,", "iadd r1 r2",
                 "device_load_u32.x r1, r2", "iadd r1, [r2 + 4]", "iadd r1, %tid.x"):
        assert _simple_instruction(line) is None, line
        assert parse_line(line) == by_grammar(line)


def test_the_whole_line_fast_path_equals_the_grammar():
    """Labels (alone or before an instruction), directives and a first dotted operand take the
    fast path too (`_fast_line`), and give what the grammar gives, on every generator's lines
    and on those lines mutated."""
    from corpus_kernels import GENERATORS
    lines: set[str] = set()
    for number, make in enumerate(GENERATORS.values()):
        lines |= set(make(1_500, 40 + number).splitlines())
    for path in ROOT.glob("examples/**/*.wave"):
        lines |= set(path.read_text(encoding="utf-8").splitlines())
    lines |= mutated(sorted(lines), 30_000, seed=6)
    lines |= {"x: iadd r1, r2, r3", "x :", "x:y:", "x: .kernel k", ".end", ".end ; c", ".end r1",
              ".endx 1", ".kernel", ".kernel.x", ".kernel k j", ".workgroup_size 1,2 ,3 # c",
              ".local_memory 0x10", ".registers -1", ".kernel [r1]", "fence_acquire .device",
              "fence_acquire .device ; c", "fence_acquire .device r1", "iadd .wg, r1",
              "x: @!p1 iadd r1, r2, r3 ; c", "x: iadd r1 r2", "x: halt y:", " \t.end\t",
              "atomic_add r1, r2, r3, .device", ".kernel %tid.x", "é: iadd r1, r2, r3"}
    fast = [line for line in lines if _fast_line(line) is not None]
    assert len(fast) > len(lines) // 2
    shapes = {type(s).__name__ for line in fast for s in _fast_line(line).statements}
    assert shapes == {"Instruction", "Label", "Directive"}
    wrong = [line for line in fast if _fast_line(line) != by_grammar(line)]
    assert wrong == []
    for line in (".end r1", "x: .kernel k", "x:y:", ".kernel k j", ".kernel [r1]",
                 "fence_acquire .device r1", "x: halt y:"):
        assert _fast_line(line) is None, line
        assert parse_line(line) == by_grammar(line)
