"""The benchmark corpus's generators (benchmarks/corpus_kernels.py): every generator writes
files that assemble with our assembler, without error-severity diagnostics (but `mixed-many`),
of distinct lines and distinct kernels, deterministically for a seed."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT  # noqa: F401  (puts benchmarks/ on the path)
from corpus_kernels import CLEAN, GENERATORS

from wave_lsp.analysis import Severity, analyze
from wave_lsp.asm import assemble
from wave_lsp.isa import INSTRUCTIONS, InstructionClass


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_each_generator_assembles_and_its_lines_are_distinct(name):
    text = GENERATORS[name](1_500, 11)
    lines = text.splitlines()
    assert 1_450 <= len(lines) <= 1_700
    assembly = assemble(text)                       # raises on the first unassemblable line
    assert len(assembly.kernels) >= 2
    if name in CLEAN:
        errors = [d for d in analyze(text) if d.severity is Severity.ERROR]
        assert errors == [], [(d.code, lines[d.range.start_line]) for d in errors[:5]]
    code = [line for line in lines if line.strip()]
    assert len(set(code)) >= 0.75 * len(code), "lines repeat"
    bodies = re.split(r"^\.kernel .*$", text, flags=re.M)[1:]
    assert len(set(bodies)) == len(bodies), "a kernel is repeated"


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_a_generator_is_deterministic_for_a_seed(name):
    assert GENERATORS[name](400, 3) == GENERATORS[name](400, 3)
    assert GENERATORS[name](400, 3) != GENERATORS[name](400, 4)


def test_the_generators_differ_in_style():
    names = [n for n in CLEAN if n != "mixed"]
    texts = {n: GENERATORS[n](2_000, 2) for n in names}
    mnemonics = {n: {line.split()[0] for line in t.splitlines()
                     if line.startswith("    ") and line.split()[0] in INSTRUCTIONS}
                 for n, t in texts.items()}
    classes = {INSTRUCTIONS[m].iclass for m in mnemonics["math"]}
    assert classes >= set(InstructionClass) - {InstructionClass.CONTROL}, "a class is missing"
    assert {"loop", "if", "barrier", "local_store_u32"} <= mnemonics["structured"]
    assert sum(line.endswith(":") for line in texts["calls"].splitlines()) > 20
    comments = {n: sum(line.lstrip().startswith((";", "#")) for line in t.splitlines())
                / len(t.splitlines()) for n, t in texts.items()}
    assert comments["annotated"] > 2 * comments["math"]
    assert "; wave-lsp run:" in texts["annotated"]
