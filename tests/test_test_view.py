"""Kernel tests as the editor shows them, in process (`wave_lsp.ide.test_view`): the run limits
a test gets, the lens title, and the diagnostics of each way a test can fail, compared whole."""

from __future__ import annotations

from pathlib import Path

from kernel_test_cases import line_of, store
from wave_lsp.ide.kernel_tests import discover, run_test
from wave_lsp.ide.run_limits import RunLimits
from wave_lsp.ide.test_view import (expected_output, outcome_title, problems, stated,
                                    value_columns, with_limits)

RIGHT = ["0", "10", "20", "30"]


def outcome_of(text: str, limits: RunLimits = RunLimits()):
    [test] = discover(text)
    return test, run_test(text, with_limits(test, limits), path=Path("/tmp/k.wave"))


def shown(text: str) -> list[tuple[str, int, str, str | None]]:
    """(code, line, message, replacement) of each problem of the text's one test."""
    test, outcome = outcome_of(text)
    lines = text.split("\n")
    return [(p.diagnostic.code, p.diagnostic.range.start_line, p.diagnostic.message,
             p.replacement) for p in problems(test, outcome, lines)]


def test_limits_are_the_settings_unless_the_line_lowers_them():
    [test] = discover(store(*RIGHT))
    assert with_limits(test, RunLimits(5000, 2000)).flags[-4:] == (
        "--max-instructions", "5000", "--time-limit", "2.0")
    lower = store(*RIGHT).replace("0:4", "0:4 --max-instructions 100 --time-limit 0.5")
    [test] = discover(lower)
    assert with_limits(test, RunLimits(5000, 2000)).flags[-4:] == (
        "--max-instructions", "100", "--time-limit", "0.5")
    lifted = store(*RIGHT).replace("0:4", "0:4 --max-instructions 0")
    [test] = discover(lifted)
    assert with_limits(test, RunLimits(5000, 0)).flags[-2:] == ("--max-instructions", "5000")
    assert with_limits(test, RunLimits(0, 0)).flags[-2:] == ("--max-instructions", "0")


def test_a_passing_test_has_no_problems():
    test, outcome = outcome_of(store(*RIGHT))
    assert outcome_title(outcome) == "✓ passed"
    assert problems(test, outcome, store(*RIGHT).split("\n")) == []


def test_every_wrong_expect_line_is_a_problem_the_first_with_its_store():
    text = store("0", "11", "25", "30")
    store_line = line_of(text, "device_store_u32") + 1
    assert shown(text) == [
        ("R011", line_of(text, "expect: 11"), "kernel test store: expected “11”, got “10” "
         f"(line {store_line}, lane 1 wrote 10, expected 11)", "10"),
        ("R011", line_of(text, "expect: 25"), "kernel test store: expected “25”, got “20”",
         "20")]
    assert outcome_title(outcome_of(text)[1]) == \
        f"✕ failed: line {store_line}, lane 1 wrote 10, expected 11"


def test_missing_and_extra_lines_and_a_test_that_cannot_run():
    text = store("0", "10", "20", "30", "")
    assert shown(text) == [("R011", text.split("\n").index("; wave-lsp expect:"),
                            "kernel test store: expected an empty line, the output ends after "
                            "4 line(s)", None)]
    text = store("0", "10")
    assert shown(text) == [("R011", line_of(text, "expect: 10"), "kernel test store: the run "
                            "printed 2 more line(s) after this one, the first: “20”", None)]
    text = store(*RIGHT).replace("0:4", "0:4 --tolerance x")
    [(code, line, message, replacement)] = shown(text)
    assert (code, line, replacement) == ("R012", line_of(text, "wave-lsp run:"), None)
    assert message.startswith("kernel test store: --tolerance")


def test_the_stated_text_and_completion_of_expect_lines():
    assert value_columns("; wave-lsp expect: 25") == (18, 19)
    assert value_columns("  ;; wave-lsp expect-exit: 1") == (26, 27)
    assert value_columns("; wave-lsp run: --grid 1,1,1") is None
    assert stated("20") == " 20" and stated("") == ""
    [test] = discover(store("0", "10"))
    assert expected_output(tuple(RIGHT), test, test.expect_lines[1]) == ["10", "20", "30"]
    assert expected_output(tuple(RIGHT), test, test.launch_line) == []
