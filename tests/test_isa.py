"""The instruction table: completeness, consistency, and that everything is derived from it."""

from __future__ import annotations

import re

import pytest

from wave_lsp.analysis import Severity, analyze
from wave_lsp.isa import (BY_ENCODING, CACHE_HINTS, DIRECTIVES, INSTRUCTIONS, SCOPES,
                          SPECIAL_REGISTERS, Capability, InstructionClass, OperandKind)
from wave_lsp.syntax.grammar import grammar_text, known_mnemonic_rule
from wave_lsp.syntax.parser import parse_line

from conftest import ROOT


def test_counts():
    assert len(INSTRUCTIONS) == 164
    assert len(SPECIAL_REGISTERS) == 20
    assert [s.index for s in SPECIAL_REGISTERS] == list(range(20))
    assert len(DIRECTIVES) == 5
    assert [s.name for s in SCOPES] == ["wave", "workgroup", "device", "system"]
    assert [s.value for s in SCOPES] == [0, 1, 2, 3]
    assert set(CACHE_HINTS) == {"cached", "uncached", "streaming"}


def test_encodings_are_unique_and_sizes_match_the_reference():
    assert len(BY_ENCODING) == 164
    eight = [s for s in INSTRUCTIONS.values() if s.size == 8]
    mismatched = [s for s in eight if s.upstream_label_size != s.size]
    assert len(mismatched) == 80  # reference §3.4: 80 eight-byte mnemonics counted as four
    assert all(s.upstream_label_size == 4 for s in INSTRUCTIONS.values() if s.size == 4)


# Control-flow examples need their construct around them to be valid.
CONTEXT = {
    "if": "{}\n    endif", "else": "if p1\n    {}\n    endif", "endif": "if p1\n    {}",
    "loop": "{}\n    break p1\n    endloop", "break": "loop\n    {}\n    endloop",
    "continue": "loop\n    {}\n    break p1\n    endloop", "endloop": "loop\n    break p1\n    {}",
}


@pytest.mark.parametrize("spec", INSTRUCTIONS.values(), ids=list(INSTRUCTIONS))
def test_every_mnemonic_is_documented_and_its_example_is_valid(spec):
    assert spec.summary and spec.semantics and spec.spec_section.startswith("§")
    assert spec.mnemonic in spec.syntax and spec.description
    assert 0 <= spec.opcode <= 0xFF and 0 <= spec.modifier <= 15
    assert isinstance(spec.iclass, InstructionClass)
    body = CONTEXT.get(spec.mnemonic, "{}").format(spec.example)
    source = f".kernel k\n.registers 16\n    {body}\n    halt\ntarget:\n    return\n.end\n"
    # portability is not validity: f64 examples get P801 (Metal, a default target), a warning
    errors = [d for d in analyze(source) if d.severity == Severity.ERROR]
    assert errors == []
    line = parse_line(f"    {spec.example}")
    assert line.problem is None and line.statements[0].mnemonic.text == spec.mnemonic


def test_capabilities():
    f64 = {m for m, s in INSTRUCTIONS.items() if s.capability is Capability.F64}
    assert f64 == {"dadd", "dsub", "dmul", "dma", "ddiv", "dsqrt", "cvt_f32_f64", "cvt_f64_f32"}
    mma = {m for m, s in INSTRUCTIONS.items() if s.capability is Capability.MMA}
    assert mma == {"mma_load_a", "mma_load_b", "mma_store_c", "mma_compute"}


def test_optional_destination_only_on_atomics():
    optional = {m for m, s in INSTRUCTIONS.items() if any(o.optional for o in s.operands)}
    assert optional == {m for m, s in INSTRUCTIONS.items() if s.iclass is InstructionClass.ATOMIC}
    assert all(s.operands[-1].kind is OperandKind.SCOPE
               for m, s in INSTRUCTIONS.items() if m.startswith("atomic_"))


def test_grammar_mnemonics_are_derived_not_typed():
    peg = (ROOT / "grammar" / "wave.peg").read_text()
    body = "\n".join(l for l in peg.splitlines() if not l.lstrip().startswith("#"))
    for mnemonic in ("iadd", "wave_shuffle_xor", "mma_compute", "fcmp_unord"):
        assert mnemonic not in body
    rule = known_mnemonic_rule()
    assert all(re.search(rf"[:|]{re.escape(m)}[|)]", rule) for m in INSTRUCTIONS)
    assert rule in grammar_text()


def test_longest_mnemonic_wins():
    for text, expected in [("mov_imm r1, 1", "mov_imm"), ("wave_shuffle_up r1, r2, r3", "wave_shuffle_up"),
                           ("icmp_eq p1, r2, r3", "icmp_eq"), ("hadd2 r1, r2, r3", "hadd2")]:
        assert parse_line(text).statements[0].mnemonic.text == expected
