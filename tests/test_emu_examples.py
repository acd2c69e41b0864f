"""Every kernel of ../shared/wave-examples/INDEX.md, run with the flags of its row, gives the
expected result (through the API and, for a few, through `wave-lsp run`)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from wave_lsp.cli.main import main
from numpy_engine import run
from wave_lsp.emu import DataFill, IotaFill, Launch, ZeroFill

from shared import EXAMPLES, examples_dir


@pytest.fixture(autouse=True)
def _corpus():
    """Every test here needs ../shared/wave-examples (skipped without it; failed under CI)."""
    examples_dir()


def source(name: str) -> str:
    return (EXAMPLES / f"{name}.wave").read_text()


def u32s(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


SPEC = dict(wave_width=4, device_memory=65536, local_memory=16384)


def spec_run(name: str, threads: int, init: bytes = b"") -> object:
    report = run(source(name), Launch(workgroup=(threads, 1, 1), **SPEC,
                                      memory_init=[DataFill(0, init)] if init else []))
    assert not report.errors, report.errors
    return report


def test_vector_add():
    report = run(source("vector_add"), Launch(
        workgroup=(256, 1, 1), memory_init=[ZeroFill(2048, 256), IotaFill(0, 256, 1.0),
                                            IotaFill(1024, 256, 2.0)]))
    assert not report.errors
    assert report.read_f32(2048, 256) == [3.0 * i for i in range(256)]


def test_reduction_runs_to_halt_with_one_barrier_release():
    report = run(source("reduction"), Launch(memory_init=[IotaFill(0, 256, 1.0)]))
    assert not report.errors
    assert report.stats.barriers == 1 and report.stats.workgroups == 1   # as upstream counts
    assert report.stats.device_stores == 0


def test_bounds_check():
    report = run(source("bounds_check"), Launch(
        workgroup=(256, 1, 1), memory_init=[ZeroFill(2048, 256), IotaFill(0, 256, 1.0),
                                            IotaFill(1024, 256, 2.0), DataFill(3072, u32s(200))]))
    assert not report.errors
    assert report.read_f32(2048, 256) == [3.0 * i if i < 200 else 0.0 for i in range(256)]


def test_relu():
    values = np.linspace(-5, 5, 300, dtype=np.float32)
    report = run(source("relu"), Launch(
        grid=(2, 1, 1), memory_init=[DataFill(0, values.tobytes())],
        set_regs={0: 0, 1: 4096, 2: 300}))
    assert not report.errors
    assert report.read_f32(4096, 300) == np.maximum(values, 0).tolist()


def test_vector_add_f16():
    a = np.arange(1, 9, dtype=np.float16)
    b = np.arange(0.5, 8, 1.0, dtype=np.float16)
    report = run(source("vector_add_f16"), Launch(
        workgroup=(256, 1, 1), device_memory=4096,
        memory_init=[DataFill(0, a.tobytes()), DataFill(16, b.tobytes())],
        set_regs={1: 0, 2: 16, 3: 32}))
    assert not report.errors
    out = report.device_memory[32:48].view(np.float16).tolist()
    assert out == [1.5, 3.5, 5.5, 7.5, 9.5, 11.5, 13.5, 15.5]


@pytest.mark.parametrize("kind", ["identity", "ones"])
def test_mma_simple(kind):
    if kind == "identity":
        a = b = np.eye(4, dtype=np.float32)
    else:
        a = b = np.ones((4, 4), dtype=np.float32)
    report = run(source("mma_simple"), Launch(
        workgroup=(1, 1, 1), device_memory=256,
        memory_init=[DataFill(0, a.tobytes()), DataFill(64, b.tobytes())]))
    assert not report.errors
    assert np.array(report.read_f32(128, 16)).reshape(4, 4).tolist() == (a @ b).tolist()


def test_gemm_blocked_128():
    n = 128
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    report = run(source("gemm_blocked"), Launch(
        workgroup=(16, 16, 1), device_memory=3 * 65536,
        memory_init=[DataFill(0, a.tobytes()), DataFill(65536, b.tobytes())],
        set_regs={0: 0, 1: 65536, 2: 131072, 3: n, 4: n, 5: n}))
    assert not report.errors
    c = np.array(report.read_f32(131072, n * n)).reshape(n, n)
    assert np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max() < 1e-4
    assert report.stats.total == 145048          # upstream's wave-instruction count


def test_sample_first_kernel_ends_at_its_own_end():
    report = run(source("sample"), Launch())
    assert report.kernel == "vector_add"
    assert not report.errors
    second = run(source("sample"), Launch(kernel="reduction"))
    assert not second.errors


def test_histogram():
    assert spec_run("histogram", 4).read_u32(0, 2) == [2, 2]


def test_prefix_sum():
    assert spec_run("prefix_sum", 4, u32s(1, 2, 3, 4)).read_u32(64, 4) == [0, 1, 3, 6]


def test_dot_product():
    report = spec_run("dot_product", 4, u32s(1, 2, 3, 4, 5, 6, 7, 8))
    assert report.read_u32(32, 1) == [70]


def test_nested_if_2_levels():
    assert spec_run("nested_if_2_levels", 4).read_u32(0, 4) == [10, 30, 20, 40]


def test_loop_divergent_break():
    assert spec_run("loop_divergent_break", 4).read_u32(0, 4) == [0, 1, 2, 3]


def test_barrier_in_loop():
    assert spec_run("barrier_in_loop", 8).read_u32(0, 1) == [3]


def test_wave_shuffle_xor():
    assert spec_run("wave_shuffle_xor", 4).read_u32(0, 4) == [1, 0, 3, 2]


@pytest.mark.parametrize("initial, final", [(5, 10), (6, 6)])
def test_atomic_cas_is_a_real_compare_and_swap(initial, final):
    report = spec_run("atomic_cas", 4, u32s(initial))
    assert report.read_u32(0, 1) == [final]
    assert report.read_u32(100, 1) == [initial]


def test_atomic_cas_from_upstream_bytes_acts_as_add():
    from wave_lsp.asm import assemble
    wbin = assemble(source("atomic_cas"), compat=True).wbin()
    report = run(wbin, Launch(workgroup=(4, 1, 1), **SPEC, memory_init=[DataFill(0, u32s(6))]))
    assert report.read_u32(0, 1) == [11]


def test_cli_vector_add(capsys):
    status = main(["run", str(EXAMPLES / "vector_add.wave"), "--grid", "1,1,1", "--workgroup",
                   "256,1,1", "--fill-iota", "0:f32:256:1", "--fill-iota", "1024:f32:256:2",
                   "--fill-zero", "2048:f32:256", "--dump-f32", "2048:256"])
    assert status == 0
    assert capsys.readouterr().out.split() == [f"{3.0 * i}" for i in range(256)]


def test_cli_histogram_u32(capsys):
    status = main(["run", str(EXAMPLES / "histogram.wave"), "--workgroup", "4,1,1",
                   "--wave-width", "4", "--dump-u32", "0:2"])
    assert status == 0
    assert capsys.readouterr().out == "2\n2\n"
