"""The native core's operation list (ops.h, names.c) is generated from the ISA table: the
checked-in files are current, the built core reports the same list, and the ranges the C
dispatch tests (`OP_X <= op <= OP_Y`, `op >= OP_IF`) hold exactly the operations they mean."""

from __future__ import annotations

import re
from pathlib import Path

from .native_support import need_core

from wave_lsp.emu.native import opnames
from wave_lsp.isa import INSTRUCTIONS, InstructionClass as IC

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "wave_lsp" / "emu" / "native"


def test_generated_files_are_current():
    assert opnames.stale(ROOT) == [], "run: python -m wave_lsp.emu.native.opnames"


def test_the_check_sees_a_stale_file(tmp_path):
    for path, render in opnames.GENERATED.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(render(), encoding="utf-8")
    assert opnames.main(["--root", str(tmp_path), "--check"]) == 0
    names = tmp_path / opnames.NAMES_PATH
    names.write_text(names.read_text().replace('"iadd", ', ""), encoding="utf-8")
    assert opnames.stale(tmp_path) == [opnames.NAMES_PATH]
    assert opnames.main(["--root", str(tmp_path), "--check"]) == 1
    assert opnames.main(["--root", str(tmp_path)]) == 0
    assert opnames.stale(tmp_path) == []


def test_the_built_core_has_the_generated_list():
    assert list(need_core().OPS) == opnames.native_ops()


def test_every_mnemonic_is_native_or_left_to_numpy():
    ops = set(opnames.native_ops())
    left = {m for m, s in INSTRUCTIONS.items() if m not in ops}
    assert left == set(opnames.NOT_NATIVE) | {m for m, s in INSTRUCTIONS.items()
                                              if s.iclass in opnames.NOT_NATIVE_CLASSES}


def span(first: str, last: str) -> list[str]:
    ops = opnames.native_ops()
    return ops[ops.index(first):ops.index(last) + 1]


def of(*classes) -> set[str]:
    return {m for m in opnames.native_ops() if INSTRUCTIONS[m].iclass in classes}


def test_dispatch_ranges_hold_what_the_c_code_means():
    ops = opnames.native_ops()
    assert set(span("local_load_u8", "device_store_u128")) == of(IC.LOCAL_MEMORY,
                                                                 IC.DEVICE_MEMORY)
    assert span("local_load_u8", "local_load_u64") == \
        [m for m in ops if m.startswith("local_load_")]
    assert span("device_load_u8", "device_load_u128") == \
        [m for m in ops if m.startswith("device_load_")]
    assert set(span("local_atomic_add", "atomic_cas")) == of(IC.ATOMIC)
    assert span("local_atomic_add", "local_atomic_cas") == \
        [m for m in ops if m.startswith("local_atomic_")]
    assert set(span("wave_shuffle", "wave_reduce_max")) == of(IC.WAVE)
    assert set(span("mma_load_a", "mma_compute")) == of(IC.MMA)
    assert span("wave_shuffle", "wave_broadcast") == \
        [m for m in ops if m.startswith("wave_shuffle")] + ["wave_broadcast"]
    halves, bfloats = span("hadd", "hma2"), span("badd", "bma2")     # floatwide.c indexes both
    assert span("hadd", "bma2") == halves + bfloats
    assert [m[1:] for m in halves] == [m[1:] for m in bfloats]
    assert set(span("dadd", "cvt_f64_f32")) == of(IC.F64) | {"cvt_f32_f64", "cvt_f64_f32"}
    assert set(ops[ops.index("if"):]) == of(IC.CONTROL, IC.SYNC) | {"nop"}


def test_the_c_code_tests_only_those_ranges():
    """A new range test in the C code needs a line in the test above."""
    source = "".join(path.read_text() for path in sorted(NATIVE.glob("*.c")))
    ranges = set(re.findall(r"op >= (OP_\w+) && \w+->op <= (OP_\w+)", source))
    assert ranges == {("OP_LOCAL_LOAD_U8", "OP_DEVICE_STORE_U128"),
                      ("OP_LOCAL_ATOMIC_ADD", "OP_ATOMIC_CAS"),
                      ("OP_WAVE_SHUFFLE", "OP_WAVE_REDUCE_MAX"), ("OP_HADD", "OP_BMA2"),
                      ("OP_MMA_LOAD_A", "OP_MMA_COMPUTE"),
                      ("OP_DADD", "OP_CVT_F64_F32"), ("OP_LOCAL_LOAD_U8", "OP_LOCAL_LOAD_U64"),
                      ("OP_DEVICE_LOAD_U8", "OP_DEVICE_LOAD_U128")}
