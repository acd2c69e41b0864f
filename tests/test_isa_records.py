"""The instruction table as named records (`isa/records.py`): every row is a `Row`, the facts a
reader needs (memory access, conversion types, wave role) are fields of the record and agree with
the documented spelling of the mnemonic, and the legacy forms are alias records pointing at the
record of their current instruction, each spelling listed once."""

from __future__ import annotations

import ast
import re

from wave_lsp.isa import INSTRUCTIONS, LEGACY_MNEMONICS, InstructionClass as IC
from wave_lsp.isa.records import WAVE_ROLES, Row
from wave_lsp.isa.table import ROWS

from conftest import ROOT


def test_every_row_is_a_named_record():
    assert ROWS and all(type(row) is Row for row in ROWS)
    assert [row.mnemonic for row in ROWS] == list(INSTRUCTIONS)


def test_memory_records_agree_with_the_names():
    memory = {IC.LOCAL_MEMORY, IC.DEVICE_MEMORY, IC.ATOMIC}
    seen = 0
    for name, spec in INSTRUCTIONS.items():
        access = spec.memory
        assert (access is not None) == (spec.iclass in memory), name
        if access is None:
            continue
        seen += 1
        if access.kind == "atomic":
            prefix = "local_atomic_" if access.space == "local" else "atomic_"
            assert name == prefix + access.operation and access.width == 4
            assert access.compare_and_swap == (access.operation == "cas")
        else:
            assert name == f"{access.space}_{access.kind}_u{access.width * 8}", name
            assert access.operation is None and not access.compare_and_swap
    assert seen == 4 + 4 + 5 + 5 + 9 + 9


def test_conversions_and_wave_roles_are_fields():
    for name, spec in INSTRUCTIONS.items():
        assert (spec.conversion is not None) == (spec.iclass is IC.CONVERT), name
        if spec.conversion:
            assert name == "cvt_{}_{}".format(*spec.conversion)
        assert (spec.wave_role is not None) == (spec.iclass is IC.WAVE), name
        if spec.wave_role:
            assert spec.wave_role in WAVE_ROLES
            assert name.startswith("wave_" + spec.wave_role[:5]) or spec.wave_role == "vote"
    assert {s.mnemonic for s in INSTRUCTIONS.values() if s.wave_role == "vote"} == {
        "wave_any", "wave_all"}


def test_no_reader_parses_facts_out_of_mnemonics():
    parsing = re.compile(r"mnemonic\.(split|rsplit|partition|startswith|endswith|replace)\(|"
                         r"\bm\.(split|rsplit|startswith|endswith)\(\"(cvt|local|atomic|wave)")
    offenders = [f"{path.relative_to(ROOT)}:{i}"
                 for path in ROOT.joinpath("wave_lsp").rglob("*.py")
                 for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if parsing.search(line)]
    assert offenders == []


def test_legacy_forms_are_aliases_of_table_records():
    for spelling, alias in LEGACY_MNEMONICS.items():
        assert spelling not in INSTRUCTIONS
        if alias.canonical is not None:
            assert alias.canonical is INSTRUCTIONS[alias.replacement], spelling
    assert LEGACY_MNEMONICS["fcmp_ge"].canonical is INSTRUCTIONS["fcmp_le"]
    assert LEGACY_MNEMONICS["umin"].canonical is None and LEGACY_MNEMONICS["umin"].replacement is None


def test_each_legacy_spelling_is_listed_once():
    """A dict display keeps the last of two equal keys silently: no key may repeat in the source."""
    tree = ast.parse((ROOT / "wave_lsp" / "isa" / "legacy.py").read_text(encoding="utf-8"))
    keys = [k.value for node in ast.walk(tree) if isinstance(node, ast.Dict)
            for k in node.keys if isinstance(k, ast.Constant)]
    repeated = {k for k in keys if keys.count(k) > 1}
    assert repeated == set()
