"""`wave-lsp test PATH...`: run the kernel tests written in .wave files (folders: recursively).

A kernel test is a launch line directly followed by expectation comments (example below). It
passes when `wave-lsp run FILE FLAGS --kernel KERNEL`, started in the file's folder, prints
exactly the `expect:` lines on stdout (one comment per output line; an `expect:` comment with
nothing after it for a blank line) and exits with the `expect-exit:` status (0 when absent).
An `expect-stderr:` comment, when given, is the first line of stderr (an `Error: ...` or
`Warning: ...` line), so a test can expect an error or a warning.

Floats compare exactly; `--tolerance ATOL[:RTOL]` on the launch line lets every number in the
output differ from the expected one by ATOL + RTOL*|expected| (NaN only matches NaN);
`wave-lsp run` accepts and ignores the flag. `--lanes` (the editor's) is dropped; `--trace`
only writes to stderr and is left out of a test run. Every other flag of `wave-lsp run` runs as
the command runs it (`--profile`: its table follows the output), except `--wave-widths` and
`--compare` (several runs, a GPU run), which a test refuses. As in the editor, a launch line's `--arg`
files must lie inside the tested file's git repository (else its folder): no absolute path, no
`..` or link leaving it (CI runs the tests of pull requests).

Output: one line per test (`path:LINE: ok kernel NAME`, LINE is the launch line) and a summary.
A failure is `path:LINE: FAIL kernel NAME`, then the first differing output line (expected /
got) and the source line and lane of the store that last wrote that value (`written by line
13, lane 2`). `--update` rewrites the expectations of the failing tests with what the run
printed (`--update all`: of every test), changing nothing else in the file, byte for byte.
`--format json` prints one JSON object. Files run in parallel processes when there are several
(`--jobs N`, default: the number of CPUs). Exit status: 0 when every test passes (or was
updated), 1 when one fails, 2 when a file cannot be read or written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..syntax.tool_comments import KERNEL_TEST_EXAMPLE

PARALLEL_FROM = 4              # files: fewer run in this process (starting workers costs more)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "test", help="run the kernel tests written in .wave files (expect lines)",
        description=f"{__doc__}\nA kernel test:\n\n{KERNEL_TEST_EXAMPLE}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH", help=".wave files or folders")
    p.add_argument("--update", nargs="?", const="failing", metavar="all",
                   help="rewrite the expectations of failing tests (all: of every test)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="parallel processes (default: the CPUs; 1: none)")
    p.set_defaults(func=run)


@dataclass
class FileResult:
    """One file's tests, or why it could not be read (or written back)."""

    path: str
    outcomes: list = field(default_factory=list)
    updated: list = field(default_factory=list)     # launch lines whose expectations changed
    error: str | None = None


def test_file(path: str, update: str | None = None, whole: bool = True) -> FileResult:
    """Run every test of one file; with `update` ("failing" or "all") rewrite expectations.
    Without `whole` (the text report, which only shows the first difference) an outcome keeps
    one more output line than its test expects, the rest counted: the comparison is the same,
    and a test printing millions of lines costs no more memory than one printing a few."""
    from ..files import FileWriteError, read_regular, rewrite_source
    from .lint_command import MAX_LINT_BYTES
    from ..ide.arg_files import file_root
    from ..ide.kernel_tests import discover, run_test, update_expectations
    try:
        data = read_regular(path)
        text = data.decode("utf-8")
    except OSError as err:
        return FileResult(path, error=f"cannot read: {err.strerror or err}")
    except UnicodeDecodeError:
        return FileResult(path, error="cannot read: not UTF-8 text")
    root = file_root(Path(path))      # launch lines read files of the file's repository only
    keep = None if whole or update else 0
    outcomes = [run_test(text, t, path=path, root=root, keep_lines=keep)
                for t in discover(text)]
    result = FileResult(path, outcomes)
    if update:
        new, chosen = update_expectations(text, path, all_tests=update == "all",
                                          outcomes=outcomes, root=root)
        if new != text:
            try:
                # never more than `lint` (and so pre-commit) reads back
                rewrite_source(path, data, new.encode("utf-8"), MAX_LINT_BYTES)
            except FileWriteError as err:
                result.error = f"cannot write (the file is unchanged): {err.strerror or err}"
                return result
            result.updated = [outcomes[i].test.launch_line for i in chosen]
    return result


def _results(files: list[Path], update: str | None, jobs: int, whole: bool = True):
    """Each file's result, in order, from worker processes when there are enough files."""
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(files) < PARALLEL_FROM:
        yield from (test_file(str(f), update, whole) for f in files)
        return
    from concurrent.futures import ProcessPoolExecutor
    from ..ide.kernel_run import preload
    preload()        # forked workers start with the emulator loaded, not each loading it
    with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
        yield from pool.map(test_file, map(str, files), [update] * len(files),
                            [whole] * len(files))


def failure_lines(outcome) -> list[str]:
    """The indented lines that explain a failure under its `FAIL` line."""
    diff = outcome.first_difference
    if diff is None or not outcome.ran:
        return [f"    {outcome.message}"]
    if diff.what == "exit":
        lines = [f"    exit status: expected {diff.expected}, got {diff.got}"]
        return lines + ([f"    stderr: {outcome.stderr}"] if outcome.stderr else [])
    if diff.what == "stderr":
        return [f"    first line of stderr: expected {diff.expected!r}",
                f"    {'':22}got      {diff.got!r}"]
    expected = "(no more lines)" if diff.expected is None else diff.expected
    got = "(no more lines)" if diff.got is None else diff.got
    lines = [f"    output line {diff.index + 1}: expected {expected}",
             f"    {'':{len(str(diff.index + 1)) + 14}}got      {got}"]
    if outcome.written_by is not None:
        line, lane = outcome.written_by
        lines.append(f"    written by line {line + 1}" + (f", lane {lane}" if lane is not None
                                                           else ""))
    elif outcome.address is not None:
        lines.append(f"    no store wrote device address 0x{outcome.address:x}")
    return lines


def outcome_json(path: str, outcome, updated: bool) -> dict:
    test, diff = outcome.test, outcome.first_difference
    return {
        "path": path, "line": test.launch_line + 1, "kernel": test.kernel,
        "status": "updated" if updated else "passed" if outcome.passed else "failed",
        "message": outcome.message, "flags": list(test.command),
        "expected": list(test.expected), "actual": list(outcome.actual),
        "expected_exit": test.exit_status, "exit": outcome.exit_status,
        "expected_stderr": test.stderr, "stderr": outcome.stderr,
        "difference": None if diff is None else {
            "what": diff.what, "index": diff.index, "line": outcome.line + 1,
            "expected": diff.expected, "got": diff.got},
        "written_by": None if outcome.written_by is None else {
            "line": outcome.written_by[0] + 1, "lane": outcome.written_by[1]},
        "address": outcome.address,
    }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def run(args: argparse.Namespace) -> int:
    from .lint_command import collect
    update = args.update
    paths = list(args.paths)
    if update not in (None, "failing", "all"):    # `--update FILE`: a path, not a mode
        paths.insert(0, update)
        update = "failing"
    if not paths:
        print("wave-lsp test: error: give at least one PATH (a .wave file or a folder)",
              file=sys.stderr)
        return 2
    empty: list[str] = []
    files, problems = collect(paths, empty)
    for raw in empty:
        print(f"{raw}: warning: no .wave file found there", file=sys.stderr)
    counts = {"passed": 0, "failed": 0, "updated": 0}
    tests, unreadable = [], [{"path": p.split(": error: ")[0], "message": p}
                             for p in problems]
    for line in problems:
        print(line, file=sys.stderr)
    for result in _results(files, update, args.jobs, whole=args.format == "json"):
        if result.error:
            unreadable.append({"path": result.path, "message": result.error})
            print(f"{result.path}: error: {result.error}", file=sys.stderr)
        for outcome in result.outcomes:
            updated = outcome.test.launch_line in result.updated
            status = "updated" if updated else "passed" if outcome.passed else "failed"
            counts[status] += 1
            if args.format == "json":
                tests.append(outcome_json(result.path, outcome, updated))
                continue
            where = f"{result.path}:{outcome.test.launch_line + 1}"
            word = {"passed": "ok", "failed": "FAIL", "updated": "updated"}[status]
            print(f"{where}: {word} kernel {outcome.test.kernel}")
            if not outcome.passed:
                print("\n".join(failure_lines(outcome)))
    total = sum(counts.values())
    if args.format == "json":
        json.dump({"tests": tests, "files": len(files), **counts, "unreadable": unreadable},
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        parts = [f"{counts['passed']} passed", f"{counts['failed']} failed"]
        if update:
            parts.append(f"{counts['updated']} updated")
        print(f"{_plural(total, 'test')} in {_plural(len(files), 'file')}: {', '.join(parts)}"
              + (f"; {_plural(len(unreadable), 'path')} could not be read or written" if unreadable
                 else ""))
    if unreadable:
        return 2
    return 1 if counts["failed"] else 0
