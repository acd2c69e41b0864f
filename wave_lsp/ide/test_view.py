"""Kernel tests in the editor, protocol-free: what each document's tests showed and what the
editor makes of it.

The editor keeps a window of what a test printed, as it does of a run's dumps: the first
`KEPT_OUTPUT_LINES` lines (a launch line's dump lines, `run_results.MAX_DUMP_TOTAL_LINES`), or one
more than the test expects; the rest is counted, and what shows it says how many were left out.

A kernel test (`ide.kernel_tests`) is a launch line followed by expectation comments.
`DocumentTests` keeps, per open document, the latest outcome of each test tagged with the
revision it ran on (nothing stale is shown), the output each launch printed last (kept across
edits: completion on an expect line offers it), the kernels whose tests run again after every
edit, and the tests in flight (cancelled by a newer edit). The functions below give a test the
editor's run limits, and turn an outcome into a lens title and into `Problem`s: diagnostics on
the expectation lines the run did not meet, each with the text that line should state.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field

from ..analysis.codes import diagnostic
from ..analysis.diagnostic import Diagnostic
from ..launch.flags import LaunchFlagError, number
from ..launch.limits import editor_limits
from ..syntax.tool_comments import EXPECTATION_COMMENT
from .expectations import lines_match
from .jobs import JobRecord
from .kernel_run import FlagsProblem, parse_test_flags
from .kernel_tests import KernelTest, TestOutcome
from .run_limits import RunLimits
from .run_results import MAX_DUMP_TOTAL_LINES

KEPT_OUTPUT_LINES = MAX_DUMP_TOTAL_LINES     # a test's output lines the editor keeps

FAILED_EXPECTATION = "R011"     # an expectation line the run did not meet
TEST_NOT_RUN = "R012"           # the test cannot run (bad launch line, bad expectation, ...)


@dataclass(frozen=True)
class TestRecord:
    """One test (as written in the document) and its outcome, from one revision."""

    test: KernelTest
    outcome: TestOutcome
    revision: int


@dataclass
class DocumentTests(JobRecord):
    """The kernel tests state of one open document: its `JobRecord` (the kernels re-tested
    after every edit, records by (kernel, launch line), the tests in flight in `running`)."""

    live: set[str] = field(default_factory=set)      # kernels re-tested after every edit
    # per (kernel, flags): the output lines kept and how many the run printed in all
    printed: dict[tuple[str, tuple[str, ...]], tuple[tuple[str, ...], int]] = \
        field(default_factory=dict)

    def current(self, revision: int) -> dict[tuple[str, int], TestRecord]:
        """The records of `revision`, by (kernel, launch line)."""
        return {key: r for key, r in self.results.items() if r.revision == revision}

    def store(self, records: list[TestRecord]) -> None:
        """Keep `records` (of one revision) beside the other records of that revision."""
        revision = max((r.revision for r in records), default=None)
        self.results = {k: r for k, r in self.results.items() if r.revision == revision}
        for r in records:
            self.results[(r.test.kernel, r.test.launch_line)] = r
            if r.outcome.ran:
                self.printed[(r.test.kernel, r.test.flags)] = (tuple(r.outcome.actual),
                                                                r.outcome.printed)
        self.changed()


def with_limits(test: KernelTest, limits: RunLimits) -> KernelTest:
    """`test` run under the editor's limits (settings `run.maxInstructions`, `run.timeLimitMs`),
    which its launch line may lower but never raise, nor lift with 0 (as inline runs:
    `launch.limits.editor_limits`). The limits are added to its flags and to its parsed
    request (no second parse)."""
    try:
        args = parse_test_flags(test.launch_flags, test.kernel)
        own = number(str(args.max_instructions), "--max-instructions")
    except (FlagsProblem, LaunchFlagError):
        return test            # `run_test` reports the bad flags
    steps, seconds = editor_limits(limits.max_instructions, limits.time_limit_ms, own,
                                   args.time_limit)
    extra = ("--max-instructions", str(steps))
    changes = {"max_instructions": str(steps)}
    if seconds is not None:
        extra += ("--time-limit", repr(seconds))
        changes["time_limit"] = seconds
    request = test.request.extended(extra, **changes) if test.request is not None else None
    return dataclasses.replace(test, flags=test.flags + extra, request=request)


def status_of(outcome: TestOutcome) -> str:
    """passed, failed (the run did not meet an expectation) or error (it could not run)."""
    return "passed" if outcome.passed else "failed" if outcome.ran else "error"


def outcome_title(outcome: TestOutcome) -> str:
    """The lens after "▶ Test": `✓ passed`, `✕ failed: MESSAGE`, or `✕ MESSAGE` (it did not
    run)."""
    if outcome.passed:
        return "✓ passed"
    return f"✕ failed: {outcome.message}" if outcome.ran else f"✕ {outcome.message}"


def value_columns(line: str) -> tuple[int, int] | None:
    """(end of `VERB:`, start of the stated text) of an expectation line, or None."""
    m = EXPECTATION_COMMENT.match(line)
    return (m.end("verb") + 1, m.start("text")) if m else None


def stated(text: str) -> str:
    """What follows `VERB:` to state `text`: one space and the text, or nothing (empty)."""
    return f" {text}" if text else ""


def quoted(text: str | None) -> str:
    return "nothing" if text is None else f"“{text}”" if text else "an empty line"


@dataclass(frozen=True)
class Problem:
    """A diagnostic of a kernel test; `replacement` is the text its expectation line should
    state instead (None: no one-line edit fixes it)."""

    diagnostic: Diagnostic
    replacement: str | None = None


def _on_line(code: str, lines: list[str], line: int, message: str,
             replacement: str | None = None) -> Problem:
    text = lines[line] if line < len(lines) else ""
    columns = value_columns(text)
    start = columns[1] if columns and columns[1] < len(text.rstrip()) else \
        len(text) - len(text.lstrip())
    return Problem(diagnostic(code, line, start, len(text.rstrip()), message), replacement)


def problems(test: KernelTest, outcome: TestOutcome, lines: list[str]) -> list[Problem]:
    """The diagnostics of a test that did not pass: every expect line whose output line differs
    (with what the run printed; the first one also says which store wrote the wrong value),
    expect lines the run printed nothing for, output beyond the last expect line, a wrong exit
    status or first line of stderr; a test that cannot run says why on its launch line."""
    name = f"kernel test {test.kernel}"
    if outcome.passed:
        return []
    if not outcome.ran:
        return [_on_line(TEST_NOT_RUN, lines, test.launch_line, f"{name}: {outcome.message}")]
    difference = outcome.first_difference
    if difference is not None and difference.what != "output":
        got = difference.got if difference.what == "stderr" else str(outcome.exit_status)
        return [_on_line(FAILED_EXPECTATION, lines, outcome.line, f"{name}: {outcome.message}",
                         got if outcome.line != test.launch_line else None)]
    out = []
    actual = outcome.actual
    for index, (line, want) in enumerate(zip(test.expect_lines, test.expected)):
        got = actual[index] if index < len(actual) else None
        if got is not None and lines_match(want, got, test.tolerance):
            continue
        message = f"{name}: expected {quoted(want)}, got {quoted(got)}"
        if difference is not None and index == difference.index and outcome.written_by:
            message += f" ({outcome.message})"
        elif got is None:
            message = f"{name}: expected {quoted(want)}, the output ends after " \
                      f"{len(actual)} line(s)"
        out.append(_on_line(FAILED_EXPECTATION, lines, line, message, got))
    extra = outcome.printed - len(test.expected)
    if extra > 0:
        last = test.expect_lines[-1] if test.expect_lines else test.launch_line
        out.append(_on_line(FAILED_EXPECTATION, lines, last,
                            f"{name}: the run printed {extra:,} more line(s) after this "
                            f"one, the first: {quoted(actual[len(test.expected)])}"))
    return out


def expected_output(printed: tuple[str, ...], test: KernelTest, line: int) -> list[str]:
    """What the run printed (the lines kept) for the expect line `line` of `test` and after it
    (completion)."""
    if line not in test.expect_lines:
        return []
    return list(printed[test.expect_lines.index(line):])


def left_out_text(kept: int, printed: int) -> str:
    """`the first 1,024 of 1,000,000 lines: the editor keeps no more`: what a window says."""
    return (f"the first {kept:,} of {printed:,} lines: the editor keeps no more of a test's "
            "output (`wave-lsp run` prints it all)")
