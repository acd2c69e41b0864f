"""The native core's pieces against their Python references: its operations are real ISA
mnemonics (the Python side maps instructions to them by name), float printing equals
`launch.formats` (itself checked against upstream in tests/test_emu_differential.py), fills equal
`launch.apply_memory_init`, the hex dump equals `formats.hex_dump`."""

from __future__ import annotations

import numpy as np
import pytest

from .native_support import need_core

from wave_lsp.launch.formats import hex_dump, rust_debug_f32_many
from wave_lsp.emu.kernel_launch import IotaFill, apply_memory_init
from wave_lsp.isa import INSTRUCTIONS


def test_every_native_operation_is_an_isa_mnemonic():
    ops = need_core().OPS
    assert len(set(ops)) == len(ops)
    assert [name for name in ops if name not in INSTRUCTIONS] == []
    assert {"fma", "device_load_u32", "barrier", "atomic_cas", "wave_shuffle"} <= set(ops)


def lines_of(data: bytes) -> list[str]:
    text = data.decode()
    assert text.endswith("\n")
    return text[:-1].split("\n")


@pytest.mark.parametrize("kind", ["f16", "bf16"])
def test_every_half_pattern_prints_as_the_reference(kind):
    core = need_core()
    h = np.arange(65536, dtype="<u2")
    values = h.view(np.float16).astype(np.float32) if kind == "f16" else \
        (h.astype(np.uint32) << 16).view(np.float32)
    assert lines_of(core.format_values(h.tobytes(), 0, 65536, kind)) == \
        rust_debug_f32_many(values)


def test_f32_prints_as_the_reference():
    core = need_core()
    rng = np.random.default_rng(5)
    bits = np.concatenate([
        rng.integers(0, 1 << 32, 100_000, dtype=np.uint64).astype(np.uint32),
        rng.standard_normal(50_000).astype(np.float32).view(np.uint32),
        (np.arange(50_000, dtype=np.float32) * np.float32(0.37)).view(np.uint32),
        np.array([0, 0x80000000, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000,
                  0x7FC00000, 0xC0AF2000, 0x38D1B717, 0x5A0E1BCA], dtype=np.uint32)])
    expected = rust_debug_f32_many(bits.view(np.float32))
    assert lines_of(core.format_values(bits.astype("<u4").tobytes(), 0, bits.size, "f32")) == \
        expected
    assert core.format_f32(0xC0AF2000) == "-5.4726563"       # a tie: away from zero
    assert lines_of(core.format_values(bits[:1000].astype("<u4").tobytes(), 0, 1000, "u32")) \
        == [str(v) for v in bits[:1000].tolist()]


@pytest.mark.parametrize("scale", [1.0, 0.37, -2.5, 1e-30, 3.4e38, float("inf")])
def test_fill_iota_equals_the_numpy_fill(scale):
    core = need_core()
    memory = bytearray(4 * 70_000 + 8)
    core.fill_iota(memory, 4, 70_000, scale)
    reference = np.zeros(len(memory), dtype=np.uint8)
    with np.errstate(all="ignore"):
        apply_memory_init(reference, [IotaFill(4, 70_000, scale)])
    assert bytes(memory) == reference.tobytes()


def test_hex_rows_equal_the_reference():
    core = need_core()
    data = bytes(range(256)) * 3
    for start, end in ((0, 768), (3, 40), (16, 17), (100, 101), (5, 21)):
        rows = lines_of(core.hex_rows(data, start, end))
        assert rows == list(hex_dump(np.frombuffer(data, np.uint8), start, end))[1:]


def test_memory_is_a_zeroed_writable_buffer():
    core = need_core()
    memory = core.Memory(10_000_000)
    view = memoryview(memory)
    assert len(memory) == 10_000_000 and not any(view[::4096])
    view[9_999_999] = 7
    assert bytes(memory)[-1] == 7
