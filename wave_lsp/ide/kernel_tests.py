"""Kernel tests: expected results written in the kernel file, beside its launch line.

A launch line directly followed by expectation comments (`syntax.tool_comments`: `expect:`
lines, then optionally `expect-exit:` and `expect-stderr:`) is a test. `wave-lsp run FILE FLAGS
--kernel K`, started in the file's folder, must print exactly the `expect:` lines on stdout (one
per line, an empty one for a blank line), exit with the `expect-exit:` status (0 when absent)
and, when `expect-stderr:` is given, print that as the first line of stderr (an `Error: ...` or
`Warning: ...` line). `--tolerance ATOL[:RTOL]` on the launch line lets numbers differ
(`expectations`). Lines are 0-based here. A failing value shown by a dump is traced back to the
store that last wrote it: its source line and lane (the writing thread's global id). The editor
keeps only a window of what a test printed (`run_test(keep_lines=...)`: the first lines, at
least one more than the test expects, so the comparison is the same; `TestOutcome.printed`
counts them all); `wave-lsp test` keeps everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..launch.flags import LaunchFlagError
from ..launch.request import LaunchRequest
from ..syntax.document import Document, split_lines
from ..syntax.tool_comments import (EXPECT, EXPECT_EXIT, EXPECT_STDERR, EXPECTATION_COMMENT,
                                    expectation)
from .expectations import (Difference, Tolerance, ToleranceError, first_difference,
                           tolerance_of)
from .kernel_run import (FlagsProblem, RunOutput, command_words, confine_arg_files,
                         dump_address, parse_test_flags, run_flags)
from .launch_lines import launch_lines


@dataclass(frozen=True)
class KernelTest:
    """One launch line with expectations. `expect_lines[i]` is the line stating `expected[i]`;
    `block` the lines of all its expectation comments. `problem` says why it cannot run."""

    kernel: str
    launch_line: int
    flags: tuple[str, ...]                # the launch line's flag words, quotes removed
    expect_lines: tuple[int, ...]
    expected: tuple[str, ...]
    exit_status: int = 0
    exit_line: int | None = None
    stderr: str | None = None             # expected first line of stderr; None: not checked
    stderr_line: int | None = None
    tolerance: Tolerance | None = None
    block: range = field(default=range(0))
    problem: str | None = None
    request: LaunchRequest | None = None  # the launch line's flags, parsed (None: they do not)

    @property
    def launch_flags(self) -> LaunchRequest | tuple[str, ...]:
        """What `kernel_run` runs: the launch line's parsed request, else its words (whose
        parse then says what is wrong)."""
        return self.request if self.request is not None else self.flags

    @property
    def command(self) -> list[str]:
        """The arguments after `wave-lsp run FILE` that this test runs."""
        return command_words(self.flags) + ["--kernel", self.kernel]


@dataclass(frozen=True)
class TestOutcome:
    """A test's result: `actual` are the stdout lines the run printed; `line` is where the
    first difference shows (an expectation line, else the launch line)."""

    test: KernelTest
    passed: bool
    actual: tuple[str, ...] = ()
    exit_status: int = 0
    stderr: str = ""
    first_difference: Difference | None = None
    written_by: tuple[int, int] | None = None   # (source line, lane = global thread id)
    address: int | None = None            # device address of the first wrong value
    message: str = "passed"
    line: int = 0
    ran: bool = True                      # False: the test could not run (`message` says why)
    printed: int = -1                     # stdout lines in all (`actual`: the first of them)

    def __post_init__(self) -> None:
        if self.printed < 0:
            object.__setattr__(self, "printed", len(self.actual))

    @property
    def left_out(self) -> int:
        """Output lines printed but not kept in `actual` (the editor's window)."""
        return self.printed - len(self.actual)


def discover(text: str) -> list[KernelTest]:
    """Every kernel test of a source text, in line order."""
    doc = Document(text)
    lines = doc.lines
    out = []
    for ll in launch_lines(doc):
        end = ll.line + 1
        while end < len(lines) and expectation(lines[end]) is not None:
            end += 1
        if end > ll.line + 1:
            out.append(_test(ll, lines, range(ll.line + 1, end)))
    return out


def _test(ll, lines: Sequence[str], block: range) -> KernelTest:
    expect_lines, expected, problems = [], [], []
    found: dict[str, tuple[int, str]] = {}
    for n in block:
        verb, value = expectation(lines[n])
        if verb == EXPECT:
            expect_lines.append(n)
            expected.append(value)
        elif verb in found:
            problems.append(f"line {n + 1}: a second '{verb}:' (the first is on line "
                            f"{found[verb][0] + 1})")
        else:
            found[verb] = (n, value)
    exit_line, exit_text = found.get(EXPECT_EXIT, (None, "0"))
    status = 0
    try:
        status = int(exit_text.strip())
    except ValueError:
        problems.append(f"line {exit_line + 1}: expect-exit: '{exit_text}' is not an exit status")
    if ll.problem is not None and ll.problem.unread:      # too large to read: no flags
        problems.append(ll.problem.message)
    words = tuple(t.value for t in ll.tokens)
    tolerance = None
    try:
        tolerance = tolerance_of(words)
    except ToleranceError as err:
        problems.append(str(err))
    stderr_line, stderr = found.get(EXPECT_STDERR, (None, None))
    return KernelTest(ll.kernel, ll.line, words, tuple(expect_lines), tuple(expected), status,
                      exit_line, stderr, stderr_line, tolerance, block,
                      "; ".join(problems) or None, ll.request)


def _cannot_run(test: KernelTest, message: str) -> TestOutcome:
    return TestOutcome(test, False, message=message, line=test.launch_line, ran=False)


def run_test(text: str | bytes, test: KernelTest, *, path: Path | str,
             root: Path | None = None, cancel: Callable[[], bool] | None = None,
             keep_lines: int | None = None) -> TestOutcome:
    """Run one test of `text` (the file at `path`, maybe unsaved) and compare. `root`, given by
    an editor, confines `--arg` files to it; `keep_lines` (the editor's window) keeps that many
    lines of the output, or one more than the test expects (None: all)."""
    if test.problem:
        return _cannot_run(test, test.problem)
    folder = Path(path).parent
    try:
        args = parse_test_flags(test.launch_flags, test.kernel)
        if root is not None:                # a file it may not read: no run to record
            confine_arg_files(args, folder, root)
    except FlagsProblem as err:
        return _cannot_run(test, f"the launch line's flags: {err}")
    except LaunchFlagError as err:
        return _cannot_run(test, str(err))
    keep = None if keep_lines is None else max(keep_lines, len(test.expected) + 1)
    out = run_flags(text, test.launch_flags, test.kernel, folder, root=root, cancel=cancel,
                    keep_lines=keep, writers=bool(test.expected))
    result = dict(actual=tuple(out.stdout), exit_status=out.status, stderr=out.stderr,
                  printed=out.printed)
    if out.status != test.exit_status:
        diff = Difference(len(test.expected), str(test.exit_status), str(out.status), "exit")
        message = f"exit status {out.status}, expected {test.exit_status}" + \
            (f": {out.stderr}" if out.stderr else "")
        where = test.exit_line if test.exit_line is not None else test.launch_line
        return TestOutcome(test, False, first_difference=diff, message=message, line=where,
                           **result)
    diff = first_difference(test.expected, out.stdout, test.tolerance)
    if diff is not None:
        return _output_failure(test, out, diff, result)
    if test.stderr is not None and test.stderr != out.stderr:
        diff = Difference(len(test.expected), test.stderr, out.stderr, "stderr")
        return TestOutcome(test, False, first_difference=diff, line=test.stderr_line,
                           message=f"first line of stderr '{out.stderr}', expected "
                                   f"'{test.stderr}'", **result)
    return TestOutcome(test, True, line=test.launch_line, **result)


def _output_failure(test: KernelTest, out: RunOutput, diff: Difference,
                    result: dict) -> TestOutcome:
    """The outcome of a test whose output differs: a value of device memory is traced to its
    store by the store-writer record the test's one run carried (`run_flags`' `writers`)."""
    lines = test.expect_lines
    where = lines[min(diff.index, len(lines) - 1)] if lines else test.launch_line
    failure = dict(first_difference=diff, line=where, **result)
    if diff.expected is None:
        extra = out.printed - len(test.expected)
        return TestOutcome(test, False, message=f"{extra:,} more output line(s) than expected, "
                                                f"the first: '{diff.got}'", **failure)
    if diff.got is None:
        return TestOutcome(test, False, message=f"the output ends after {out.printed} "
                                                f"line(s), expected {len(test.expected)}",
                           **failure)
    place = dump_address(out.requests, diff.index, diff.expected, diff.got)
    if place is None:
        return TestOutcome(test, False, message=f"output line {diff.index + 1} is "
                                                f"'{diff.got}', expected '{diff.expected}'",
                           **failure)
    address, size = place
    writer = store_writer(getattr(out.report, "writers", None), address, size)
    if writer is None:
        message = (f"no store wrote 0x{address:x}: it holds '{diff.got}', "
                   f"expected '{diff.expected}'")
    else:
        lane = f", lane {writer[1]}" if writer[1] is not None else ""
        message = f"line {writer[0] + 1}{lane} wrote {diff.got}, expected {diff.expected}"
    return TestOutcome(test, False, written_by=writer, address=address, message=message,
                       **failure)


def store_writer(record, address: int, size: int) -> tuple[int, int | None] | None:
    """(source line, lane) of the store that last wrote one of `size` bytes from `address`
    (the first byte some store wrote; the lane is the writing thread's global linear id), or
    None: no store wrote them (or no record: `report.writers`)."""
    if record is None:
        return None
    for byte in range(address, address + size):
        who = record.at(byte)
        if who is not None:
            return who
    return None


def updated_text(text: str, outcomes: Iterable[TestOutcome], *, all_tests: bool = False) -> str:
    """`text` with the expectations of the failing tests (every test that ran, with
    `all_tests`) replaced by what the run printed; every other byte stays as it was. A test
    whose output was not all kept (`TestOutcome.left_out`) keeps its expectations."""
    lines, breaks = split_lines(text)
    for outcome in sorted(outcomes, key=lambda o: -o.test.launch_line):
        test = outcome.test
        if not outcome.ran or (outcome.passed and not all_tests) or not test.block \
                or outcome.left_out:
            continue
        first, last = test.block[0], test.block[-1]
        lead = EXPECTATION_COMMENT.match(lines[first]).group("lead")
        new = expectation_lines(outcome, lead, had_exit=test.exit_line is not None,
                                had_stderr=test.stderr is not None)
        inner = breaks[first] or breaks[test.launch_line] or "\n"
        lines[first:last + 1] = new
        breaks[first:last + 1] = [inner] * (len(new) - 1) + [breaks[last]]
    return "".join(line + brk for line, brk in zip(lines, breaks))


def update_expectations(text: str, path: Path | str, *, all_tests: bool = False,
                        outcomes: Sequence[TestOutcome] | None = None, root: Path | None = None,
                        cancel: Callable[[], bool] | None = None) -> tuple[str, list[int]]:
    """`text` with the failing tests' (every test's, with `all_tests`) expectations replaced by
    what the run prints, and the indices (in `discover` order) of the tests whose expectations
    it changed.
    `outcomes` are this text's, when already run. A rewritten block of another length moves
    the lines below it, and an error or warning line names source lines: the tests run again
    on the new text until what they print no longer changes (a few rounds), every test that
    ran when lines moved (one that passed may fail now, and is rewritten too), else only the
    rewritten ones."""
    if outcomes is None:
        outcomes = [run_test(text, t, path=path, root=root, cancel=cancel)
                    for t in discover(text)]
    original = text
    chosen = [i for i, o in enumerate(outcomes) if o.ran and (all_tests or not o.passed)]
    new = updated_text(text, [outcomes[i] for i in chosen], all_tests=True)
    for _ in range(UPDATE_ROUNDS):
        if new == text:
            break
        tests = discover(new)
        # a block of another length moves the lines below it: then every test runs again (one
        # that passed may name a moved line now), else only the rewritten ones
        moved = [len(t.block) for t in discover(text)] != [len(t.block) for t in tests]
        rerun = [i for i, o in enumerate(outcomes) if o.ran and i < len(tests)
                 and (moved or i in chosen)]
        text = new
        again = {i: run_test(text, tests[i], path=path, root=root, cancel=cancel)
                 for i in rerun}
        chosen += [i for i, o in again.items() if not o.passed and i not in chosen]
        new = updated_text(text, [o for o in again.values() if not o.passed])
    return new, [i for i in sorted(chosen) if _block(original, outcomes[i].test) !=
                 _block(new, discover(new)[i])]


def _block(text: str, test: KernelTest) -> list[str]:
    lines = split_lines(text)[0]
    return [lines[n] for n in test.block]


UPDATE_ROUNDS = 3


def expectation_lines(outcome: TestOutcome, lead: str = "; ", *, had_exit: bool = False,
                      had_stderr: bool = False) -> list[str]:
    """The expectation comments stating what a run printed (`lead`: the comment opening)."""
    def comment(verb: str, value: str) -> str:
        return f"{lead}wave-lsp {verb}:" + (f" {value}" if value else "")

    out = [comment(EXPECT, line) for line in outcome.actual]
    status = outcome.exit_status
    if status != 0 or had_exit or not out:
        out.append(comment(EXPECT_EXIT, str(status)))
    if outcome.stderr and (had_stderr or status != 0):
        out.append(comment(EXPECT_STDERR, outcome.stderr))
    return out
