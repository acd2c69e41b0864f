"""A vendor compiler that fails without a message on a line of ours: the reported error says why
(clang's crash report ends with a banner of asterisks; a killed compiler prints nothing)."""

from __future__ import annotations

import shutil
import stat

from wave_lsp.asm.vendors import check, failure_line

# The shape of a clang crash report (clang-15, as hipcc runs it), ending with its banner.
CLANG_CRASH = """\
PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash \
backtrace, preprocessed source, and associated run script.
Stack dump:
0.\tProgram arguments: /usr/lib/llvm-15/bin/clang -cc1 -triple amdgcn-amd-amdhsa kernel.hip
clang-15: error: unable to execute command: Killed
clang-15: error: clang frontend command failed due to signal (use -v to see invocation)
clang-15: note: diagnostic msg:
********************

PLEASE ATTACH THE FOLLOWING FILES TO THE BUG REPORT:
clang-15: note: diagnostic msg: /tmp/kernel-8b1e2f.hip
clang-15: note: diagnostic msg:

********************
"""


def test_a_crash_report_gives_its_first_error_line():
    assert failure_line(CLANG_CRASH, 1) == "clang-15: error: unable to execute command: Killed"


def test_without_an_error_line_the_first_failure_or_the_last_line():
    assert failure_line("Stack dump:\nSegmentation fault (core dumped)\n****\n", 139) \
        == "Segmentation fault (core dumped)"
    assert failure_line("something odd\n*****\n", 2) == "something odd"
    assert failure_line("", 3) == "exit status 3"
    assert failure_line("\n****\n", -9) == "killed by signal 9"


def test_a_real_compiler_exiting_without_output_is_an_error_with_its_status():
    found = check("hip", "int x;\n", "gfx90a", shutil.which("false"), verbose=False)
    assert not found.accepted
    assert [(m.severity, m.text, m.line) for m in found.messages] == [
        ("error", "exit status 1", None)]


def test_a_compiler_killed_by_a_signal_says_so(tmp_path):
    program = tmp_path / "dies"
    program.write_text("#!/bin/sh\necho '********************' >&2\nkill -9 $$\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    found = check("hip", "int y;\n", "gfx1030", str(program), verbose=False)
    assert not found.accepted
    assert [m.text for m in found.messages] == ["killed by signal 9"]


def test_what_a_compiler_leaves_in_its_temporary_directory_leaves_with_ours(tmp_path,
                                                                            monkeypatch):
    # hipcc's clang leaves two empty directories in $TMPDIR per compile; the compiler is given
    # ours, so they go with it
    program = tmp_path / "litters"
    program.write_text('#!/bin/sh\nmktemp -d >/dev/null && mktemp >/dev/null\n')
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    for target in ("hip", "ptx"):
        assert check(target, "int x;\n", "gfx90a", str(program), verbose=False).accepted
    assert list(temporary.iterdir()) == []
