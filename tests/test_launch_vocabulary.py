"""One launch vocabulary: every flag `wave-lsp run --help` lists is accepted on a launch line (the
editor's parse gives no diagnostic) and in a kernel test (`wave-lsp test` runs it and, once its
expectations are written, passes), with a sensible value per flag; the command, the editor and
kernel tests build their parsers from one table (`wave_lsp.launch.table`)."""

from __future__ import annotations

import json
import re

import pytest

from wave_lsp.cli.main import main
from wave_lsp.ide.kernel_tests import discover
from wave_lsp.ide.launch_lines import parse_launch_line
from wave_lsp.isa.profile_presets import PROFILE_TARGETS
from wave_lsp.launch.table import EDITOR_ONLY, FLAGS

KERNEL = "store"
# A sensible value for each flag (with the flag a filter needs); a new flag of `run --help`
# without an entry here fails `test_every_listed_flag_has_a_value_here`.
VALUES = {
    "--grid": "--grid 2,1,1", "--workgroup": "--workgroup 4,1,1",
    "--wave-width": "--wave-width 4", "--registers": "--registers 8",
    "--local-memory": "--local-memory 1024", "--device-memory": "--device-memory 4096",
    "--arg": "--arg 64:data.bin", "--fill-iota": "--fill-iota 64:f32:4",
    "--fill-zero": "--fill-zero 64:u32:4", "--set-reg": "--set-reg r7:5",
    "--max-instructions": "--max-instructions 100000", "--dump-memory": "--dump-memory 0:32",
    "--dump-u32": "--dump-u32 0:4", "--dump-f32": "--dump-f32 0:4",
    "--dump-f16": "--dump-f16 0:4", "--dump-bf16": "--dump-bf16 0:4", "--stats": "--stats",
    "--trace": "--trace", "--trace-lines": "--trace-lines", "--mem-trace": "--mem-trace",
    "--trace-wave": "--trace --trace-wave 0", "--trace-lane": "--trace-lines --trace-lane 1",
    "--trace-pc": "--mem-trace --trace-pc 0:0x10", "--break": "--break line:6",
    "--dump-regs": "--dump-regs", "--kernel": f"--kernel {KERNEL}",
    "--time-limit": "--time-limit 30", "--no-initcheck": "--no-initcheck",
    "--racecheck": "--racecheck strict",
    "--tolerance": "--tolerance 1e-6", "--json": "--json", "--wave-widths": "--wave-widths 4,8",
    "--compat": "--compat wave-asm", "--device": "--device emulator",
    "--compare": "--device cuda --compare", "--profile": "--profile",
    "--profile-target": f"--profile-target {PROFILE_TARGETS[-1]}",
    "--profile-lines": "--profile --profile-lines 2",
}
# A kernel test checks one run's printed output in the emulator: these it refuses, in one line
# naming the flag (an editor's launch line takes them all).
NOT_A_TEST = {
    "--wave-widths": "runs one launch per width and compares them: several runs",
    "--compare": "compares with a GPU run (--device cuda)",
}
# The editor's own flag, on a launch line only.
EDITOR_VALUES = {"--lanes": "--lanes 0-3"}

SOURCE = """\
.kernel store
.registers 8
{lines}
    mov_sr  r0, sr_lane_id
    mov_imm r1, 10
    imul    r2, r0, r1
    mov_imm r3, 4
    imul    r4, r0, r3
    device_store_u32 r4, r2
    halt
.end
"""


def help_flags(capsys) -> list[str]:
    """The flags `wave-lsp run --help` lists (its options, `-h/--help` aside), in order."""
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = capsys.readouterr().out
    options = text[text.index("options:"):]
    found = re.findall(r"^\s{2}(?:-\w, )?(--[a-z][a-z0-9-]*)", options, re.M)
    return [flag for flag in dict.fromkeys(found) if flag != "--help"]


def launch_source(flag_lines: list[str]) -> str:
    """One test per flag list: each launch line with a placeholder expectation."""
    lines = []
    for flags in flag_lines:
        lines += [f"; wave-lsp run: --workgroup 4,1,1 --wave-width 4 {flags}",
                  "; wave-lsp expect-exit: 0", ";"]
    return SOURCE.format(lines="\n".join(lines))


def test_every_listed_flag_has_a_value_here(capsys):
    listed = help_flags(capsys)
    assert len(listed) >= 30 and "--grid" in listed and "--profile" in listed
    assert set(listed) == set(VALUES)
    # ... and the help lists exactly the table's flags of the command (not the editor's)
    assert listed == [f.name for f in FLAGS if f.name not in EDITOR_ONLY]


@pytest.mark.parametrize("flag", sorted({**VALUES, **EDITOR_VALUES}))
def test_a_launch_line_accepts_every_flag(flag, tmp_path):
    (tmp_path / "data.bin").write_bytes(bytes(range(16)))
    words = {**VALUES, **EDITOR_VALUES}[flag]
    text = f"; wave-lsp run: {words}"
    line = parse_launch_line(text, 2, KERNEL, 0, tmp_path, root=tmp_path)
    assert line is not None and line.problem is None, (flag, line.problem)
    assert line.request is not None and line.request.words == tuple(
        w for w in words.split() if not (w == "--lanes" or w == "0-3"))
    assert line.launch is not None and line.options is not None


def test_a_launch_line_is_parsed_once_and_its_tests_reuse_it():
    text = launch_source(["--dump-u32 0:4 --profile"])
    [test] = discover(text)
    from wave_lsp.ide.launch_lines import launch_lines
    from wave_lsp.syntax.document import Document
    [line] = launch_lines(Document(text))
    assert test.request is not None and test.request == line.request
    assert test.request.args().profile is True and line.options.profile is False  # plain run


def test_wave_lsp_test_runs_every_flag(tmp_path, capsys):
    """Every flag in a kernel test: `wave-lsp test --update all` writes what each run printed,
    and then every test passes (so each ran, the same way twice)."""
    (tmp_path / "data.bin").write_bytes(bytes(range(16)))
    runnable = [words for flag, words in VALUES.items() if flag not in NOT_A_TEST]
    path = tmp_path / "flags.wave"
    path.write_text(launch_source(runnable))
    assert main(["test", "--update", "all", str(path)]) == 0
    capsys.readouterr()
    assert main(["test", "--format", "json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    outcomes = report["tests"]
    assert len(outcomes) == len(runnable)
    assert all(t["status"] == "passed" for t in outcomes), \
        [(t["flags"], t["message"]) for t in outcomes if t["status"] != "passed"]
    text = path.read_text()
    assert "; wave-lsp expect: Profile (" in text            # --profile's table is output
    assert "; wave-lsp expect: Totals: " in text
    assert '; wave-lsp expect: {' in text                     # --json's document


@pytest.mark.parametrize("flag", sorted(NOT_A_TEST))
def test_what_a_kernel_test_cannot_run_it_says_in_one_line(flag, tmp_path, capsys):
    path = tmp_path / "one.wave"
    path.write_text(launch_source([VALUES[flag]]))
    assert main(["test", str(path)]) == 1
    out = capsys.readouterr().out
    assert flag in out and "Traceback" not in out


def test_the_profile_table_is_the_same_in_the_command_and_a_kernel_test(tmp_path, capsys):
    path = tmp_path / "p.wave"
    path.write_text(launch_source(["--dump-u32 0:4 --profile --profile-lines 3"]))
    assert main(["run", str(path), "--workgroup", "4,1,1", "--wave-width", "4",
                 "--dump-u32", "0:4", "--profile", "--profile-lines", "3"]) == 0
    printed = capsys.readouterr().out.splitlines()
    from wave_lsp.ide.kernel_tests import run_test
    [test] = discover(path.read_text())
    outcome = run_test(path.read_text(), test, path=path)
    assert list(outcome.actual) == printed and printed[4].startswith("Profile (")


def test_the_editor_limits_are_imposed_in_one_function():
    from wave_lsp.launch.limits import editor_limits
    assert editor_limits(1000, 2000) == (1000, 2.0)
    assert editor_limits(1000, 2000, 50, 0.5) == (50, 0.5)            # the line lowers them
    assert editor_limits(1000, 2000, 5000, 9.0) == (1000, 2.0)        # ...never raises them
    assert editor_limits(0, 0, 0, None) == (0, None)                  # no limit at all
    assert editor_limits(0, 0, 7, 1.5) == (7, 1.5)
