"""`--trace-wave`, `--trace-lane` and `--trace-pc`: each filter keeps exactly the lines of the
unfiltered `--trace`, `--trace-lines` and `--mem-trace` that match it, in the same order; bad
values are one error line; launch lines accept the flags and run without them."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from wave_lsp.cli.main import main
from wave_lsp.launch.flags import LaunchFlagError, parse_launch_flags, build_options
from wave_lsp.ide.launch_lines import flag_help, parse_launch_line

# two waves of four lanes per workgroup, two workgroups; a loop each lane leaves after its own
# number of trips (BREAK/ENDLOOP lines in upstream's trace), a barrier, memory in the loop
KERNEL = """\
.kernel k
.registers 10
    mov r0, sr_lane_id
    mov_sr r7, sr_thread_id_x
    mov_imm r1, 4
    imul r2, r7, r1
    mov_imm r3, 0
    mov_imm r8, 1
    iadd r9, r0, r8
    loop
        iadd r3, r3, r8
        icmp_gt p0, r3, r9
        break p0
        device_store_u32 r2, r3
        local_atomic_add r4, r2, r8
    endloop
    barrier
    local_load_u32 r5, r2
    @p0 device_load_u32 r6, r2
    halt
.end
"""
FLAGS = ["--workgroup", "8,1,1", "--wave-width", "4", "--grid", "2,1,1", "--no-initcheck"]
HEAD = re.compile(r"wg\((\d+),(\d+),(\d+)\) wave\[(\d+)\] pc=0x([0-9a-f]+): ")
MEM = re.compile(r"mem step=\d+ wg\(\d+,\d+,\d+\) wave\[(\d+)\] lane\[(\d+)\] pc=0x([0-9a-f]+) ")


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL)
    return str(path)


def stderr_of(capsys, *args) -> list[str]:
    """The run's trace lines (the two workgroups store to the same words, so the run also warns
    of a data race between them: a warning line, not trace output, left out)."""
    assert main(["run", *args]) == 0
    return [line for line in capsys.readouterr().err.splitlines()
            if not line.startswith("Warning: data race")]


def groups(lines: list[str]) -> list[tuple[int, int, list[str]]]:
    """Trace lines as (wave, pc, lines): a header and its indented BREAK/ENDLOOP lines."""
    out = []
    for line in lines:
        if line.startswith("  "):
            out[-1][2].append(line)
            continue
        m = HEAD.match(line)
        assert m, line
        out.append((int(m.group(4)), int(m.group(5), 16), [line]))
    return out


def flat(gs) -> list[str]:
    return [line for g in gs for line in g[2]]


def lane_ran(line: str, lane: int) -> bool:
    return bool(int(line.rsplit("mask=0x", 1)[1], 16) >> lane & 1)


FILTERS = [
    (["--trace-wave", "1"], lambda wave, pc: wave == 1),
    (["--trace-wave", "0", "--trace-pc", "0x30:0x60"], lambda wave, pc: wave == 0
     and 0x30 <= pc < 0x60),
    (["--trace-pc", "80:"], lambda wave, pc: pc >= 80),
    (["--trace-pc", ":0x60"], lambda wave, pc: pc < 0x60),
    (["--trace-pc", "0x50:0x51"], lambda wave, pc: pc == 0x50),
]


@pytest.mark.parametrize("mode", ["--trace", "--trace-lines"])
@pytest.mark.parametrize("flags, keep", FILTERS)
def test_wave_and_pc_filters_keep_the_matching_trace_lines(kernel, capsys, mode, flags, keep):
    whole = groups(stderr_of(capsys, kernel, *FLAGS, mode))
    got = stderr_of(capsys, kernel, *FLAGS, mode, *flags)
    expected = flat(g for g in whole if keep(g[0], g[1]))
    assert expected and len(expected) < len(flat(whole))
    assert got == expected


@pytest.mark.parametrize("flags, keep", FILTERS)
def test_wave_and_pc_filters_keep_the_matching_mem_trace_lines(kernel, capsys, flags, keep):
    whole = stderr_of(capsys, kernel, *FLAGS, "--mem-trace")
    got = stderr_of(capsys, kernel, *FLAGS, "--mem-trace", *flags)
    expected = [line for line in whole
                if keep(int(MEM.match(line).group(1)), int(MEM.match(line).group(3), 16))]
    assert expected and len(expected) < len(whole)
    assert got == expected


@pytest.mark.parametrize("lane", [0, 2, 3])
def test_lane_filter(kernel, capsys, lane):
    # --trace-lines: the lines whose mask holds the lane
    whole = stderr_of(capsys, kernel, *FLAGS, "--trace-lines")
    got = stderr_of(capsys, kernel, *FLAGS, "--trace-lines", "--trace-lane", str(lane))
    assert got == [line for line in whole if lane_ran(line, lane)]
    assert len(got) < len(whole)
    # --mem-trace: the lane's accesses
    whole_mem = stderr_of(capsys, kernel, *FLAGS, "--mem-trace")
    got_mem = stderr_of(capsys, kernel, *FLAGS, "--mem-trace", "--trace-lane", str(lane))
    assert got_mem == [line for line in whole_mem if int(MEM.match(line).group(2)) == lane]
    # upstream's --trace (no masks in its lines; its own wave order): whole groups of the
    # unfiltered trace, in order, for the same instructions as --trace-lines keeps
    upstream = groups(stderr_of(capsys, kernel, *FLAGS, "--trace"))
    kept = groups(stderr_of(capsys, kernel, *FLAGS, "--trace", "--trace-lane", str(lane)))
    assert kept and len(kept) < len(upstream)
    assert any(len(g[2]) > 1 for g in kept)                  # BREAK/ENDLOOP lines kept too
    it = iter(upstream)
    assert all(any(g == u for u in it) for g in kept)          # an ordered subsequence
    heads = Counter(HEAD.match(line).group(0) for line in got)
    assert Counter(HEAD.match(g[2][0]).group(0) for g in kept) == heads


@pytest.mark.parametrize("flags, message", [
    (["--trace", "--trace-wave", "x"], "--trace-wave: 'x' is not an integer"),
    (["--trace", "--trace-wave", "-1"], "--trace-wave: the wave must be 0.."),
    (["--trace", "--trace-lane", "64"], "--trace-lane: the lane must be 0..63, got 64"),
    (["--trace", "--trace-lane", "4"], "--trace-lane: lane 4 is not in a wave of 4 lanes "
                                       "(0..3)"),
    (["--mem-trace", "--trace-pc", "0x10"], "--trace-pc: expected START:END"),
    (["--mem-trace", "--trace-pc", "0x20:0x20"], "--trace-pc: END must be greater than START"),
    (["--mem-trace", "--trace-pc", "a:b"], "--trace-pc: 'a' is not an integer"),
    (["--trace-lane", "1"], "--trace-lane filters --trace, --trace-lines and --mem-trace"),
    (["--break", "pc"], "--break: expected a pc (e.g. 0x10) or line:N, got 'pc'"),
    (["--break", "line:x"], "--break: 'x' is not an integer"),
    (["--break", "line:0"], "--break: the line must be 1.."),
    (["--break", "0x2"], "--break: pc 0x2 is not the start of an instruction of kernel 'k'"),
    (["--break", "line:1"], "--break line:1: line 1 holds no instruction of kernel 'k'"),
    (["--break", "0x10", "--device", "cuda"], "--break is the emulator's"),
    (["--mem-trace", "--device", "cuda"], "--mem-trace is the emulator's"),
])
def test_bad_values_are_one_error_line(kernel, capsys, flags, message):
    assert main(["run", kernel, "--wave-width", "4", *flags]) in (1, 2)   # 2: usage
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("Error: " + message), err


def test_a_line_breakpoint_needs_source(kernel, tmp_path, capsys):
    wbin = tmp_path / "k.wbin"
    assert main(["asm", kernel, "-o", str(wbin)]) == 0
    capsys.readouterr()
    assert main(["run", str(wbin), "--break", "line:3"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "Error: --break line:3: a .wbin has no source lines; give a pc"]


def test_launch_lines_accept_the_flags_and_run_without_them():
    text = ("; wave-lsp run: --workgroup 8,1,1 --mem-trace --trace --trace-wave 1 "
            "--trace-lane 2 --trace-pc 0:0x40 --break 0x10 --break line:4")
    ll = parse_launch_line(text, 0, "k", 0, None)
    assert ll.problem is None
    options = ll.options
    assert (options.trace, options.mem_trace, options.trace_filter, options.breakpoints) == (
        False, False, None, ())
    # ...as `wave-lsp run` reads them: the flags are the one table's
    full = build_options(parse_launch_flags(text.split(":", 1)[1].split()))
    assert full.mem_trace and full.trace_filter.lane == 2 and len(full.breakpoints) == 2
    assert not {"--mem-trace", "--break", "--trace-wave"} & {f for f, _ in flag_help()}


def test_a_bad_launch_line_value_names_the_flag():
    ll = parse_launch_line("; wave-lsp run: --trace --trace-pc 9:3", 0, "k", 0, None)
    assert ll.problem is not None and ll.problem.flag == "--trace-pc"
    with pytest.raises(LaunchFlagError):
        build_options(parse_launch_flags(["--break", "nowhere"]))
