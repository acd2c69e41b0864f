"""Bounded, clear failures of `wave-lsp run`: every launch
value is checked with a one-line error naming the flag, limits hold for the whole launch, dumps
are streamed, and no flag value gives a traceback."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from hypothesis import given, settings, strategies as st

from numpy_engine import run
from wave_lsp.emu import IotaFill, Launch, LaunchError
from wave_lsp.launch.flags import LaunchFlagError, build_launch, build_options, parse_launch_flags
from tests.forkserver import wave_lsp_argv

SPIN = ".kernel spin\n.registers 4\nloop\n    mov_imm r1, 1\nendloop\n    halt\n.end\n"
STORE = (".kernel k\n.registers 4\n    mov_sr r0, sr_thread_id_x\n    mov_imm r1, 4\n"
         "    imul r0, r0, r1\n    device_store_u32 r0, r1\n    halt\n.end\n")
BIG_WG = STORE.replace(".registers 4\n", ".registers 4\n.workgroup_size 100000, 1, 1\n")


def wave_lsp(tmp_path, source: str, *flags: str, name: str = "k.wave"):
    path = tmp_path / name
    path.write_text(source)
    return subprocess.run(wave_lsp_argv("run", str(path), *flags),
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("flags, flag", [
    (["--workgroup", "100000,100000,1"], "--workgroup"),
    (["--workgroup", "100000000,1,1"], "--workgroup"),
    (["--workgroup", "0,1,1"], "--workgroup"),
    (["--grid", "100000,100000,1"], "--grid"),
    (["--wave-width", "65"], "--wave-width"),
    (["--time-limit", "0"], "--time-limit"),
    (["--time-limit", "-1"], "--time-limit"),
    (["--time-limit", "nan"], "--time-limit"),
    (["--time-limit", "inf"], "--time-limit"),
    (["--time-limit", "1e300"], "--time-limit"),
    (["--max-instructions", "-1"], "--max-instructions"),
    (["--set-reg", "r300:1"], "--set-reg"),
    (["--set-reg", "r1:0x100000000"], "--set-reg"),
    (["--fill-iota", "0:u8:4"], "--fill-iota"),
    (["--fill-zero", "0:u16:4"], "--fill-zero"),
    (["--device-memory", "8589934592"], "--device-memory"),
    (["--local-memory", "-4"], "--local-memory"),
])
def test_bad_values_name_the_flag(flags, flag, tmp_path):
    with pytest.raises(LaunchFlagError) as info:
        args = parse_launch_flags(flags)
        build_launch(args), build_options(args)
    assert info.value.flag == flag
    done = wave_lsp(tmp_path, STORE, *flags)
    assert done.returncode == 1
    assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1, done.stderr
    assert flag in done.stderr


def test_set_reg_beyond_the_kernels_registers(tmp_path):
    with pytest.raises(LaunchError) as info:
        run(STORE, Launch(set_regs={40: 1}))
    assert info.value.flag == "--set-reg"
    done = wave_lsp(tmp_path, STORE, "--set-reg", "r40:1")
    assert done.returncode == 1 and "r40" in done.stderr and "Traceback" not in done.stderr


def test_metadata_workgroup_is_bounded_too(tmp_path):
    """A `.wbin`'s metadata wins over --workgroup, so it is checked as well."""
    from wave_lsp.asm import assemble
    path = tmp_path / "big.wbin"
    path.write_bytes(assemble(BIG_WG).wbin())
    done = subprocess.run(wave_lsp_argv("run", str(path)),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "metadata" in done.stderr and "Traceback" not in done.stderr


def test_instruction_limit_is_global_to_the_launch(tmp_path):
    started = time.monotonic()
    done = wave_lsp(tmp_path, SPIN, "--grid", "64,1,1", "--workgroup", "32,1,1",
                    "--max-instructions", "200000")
    assert done.returncode == 1 and "instruction limit exceeded" in done.stderr
    assert time.monotonic() - started < 60
    report = run(SPIN, Launch(grid=(64, 1, 1), workgroup=(32, 1, 1)), max_instructions=5000)
    assert report.errors[0].kind == "instruction_limit"
    assert 5000 < report.stats.total <= 5000 + 64     # stopped right after the launch's limit


def test_time_limit_stops_a_spinning_kernel(tmp_path):
    done = wave_lsp(tmp_path, SPIN, "--max-instructions", "0", "--time-limit", "0.5")
    assert done.returncode == 1 and "time limit exceeded" in done.stderr


@pytest.mark.parametrize("flags", [["--dump-memory", "0:4294967296"],
                                   ["--dump-u32", "0:1073741824"],
                                   ["--dump-memory", "8:4"]])
def test_dumps_outside_memory_are_one_line_errors(flags, tmp_path):
    done = wave_lsp(tmp_path, STORE, *flags)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr


def test_large_dump_is_streamed(tmp_path):
    """A 64 MiB device memory dumped as u32 (16M lines) starts printing at once and the process
    stays far below the size of the whole text."""
    path = tmp_path / "k.wave"
    path.write_text(STORE)
    proc = subprocess.Popen([sys.executable, "-m", "wave_lsp.cli.main", "run", str(path),
                             "--device-memory", str(64 << 20), "--dump-u32",
                             f"0:{16 << 20}"], stdout=subprocess.PIPE, text=True)
    first = [proc.stdout.readline() for _ in range(40)]
    assert first == ["4\n"] * 32 + ["0\n"] * 8          # 32 threads stored 4
    rss_kib = int(next(line.split()[1] for line in open(f"/proc/{proc.pid}/status")
                        if line.startswith("VmRSS")))
    assert rss_kib < 600 * 1024              # the whole text would be about 1 GiB as str
    proc.kill()
    proc.wait()


def test_fill_iota_writes_in_chunks():
    report = run(STORE, Launch(device_memory=(3 << 20) * 4,
                               memory_init=[IotaFill(0, 3 << 20, 0.5)]))
    assert report.read_f32(4 * 2_000_000, 2) == [1_000_000.0, 1_000_000.5]


FLAG_VALUES = st.one_of(
    st.integers(-2**70, 2**70).map(str), st.floats(allow_nan=True).map(str),
    st.sampled_from(["", "0", "-0", "0x", "0xFFFFFFFFFFFF", "1,1", "1,1,1,1", "a:b:c", "r300:1",
                     "nan", "inf", "-inf", "1e309", "0:f32:4:nan", ":::", "0:", ":0", "r:1",
                     "4294967296,1,1", "1,0,1", "0:u8:4", "0:f32:-1"]),
    st.text(max_size=12))
FLAGS = ["--grid", "--workgroup", "--wave-width", "--registers", "--local-memory",
         "--device-memory", "--fill-iota", "--fill-zero", "--set-reg", "--max-instructions",
         "--dump-memory", "--dump-u32", "--dump-f32", "--dump-f16", "--dump-bf16",
         "--time-limit", "--kernel"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(FLAGS), FLAG_VALUES), min_size=1, max_size=4))
def test_no_flag_value_gives_a_traceback(tmp_path_factory, pairs):
    """Random values for every flag: status 0 or 1, and an error is one `Error: ` line."""
    import contextlib
    import io

    from wave_lsp.cli.main import main
    path = tmp_path_factory.getbasetemp() / "fuzz.wave"
    if not path.exists():
        path.write_text(STORE)
    argv = ["run", str(path), "--max-instructions", "100000"]
    for flag, value in pairs:
        argv.append(f"{flag}={value}")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit_:           # argparse rejects the flag syntax itself
            status = exit_.code
    assert status in (0, 1, 2), err.getvalue()
    if status:
        assert "Traceback" not in err.getvalue() and err.getvalue().strip(), argv


@pytest.mark.parametrize("fields", [{"time_limit": float("nan")}, {"time_limit": 0.0},
                                    {"time_limit": float("inf")}, {"max_instructions": -1}])
def test_api_launches_are_checked_too(fields):
    with pytest.raises(LaunchError):
        run(SPIN, Launch(), **fields)
