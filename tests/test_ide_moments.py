""""Debug at this moment" configurations (`ide.moments`) from real run reports: errors and
warnings keep their workgroup, wave, lanes and line (both sides of a race in one workgroup),
flags become the launch's `args`, and a wrong value becomes the last write of its word."""

from __future__ import annotations

from wave_lsp.analysis.diagnostic import Range
from wave_lsp.asm import assemble
from wave_lsp.emu import Launch, run
from wave_lsp.ide.moments import DEBUG_COMMAND, configuration, run_moments, value_moment
from wave_lsp.ide.run_results import RunPlace, build_run
from tests.time_travel_kernels import RACE_BODY, kernel

RACE = kernel("race", RACE_BODY)
DEADLOCK = """.kernel stuck
.registers 4
    mov_sr  r0, sr_lane_id
    mov_imm r1, 2
    icmp_lt p1, r0, r1
    if p1
        barrier
    endif
    halt
.end
"""


def kernel_run(source: str, launch: Launch, flags: str):
    report = run(assemble(source), launch)
    place = RunPlace(0, Range(0, 0, 0, 1), ())
    return build_run(report, place, (), kernel=launch.kernel or "k", revision=1, version=1,
                     launch_line=0, ordinal=0, flags=flags, elapsed_ms=0.0, initial={})


def test_a_race_names_both_sides_lanes_and_its_line():
    found = run_moments(kernel_run(RACE, Launch(kernel="race", workgroup=(8, 1, 1),
                                                wave_width=4), "--workgroup 8,1,1"),
                        "/tmp/race.wave")
    [moment] = found
    config = moment.configuration
    assert moment.line == 5 and DEBUG_COMMAND == "wave.debugAtMoment"
    assert config["stopAt"] == {"workgroup": [0, 0, 0], "lanes": [[0, 0], [1, 0]],
                                "reason": "data race on 0x0", "line": 5}
    assert config["args"] == ["--workgroup", "8,1,1"] and config["kernel"] == "race"
    assert config["type"] == "wave" and config["cwd"] == "/tmp"


def test_a_barrier_deadlock_stops_on_the_error():
    found = run_moments(kernel_run(DEADLOCK, Launch(kernel="stuck", workgroup=(4, 1, 1),
                                                    wave_width=4), "--workgroup 4,1,1"),
                        "/tmp/stuck.wave")
    [moment] = [m for m in found if m.configuration["stopAt"].get("error")]
    assert moment.configuration["stopAt"]["workgroup"] == [0, 0, 0]
    assert "barrier" in moment.configuration["stopAt"]["reason"]


def test_a_wrong_value_is_the_last_write_of_its_word():
    moment = value_moment("/w/k.wave", "k", ["--dump-u32", "0:4"], 10, 7, 2, "the wrong value")
    assert moment.line == 7
    assert moment.configuration["stopAt"] == {"address": 8, "occurrence": "last",
                                              "reason": "the wrong value", "threads": [2]}
    assert value_moment("/w/k.wave", "k", None, 8, None, None, "x") is None
    assert "args" not in configuration("/w/k.wave", "k", None, {"error": True}, "n")
