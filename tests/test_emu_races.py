"""Workgroup order and data races: batched workgroups give the result of
running them one at a time, and races are run warnings naming both sides."""

from __future__ import annotations

import numpy as np
import pytest

from numpy_engine import run
from wave_lsp.emu import IotaFill, Launch
from tests.forkserver import wave_lsp_argv

HEAD = ".kernel k\n.registers 8\n    mov_sr r0, sr_thread_id_x\n    mov_imm r1, 4\n" \
       "    imul r2, r0, r1\n"


def kernel(body: str) -> str:
    return HEAD + body + "    halt\n.end\n"


def races(report):
    return [w for w in report.warnings if w.kind == "data_race"]


LOCAL_RACE = kernel("    local_store_u32 r2, r0\n    mov_imm r3, 0\n"
                    "    local_load_u32 r4, r3\n")


def test_local_race_between_waves_names_both_sides():
    report = run(LOCAL_RACE, Launch(workgroup=(8, 1, 1), wave_width=4))
    (race,) = races(report)
    assert race.line == 5 and race.other_line == 7           # 0-based: store, then the load
    assert race.address == 0 and race.other_access == "read"
    assert race.workgroup == race.other_workgroup == (0, 0, 0)
    assert race.wave != race.other_wave
    assert "local address 0x0" in race.message and "no barrier" in race.message


def test_a_barrier_between_the_accesses_is_no_race():
    body = LOCAL_RACE.replace("    mov_imm r3, 0\n", "    barrier\n    mov_imm r3, 0\n")
    assert races(run(body, Launch(workgroup=(8, 1, 1), wave_width=4))) == []


def test_one_wave_is_never_in_a_race_with_itself():
    assert races(run(LOCAL_RACE, Launch(workgroup=(4, 1, 1), wave_width=4))) == []


def test_device_write_write_race_between_waves():
    source = kernel("    mov_imm r6, 8\n    device_store_u32 r6, r0\n")
    (race,) = races(run(source, Launch(workgroup=(8, 1, 1), wave_width=4)))
    assert race.address == 8 and race.other_access == "write" and race.line == race.other_line


def test_every_wave_storing_the_same_value_is_benign():
    source = kernel("    mov_imm r6, 8\n    local_store_u32 r6, r1\n    barrier\n")
    assert races(run(source, Launch(workgroup=(8, 1, 1), wave_width=4))) == []


def test_atomics_are_not_races():
    source = kernel("    mov_imm r6, 0\n    mov_imm r5, 1\n    atomic_add r7, r6, r5, .device\n")
    report = run(source, Launch(grid=(4, 1, 1), workgroup=(8, 1, 1), wave_width=4))
    assert races(report) == [] and report.read_u32(0, 1) == [32]


VECTOR_ADD = (".kernel vector_add\n.registers 16\n.workgroup_size 256, 1, 1\n"
              "    mov_sr r0, sr_thread_id_x\n    mov_sr r1, sr_workgroup_id_x\n"
              "    mov_sr r2, sr_workgroup_size_x\n    imul r3, r1, r2\n    iadd r4, r3, r0\n"
              "    mov_imm r5, 4\n    imul r6, r4, r5\n    device_load_u32 r7, r6\n"
              "    mov_imm r8, 1024\n    iadd r9, r6, r8\n    device_load_u32 r10, r9\n"
              "    fadd r11, r7, r10\n    mov_imm r12, 2048\n    iadd r13, r6, r12\n"
              "    device_store_u32 r13, r11\n    halt\n.end\n")


@pytest.mark.parametrize("grid", [2, 5])
def test_overlapping_workgroups_give_the_sequential_result(grid):
    launch = Launch(grid=(grid, 1, 1), memory_init=[IotaFill(0, 256 * (grid + 2), 1.0)])
    batched = run(VECTOR_ADD, launch)
    one_at_a_time = run(VECTOR_ADD, launch, max_batch_lanes=1)
    assert np.array_equal(batched.device_memory, one_at_a_time.device_memory)
    assert batched.stats == one_at_a_time.stats
    (race,) = races(batched)
    assert race.workgroup == (0, 0, 0) and race.other_workgroup[0] in (1, 2)
    assert race.address == 2048 and race.other_access == "read"
    # one at a time, workgroup 1's load of b[] (line 13) is the first to meet workgroup
    # 0's store (line 17) of c[]; the batched run reports that same race
    assert race.line == 17 and race.other_line == 13
    assert race.other_workgroup == (1, 0, 0) and race.other_lanes == (0,)
    assert races(one_at_a_time) == [race]


def test_independent_workgroups_stay_batched_and_silent():
    source = kernel("    mov_sr r5, sr_workgroup_id_x\n    mov_imm r6, 1024\n"
                    "    imul r5, r5, r6\n    iadd r2, r2, r5\n    device_store_u32 r2, r0\n")
    report = run(source, Launch(grid=(16, 1, 1), workgroup=(256, 1, 1)))
    assert races(report) == [] and report.read_u32(1024 * 3 + 8, 1) == [2]


def test_access_logs_are_bounded(monkeypatch):
    """A batch that logs more device words than the bound runs one workgroup at a time (same
    result); an epoch that logs too much is checked early and still finds its race."""
    import wave_lsp.emu.overlap as overlap
    import wave_lsp.emu.race_report as race_report
    launch = Launch(grid=(5, 1, 1), memory_init=[IotaFill(0, 256 * 7, 1.0)])
    expected = run(VECTOR_ADD, launch)
    monkeypatch.setattr(overlap, "MAX_LOGGED", 1000)
    monkeypatch.setattr(race_report, "MAX_LOGGED", 10)
    bounded = run(VECTOR_ADD, launch)
    assert np.array_equal(bounded.device_memory, expected.device_memory)
    assert bounded.stats == expected.stats
    (race,) = races(run(LOCAL_RACE, Launch(workgroup=(8, 1, 1), wave_width=4)))
    assert race.line == 5


def test_the_command_prints_races_on_stderr(tmp_path):
    import subprocess
    import sys
    path = tmp_path / "race.wave"
    path.write_text(LOCAL_RACE)
    done = subprocess.run([*wave_lsp_argv("run"), str(path),
                           "--workgroup", "8,1,1", "--wave-width", "4", "--dump-u32", "0:1"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "0\n"
    assert done.stderr.startswith("Warning: data race on local address 0x0")
    assert "line 6" in done.stderr and "line 8" in done.stderr


def test_overlap_in_a_large_device_memory_is_found_without_a_word_table(monkeypatch):
    import wave_lsp.emu.overlap as overlap
    launch = Launch(grid=(3, 1, 1), memory_init=[IotaFill(0, 256 * 5, 1.0)])
    dense = run(VECTOR_ADD, launch)
    monkeypatch.setattr(overlap, "DENSE_WORDS", 16)
    sorted_ = run(VECTOR_ADD, launch)
    assert np.array_equal(dense.device_memory, sorted_.device_memory)
    assert [(w.line, w.other_line, w.address) for w in races(dense)] == \
        [(w.line, w.other_line, w.address) for w in races(sorted_)]
    quiet = run(kernel("    mov_sr r5, sr_workgroup_id_x\n    mov_imm r6, 1024\n"
                       "    imul r5, r5, r6\n    iadd r2, r2, r5\n    device_store_u32 r2, r0\n"),
                Launch(grid=(4, 1, 1), workgroup=(256, 1, 1)))
    assert races(quiet) == []


def test_races_reach_the_editor_as_diagnostics_on_both_lines():
    """The inline runs (wave_lsp.ide) turn a data race into an R003 on the writing line with the
    other access as related information."""
    from wave_lsp.ide.run_limits import RunLimits
    from wave_lsp.ide.run_session import execute, kernel_launch_lines, plan_runs
    from wave_lsp.syntax.document import Document
    source = LOCAL_RACE.replace(".registers 8\n",
                                ".registers 8\n; wave-lsp run: --workgroup 8,1,1 --wave-width 4\n")
    doc = Document(source)
    result = execute(plan_runs(doc, {"k": None}, kernel_launch_lines(doc, None)), RunLimits())[0]
    (race,) = [d for d in result.diagnostics if d.code == "R003" and "data race" in d.message]
    assert race.range.start_line == 6                    # the store (one line lower now)
    assert [r.range.start_line for r in race.related] == [2, 8]
    assert race.related[1].message == "the other read"
