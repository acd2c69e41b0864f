"""A real VS Code for the tests: code-server 4.100.3 (VS Code 1.100.3) with the built `.vsix`
installed, and its workbench driven in Chromium by `driver.mjs` (playwright-core).

`CodeServer` owns one code-server process with its own user-data and extensions folders;
`Workbench` owns one browser page on it and forwards steps to the driver over JSON lines;
`Workbench.start` starts both, the browser while code-server starts.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "vscode-extension"
TOOLS = ROOT / ".tools"
CODE_SERVER = TOOLS / "code-server" / "out" / "node" / "entry.js"
ARTIFACTS = ROOT / "test-artifacts" / "vscode"
CHROMIUM = "/usr/bin/chromium"

# What a user would turn off in a fresh profile: tours, trust prompts, telemetry, updates; and a
# cursor that does not blink and no animations: the browser does not paint twice a second
# while a step waits, and a screenshot does not depend on when it was taken.
BASE_SETTINGS = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "chat.commandCenter.enabled": False,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "editor.minimap.enabled": False,
    "editor.hover.delay": 200,
    "editor.fontSize": 14,
    "files.autoSave": "off",
    "git.enabled": False,
    "editor.cursorBlinking": "solid",
    "workbench.reduceMotion": "on",
}

# Workspace trust as a user meets it, minus the modal: a new folder opens in Restricted Mode.
TRUST_SETTINGS = {
    "security.workspace.trust.enabled": True,
    "security.workspace.trust.startupPrompt": "never",
    "security.workspace.trust.untrustedFiles": "open",
}


def missing_tools() -> list[str]:
    """What the VS Code tests need and is not installed (by .ci/tools/vscode.sh)."""
    missing = []
    if shutil.which("node") is None:
        missing.append("node")
    if not CODE_SERVER.is_file():
        missing.append(f"code-server ({CODE_SERVER})")
    if not Path(CHROMIUM).exists():
        missing.append(CHROMIUM)
    for package in ("playwright-core", "@vscode/vsce", "vscode-tmgrammar-test", "typescript"):
        if not (EXTENSION / "node_modules" / package / "package.json").is_file():
            missing.append(f"vscode-extension/node_modules/{package}")
    return missing


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CodeServer:
    """One code-server with the extension installed, serving `workspace`."""

    def __init__(self, home: Path, vsix: Path, settings: dict[str, Any],
                 env: dict[str, str] | None = None, workspace_trust: bool = False) -> None:
        """`workspace_trust`: VS Code's workspace trust on, every folder opening untrusted
        (Restricted Mode) without a prompt; off (the default) every folder is trusted."""
        self.home = home
        self.user_data = home / "user-data"
        self.extensions = home / "extensions"
        self.port = free_port()
        self.log = open(home / "code-server.log", "w")
        (self.user_data / "User").mkdir(parents=True, exist_ok=True)
        (self.user_data / "User" / "settings.json").write_text(
            json.dumps({**BASE_SETTINGS, **(TRUST_SETTINGS if workspace_trust else {}),
                        **settings}, indent=2))
        self.env = {**os.environ, **(env or {})}
        self.env.pop("VSCODE_IPC_HOOK_CLI", None)
        # the extension is installed while the server starts (a window reads the extensions
        # folder when it opens, after both)
        install = subprocess.Popen(self._command("--install-extension", str(vsix)),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   env=self.env, text=True)
        self.process = subprocess.Popen(
            self._command("--auth", "none", "--bind-addr", f"127.0.0.1:{self.port}",
                          "--disable-telemetry", "--disable-update-check",
                          *(() if workspace_trust else ("--disable-workspace-trust",)),
                          "--disable-getting-started-override", "--ignore-last-opened"),
            stdout=self.log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        try:
            installed, _ = install.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            install.kill()
            self.stop()
            raise
        if install.returncode != 0:
            self.stop()
            raise RuntimeError(f"code-server --install-extension {vsix} failed:\n{installed}")
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2).read()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"code-server did not start; see {home}/code-server.log")
                time.sleep(0.1)

    def _command(self, *args: str) -> list[str]:
        return ["node", str(CODE_SERVER), "--user-data-dir", str(self.user_data),
                "--extensions-dir", str(self.extensions), *args]

    def url(self, folder: Path) -> str:
        return f"http://127.0.0.1:{self.port}/?folder={folder}"

    def extension_logs(self) -> str:
        """Every log the extension host wrote (output channels included), concatenated."""
        logs = sorted((self.user_data / "logs").glob("**/*.log"))
        return "\n".join(p.read_text(errors="replace") for p in logs)

    def output_channel(self, name: str = "WAVE") -> str:
        """The text of an output channel, as the workbench persisted it."""
        found = sorted((self.user_data / "logs").glob(f"**/output_logging_*/*-{name}.log"))
        return "\n".join(p.read_text(errors="replace") for p in found)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
        self.log.close()


class StepFailed(AssertionError):
    pass


class Workbench:
    """A Chromium page on a code-server workbench; `wb.openFile("k.wave")` runs a driver step."""

    def __init__(self, artifacts: Path) -> None:
        """Starts the driver, which launches the browser at once; `open` loads a workbench."""
        artifacts.mkdir(parents=True, exist_ok=True)
        self.artifacts = artifacts
        self.server: CodeServer | None = None
        self.driver = subprocess.Popen(
            ["node", str(Path(__file__).with_name("driver.mjs")), str(artifacts)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "WAVE_EXTENSION_DIR": str(EXTENSION), "WAVE_CHROMIUM": CHROMIUM})
        self._next = 0

    def open(self, server: CodeServer, folder: Path) -> Workbench:
        """Loads the workbench of `server` on `folder` (stopped with this workbench)."""
        self.server = server
        self.call("load", server.url(folder))
        return self

    @classmethod
    def start(cls, home: Path, vsix: Path, settings: dict[str, Any], folder: Path,
              artifacts: Path, **server: Any) -> Workbench:
        """A code-server on `home` (CodeServer's keywords in `server`) and a workbench on
        `folder`; the browser starts while the server does."""
        wb = cls(artifacts)
        try:
            return wb.open(CodeServer(home, vsix, settings, **server), folder)
        except BaseException:
            wb.stop()
            raise

    def stop(self) -> None:
        """Closes the browser, then stops its code-server."""
        self.close()
        if self.server is not None:
            self.server.stop()

    def call(self, step: str, *args: Any) -> Any:
        assert self.driver.stdin is not None and self.driver.stdout is not None
        self._next += 1
        self.driver.stdin.write(json.dumps({"id": self._next, "call": step, "args": args}) + "\n")
        self.driver.stdin.flush()
        line = self.driver.stdout.readline()
        if not line:
            raise StepFailed(f"driver exited during {step}{args}")
        answer = json.loads(line)
        if "error" in answer:
            self.call("screenshot", f"failed-{step}")
            dialogs = self.call("texts", ".monaco-dialog-box")   # a modal blocks every click
            raise StepFailed(f"{step}{args}: {answer['error']}"
                             + "".join(f"\nan open modal dialog: {d!r}" for d in dialogs))
        return answer["result"]

    def __getattr__(self, step: str):
        return lambda *args: self.call(step, *args)

    def wait_until(self, probe, what: str, timeout: float = 60.0, interval: float = 0.25):
        """Polls `probe()` until it returns something truthy; fails naming `what`."""
        deadline = time.monotonic() + timeout
        while True:
            value = probe()
            if value:
                return value
            if time.monotonic() > deadline:
                self.call("screenshot", f"timeout-{what.replace(' ', '-')[:40]}")
                raise StepFailed(f"timed out waiting for {what}; last value {value!r}")
            time.sleep(interval)

    def close(self) -> None:
        try:
            self.call("close")
        except Exception:
            pass
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            self.driver.kill()


def pane_rows(vscode, pane: str) -> list[str]:
    """The rows of a side-bar pane ("Variables", "Call Stack", ...), as shown."""
    return vscode.texts(f".pane:has(.pane-header[aria-label*='{pane}' i]) .monaco-list-row")


def stop_at_breakpoint(vscode, file: str, word: str) -> list[str]:
    """Opens `file`, sets a breakpoint on the line of `word` (F9) and starts WAVE: Debug
    Kernel; returns once the session stopped there, with the Debug Kernel lenses the file
    showed before it."""
    vscode.openFile(file)
    lenses = vscode.wait_until(lambda: [t for t in vscode.texts(".codelens-decoration")
                                        if "Debug Kernel" in t], "the Debug Kernel code lens")
    vscode.clickText(word)
    vscode.press("F9")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-breakpoint") > 0, "the breakpoint dot")
    vscode.command("WAVE: Debug Kernel")
    vscode.wait_until(lambda: vscode.count(".codicon-debug-stackframe") > 0,
                      "the stop at the breakpoint", timeout=60)
    return lenses

