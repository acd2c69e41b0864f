"""Launch lines cost time linear in their flags, and past a cap they are one clear problem:
a launch line is parsed on every revision of its document, and 10,000
`--set-reg` flags took seconds per keystroke."""

from __future__ import annotations

import argparse
import sys

from wave_lsp.launch.flags import parse_launch_flags
from wave_lsp.ide.kernel_tests import discover, run_test
from wave_lsp.ide.launch_lines import (MAX_LAUNCH_FLAGS, MAX_LAUNCH_LINE_CHARS, launch_lines,
                                       parse_launch_line)
from wave_lsp.syntax.document import Document

PREFIX = "    ; wave-lsp run: "


def set_regs(count: int) -> list[str]:
    return [w for i in range(count) for w in ("--set-reg", f"r{i % 32}:{i}")]


def argparse_steps(words: list[str]) -> int:
    """Lines argparse executes to parse `words` (a count of work, not a time)."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        count += 1
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename == argparse.__file__ else None

    sys.settrace(calls)
    try:
        parse_launch_flags(words)
    finally:
        sys.settrace(None)
    return count


def test_the_flag_parse_is_linear():
    small, large = argparse_steps(set_regs(500)), argparse_steps(set_regs(2_000))
    # four times the flags: four times the work (argparse alone took sixteen times)
    assert large / small < 5, (small, large)


def test_ten_thousand_flags_parse():
    text = PREFIX + " ".join(set_regs(MAX_LAUNCH_FLAGS))
    line = parse_launch_line(text, 3, "k", 0, None)
    assert line.problem is None
    assert line.launch.set_regs == {i % 32: i for i in range(MAX_LAUNCH_FLAGS)}   # the last wins


def test_more_flags_than_the_cap_are_one_problem_on_the_line():
    text = PREFIX + " ".join(set_regs(2 * MAX_LAUNCH_FLAGS))
    line = parse_launch_line(text, 3, "k", 0, None)
    assert line.launch is None and line.tokens == ()
    assert line.problem.message == ("the launch line has 20,000 flags; at most 10,000 are "
                                    "read, so it does not run")
    assert (line.problem.start, line.problem.end) == (line.flags_start, len(text))


def test_a_launch_line_longer_than_the_cap_is_not_read():
    text = PREFIX + "--kernel " + "k" * MAX_LAUNCH_LINE_CHARS
    line = parse_launch_line(text, 0, "k", 0, None)
    assert line.launch is None and line.problem.unread
    assert line.problem.message == (f"a launch line is read up to {MAX_LAUNCH_LINE_CHARS:,} "
                                    f"characters; this one has {len(text):,}, so it does not run")


def test_a_kernel_test_on_a_line_over_the_cap_cannot_run(tmp_path):
    flags = " ".join(["--stats"] * (MAX_LAUNCH_FLAGS + 1))
    text = (f".kernel k\n.registers 4\n    halt\n{PREFIX}{flags}\n    ; wave-lsp expect: 1\n"
            ".end\n")
    [test] = discover(text)
    outcome = run_test(text, test, path=tmp_path / "k.wave")
    assert not outcome.ran and not outcome.passed
    assert outcome.message == ("the launch line has 10,001 flags; at most 10,000 are read, so "
                               "it does not run")


def test_launch_lines_an_edit_did_not_touch_are_not_parsed_again():
    text = (".kernel k\n.registers 4\n    mov_imm r1, 1\n    halt\n"
            f"{PREFIX}--grid 2,1,1\n{PREFIX}--grid 3,1,1\n.end\n")
    doc, parsed = Document(text), {}
    first = launch_lines(doc, None, None, parsed)
    doc.apply_edit((2, 0), (2, 0), "    mov_imm r2, 2\n")       # a line above both
    doc.apply_edit((6, len(PREFIX) + 7), (6, len(PREFIX) + 8), "5")   # the second one
    second = launch_lines(doc, None, None, parsed)
    assert [ll.line for ll in second] == [5, 6]
    assert second[0].launch is first[0].launch      # moved, not parsed again
    assert second[1].launch.grid == (5, 1, 1)        # edited: parsed again
    assert len(parsed) == 2                           # only the current parses are kept
