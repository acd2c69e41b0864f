"""`fsin`, `fcos`, `fexp2`, `flog2` bit for bit as upstream's `wave-emu` computes them (the C
library's `sinf`, `cosf`, `exp2f`, `log2f`: wave_lsp/emu/libm.py), on the native core, on the
numpy engine through the core's loop and through ctypes, for every lane count; and never numpy's
own functions, which answer some of these values with another last bit."""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from wave_lsp.asm import assemble
from wave_lsp.emu import libm
from wave_lsp.emu.native import core

from shared import SHARED, require
from tests.forkserver import wave_lsp_argv

UPSTREAM = SHARED / "upstream" / "bin"
OPS = tuple(libm.FUNCTIONS)

# each thread: r1 = the f32 at its word of device memory; op; stored back there
KERNEL = """.kernel k
.registers 8
    mov_sr r0, sr_thread_id_x
    mov_sr r4, sr_workgroup_id_x
    mov_sr r5, sr_workgroup_size_x
    imul r4, r4, r5
    iadd r0, r0, r4
    mov_imm r1, 4
    imul r3, r0, r1
    device_load_u32 r1, r3
    {op} r2, r1
    device_store_u32 r3, r2
    halt
.end
"""

SPECIAL = np.array([0x7FC00001, 0x7F800001, 0xFFC12345, 0x7F800000, 0xFF800000, 0, 0x80000000,
                    1, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0xBF800000, 0x3F800000, 0x49742400,
                    0x4B800000, 0x5A000000, 0x42FE0000, 0x43000000, 0xC3160000, 0x3F3504F3],
                   dtype=np.uint32)


def operands(op: str, count: int, seed: int) -> np.ndarray:
    """`count` f32 (as bits): the special values first, then values where `op` is interesting
    (sin/cos: large arguments too; exp2: where it neither overflows nor flushes; log2: > 0)."""
    rng = np.random.default_rng(seed)
    span = {"fsin": 1e5, "fcos": 1e5, "fexp2": 140.0, "flog2": 1e30}[op]
    x = rng.uniform(-span, span, count).astype(np.float32)
    if op == "flog2":
        x = np.abs(x) * rng.choice(np.float32([1e-30, 1e-10, 1e-5, 1]), count)
    bits = x.astype(np.float32).view(np.uint32).copy()
    head = min(count, len(SPECIAL))
    bits[:head] = SPECIAL[:head]
    return bits


def run(wbin, data, cwd, command, **env):
    """The u32 words after the launch over `data` (one thread a word, workgroups of 64)."""
    (cwd / "in.bin").write_bytes(data.tobytes())
    lanes = len(data)
    groups, size = (lanes + 63) // 64, min(lanes, 64)
    assert groups * size == lanes
    env = dict(os.environ, WAVE_LSP_SHOW_ENGINE="1", **env)
    head = wave_lsp_argv(*command, env=env) if command == OURS else command
    done = subprocess.run([*head, str(wbin), "--grid", f"{groups},1,1", "--workgroup",
                           f"{size},1,1", "--device-memory", str(4 * lanes), "--arg",
                           "0:in.bin", "--dump-u32", f"0:{lanes}"],
                          capture_output=True, text=True, cwd=cwd, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return np.array([int(v) for v in done.stdout.split()], dtype=np.uint32), done.stderr


OURS = ("run",)          # `wave-lsp run`: `run` gives it to the fork server


@pytest.mark.parametrize("lanes", [1, 7, 64, 4096])
@pytest.mark.parametrize("op", OPS)
def test_both_engines_give_upstreams_bits(tmp_path, op, lanes):
    require(UPSTREAM / "wave-emu", "upstream wave-emu")
    wbin = tmp_path / "k.wbin"
    wbin.write_bytes(assemble(KERNEL.format(op=op)).wbin())
    data = operands(op, lanes, seed=lanes)
    upstream, _ = run(wbin, data, tmp_path, [str(UPSTREAM / "wave-emu")])
    numpy_engine, said = run(wbin, data, tmp_path, OURS, WAVE_LSP_NATIVE="0")
    assert "engine: numpy" in said
    assert numpy_engine.tolist() == upstream.tolist()
    if core() is not None:
        native, said = run(wbin, data, tmp_path, OURS)
        assert said.startswith("engine: native"), said          # never left to numpy
        assert native.tolist() == upstream.tolist()
    if lanes == 4096:       # the point: numpy's own functions differ here, so this can fail
        x = data.view(np.float32)
        with np.errstate(all="ignore"):
            mine = {"fsin": np.sin, "fcos": np.cos, "fexp2": np.exp2, "flog2": np.log2}[op](x)
        differ = np.count_nonzero(mine.view(np.uint32) != upstream)
        assert differ > 0 or op == "flog2", f"numpy's {op} matched upstream everywhere"


@pytest.mark.parametrize("op", OPS)
def test_the_cores_loop_and_ctypes_agree(op):
    if core() is None:
        pytest.skip("the native core is not built")
    x = operands(op, 100_000, seed=7).view(np.float32)
    by_core = libm.apply(op, x)
    by_ctypes = libm.through_ctypes(op, x)
    assert by_ctypes is not None, "no C library through ctypes on this platform"
    assert by_core.view(np.uint32).tolist() == by_ctypes.view(np.uint32).tolist()
    assert x.view(np.uint32).tolist() == operands(op, 100_000, seed=7).tolist()   # untouched


def test_the_cores_loop_refuses_other_names():
    native = core()
    if native is None:
        pytest.skip("the native core is not built")
    values = np.zeros(4, dtype=np.float32)
    with pytest.raises(ValueError, match="fsin/fcos/fexp2/flog2"):
        native.transcendental("fsqrt", values)
    with pytest.raises(ValueError):
        native.transcendental("fsin", np.zeros(3, dtype=np.uint8))
