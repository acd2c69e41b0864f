"""Restricted Mode in a real VS Code: a folder that is not trusted starts no program it
names. Its `.venv/bin/wave-lsp` and its `.vscode/settings.json` values of `wave.server.command`
and `wave.backends.ptxas` are planted programs that leave a marker when they run; the user's own
`wave.server.command` starts the real server, and the WAVE log says what was ignored."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from .conftest import artifacts, kernel_workspace
from .workbench import ROOT, Workbench


def _plant(path: Path, marker: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\nexit 1\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def restricted(vsix, tmp_path):
    marker = tmp_path / "planted-ran.txt"
    workspace = kernel_workspace(tmp_path / "kernels", with_venv=False)
    _plant(workspace / ".venv" / "bin" / "wave-lsp", marker)
    planted_server = _plant(workspace / "tools" / "server", marker)
    planted_ptxas = _plant(workspace / "tools" / "ptxas", marker)
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text(json.dumps({
        "wave.server.command": [planted_server, "serve"],
        "wave.server.interpreter": planted_server,
        "wave.backends.ptxas": planted_ptxas}))
    user = {"wave.server.command": [str(ROOT / ".venv" / "bin" / "wave-lsp"), "serve"],
            "wave.trace.server": "verbose"}
    wb = Workbench.start(tmp_path, vsix, user, workspace, artifacts("restricted-mode"),
                         workspace_trust=True)
    wb.marker, wb.planted = marker, planted_ptxas
    yield wb
    wb.stop()


def test_restricted_mode_starts_no_program_the_workspace_names(restricted):
    wb = restricted
    wb.openFile("scale.wave")
    wb.wait_until(lambda: "running" in wb.statusBar()["label"], "the user's server running",
                  timeout=90)
    notes = wb.wait_until(lambda: [n for n in wb.notifications() if "Restricted Mode" in n],
                          "the Restricted Mode notice")
    wb.screenshot("01-restricted-mode")
    assert "virtual environments" in notes[0] and ".venv/bin/wave-lsp" in notes[0], notes
    assert "wave.server.command" in notes[0] and "wave.backends.ptxas" in notes[0], notes
    time.sleep(1)   # a planted program, had it been started, has had time to leave its mark
    assert not wb.marker.exists(), wb.marker.read_text()
    log = wb.server.output_channel()
    assert "Restricted Mode:" in log and "wave.backends.ptxas" in log, log[-2000:]
    # the initialize request (traced verbosely) carries no program the workspace names
    assert "workspaceTrusted\": false" in log, log[-3000:]
    assert wb.planted not in log, log[-3000:]


@pytest.fixture
def untrusted(vsix, tmp_path):
    workspace = kernel_workspace(tmp_path / "kernels", with_venv=False)
    user = {"wave.server.command": [str(ROOT / ".venv" / "bin" / "wave-lsp"), "serve"]}
    wb = Workbench.start(tmp_path, vsix, user, workspace, artifacts("trust-granted"),
                         workspace_trust=True)
    yield wb
    wb.stop()


def lens_text(wb, needle: str) -> str:
    return (wb.lensLine(needle) or {}).get("text", "")


def test_trust_granted_after_opening_runs_the_next_run_without_a_restart(untrusted):
    """The refused Run says so on its lens, whose Manage Trust opens VS Code's
    trust editor; after "Trust" there the next ▶ Run shows its values, on the same server."""
    wb = untrusted
    wb.viewport(1280, 800)
    wb.openFile("scale.wave")
    wb.wait_until(lambda: "running" in wb.statusBar()["label"], "the server running", timeout=90)
    wb.wait_until(lambda: "▶ Run" in lens_text(wb, ".kernel scale"), "the ▶ Run lens")
    wb.clickLens(".kernel scale", "▶ Run")
    refused = wb.wait_until(lambda: "untrusted" in (t := lens_text(wb, ".kernel scale")) and t,
                            "the refusal on the lens")
    wb.screenshot("01-run-refused-on-the-lens")
    assert "⚠ not run (untrusted): Manage Trust" in refused, refused
    assert "r2 = " not in wb.editorText()

    wb.clickLens(".kernel scale", "Manage Trust")
    wb.waitFor(".workspace-trust-editor", "Trust")
    wb.screenshot("02-trust-editor")
    wb.click(".workspace-trust-editor .monaco-button:text-is('Trust')")
    wb.wait_until(lambda: wb.count(".statusbar-item[id*='restricted' i]") == 0 and
                  "Restricted Mode" not in " ".join(wb.texts(".statusbar")), "Restricted Mode to end")
    wb.screenshot("03-trusted")
    wb.click(".tab", "scale.wave")
    wb.waitFor(".tab.active", "scale.wave")
    wb.wait_until(lambda: "untrusted" not in lens_text(wb, ".kernel scale"),
                  "the refusal gone from the lens")
    wb.clickLens(".kernel scale", "▶ Run")
    text = wb.wait_until(lambda: (t := wb.editorText()) and "r2 = 0, 3, 6" in t and t,
                         "the run's inline values", timeout=90)
    wb.wait_until(lambda: "Run again" in lens_text(wb, "wave-lsp run:"), "the run's lens")
    wb.screenshot("04-run-after-trust")
    assert "21" in next(row for row in text.splitlines() if "imul    r2" in row)
    log = wb.server.output_channel()
    assert log.count("Starting the server") == 1, log[-2000:]
    assert "The workspace is trusted now" in log, log[-2000:]
