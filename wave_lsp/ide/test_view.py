"""Kernel tests in the editor, protocol-free: what each document's tests showed and what the
editor makes of it.

A kernel test (`ide.kernel_tests`) is a launch line followed by expect lines. `DocumentTests`
keeps, per open document, the latest outcome of each test tagged with the revision it ran on
(nothing stale is shown), the output each launch printed last (kept across edits: completion on
an expect line offers it), the kernels whose tests run again after every edit, and the run in
flight (cancelled by a newer edit). The functions below turn an outcome into a lens title, the
problems of its expect lines (diagnostics) and the text that updates one expect line.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from ..analysis.codes import diagnostic
from ..analysis.diagnostic import Diagnostic
from .kernel_tests import KernelTest, TestOutcome

EXPECT_MARKER = "wave-lsp expect:"
EXPECT_COMMENT = re.compile(r"^(?P<lead>\s*[;#]+\s*)wave-lsp expect:(?P<space> ?)")
FAILED_EXPECTATION = "R011"     # an expect line the run did not print
TEST_NOT_RUN = "R012"           # the test could not run (bad launch line, no assembly, ...)


@dataclass(frozen=True)
class TestRecord:
    """One test's outcome, from one revision."""

    test: KernelTest
    outcome: TestOutcome
    revision: int


@dataclass
class DocumentTests:
    """The kernel tests state of one open document."""

    results: dict[tuple[str, int], TestRecord] = field(default_factory=dict)
    printed: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    live: set[str] = field(default_factory=set)      # kernels re-tested after every edit
    running: set[tuple[str, int]] = field(default_factory=set)
    cancel: threading.Event | None = None
    generation: int = 0                                # bumped whenever `results` changes

    def stop(self) -> None:
        """Cancel the tests in flight, if any."""
        if self.cancel is not None:
            self.cancel.set()
            self.cancel = None

    def current(self, revision: int) -> dict[tuple[str, int], TestRecord]:
        """The records of `revision`, by (kernel, launch line)."""
        return {key: r for key, r in self.results.items() if r.revision == revision}

    def store(self, records: list[TestRecord]) -> None:
        revision = max((r.revision for r in records), default=None)
        self.results = {k: r for k, r in self.results.items() if r.revision == revision}
        for r in records:
            self.results[(r.test.kernel, r.test.launch_line)] = r
            self.printed[(r.test.kernel, r.test.flags)] = tuple(r.outcome.actual)
        self.generation += 1


def status_of(outcome: TestOutcome) -> str:
    """passed, failed (the output differs) or error (the test could not run)."""
    if outcome.passed:
        return "passed"
    return "failed" if outcome.first_difference is not None else "error"


def outcome_title(outcome: TestOutcome) -> str:
    """The lens after "▶ Test": `✓ passed`, `✕ failed: MESSAGE`, `✕ MESSAGE` (did not run)."""
    if outcome.passed:
        return "✓ passed"
    if status_of(outcome) == "failed":
        return f"✕ failed: {outcome.message}"
    return f"✕ {outcome.message}"


def expect_marker_end(line: str) -> int | None:
    """The column just after `expect:` on an expect line, or None if `line` is not one. The
    expected text follows after one space; an empty expected line has nothing after `:`."""
    m = EXPECT_COMMENT.match(line)
    return m.start("space") if m else None


def expect_text(line: str) -> str:
    """The expected text of an expect line (`expect_marker_end` must not be None)."""
    return EXPECT_COMMENT.sub("", line, count=1)


def after_marker(text: str) -> str:
    """What follows `expect:` for the expected `text`: a space and the text, or nothing."""
    return f" {text}" if text else ""


def quoted(text: str) -> str:
    return f"“{text}”" if text else "an empty line"


def expectation_problems(test: KernelTest, outcome: TestOutcome,
                         lines: list[str]) -> list[tuple[Diagnostic, str | None]]:
    """The diagnostics of a failed test, each with the text its expect line should have (None:
    no single-line update fixes it): the first wrong expect line says what the run printed
    there and which store wrote the first wrong value; a test that could not run says why on
    its launch line."""
    out: list[tuple[Diagnostic, str | None]] = []
    if outcome.passed:
        return out
    difference = outcome.first_difference
    if difference is None:
        text = lines[test.launch_line] if test.launch_line < len(lines) else ""
        start = len(text) - len(text.lstrip())
        out.append((diagnostic(TEST_NOT_RUN, test.launch_line, start, len(text.rstrip()),
                               f"kernel test {test.kernel}: {outcome.message}"), None))
        return out
    index, expected, got = difference
    line = test.expect_lines[min(index, len(test.expect_lines) - 1)]
    text = lines[line] if line < len(lines) else ""
    m = EXPECT_COMMENT.match(text)
    start = m.end() if m else 0
    if index >= len(test.expect_lines):       # the run printed more lines than expected
        message = (f"kernel test {test.kernel}: the run printed more: {quoted(got)} after the "
                   f"last expect line")
        replacement = None
    elif got is None:                          # the run printed fewer lines
        message = f"kernel test {test.kernel}: expected {quoted(expected)}, the run printed nothing more"
        replacement = None
    else:
        message = f"kernel test {test.kernel}: expected {quoted(expected)}, got {quoted(got)}"
        replacement = got
    if outcome.written_by is not None:
        store, lane = outcome.written_by
        message += f" (line {store + 1}, lane {lane} wrote it)"
    out.append((diagnostic(FAILED_EXPECTATION, line, start, len(text.rstrip()), message),
                replacement))
    return out


def expected_output(printed: tuple[str, ...], test: KernelTest, line: int) -> list[str]:
    """What the run printed for the expect line `line` of `test` and after it (completion)."""
    index = line - test.launch_line - 1
    return list(printed[index:]) if 0 <= index < len(printed) else []
