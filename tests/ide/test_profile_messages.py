"""What a profile stopped by a limit says: the setting named, where the limit was met, once
when the run met it and then the comparing of the presets met it again."""

from __future__ import annotations

from types import SimpleNamespace

from wave_lsp.ide.profile_run import _failure_text
from wave_lsp.ide.profile_session import _joined
from wave_lsp.ide.run_limits import RunLimits

LIMITS = RunLimits(max_instructions=5_000, time_limit_ms=200)
COMPARING = ("time limit: run.timeLimitMs (200 ms) reached while comparing the presets and "
             "checking the advice; the launch's own preset is shown")


def failure(kind: str, line: int | None):
    return SimpleNamespace(kind=kind, line=line)


def test_a_limit_met_by_the_run_names_its_setting_and_line():
    assert _failure_text(failure("time_limit", 25), LIMITS) == \
        "time limit: run.timeLimitMs (200 ms) reached at line 26"
    assert _failure_text(failure("instruction_limit", None), LIMITS) == \
        "instruction limit: run.maxInstructions (5,000 per workgroup) reached"
    assert _failure_text(failure("division_by_zero", 2), LIMITS) == "division by zero at line 3"


def test_a_limit_met_twice_is_named_once():
    run = _failure_text(failure("time_limit", 25), LIMITS)
    assert _joined(run, COMPARING, LIMITS) == (
        "time limit: run.timeLimitMs (200 ms) reached at line 26, and again while comparing the "
        "presets and checking the advice; the launch's own preset is shown")
    assert _joined("division by zero at line 3", COMPARING, LIMITS) == \
        "division by zero at line 3; " + COMPARING
    assert _joined("", COMPARING, LIMITS) == COMPARING
