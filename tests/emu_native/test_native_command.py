"""`wave-lsp run` with the native core: a launch it can run loads no numpy at all; a launch
where anything happens that the numpy engine reports (an out-of-bounds access, the instruction
limit, a divergent barrier, an uninitialised read, a shuffle from an inactive lane: reported by
the core; a data race: the numpy engine runs it) prints exactly what the numpy engine alone
prints (stdout, stderr, status)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from tests.forkserver import wave_lsp_argv

from .native_support import need_core

from bench_emu import VECTOR_ADD as VECTOR_ADD_REGS  # base addresses in r0, r1, r2

from wave_lsp.asm import assemble

PROBE = """
import json, sys
from wave_lsp.cli.main import main
try:
    status = main(sys.argv[1:])
except SystemExit as exit_:
    status = exit_.code
sys.stdout.flush()
print(json.dumps({"status": status, "numpy": sorted(m for m in sys.modules
                                                   if m.split(".")[0] == "numpy")}),
      file=sys.stderr)
"""

VECTOR_ADD = """.kernel vector_add
.registers 16
.workgroup_size 256, 1, 1
    mov_sr r0, sr_thread_id_x
    mov_sr r1, sr_workgroup_id_x
    mov_sr r2, sr_workgroup_size_x
    imul r3, r1, r2
    iadd r4, r3, r0
    mov_imm r5, 4
    imul r6, r4, r5
    device_load_u32 r7, r6
    mov_imm r8, 1024
    iadd r9, r6, r8
    device_load_u32 r10, r9
    fadd r11, r7, r10
    mov_imm r12, 2048
    iadd r13, r6, r12
    device_store_u32 r13, r11
    halt
.end
"""

SPIN = """.kernel spin
.registers 4
    mov_imm r1, 2
    mov_imm r3, 1
    loop
        imul r3, r3, r1
    endloop
    halt
.end
"""

DIVERGENT_BARRIER = """.kernel k
.registers 4
    mov_sr r0, sr_lane_id
    mov_imm r1, 2
    ucmp_lt p1, r0, r1
    if p1
        barrier
    endif
    halt
.end
"""

INACTIVE_SHUFFLE = """.kernel k
.registers 4
    mov_sr r0, sr_lane_id
    mov_imm r1, 2
    ucmp_lt p1, r0, r1
    mov_imm r2, 3
    if p1
        wave_shuffle r3, r0, r2
    endif
    mov_imm r1, 4
    imul r2, r0, r1
    device_store_u32 r2, r3
    halt
.end
"""

WAVES_RACE = """.kernel k
.registers 4
    mov_sr r0, sr_thread_id_x
    mov_imm r1, 0
    local_store_u32 r1, r0
    local_load_u32 r2, r1
    mov_imm r1, 4
    imul r3, r0, r1
    device_store_u32 r3, r2
    halt
.end
"""

FSIN = """.kernel k
.registers 4
    mov_sr r0, sr_thread_id_x
    cvt_f32_u32 r1, r0
    fsin r2, r1
    mov_imm r1, 4
    imul r3, r0, r1
    device_store_u32 r3, r2
    halt
.end
"""


def write(tmp_path, name: str, source: str):
    path = tmp_path / f"{name}.wbin"
    path.write_bytes(assemble(source).wbin())
    return path


def command(argv, cwd, native: bool = True, probe: bool = False):
    env = dict(os.environ, WAVE_LSP_NATIVE="1" if native else "0", WAVE_LSP_SHOW_ENGINE="1")
    head = [sys.executable, "-c", PROBE] if probe else wave_lsp_argv(env=env)
    return subprocess.run([*head, "run", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def test_a_native_run_loads_no_numpy(tmp_path):
    need_core()
    wbin = write(tmp_path, "vector_add", VECTOR_ADD_REGS)
    done = command([wbin, "--grid", "4,1,1", "--device-memory", "12288",
                    "--fill-iota", "0:f32:1024:1", "--fill-iota", "4096:f32:1024:2",
                    "--set-reg", "0:0", "--set-reg", "1:4096", "--set-reg", "2:8192",
                    "--dump-f32", "8192:8",
                    "--dump-u32", "8192:2", "--dump-memory", "8192:8224", "--stats"],
                   tmp_path, probe=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("engine: native"), done.stderr
    assert json.loads(done.stderr.splitlines()[-1]) == {"status": 0, "numpy": []}
    lines = done.stdout.splitlines()
    assert lines[0] == "Device memory 0x00002000-0x00002020:"
    assert lines[3:5] == ["0", str(0x40400000)]        # upstream's order: memory, u32, f32
    assert lines[5:13] == ["0.0", "3.0", "6.0", "9.0", "12.0", "15.0", "18.0", "21.0"]
    assert "  Workgroups executed: 4" in lines


def test_a_native_run_that_warns_and_stops_at_an_error_loads_no_numpy(tmp_path):
    need_core()
    wbin = write(tmp_path, "vector_add", VECTOR_ADD_REGS)     # r0-r2 unset: read uninitialised
    argv = [wbin, "--grid", "4,1,1", "--device-memory", "2048", "--dump-regs", "--json"]
    done = command(argv, tmp_path, probe=True)
    assert done.stderr.startswith("engine: native"), done.stderr
    assert json.loads(done.stderr.splitlines()[-1]) == {"status": 1, "numpy": []}
    report = json.loads(done.stdout)
    assert [e["kind"] for e in report["errors"]] == ["out_of_bounds"]
    assert {w["kind"] for w in report["warnings"]} == {"uninitialised_register",
                                                       "uninitialised_device"}
    assert "0" in report["registers"]
    slow = command(argv, tmp_path, native=False)
    assert json.loads(slow.stdout) == report


def test_an_ineligible_run_uses_the_numpy_engine(tmp_path):
    need_core()
    wbin = write(tmp_path, "fsin", FSIN)
    argv = [wbin, "--workgroup", "4,1,1", "--dump-f32", "0:4"]
    traced = command([*argv, "--trace"], tmp_path, probe=True)     # a trace: the numpy engine's
    assert traced.returncode == 0, traced.stderr
    assert "engine: numpy (--trace)" in traced.stderr
    assert json.loads(traced.stderr.splitlines()[-1])["numpy"]          # numpy was loaded
    fast = command(argv, tmp_path, probe=True)                # fsin: the core's own (libm.py)
    assert fast.stderr.startswith("engine: native"), fast.stderr
    assert json.loads(fast.stderr.splitlines()[-1]) == {"status": 0, "numpy": []}
    slow = command(argv, tmp_path, native=False)
    assert fast.stdout == slow.stdout == traced.stdout and len(fast.stdout.split()) == 4


CASES = {
    "out of bounds": (VECTOR_ADD, ["--device-memory", "2048", "--fill-iota", "0:f32:512:1",
                                   "--dump-u32", "0:4"],
                      None),
    "race between workgroups": (VECTOR_ADD, ["--grid", "2,1,1", "--fill-iota", "0:f32:512:1",
                                             "--dump-f32", "0:1024", "--stats"],
                                None),
    "race between waves": (WAVES_RACE, ["--workgroup", "8,1,1", "--wave-width", "4",
                                        "--dump-u32", "0:8", "--stats"], None),
    "instruction limit": (SPIN, ["--workgroup", "4,1,1", "--max-instructions", "1000"],
                          None),
    "instruction limit, several workgroups a batch": (
        SPIN, ["--grid", "2,1,1", "--workgroup", "4,1,1", "--max-instructions", "1000"],
        None),
    "divergent barrier": (DIVERGENT_BARRIER, ["--workgroup", "4,1,1", "--wave-width", "4"],
                          None),
    "uninitialised read": (VECTOR_ADD, ["--fill-iota", "0:f32:256:1", "--dump-f32", "2048:4",
                                        "--stats"], None),
    "inactive shuffle": (INACTIVE_SHUFFLE, ["--workgroup", "4,1,1", "--wave-width", "4",
                                            "--dump-u32", "0:4", "--stats"], None),
}


@pytest.mark.parametrize("case", CASES)
def test_what_the_numpy_engine_reports_is_reported_alike(case, tmp_path):
    """The core reports warnings and errors itself (`reason` None): races between waves and
    between workgroups, the instruction limit in a batch of several workgroups too."""
    need_core()
    source, flags, reason = CASES[case]
    wbin = write(tmp_path, "k", source)
    fast, slow = command([wbin, *flags], tmp_path), command([wbin, *flags], tmp_path, False)
    expected = "engine: native\n" if reason is None else f"engine: numpy ({reason}"
    assert expected in fast.stderr, fast.stderr
    assert (fast.returncode, fast.stdout) == (slow.returncode, slow.stdout)
    assert fast.stderr.split("\n", 1)[1] == slow.stderr.split("\n", 1)[1]   # after the engine
    assert "Traceback" not in fast.stderr
    assert fast.stderr.count("Error:") + fast.stderr.count("Warning:") >= 1, fast.stderr
