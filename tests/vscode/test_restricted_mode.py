"""Restricted Mode in a real VS Code (issue 31): a folder that is not trusted starts no program it
names. Its `.venv/bin/wave-lsp` and its `.vscode/settings.json` values of `wave.server.command`
and `wave.backends.ptxas` are planted programs that leave a marker when they run; the user's own
`wave.server.command` starts the real server, and the WAVE log says what was ignored."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from .conftest import artifacts, kernel_workspace
from .workbench import ROOT, CodeServer, Workbench


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
    server = CodeServer(tmp_path, vsix, user, workspace_trust=True)
    wb = Workbench(server, workspace, artifacts("restricted-mode"))
    wb.marker, wb.planted = marker, planted_ptxas
    yield wb
    wb.close()
    server.stop()


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
