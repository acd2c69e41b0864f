"""Reverse debugging in a real VS Code (code-server): the debug toolbar's Step Back and Reverse
buttons (the adapter announces `supportsStepBack`) undo a step and return to the breakpoint,
the Variables view showing the earlier lane values; and "Debug at this moment" on a run's data
race (a quick fix) opens a session paused at the race with its lanes in the "Finding lanes"
scope, in a session of the window's warm adapter (`wave-lsp debug --server`, no adapter process
of its own); "Debug witness" of a `wave-lsp verify` race does the same for its two threads.
Screenshots under test-artifacts/vscode/reverse-debugger/."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .conftest import workbench
from .workbench import ROOT, pane_rows as rows, stop_at_breakpoint
from tests.time_travel_kernels import RACE_BODY, kernel

RACE = kernel("race", RACE_BODY, "--workgroup 8,1,1 --wave-width 4")


def add_race(workspace) -> None:
    (workspace / "race.wave").write_text(RACE, encoding="utf-8")
    corpus = ROOT / "tests" / "verify" / "corpus" / "missing_barrier.wave"
    (workspace / "missing_barrier.wave").write_text(corpus.read_text(), encoding="utf-8")


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    with workbench(tmp_path_factory, vsix, "reverse-debugger",
                   {"debug.toolBarLocation": "docked"}, prepare=add_race) as wb:
        yield wb


def adapters(vscode) -> list[str]:
    """The command lines of the debug adapters code-server started (its session's processes)."""
    session = os.getsid(vscode.server.process.pid)
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            line = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == session and re.search(r"wave[-_]lsp\S*\s+debug\b", line):
            found.append(line.strip())
    return found


def step_over(vscode) -> None:
    """F10, then the stop at the next line: VS Code drops a step pressed while the last one
    still runs (on a loaded machine the second of two quick presses was lost)."""
    before = rows(vscode, "Call Stack")
    vscode.press("F10")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") > 0
                      and (now := rows(vscode, "Call Stack")) and now != before,
                      "the stop after the step")


def r2_is(vscode, values: str, what: str) -> None:
    vscode.wait_until(lambda: [r for r in rows(vscode, "Variables")
                               if r.startswith("r2") and values in r], what)


def test_step_back_and_reverse_buttons(vscode):
    stop_at_breakpoint(vscode, "calls.wave", "iadd")
    r2_is(vscode, "[0, 1, 4, 9]", "r2 at the breakpoint")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-step-back") > 0,
                      "the Step Back button")
    step_over(vscode)
    r2_is(vscode, "[4, 5, 8, 13]", "r2 after the step")
    vscode.click(".codicon-debug-step-back")
    r2_is(vscode, "[0, 1, 4, 9]", "r2 after Step Back")
    vscode.screenshot("01-stepped-back")
    step_over(vscode)
    step_over(vscode)
    # back in the caller: no frame of square is left (the thread rows name no function)
    vscode.wait_until(lambda: (stack := rows(vscode, "Call Stack")) and not [
        r for r in stack if "square" in r] and [r for r in stack if r.startswith("calls")],
        "the return from square")
    r2_is(vscode, "[4, 5, 8, 13]", "r2 after the return")
    vscode.click(".codicon-debug-reverse-continue")
    vscode.wait_until(lambda: [r for r in rows(vscode, "Call Stack") if "square" in r],
                      "the breakpoint's frame in square")
    r2_is(vscode, "[0, 1, 4, 9]", "r2 back at the breakpoint")
    vscode.screenshot("02-reverse-continued")
    vscode.click(".codicon-debug-stop")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") == 0,
                      "the end of the session", timeout=60)


def test_debug_at_this_moment_opens_the_race(vscode):
    vscode.openFile("race.wave")
    vscode.clickLens("wave-lsp run:", "▶ Run")
    vscode.wait_until(lambda: vscode.count(".squiggly-warning") > 0, "the race's warning",
                      timeout=60)
    vscode.press("Escape")
    vscode.clickText("local_store_u32", 0, 3)
    vscode.wait_until(lambda: vscode.count(".lightBulbWidget") > 0, "the light bulb", timeout=30)
    vscode.click(".lightBulbWidget")         # the actions of the line, as a user clicks them
    vscode.waitFor(".action-widget", "Debug at this moment")
    vscode.screenshot("03-quick-fix")
    vscode.chooseAction("Debug at this moment")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") > 0,
                      "the session paused at the race", timeout=60)
    focus = vscode.wait_until(lambda: [r for r in rows(vscode, "Variables")
                                       if "Finding lanes" in r], "the Finding lanes scope")
    assert focus
    vscode.click(".pane:has(.pane-header[aria-label*='Variables' i]) .monaco-list-row",
                 "Finding lanes")
    vscode.press("ArrowRight")               # expand the scope
    lanes = vscode.wait_until(lambda: [r for r in rows(vscode, "Variables")
                                       if r.startswith("thread ")], "the race's threads")
    assert [r.split()[1] for r in lanes] == ["0", "4"]
    vscode.screenshot("04-debug-at-this-moment")
    running = adapters(vscode)                # the warm adapter serves it: no process of its own
    assert [a for a in running if a.endswith("debug --server")] and \
        not [a for a in running if a.endswith(" debug")], running


def test_debug_witness_opens_the_verified_race(vscode):
    if vscode.count(".codicon-debug-stackframe") > 0:      # the previous test's session
        vscode.click(".codicon-debug-stop")
        vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") == 0,
                          "the end of the previous session", timeout=60)
    vscode.openFile("missing_barrier.wave")
    vscode.wait_until(lambda: [t for t in vscode.texts(".codelens-decoration")
                               if "Verify" in t], "the Verify lens", timeout=60)
    vscode.clickLens(".kernel missing_barrier", "Verify")
    vscode.wait_until(lambda: [t for t in vscode.texts(".codelens-decoration")
                               if "Debug witness" in t], "the Debug witness lens", timeout=60)
    vscode.screenshot("05-verified")
    vscode.clickLens(".kernel missing_barrier", "Debug witness")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") > 0,
                      "the session paused at the witness", timeout=60)
    vscode.wait_until(lambda: [r for r in rows(vscode, "Variables") if "Finding lanes" in r],
                      "the Finding lanes scope")
    vscode.click(".pane:has(.pane-header[aria-label*='Variables' i]) .monaco-list-row",
                 "Finding lanes")
    vscode.press("ArrowRight")
    lanes = vscode.wait_until(lambda: [r for r in rows(vscode, "Variables")
                                       if r.startswith("thread ")], "the witness's threads")
    assert sorted(r.split()[1] for r in lanes) == ["31", "32"]
    vscode.screenshot("06-debug-witness")
