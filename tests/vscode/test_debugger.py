"""The kernel debugger in a real VS Code (code-server): a breakpoint set with F9, "WAVE: Debug
Kernel", the stop at the line, the waves in the Call Stack and the lanes of a register in the
Variables view; then a step and continue to the end. The server here is a `wave-lsp` that
refuses `debug --server` (as one older than the warm adapter would): every session falls back to
a `wave-lsp debug` process, and the WAVE log says why. Screenshots under
test-artifacts/vscode/debugger/."""

from __future__ import annotations

import pytest

from .conftest import ROOT, workbench
from .workbench import pane_rows as rows, stop_at_breakpoint

NO_SERVER_MODE = """#!/bin/sh
for word in "$@"; do
    if [ "$word" = "--server" ]; then
        echo "wave-lsp: error: unrecognized arguments: --server" >&2
        exit 2
    fi
done
exec "{wave_lsp}" "$@"
"""


@pytest.fixture(scope="module")
def vscode(vsix, tmp_path_factory):
    older = tmp_path_factory.mktemp("older-wave-lsp") / "wave-lsp"
    older.write_text(NO_SERVER_MODE.format(wave_lsp=ROOT / ".venv" / "bin" / "wave-lsp"))
    older.chmod(0o755)
    with workbench(tmp_path_factory, vsix, "debugger",
                   {"debug.toolBarLocation": "docked",
                    "wave.server.command": [str(older), "serve"]}) as wb:
        yield wb


def test_breakpoint_stop_shows_lanes_in_the_variables_view(vscode):
    assert len(stop_at_breakpoint(vscode, "calls.wave", "iadd")) == 1
    vscode.wait_until(lambda: [r for r in rows(vscode, "Call Stack") if "wg(0,0,0) wave 1" in r],
                      "the waves in the Call Stack")
    vscode.wait_until(lambda: [r for r in rows(vscode, "Variables") if "Registers" in r],
                      "the Registers scope")
    vscode.screenshot("01-stopped")
    r2 = vscode.wait_until(lambda: [r for r in rows(vscode, "Variables") if r.startswith("r2")],
                           "r2 in the Variables view")
    assert "[0, 1, 4, 9]" in r2[0]
    vscode.click(".pane:has(.pane-header[aria-label*='Variables' i]) .monaco-list-row", "r2 =")
    lanes = vscode.wait_until(
        lambda: [r for r in rows(vscode, "Variables") if r.startswith("lane ")], "the lanes of r2")
    vscode.screenshot("02-lanes-of-r2")
    # every lane active (✓), as the hover table marks them
    assert ["".join(lane.split()) for lane in lanes[:4]] == ["lane0✓=0", "lane1✓=1", "lane2✓=4",
                                                           "lane3✓=9"]


def test_step_and_continue_to_the_end(vscode):
    vscode.press("F10")
    vscode.wait_until(lambda: [r for r in rows(vscode, "Variables") if r.startswith("r2")
                               and "[4, 5, 8, 13]" in r], "r2 after the step")
    vscode.screenshot("03-after-step")
    vscode.press("F5")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") == 0,
                      "the end of the session", timeout=60)
    vscode.screenshot("04-ended")


def test_the_log_says_why_sessions_start_their_own_adapter(vscode):
    log = vscode.wait_until(lambda: "warm debug adapter is not used" in vscode.server
                            .output_channel() and vscode.server.output_channel(),
                            "the WAVE log's note on the warm adapter", timeout=30)
    assert "exited with 2" in log and "unrecognized arguments: --server" in log
