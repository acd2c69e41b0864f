"""What the profile counts as executed, and its divergent branches: a wave
executes an instruction only when one of its lanes is active (a guard failing everywhere still
issues it), so gemm_blocked's k-loop runs at 100% lanes under every preset and width; divergent
branches against counts worked out by hand on small kernels, in both engines and the reference
model (tests/profile_reference.py)."""

from __future__ import annotations

import re

import pytest

from profile_launches import shared_launch, shared_source
from profile_reference import reference_profile
from shared import examples_dir
from wave_lsp.cli.main import main
from wave_lsp.emu import EngineUnavailable, Launch, RunOptions, run
from wave_lsp.emu.native import core
from wave_lsp.emu.profile import profile_for
from wave_lsp.isa.profile_presets import PROFILE_TARGETS, profile_preset

ENGINES = ("numpy", "native")


def records(program: str, launch: Launch) -> dict:
    """{engine: profile record} from every engine that runs the launch (numpy always)."""
    out = {}
    for engine in ENGINES:
        if engine == "native" and core() is None:
            continue
        try:
            report = run(program, launch, RunOptions(profile=True, engine=engine))
        except EngineUnavailable:
            assert engine == "native"
            continue
        assert not report.errors and report.engine == engine, report.errors
        out[engine] = report.profile
    return out


def by_width(program: str, launch: Launch, text: str, width: int) -> tuple[int, int, int]:
    """(executions, active lanes, divergent branches) of the line holding `text` at wave width
    `width`, equal in every engine and in the reference model."""
    line = next(n for n, source in enumerate(program.splitlines()) if text in source)
    found = set()
    for record in records(program, launch).values():
        execs = int(record.column(width)[_indices(record, line)].sum())
        lanes = int(record.active_lanes[_indices(record, line)].sum())
        split = int(record.column(width, record.divergent)[_indices(record, line)].sum())
        found.add((execs, lanes, split))
    row = reference_profile(program, launch, width).get(line, [0] * 8)
    found.add((row[0], row[1], row[7]))
    assert len(found) == 1, found
    return found.pop()


def _indices(record, line: int) -> list[int]:
    return [i for i, key in enumerate(record.keys) if key == line]


KERNEL = """.kernel k
.registers 8
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 31
    and     r1, r0, r1
    mov_imm r2, 5
    icmp_lt p1, r1, r2          ; thread % 32 < 5
    mov_imm r2, 100
    icmp_lt p2, r0, r2          ; every thread (< 100)
    if p1
        iadd r3, r0, r0         ; then-side of a split if
    endif
    if p2
        iadd r4, r0, r0         ; uniform: every lane
    else
        iadd r4, r0, r1         ; uniform: no lane, never executed
    endif
    @!p2 iadd r5, r0, r0        ; guard false everywhere: issued, no lane
    halt
.end
"""


@pytest.mark.parametrize("width,splits", [(32, 2), (64, 1), (16, 2), (8, 2), (1, 0)])
def test_an_if_on_lane_below_5_splits_each_wave_that_holds_lanes_0_to_4(width, splits):
    """64 threads: at width 32 both waves hold threads %32 in 0-4 and 5-31 (2 splits); at 64
    one wave (1); at 16 and 8 only the groups starting at threads 0 and 32 split (2);
    single lanes never split."""
    launch = Launch(workgroup=(64, 1, 1), wave_width=32)
    waves = 64 // width
    assert by_width(KERNEL, launch, "if p1", width) == (waves, 64, splits)
    # the then-side: only the groups holding threads 0-4 or 32-36 execute it
    holders = len({t // width for t in (*range(5), *range(32, 37))})
    assert by_width(KERNEL, launch, "then-side", width) == (holders, 10, 0)


@pytest.mark.parametrize("width", [32, 64, 16])
def test_a_uniform_if_splits_nothing_and_its_empty_side_never_runs(width):
    launch = Launch(workgroup=(64, 1, 1), wave_width=32)
    waves = 64 // width
    assert by_width(KERNEL, launch, "if p2", width) == (waves, 64, 0)
    assert by_width(KERNEL, launch, "uniform: every lane", width) == (waves, 64, 0)
    assert by_width(KERNEL, launch, "else", width) == (waves, 64, 0)
    assert by_width(KERNEL, launch, "never executed", width) == (0, 0, 0)
    # a guard that fails in every lane: predicated off, still issued
    assert by_width(KERNEL, launch, "@!p2 iadd", width) == (waves, 0, 0)


BREAKS = """.kernel k
.registers 8
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 1
    mov_imm r2, 0
    loop
        iadd r2, r2, r1
        icmp_gt p1, r2, r0      ; thread t leaves after t + 1 passes
        break p1
        iadd r3, r2, r2         ; the rest of the pass
    endloop
    halt
.end
"""


@pytest.mark.parametrize("width,expected", [
    # 4 lanes leave one per pass (4 + 3 + 2 + 1 lanes meet the break): 4 passes, each
    # splitting the wave but the last (lane 3 alone)
    (4, {"break p1": (4, 10, 3), "the rest": (3, 6, 0), "endloop": (3, 6, 0)}),
    # pairs {0, 1} (2 passes, the first splits) and {2, 3} (4 passes, the third splits)
    (2, {"break p1": (6, 10, 2), "the rest": (4, 6, 0), "endloop": (4, 6, 0)}),
    (1, {"break p1": (10, 10, 0), "the rest": (6, 6, 0), "endloop": (6, 6, 0)}),
])
def test_a_divergent_break_counted_by_hand(width, expected):
    launch = Launch(workgroup=(4, 1, 1), wave_width=4)
    for text, counts in expected.items():
        assert by_width(BREAKS, launch, text, width) == counts, text


CONTINUES_AND_CALLS = """.kernel k
.registers 8
    mov_sr  r0, sr_thread_id_x
    mov_imm r1, 1
    and     r2, r0, r1
    icmp_eq p1, r2, r1          ; odd threads
    mov_imm r4, 0
    mov_imm r5, 2
    loop
        iadd r4, r4, r1
        icmp_ge p2, r4, r5
        break p2                ; uniform: every lane on the second pass
        continue p1             ; odd threads skip the rest of the pass
        iadd r6, r0, r0         ; even threads only
    endloop
    @p1 call odd
    halt
odd:
    iadd r7, r0, r0
    return
.end
"""


def test_continue_and_a_guarded_call_split_like_branches():
    """8 threads in waves of 4, odd threads continue and call: one split per wave each."""
    launch = Launch(workgroup=(8, 1, 1), wave_width=4)
    assert by_width(CONTINUES_AND_CALLS, launch, "break p2", 4) == (4, 16, 0)
    assert by_width(CONTINUES_AND_CALLS, launch, "continue p1", 4) == (2, 8, 2)
    assert by_width(CONTINUES_AND_CALLS, launch, "even threads only", 4) == (2, 4, 0)
    assert by_width(CONTINUES_AND_CALLS, launch, "@p1 call", 4) == (2, 4, 2)
    assert by_width(CONTINUES_AND_CALLS, launch, "iadd r7", 4) == (2, 4, 0)
    # single lanes never split; pairs {even, odd} do
    assert by_width(CONTINUES_AND_CALLS, launch, "continue p1", 1)[2] == 0
    assert by_width(CONTINUES_AND_CALLS, launch, "@p1 call", 2) == (4, 4, 4)


def test_the_table_and_json_show_divergent_branches(capsys, tmp_path):
    path = tmp_path / "split.wave"
    path.write_text(KERNEL)
    assert main(["run", str(path), "--workgroup", "64,1,1", "--profile"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "executions" in line)
    assert header.split()[:4] == ["line", "executions", "lanes", "divergent"]
    row = next(line for line in out.splitlines() if line.endswith("if p1"))
    assert row.split()[:4] == ["10", "2", "100.0%", "2"]
    uniform = next(line for line in out.splitlines() if line.endswith("if p2"))
    assert uniform.split()[3] == "-"
    assert re.search(r"; 2 divergent branches$", next(
        line for line in out.splitlines() if line.startswith("Totals: ")))
    assert main(["run", str(path), "--workgroup", "64,1,1", "--profile-target", "hip-cdna",
                 "--json"]) == 0
    import json
    lines = {r["line"]: r for r in json.loads(capsys.readouterr().out)["profile"]["lines"]}
    assert lines[10]["divergent_branches"] == 1 and lines[13]["divergent_branches"] == 0


def test_stats_keep_upstreams_count(capsys, tmp_path):
    """`--stats` counts the waves stepping through the never-taken else side (upstream's
    count); the profile does not."""
    path = tmp_path / "split.wave"
    path.write_text(KERNEL)
    report = run(KERNEL, Launch(workgroup=(64, 1, 1)), RunOptions(profile=True))
    executions = profile_for(report.profile).totals["executions"]
    assert executions < report.stats.total
    assert main(["run", str(path), "--workgroup", "64,1,1", "--stats"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"\b{report.stats.total}\b", out)


# ---- gemm_blocked: the k-loop of every executing wave is full ---------------------------------
def k_loop(source: str) -> range:
    """The 0-based lines of the innermost loop that holds the fma instructions."""
    lines = source.splitlines()
    stack, best = [], None
    for n, text in enumerate(lines):
        word = text.split(";")[0].strip()
        if word == "loop":
            stack.append(n)
        elif word == "endloop":
            start = stack.pop()
            body = lines[start:n]
            if any("fma" in t for t in body) and not any(
                    t.split(";")[0].strip() == "loop" for t in body[1:]):
                best = range(start + 1, n)
    assert best is not None
    return best


def test_gemm_k_loop_runs_at_full_lanes_under_every_preset_and_width():
    """It read 88.3% lanes: waves whose lanes had all broken out of the k-loop still counted
    every pass through the rest of it. Every wave that executes it has all its lanes."""
    examples_dir()
    source = shared_source("gemm_blocked")
    lines = k_loop(source)
    got = records(source, shared_launch("gemm_blocked"))
    for engine, record in got.items():
        inside = [i for i, key in enumerate(record.keys) if key in lines]
        assert len(inside) > 100
        lanes = int(record.active_lanes[inside].sum())
        for width in record.widths:
            execs = int(record.column(width)[inside].sum())
            assert lanes == execs * width, (engine, width)
        for target in PROFILE_TARGETS:
            profile = profile_for(record, target)
            width = profile_preset(target).wave_width or record.wave_width
            for c in profile.lines:
                if c.line in lines:
                    assert c.active_lanes == c.lane_slots == c.executions * width > 0
    if len(got) == 2:
        assert profile_for(got["numpy"]) == profile_for(got["native"])
