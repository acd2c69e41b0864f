"""The launch pipeline (wave_lsp/emu/pipeline.py): the engine `run` picks and its fallback give
the same report as the numpy engine on every shared and project kernel; `load_program` sniffs
a program file once; `RunOptions` are checked; the store-writer record names the line and the
lane of the last store to a word."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import asdict, replace

import pytest

import test_emu_differential as diff
from conftest import ROOT
from emu_native.native_support import need_core
from wave_lsp.asm import assemble
from wave_lsp.emu import (EngineUnavailable, Launch, LaunchError, PreparedLaunch, RunOptions,
                          ZeroFill, load_program, prepare, run)
from wave_lsp.launch.output import error_line, run_output, warning_lines
from wave_lsp.launch.request import parse_run_flags

SHARED = diff.EXAMPLE_NAMES + ["sample"]
PROJECT = sorted((ROOT / "examples").glob("*.wave"))


def shared_request(name: str, folder):
    flags = ["--workgroup", "4,1,1", "--wave-width", "4", "--stats", "--dump-u32", "0:64"] \
        if name == "sample" else diff.example_flags(name, folder)
    return (diff.EXAMPLES / f"{name}.wave").read_text(), parse_run_flags(flags, folder)


def project_request(path):
    """The launch documented in the example's header (as tests/debug/test_stepping.py reads
    it), with `--dump-memory` and `--stats` added to compare the printed text too."""
    text = path.read_text()
    found = re.search(r"^; Launch: wave-lsp run \S+ (.*?)\n(?!;     )", text, re.S | re.M)
    words = shlex.split(" ".join(p.strip(" ;\\") for p in found.group(1).split("\n")))
    return text, parse_run_flags([*words, "--dump-memory", "0:256", "--stats"], ROOT)


def comparable(report) -> dict:
    return {"kernel": report.kernel, "memory": bytes(report.device_memory),
            "stats": asdict(report.stats), "errors": report.errors,
            "warnings": report.warnings, "registers": report.registers,
            "launch": report.launch_summary}


def assert_one_report(program, request):
    """`run` with the engine it picks equals the numpy engine's run, in data and in the text
    `wave-lsp run` prints; a native run equals an explicit native run; a fallback says why."""
    need_core()
    numpy = run(program, request.launch, replace(request.options, engine="numpy"))
    auto = run(program, request.launch, request.options)
    assert numpy.engine == "numpy" and numpy.fallback is None
    assert comparable(auto) == comparable(numpy)
    printed = [list(run_output(r, request.dumps, stats=request.stats,
                               dump_regs=request.dump_regs)) for r in (auto, numpy)]
    assert "".join(printed[0]) == "".join(printed[1])
    assert (error_line(auto), warning_lines(auto)) == (error_line(numpy), warning_lines(numpy))
    if auto.engine == "native":
        assert auto.fallback is None
        native = run(prepare(program, request.launch),
                     options=replace(request.options, engine="native"))
        assert comparable(native) == comparable(numpy)
    else:
        assert auto.engine == "numpy" and auto.fallback
        with pytest.raises(EngineUnavailable) as info:
            run(program, request.launch, replace(request.options, engine="native"))
        assert info.value.reason == auto.fallback
    return auto


@pytest.mark.parametrize("name", SHARED)
def test_the_shared_kernels_give_one_report_whichever_engine(name, tmp_path):
    auto = assert_one_report(*shared_request(name, tmp_path))
    if name in ("vector_add", "relu", "prefix_sum", "gemm_blocked", "mma_simple"):
        assert auto.engine == "native"        # the test sees both paths, not only fallbacks


@pytest.mark.parametrize("path", PROJECT, ids=[p.name for p in PROJECT])
def test_the_project_examples_give_one_report_whichever_engine(path):
    assert_one_report(*project_request(path))


def test_the_fallback_follows_the_options(tmp_path):
    need_core()
    program, request = shared_request("vector_add", tmp_path)
    assert run(program, request.launch, request.options).engine == "native"
    for options, why in ((RunOptions(trace=lambda line: None), "--trace"),):
        report = run(program, request.launch, options)
        assert (report.engine, report.fallback) == ("numpy", why)
    two = replace(request.launch, grid=(2, 1, 1))
    report = run(program, two, RunOptions(record_threads=[0, 256]))
    assert (report.engine, report.fallback) == ("numpy", "shown threads in several workgroups")
    for options in (RunOptions(record_threads="first_wave"), RunOptions(writers=True)):
        report = run(program, request.launch, options)      # the core records both itself
        assert (report.engine, report.fallback) == ("native", None)
    for options in (RunOptions(time_limit=60.0), RunOptions(cancel=lambda: False)):
        report = run(program, request.launch, options)      # the core polls both itself
        assert (report.engine, report.fallback, report.errors) == ("native", None, [])
    with_regs = replace(request.launch, register_threads=(0, 7, 10 ** 9))
    regs = run(program, with_regs, request.options)        # the core copies them itself
    assert (regs.engine, regs.fallback) == ("native", None)
    numpy = run(program, with_regs, replace(request.options, engine="numpy"))
    assert regs.registers == numpy.registers and sorted(regs.registers) == [0, 7]


def test_the_core_turned_off_falls_back(tmp_path, monkeypatch):
    program, request = shared_request("vector_add", tmp_path)
    monkeypatch.setenv("WAVE_LSP_NATIVE", "0")
    report = run(program, request.launch, request.options)
    assert (report.engine, report.fallback) == ("numpy",
                                                "WAVE_LSP_NATIVE=0 turns the native core off")


def test_a_prepared_launch_runs_as_prepared(tmp_path):
    program, request = shared_request("reduction", tmp_path)
    prepared = prepare(program, request.launch)
    assert isinstance(prepared, PreparedLaunch) and prepared.kernel.name == "reduction"
    assert prepared.summary()["workgroup"] == [256, 1, 1]
    assert comparable(run(prepared, options=request.options)) == \
        comparable(run(program, request.launch, request.options))
    with pytest.raises(LaunchError, match="run as it was prepared"):
        run(prepared, replace(request.launch, grid=(2, 1, 1)))


def test_prepare_checks_the_launch_before_any_engine():
    source = (diff.EXAMPLES / "vector_add.wave").read_text()
    for launch, message in ((Launch(kernel="nope"), "no kernel named 'nope'"),
                            (Launch(wave_width=65), "--wave-width"),
                            (Launch(device_memory=16, memory_init=(
                                ZeroFill(8, 4),)),
                             "--fill-zero: 16 bytes at 8")):
        with pytest.raises(LaunchError, match=message):
            prepare(source, launch)


# ---- load_program --------------------------------------------------------------------------
def test_load_program_sniffs_once(tmp_path):
    source = (diff.EXAMPLES / "reduction.wave").read_text()
    wave = tmp_path / "k.wave"
    wave.write_text(source)
    assert load_program(wave) == source
    binary = assemble(source).wbin()
    named_as_source = tmp_path / "binary.wave"            # the magic wins over the name
    named_as_source.write_bytes(binary)
    assert load_program(named_as_source) == binary
    odd = tmp_path / "odd.wbin"                           # the name wins without the magic
    odd.write_bytes(b"\xff\xfe not a program")
    assert load_program(odd) == b"\xff\xfe not a program"
    latin = tmp_path / "latin.wave"
    latin.write_bytes(b"; caf\xe9\n")
    with pytest.raises(ValueError, match="neither UTF-8 WAVE source nor a .wbin"):
        load_program(latin)


def test_load_program_reads_regular_bounded_files_only(tmp_path):
    with pytest.raises(OSError, match="a directory"):
        load_program(tmp_path)
    fifo = tmp_path / "pipe.wave"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        load_program(fifo)
    big = tmp_path / "big.wave"
    big.write_text("; x\n" * 100)
    with pytest.raises(OSError, match="file too large"):
        load_program(big, limit=64)
    with pytest.raises(FileNotFoundError):
        load_program(tmp_path / "missing.wave")


# ---- RunOptions ----------------------------------------------------------------------------
@pytest.mark.parametrize("fields, message, flag", [
    ({"max_instructions": -1}, "--max-instructions: must be 0", "--max-instructions"),
    ({"time_limit": 0}, "--time-limit: must be a positive", "--time-limit"),
    ({"time_limit": float("nan")}, "--time-limit", "--time-limit"),
    ({"time_limit": float("inf")}, "--time-limit", "--time-limit"),
    ({"engine": "gpu"}, "engine: must be one of auto, native, numpy", None),
    ({"trace": "yes"}, "trace: must be", None),
    ({"record_threads": "all"}, "record_threads: must be", None),
    ({"record_threads": [0, -1]}, "record_threads: must be", None),
    ({"record_limit": -1}, "record_limit", None),
    ({"max_batch_lanes": 0}, "max_batch_lanes", None),
    ({"cancel": 5}, "cancel: must be a callable", None),
])
def test_run_options_are_checked_when_made(fields, message, flag):
    with pytest.raises(LaunchError, match=message) as info:
        RunOptions(**fields)
    assert getattr(info.value, "flag", None) == flag


def test_run_options_defaults_and_flags():
    options = RunOptions()
    assert (options.max_instructions, options.time_limit, options.engine, options.initcheck,
            options.writers, options.profile, options.trace) == \
        (10_000_000, None, "auto", True, False, False, False)
    request = parse_run_flags(["--trace-lines", "--max-instructions", "0", "--time-limit", "2",
                               "--no-initcheck", "--dump-regs", "--json", "--stats"])
    assert (request.options.trace, request.options.max_instructions,
            request.options.time_limit, request.options.initcheck) == (True, 0, 2.0, False)
    assert request.launch.register_threads == (0,) and request.json and request.stats
    assert parse_run_flags(["--trace"]).options.trace == "upstream"
    assert parse_run_flags(["--device", "cuda", "--stats"]).device_problem == \
        "--stats is the emulator's: it cannot be used with --device cuda"


# ---- the store-writer record -----------------------------------------------------------------
WRITERS = """\
.kernel w
.registers 8
    mov r0, sr_lane_id
    mov_sr r5, sr_workgroup_id_x
    mov_imm r4, 4
    imul r5, r5, r4
    mov_imm r3, 0
    mov_imm r4, 1
    loop
        icmp_eq p1, r3, r0
        break p1
        device_store_u32 r5, r3
        iadd r3, r3, r4
    endloop
    mov_imm r6, {lane}
    icmp_eq p2, r0, r6
    if p2
        mov_imm r7, 99
        device_store_u32 r5, r7
    endif
    halt
.end
"""
LOOP_STORE, BRANCH_STORE = 11, 18       # 0-based lines of the two stores


def test_writers_name_the_line_and_lane_of_the_last_store():
    launch = Launch(grid=(2, 1, 1), workgroup=(4, 1, 1), wave_width=4, device_memory=64)
    report = run(WRITERS.format(lane=2), launch, RunOptions(writers=True))
    assert not report.errors        # on either engine (the core's shadows of the workgroups
    numpy = run(WRITERS.format(lane=2), launch, RunOptions(writers=True, engine="numpy"))
    assert report.warnings == numpy.warnings          # meet, then it finds they do not race)
    assert [report.writers.at(a) for a in range(12)] == [numpy.writers.at(a) for a in range(12)]
    assert report.read_u32(0, 2) == [99, 99]
    assert report.writers.at(0) == (BRANCH_STORE, 2)     # the branch stored after the loop
    assert report.writers.at(3) == (BRANCH_STORE, 2)     # every byte of the word
    assert report.writers.at(4) == (BRANCH_STORE, 6)     # workgroup 1: global thread ids
    assert report.writers.at(8) is None                  # nothing stored there
    assert report.writers.at(1 << 20) is None
    # no lane takes the branch: the loop's last iteration (only lane 3 is still looping)
    quiet = run(WRITERS.format(lane=9), launch, RunOptions(writers=True))
    assert quiet.read_u32(0, 2) == [2, 2]
    assert quiet.writers.at(0) == (LOOP_STORE, 3)
    assert quiet.writers.at(4) == (LOOP_STORE, 7)
    assert quiet.writers.line_at(4) == LOOP_STORE and quiet.writers.last(0, 8) == LOOP_STORE
    assert run(WRITERS.format(lane=2), launch).writers is None     # only when asked


def test_writers_of_a_wbin_are_pcs():
    binary = assemble(WRITERS.format(lane=1)).wbin()
    report = run(binary, Launch(workgroup=(4, 1, 1), wave_width=4, device_memory=16),
                 RunOptions(writers=True))
    line, lane = report.writers.at(0)
    assert lane == 1 and not report.errors
    kernel = prepare(binary, Launch()).kernel
    assert next(i for i in kernel.instructions if i.offset == line).spec.mnemonic == \
        "device_store_u32"


# ---- the command's text without the command line ---------------------------------------------
@pytest.mark.parametrize("flags", [["--dump-u32", "0:8", "--stats"], ["--json", "--dump-f32", "0:2"],
                                   ["--dump-regs", "--dump-memory", "0:32"], ["--stats"]])
@pytest.mark.parametrize("name", ["vector_add", "sample", "out_of_bounds"])
def test_command_text_is_what_the_command_prints(name, flags, tmp_path, capsys):
    from wave_lsp.cli.main import main
    from wave_lsp.launch.output import command_text
    path = diff.EXAMPLES / f"{name}.wave"
    if name == "out_of_bounds":                      # an error: exit status 1
        path = tmp_path / "oob.wave"
        path.write_text(".kernel oob\n.registers 4\n    mov_imm r1, 0x7ffffff0\n"
                        "    device_store_u32 r1, r1\n    halt\n.end\n")
    words = ["--workgroup", "4,1,1", "--wave-width", "4", *flags]
    request = parse_run_flags(words)
    stdout, stderr, status = command_text(run(load_program(path), request.launch,
                                              request.options), request)
    assert main(["run", str(path), *words]) == status
    printed = capsys.readouterr()
    assert (printed.out, printed.err.splitlines()) == (stdout, stderr)
    assert stdout or stderr
    assert status == (name == "out_of_bounds")
