"""Finding the server in a real VS Code: a broken server is a clear notification (and the file is
still coloured by the TextMate grammar); with no server at all the extension offers to install
the one it ships, installs it into a private environment with progress shown, and starts it:
the pure wheel from the universal .vsix, the wheel with the native core from this platform's;
the status bar's tooltip names the engine."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from .conftest import artifacts, kernel_workspace
from .workbench import ROOT, Workbench


def _path_without_wave_lsp() -> str:
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(d for d in dirs if d and not (Path(d) / "wave-lsp").exists())


@pytest.fixture
def workbench_with(vsix, tmp_path):
    """Starts code-server with the given user settings on a workspace without a .venv."""
    opened = []

    def start(name: str, settings: dict, package: Path = vsix) -> Workbench:
        workspace = kernel_workspace(tmp_path / "kernels", with_venv=False)
        wb = Workbench.start(tmp_path, package, settings, workspace, artifacts(name),
                             env={"PATH": _path_without_wave_lsp()})
        wb.workspace = workspace
        opened.append(wb)
        return wb

    yield start
    for wb in opened:
        wb.stop()


def test_broken_server_is_a_clear_notification_and_textmate_still_colours(workbench_with):
    broken = [sys.executable, "-c", "import sys; sys.exit('wave-lsp: simulated broken install')"]
    wb = workbench_with("broken-server", {"wave.server.command": broken})
    wb.openFile("scale.wave")
    notes = wb.wait_until(
        lambda: [n for n in wb.notifications() if "failed to start" in n],
        "the failure notification")
    wb.wait_until(lambda: "failed" in wb.statusBar()["label"], "the failed state")
    wb.screenshot("01-broken-server")
    assert "wave.server.command" in notes[0]
    assert "Show Log" in notes[0]
    # Colours from the grammar alone: mnemonic, registers and comment differ from plain text.
    tokens = {t["text"].strip(): t["color"] for t in wb.lineTokens("imul    r2")}
    plain = wb.lineTokens("imul    r2")[0]["color"]  # the indentation
    assert tokens["imul"] != plain
    assert tokens["r2"] != plain and tokens["r2"] != tokens["imul"]
    comment = wb.lineTokens("Multiplies each")[0]["color"]
    assert comment not in (plain, tokens["imul"], tokens["r2"])
    assert "simulated broken install" in wb.server.output_channel()
    # One notification for the failure (not the language client's own as well) ...
    assert len([n for n in wb.notifications() if "fail" in n or "connection" in n]) == 1
    # ... which goes when the setting is fixed and the server runs.
    folder = wb.workspace / ".vscode"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(
        {"wave.server.command": [str(ROOT / ".venv" / "bin" / "wave-lsp"), "serve"]}))
    wb.wait_until(lambda: "running" in wb.statusBar()["label"], "the server running", timeout=90)
    wb.wait_until(lambda: not [n for n in wb.notifications() if "failed to start" in n],
                  "the failure notification gone")
    wb.screenshot("02-recovered")


def test_missing_server_is_installed_from_the_vsix(workbench_with):
    wb = workbench_with("install-server", {})
    wb.openFile("broken.wave")
    wb.waitFor(".notifications-toasts .notification-list-item", "Install wave-lsp 0.1.0")
    assert "not installed" in wb.statusBar()["label"]
    wb.screenshot("01-install-offer")
    wb.click(".notifications-toasts .notification-list-item .monaco-button",
             "Install wave-lsp 0.1.0")
    wb.waitFor(".notifications-toasts .notification-list-item", "installing the wave-lsp server")
    wb.screenshot("02-installing")
    wb.wait_until(lambda: "running" in wb.statusBar()["label"], "the installed server running",
                  timeout=240)
    wb.wait_until(lambda: wb.count(".monaco-editor .squiggly-error") > 0, "the error squiggle")
    wb.screenshot("03-installed-and-running")
    env = next((wb.server.user_data / "User" / "globalStorage").glob("*/server-env"))
    assert (env / "bin" / "wave-lsp").is_file()
    assert (env / "wave-lsp-wheel.txt").read_text().strip() == "wave_lsp-0.1.0-py3-none-any.whl"
    log = wb.server.output_channel()
    assert "Starting the server (bundled)" in log
    # the universal .vsix has the pure wheel only: one line says so, and the tooltip the engine
    assert log.count("without the native core") == 1
    assert ("installed the pure wheel, without the native core: kernels run on the numpy engine "
            "(slower): this extension has no native core for this platform (a universal .vsix)."
            in log)
    assert "Engine: numpy engine (the native core is not installed" in wb.statusBar()["label"]


def test_platform_vsix_installs_the_native_core(workbench_with, native_vsix):
    """The .vsix of this platform installs the wheel with the native core for the Python it
    finds, and the status bar's tooltip says the server runs kernels on it."""
    wb = workbench_with("install-native-server", {}, native_vsix)
    wb.openFile("broken.wave")
    wb.waitFor(".notifications-toasts .notification-list-item", "Install wave-lsp 0.1.0")
    wb.click(".notifications-toasts .notification-list-item .monaco-button",
             "Install wave-lsp 0.1.0")
    wb.wait_until(lambda: "running" in wb.statusBar()["label"], "the installed server running",
                  timeout=240)
    wb.wait_until(lambda: "Engine: native core" in wb.statusBar()["label"], "the engine named")
    wb.screenshot("01-native-core")
    env = next((wb.server.user_data / "User" / "globalStorage").glob("*/server-env"))
    tag = sys.implementation.cache_tag.replace("cpython-", "cp")
    installed = (env / "wave-lsp-wheel.txt").read_text().strip()
    assert installed.startswith(f"wave_lsp-0.1.0-{tag}-{tag}-linux_"), installed
    assert list((env / "lib").glob("python3*/site-packages/wave_lsp/emu/native/_wavecore.*"))
    # the workbench persists the channel a moment after the status bar changes
    wb.wait_until(lambda: "wave-lsp 0.1.0: kernels run on the native core"
                  in wb.server.output_channel(), "the server's engine line in the output")
    assert "without the native core" not in wb.server.output_channel()
