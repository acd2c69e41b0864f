"""A profile's record is bounded: a kernel whose accesses take a new pattern every
iteration keeps at most `MAX_PATTERNS` distinct patterns per instruction and `MAX_PATTERN_WORDS`
words in all, in both engines; the figures of the rest are estimated from those kept, and the
table, the JSON, the editor's hover and lens say so; the counting stops at the time limit
(`--time-limit`, `run.timeLimitMs`) with a message."""

from __future__ import annotations

import argparse
import json
import time

import pytest

from wave_lsp.asm import assemble
from wave_lsp.cli.main import main
from wave_lsp.emu import EngineUnavailable, Launch, RunOptions, ZeroFill, run
from wave_lsp.emu.profile import MAX_PATTERN_WORDS, MAX_PATTERNS, AnalysisStopped, profile_for
from wave_lsp.ide.profile_session import profile_kernels, with_presets
from wave_lsp.ide.run_limits import RunLimits
from wave_lsp.ide.run_session import kernel_launch_lines, plan_runs
from wave_lsp.ide.state import DocumentState

# Every lane reads its own 4096-byte row, at a word that moves each iteration of two nested
# loops: (i + o * lane) mod 128 sectors in. 4 x 128 iterations make 512 distinct patterns, and
# every one costs the same: each lane its own sector (32 per wave of 32), ideal 4 per wave.
WANDERING = """\
; wave-lsp run: --grid 2,1,1 --device-memory 262144 --fill-zero 0:u32:65536
.kernel wandering
.registers 16
.workgroup_size 64, 1, 1
    mov_sr  r0, sr_thread_id_x
    mov_imm r9, 4096
    imul    r10, r0, r9             ; this lane's row
    mov_imm r5, 1
    mov_imm r6, 32
    mov_imm r11, 127
    mov_imm r12, 4
    mov_imm r13, 128
    mov_imm r2, 0                   ; o
    loop
        icmp_ge p2, r2, r12
        break p2
        mov_imm r1, 0               ; i
        loop
            icmp_ge p1, r1, r13
            break p1
            imul r3, r2, r0
            iadd r3, r3, r1
            and  r3, r3, r11
            imul r3, r3, r6
            iadd r3, r3, r10
            device_load_u32 r8, r3
            iadd r1, r1, r5
        endloop
        iadd r2, r2, r5
    endloop
    halt
.end
"""
LOAD = next(i for i, line in enumerate(WANDERING.split("\n")) if "device_load_u32" in line)
LAUNCH = Launch(grid=(2, 1, 1), workgroup=(64, 1, 1), device_memory=262144,
                memory_init=[ZeroFill(0, 65536)])
WAVES = 512 * 4                       # iterations x waves (2 per workgroup, 2 workgroups)


def profiled(engine: str):
    try:
        return run(assemble(WANDERING), LAUNCH, RunOptions(profile=True, engine=engine))
    except EngineUnavailable as err:
        pytest.skip(f"the native core cannot run it here: {err.reason}")


@pytest.mark.parametrize("engine", ["native", "numpy"])
def test_ever_new_patterns_keep_a_bounded_sample_and_say_so(engine):
    report = profiled(engine)
    record = report.profile
    load = next(i for i, key in enumerate(record.keys) if key == LOAD)
    acc = record.accesses[load]
    assert len(acc.patterns) == MAX_PATTERNS
    assert acc.dropped > 0 and acc.dropped_lanes > 0
    assert record.pattern_words <= MAX_PATTERN_WORDS
    assert 0 < acc.kept_share() < 1
    profile = profile_for(record)
    line = next(c for c in profile.lines if c.line == LOAD)
    # every pattern costs the same: the estimate is the exact figure
    assert (line.executions, line.global_sectors, line.global_ideal_sectors) == \
        (WAVES, 32 * WAVES, 4 * WAVES)
    assert set(profile.estimated) == {LOAD}
    assert profile.to_json()["estimated"] == [
        {"line": LOAD + 1, "kept_share": round(acc.kept_share(), 4)}]
    assert f"line {LOAD + 1} are scaled from a sample" in profile.estimate_note()


def test_a_record_within_the_bounds_is_exact_and_says_nothing():
    small = WANDERING.replace("mov_imm r12, 4", "mov_imm r12, 1").replace(
        "mov_imm r13, 128", "mov_imm r13, 100")
    profile = profile_for(run(assemble(small), LAUNCH, RunOptions(profile=True)).profile)
    assert profile.estimated == {} and "estimated" not in profile.to_json()
    assert profile.estimate_note() == ""


def test_the_word_bound_holds_when_patterns_are_wide():
    # 12 loads, each with 512 distinct patterns of 1024 lanes: 256 of them a load are more
    # words than the record keeps
    load = "            device_load_u32 r8, r3\n"
    wide = WANDERING.replace(".workgroup_size 64, 1, 1", ".workgroup_size 1024, 1, 1").replace(
        "mov_imm r9, 4096", "mov_imm r9, 4").replace(load, load * 12)
    launch = Launch(grid=(1, 1, 1), workgroup=(1024, 1, 1), device_memory=262144,
                    memory_init=[ZeroFill(0, 65536)])
    for engine in ("native", "numpy"):
        record = run(assemble(wide), launch, RunOptions(profile=True, engine=engine)).profile
        kept = [len(a.patterns) for a in record.accesses.values()]
        assert len(kept) == 12 and all(0 < k < MAX_PATTERNS for k in kept)  # words ran out
        assert all(a.dropped for a in record.accesses.values())
        assert record.pattern_words <= MAX_PATTERN_WORDS


def test_the_table_and_the_json_say_the_figures_are_estimated(capsys, tmp_path):
    path = tmp_path / "wandering.wave"
    path.write_text(WANDERING)
    flags = ["run", str(path), "--grid", "2,1,1", "--device-memory", "262144",
             "--fill-zero", "0:u32:65536", "--profile"]
    assert main(flags) == 0
    out = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(out) if line.startswith("Profile ("))
    assert out[header + 1].startswith(f"(estimated: the memory figures of line {LOAD + 1} "
                                      "are scaled from a sample")
    assert main(flags + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["line"] for e in data["profile"]["estimated"]] == [LOAD + 1]


def test_the_command_counts_the_profile_within_its_time_limit(capsys):
    from wave_lsp.cli.profile_option import write_profile
    report = profiled("numpy")
    args = argparse.Namespace(profile=True, profile_target=None, profile_lines=30,
                              time_limit=1.0, profile_started=time.monotonic() - 5)
    stopped = write_profile(args, report, WANDERING)
    assert stopped.startswith("time limit: --time-limit 1 s reached while counting the profile")
    assert capsys.readouterr().out == ""                 # no table after it
    args.time_limit = None
    assert write_profile(args, report, WANDERING) is None
    assert "Profile (" in capsys.readouterr().out


def editor_profile(text: str, limits: RunLimits):
    doc = DocumentState("file:///bounds.wave", text, 1)
    snapshot = plan_runs(doc, {doc.program.kernels[0].name: None}, kernel_launch_lines(doc, None))
    return profile_kernels(snapshot, limits)[0]


def test_the_editor_says_estimated_in_the_hover_and_the_lens():
    first = editor_profile(WANDERING, RunLimits(time_limit_ms=0))
    assert first.status == "ok", first
    done = with_presets([first])[0]
    assert done.status == "ok" and done.pending is None
    assert "Estimated: the memory figures of line" in done.view.hover(LOAD)
    assert done.summary().endswith("· estimated")
    assert done.to_json()["estimated"][0]["line"] == LOAD + 1


def test_the_editor_stops_the_presets_at_the_time_limit_with_a_message():
    first = editor_profile(WANDERING, RunLimits(time_limit_ms=0))
    stopped = with_presets([first], limits=RunLimits(time_limit_ms=1))[0]
    assert stopped.status == "error" and stopped.pending is None
    assert stopped.message == ("time limit: run.timeLimitMs (1 ms) reached while comparing the "
                               "presets and checking the advice; the launch's own preset is shown")
    assert stopped.view is first.view                 # the launch's own preset stays
    assert stopped.to_json()["complete"] and "✕ time limit" in stopped.summary()


def test_a_check_stops_the_counting():
    record = profiled("numpy").profile

    def check():
        raise AnalysisStopped("stop")
    with pytest.raises(AnalysisStopped):
        profile_for(record, None, check)


def test_the_editors_profile_past_the_bounds_is_the_numpy_engines():
    """Past the pattern bounds the core's record differs from the numpy engine's (whose
    patterns are per batch): a profile with a time limit or cancel, as the editor's, is then
    the numpy engine's; within the bounds, or without them (the command), the core's."""
    from wave_lsp.emu.native import core
    if core() is None:
        pytest.skip("the native core is not built")
    editor = RunOptions(profile=True, time_limit=60.0, cancel=lambda: False)
    past = run(assemble(WANDERING), LAUNCH, editor)
    assert (past.engine, past.fallback) == ("numpy", "the editor's profile past its pattern "
                                                     "bounds")
    assert run(assemble(WANDERING), LAUNCH, RunOptions(profile=True)).engine == "native"
    within = run(assemble(WANDERING.replace("mov_imm r13, 128", "mov_imm r13, 8")), LAUNCH,
                 editor)
    assert (within.engine, within.fallback) == ("native", None)
