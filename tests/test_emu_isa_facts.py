"""The emulator takes its ISA facts from `wave_lsp.isa`: no dispatch on
modifier or opcode numbers or on display strings, ALU operand kinds and widths from the operand
table, and the coverage check goes through the real dispatch."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import wave_lsp.emu.alu as alu
from wave_lsp.emu.alu import FUNCTIONS, signature
from wave_lsp.emu.compiler import implemented
from wave_lsp.isa import INSTRUCTIONS, InstructionClass

EMU = Path(__file__).resolve().parents[1] / "wave_lsp" / "emu"
FORBIDDEN_ATTRIBUTES = {"modifier", "opcode", "upstream_modifier", "group", "word0"}


def emu_trees():
    for path in sorted(EMU.glob("*.py")):
        yield path.name, ast.parse(path.read_text(), str(path))


@pytest.mark.parametrize("name, tree", list(emu_trees()), ids=lambda v: getattr(v, "name", v)
                         if isinstance(v, str) else "")
def test_no_encoding_numbers_or_display_strings_in_the_emulator(name, tree):
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRIBUTES:
            found.append(f"{name}:{node.lineno} .{node.attr}")
        if isinstance(node, ast.Compare):   # `x == 0x3F`, `mod in (4, 5)` on a field name
            names = [n.id for n in ast.walk(node.left) if isinstance(n, ast.Name)]
            numbers = [c.value for op in node.comparators for c in ast.walk(op)
                       if isinstance(c, ast.Constant) and isinstance(c.value, int)
                       and not isinstance(c.value, bool)]
            if numbers and {"mod", "modifier", "opcode", "op_code"} & set(names):
                found.append(f"{name}:{node.lineno} compares {names} with {numbers}")
        if isinstance(node, ast.Constant) and node.value in ("Control", "Misc", "Mma"):
            found.append(f"{name}:{node.lineno} display string {node.value!r}")
    assert found == []


def test_every_alu_signature_comes_from_the_operand_table():
    for mnemonic in FUNCTIONS:
        spec = INSTRUCTIONS[mnemonic]
        sources, dest = signature(spec)
        assert len(sources) == sum(1 for o in spec.operands if o.field.value.startswith("rs"))
        if spec.iclass is InstructionClass.F64:
            assert set(sources + dest) == {"d"}
    assert signature(INSTRUCTIONS["cvt_f32_f64"]) == ("d", "u")
    assert signature(INSTRUCTIONS["cvt_f64_f32"]) == ("u", "d")
    assert signature(INSTRUCTIONS["select"]) == ("puu", "u")
    assert signature(INSTRUCTIONS["fcmp_lt"]) == ("uu", "p")


def test_coverage_goes_through_the_real_dispatch(monkeypatch):
    """A mnemonic the dispatch cannot build is reported as not implemented."""
    assert implemented("iadd") and implemented("barrier") and implemented("atomic_cas")
    monkeypatch.delitem(alu.FUNCTIONS, "iadd")
    assert not implemented("iadd")
