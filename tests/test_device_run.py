"""`wave-lsp run --device cuda [--compare]` (wave_lsp.emu.cuda, emu.compare, cli.device_option).

Without a GPU (CI has none) everything but the launch itself is tested: the flags and their
one-line errors (exit status 2 without CuPy or a device), the host side (the PTX, its entry,
grid and block, and the initial device image, which is the emulator's own), and the comparison
of two memory images with the store line of the first differing word, on emulator images and
deliberately altered ones. The GPU tests skip, with the reason, where CuPy finds no device."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from wave_lsp.asm.backends import emit
from wave_lsp.emu import Launch, run
from wave_lsp.emu import RunOptions
from wave_lsp.emu.compare import first_difference
from wave_lsp.emu.cuda import device_status, prepare
from wave_lsp.emu.kernel_launch import DataFill, IotaFill, LaunchError, ZeroFill, new_device_memory
from tests.forkserver import wave_lsp_argv

SHARED = Path(__file__).resolve().parents[2] / "shared" / "wave-examples"
KERNEL = """.kernel scale
.registers 8
.workgroup_size 64, 1, 1
    mov_sr r0, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r0, r1
    device_load_u32 r3, r2
    iadd r4, r3, r3
    mov_imm r5, 256
    iadd r6, r2, r5
    device_store_u32 r6, r4
    halt
.end
"""
STORE_LINE = KERNEL.splitlines().index("    device_store_u32 r6, r4")


def wave_lsp(*args: str, env: dict | None = None, cwd: Path = ROOT):
    env = {**os.environ, **(env or {})}
    return subprocess.run(wave_lsp_argv(*args, env=env), capture_output=True,
                          text=True, timeout=120, cwd=cwd, env=env)


@pytest.fixture
def kernel_file(tmp_path) -> Path:
    path = tmp_path / "scale.wave"
    path.write_text(KERNEL)
    return path


# ---- flags and errors ------------------------------------------------------------------------
@pytest.mark.skipif(device_status() is None, reason="CuPy finds a CUDA device here")
def test_device_cuda_without_a_gpu_is_a_one_line_error_exit_2(kernel_file):
    done = wave_lsp("run", str(kernel_file), "--device", "cuda", "--dump-u32", "256:4")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("Error: --device cuda")
    assert done.stderr.strip() == f"Error: --device cuda: {device_status()}"
    if "not installed" in done.stderr:
        assert "pip install 'wave-lsp[cuda]'" in done.stderr


def test_cupy_without_a_device_is_a_one_line_error_exit_2(kernel_file, tmp_path):
    """A CuPy that finds no device (a stand-in module on PYTHONPATH whose runtime raises what
    CuPy raises on a machine without a driver)."""
    stub = tmp_path / "stub" / "cupy"
    (stub / "cuda").mkdir(parents=True)
    (stub / "__init__.py").write_text("from . import cuda\n")
    (stub / "cuda" / "__init__.py").write_text(
        "class runtime:\n    @staticmethod\n    def getDeviceCount():\n"
        "        raise RuntimeError('cudaErrorNoDevice: no CUDA-capable device is detected')\n")
    done = wave_lsp("run", str(kernel_file), "--device", "cuda",
                    env={"PYTHONPATH": str(stub.parent)})
    assert done.returncode == 2, done.stderr
    assert done.stderr == ("Error: --device cuda: CuPy finds no CUDA device (cudaErrorNoDevice: "
                           "no CUDA-capable device is detected)\n")


@pytest.mark.parametrize("flags, message", [
    (["--compare"], "--compare compares a GPU run with the emulator: it needs --device cuda"),
    (["--device", "cuda", "--stats"], "--stats is the emulator's: it cannot be used with "
                                      "--device cuda"),
    (["--device", "cuda", "--trace"], "--trace is the emulator's"),
    (["--device", "cuda", "--dump-regs"], "--dump-regs is the emulator's"),
    (["--device", "cuda", "--wave-widths", "16,32"], "--wave-widths is the emulator's"),
])
def test_flags_a_gpu_run_cannot_honour_exit_2(kernel_file, flags, message):
    done = wave_lsp("run", str(kernel_file), *flags)
    assert done.returncode == 2 and done.stderr.startswith(f"Error: {message}"), done.stderr
    assert done.stderr.count("\n") == 1


def test_an_unknown_device_is_argparse_usage(kernel_file):
    done = wave_lsp("run", str(kernel_file), "--device", "rocm")
    assert done.returncode == 2 and "invalid choice: 'rocm'" in done.stderr


@pytest.mark.parametrize("flags, message", [
    (["--wave-width", "16"], "Error: --wave-width: an NVIDIA GPU runs waves of 32 lanes, not 16"),
    (["--kernel", "nope"], "Error: "),
])
def test_launches_a_gpu_cannot_run_are_launch_errors(kernel_file, flags, message):
    done = wave_lsp("run", str(kernel_file), "--device", "cuda", *flags)
    assert done.returncode == 1 and done.stderr.startswith(message), done.stderr


# ---- the host side ---------------------------------------------------------------------------
def test_prepare_gives_the_emitted_ptx_the_geometry_and_the_emulators_image(tmp_path):
    data = bytes(range(16))
    launch = Launch(grid=(3, 1, 1), workgroup=(8, 1, 1), device_memory=4096, metadata_first=True,
                    memory_init=(IotaFill(0, 64, 0.5), ZeroFill(256, 8), DataFill(1024, data)))
    prepared = prepare(KERNEL, launch)
    assert prepared.ptx == emit(KERNEL, "ptx").text        # `wave-lsp emit --target ptx`
    assert f".visible .entry {prepared.entry}(" in prepared.ptx and prepared.kernel == "scale"
    assert prepared.grid == (3, 1, 1) and prepared.block == (64, 1, 1)   # the metadata wins
    assert prepared.image.tobytes() == new_device_memory(launch).tobytes()
    assert prepared.image[1024:1040].tobytes() == data
    assert prepared.image[:8].view("<f4").tolist() == [0.0, 0.5]


ARGUMENTS = """.kernel args
.registers 8
.workgroup_size 32, 1, 1
    mov_sr r1, sr_thread_id_x
    mov_imm r3, 4
    imul r1, r1, r3
    iadd r4, r1, r5
    iadd r6, r0, r2
    device_store_u32 r4, r6
    halt
.end
"""


def test_set_reg_values_are_the_kernels_parameters_in_their_order():
    """The registers read before written (r0, r2, r5) are the PTX's parameters after the
    device memory, in ascending order; each gets its --set-reg value, 0 without one (the
    emulator's start), and a --set-reg of another register (r7) changes nothing."""
    prepared = prepare(ARGUMENTS, Launch(device_memory=1024, set_regs={5: 512, 2: 0xFFFFFFFF,
                                                                        7: 9}))
    assert prepared.arguments == (0, 2, 5) and prepared.values == (0, 0xFFFFFFFF, 512)
    head = prepared.ptx.split(") {", 1)[0].splitlines()
    assert head[-4:] == ["    .param .u64 _device_mem_ptr,", "    .param .u32 arg_r0,",
                         "    .param .u32 arg_r2,", "    .param .u32 arg_r5"]
    for r in (0, 2, 5):
        assert f"ld.param.u32 %r{r}, [arg_r{r}];" in prepared.ptx
    assert prepare(KERNEL, Launch(set_regs={1: 3})).arguments == ()


def test_set_reg_with_device_cuda_is_no_launch_error(kernel_file):
    done = wave_lsp("run", str(kernel_file), "--device", "cuda", "--set-reg", "1:3")
    reason = device_status()
    if reason is None:
        assert done.returncode == 0, done.stderr
    else:
        assert done.returncode == 2 and done.stderr == f"Error: --device cuda: {reason}\n"


def test_the_entry_of_a_kernel_whose_name_is_mangled_is_the_one_the_ptx_declares():
    from test_emit_names import HOSTILE, wbin_named
    prepared = prepare(wbin_named(HOSTILE), Launch(workgroup=(32, 1, 1), device_memory=64))
    assert prepared.kernel == HOSTILE and prepared.entry != HOSTILE
    assert f".visible .entry {prepared.entry}(" in prepared.ptx


def test_prepare_selects_the_kernel_of_a_file_of_several():
    source = (SHARED / "sample.wave").read_text()
    second = prepare(source, Launch(kernel="reduction"))
    assert second.kernel == "reduction" and second.entry == "reduction"
    assert ".entry vector_add" not in second.ptx
    with pytest.raises(LaunchError):
        prepare(source, Launch(kernel="missing"))


# ---- comparing images ------------------------------------------------------------------------
def emulated(program=KERNEL, **launch):
    launch = Launch(**{"device_memory": 1024, "memory_init": (IotaFill(0, 64),), **launch})
    report = run(program, launch, RunOptions(writers=True))
    return report, report.writers


def test_equal_images_have_no_difference():
    report, writers = emulated()
    again = run(KERNEL, Launch(device_memory=1024, memory_init=(IotaFill(0, 64),)))
    assert first_difference(report.device_memory, again.device_memory, writers) is None


def test_an_altered_word_is_found_with_the_store_line_that_wrote_it():
    report, writers = emulated()
    device = report.device_memory.copy()
    device[256 + 4 * 9 + 2] ^= 0x40                    # thread 9's result, third byte
    device[256 + 4 * 30] ^= 1                          # and thread 30's
    found = first_difference(report.device_memory, device, writers)
    assert (found.address, found.words, found.writer) == (256 + 36, 2, STORE_LINE)
    assert found.expected == report.read_u32(256 + 36, 1)[0]
    assert found.actual == found.expected ^ 0x400000
    assert found.text("emulator", "GPU", "k.wave") == (
        f"first difference at device address 0x124: emulator 0x{found.expected:08x}, GPU "
        f"0x{found.actual:08x} (stored by k.wave:{STORE_LINE + 1}); 2 word(s) differ")


def test_a_word_no_store_wrote_says_so():
    report, writers = emulated()
    device = report.device_memory.copy()
    device[8] ^= 0xFF                                  # an input word: filled, never stored
    found = first_difference(report.device_memory, device, writers)
    assert found.address == 8 and found.writer is None
    assert "no store in the emulator wrote it" in found.text("emulator", "GPU")


def test_two_emulator_runs_that_differ_are_attributed_to_their_store():
    report, writers = emulated()
    other, _ = emulated(memory_init=(IotaFill(0, 64, 2.0),))
    found = first_difference(report.device_memory, other.device_memory, writers)
    assert (found.address, found.writer, found.words) == (4, None, 63 + 63)  # inputs, results
    same_inputs = other.device_memory.copy()
    same_inputs[:256] = report.device_memory[:256]
    found = first_difference(report.device_memory, same_inputs, writers)
    assert (found.address, found.writer, found.words) == (256 + 4, STORE_LINE, 63)


def test_a_wbin_is_attributed_to_a_pc():
    from wave_lsp.asm import assemble
    wbin = assemble(KERNEL).wbin()
    report, writers = emulated(wbin)
    device = report.device_memory.copy()
    device[256 + 4] ^= 1
    found = first_difference(report.device_memory, device, writers, by_pc=True)
    store_pc = next(i.offset for i in assemble(KERNEL).kernels[0].instructions
                    if i.spec.mnemonic == "device_store_u32")
    assert found.writer == store_pc and f"pc 0x{store_pc:04x}" in found.where()


def test_images_of_different_sizes_are_an_error():
    with pytest.raises(ValueError):
        first_difference(np.zeros(8, np.uint8), np.zeros(12, np.uint8))


# ---- on a real GPU ---------------------------------------------------------------------------
need_gpu = pytest.mark.skipif(device_status() is not None,
                              reason=f"no GPU run possible: {device_status()}")


@need_gpu
def test_the_gpu_prints_what_the_emulator_prints():
    args = [str(SHARED / "vector_add.wave"), "--fill-iota", "0:f32:256:1", "--fill-iota",
            "1024:f32:256:2", "--fill-zero", "2048:f32:256", "--dump-f32", "2048:256",
            "--dump-memory", "2048:2112"]
    emulator = wave_lsp("run", *args)
    gpu = wave_lsp("run", *args, "--device", "cuda")
    assert gpu.returncode == 0, gpu.stderr
    assert gpu.stdout == emulator.stdout and len(gpu.stdout.splitlines()) > 256


@need_gpu
def test_compare_on_the_gpu_reports_same_memory(kernel_file):
    done = wave_lsp("run", str(kernel_file), "--device", "cuda", "--compare",
                    "--fill-iota", "0:f32:64:1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["compare"] is None


@need_gpu
def test_gemm_blocked_takes_its_arguments_on_the_gpu(tmp_path):
    """The shared GEMM reads N, K and the matrices' offsets from r0-r5 (--set-reg): on the GPU
    it computes C = A * B (before, its PTX ran with N = 0 and wrote nothing)."""
    rng = np.random.default_rng(7)
    n = 128
    a, b = (rng.uniform(-1, 1, (n, n)).astype("<f4") for _ in range(2))
    (tmp_path / "ab.bin").write_bytes(a.tobytes() + b.tobytes())
    done = wave_lsp("run", str(SHARED / "gemm_blocked.wave"), "--device", "cuda",
                    "--device-memory", str(3 * 4 * n * n), "--arg", f"0:{tmp_path / 'ab.bin'}",
                    "--set-reg", "0:0", "--set-reg", f"1:{4 * n * n}", "--set-reg",
                    f"2:{8 * n * n}", "--set-reg", f"3:{n}", "--set-reg", f"4:{n}",
                    "--set-reg", f"5:{n}", "--dump-f32", f"{8 * n * n}:{n * n}")
    assert done.returncode == 0, done.stderr
    c = np.array([float(v) for v in done.stdout.split()], dtype=np.float32).reshape(n, n)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, atol=1e-3)   # f32 sums of 128


def test_the_compare_line():
    from wave_lsp.cli.device_option import compare_message
    report, writers = emulated()
    device = report.device_memory.copy()
    device[256 + 4] ^= 1
    found = first_difference(report.device_memory, device, writers)
    assert compare_message(None, "k.wave", 1024) == \
        "Compare: device memory is the same on the GPU and in the emulator (1024 bytes)"
    assert compare_message(found, "k.wave", 1024) == \
        "Compare: " + found.text("emulator", "GPU", "k.wave")
    assert f"(stored by k.wave:{STORE_LINE + 1})" in compare_message(found, "k.wave", 1024)
