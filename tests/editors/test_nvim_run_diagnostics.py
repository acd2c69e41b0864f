"""Run results reach Neovim 0.11 with nothing but the README's configuration:
Neovim declares pulled diagnostics but cannot be asked to pull again, so the run-time error
(R001) and the greyed not-executed lines (R006) of `:LspWaveRun` must be pushed; and it cannot be
asked to refresh code lenses, so the plugin asks for them when the server says a run ended
(`wave-lsp/runsChanged`) instead of showing `⟳ running…` until the next CursorHold."""

from __future__ import annotations

import json
import time

from run_kernels import OUT_OF_BOUNDS, STORE

from .nvim import run_nvim
from .test_nvim_terminal import save, terminal  # noqa: F401 (the fixture)



def test_run_errors_and_not_executed_lines_reach_neovim_and_lenses_follow(tmp_path):
    path = tmp_path / "oob.wave"
    path.write_text(OUT_OF_BOUNDS, encoding="utf-8")
    result = run_nvim(tmp_path, f"""
        vim.o.updatetime = 60000     -- no CursorHold: only the plugin may refresh the lenses
        local buf = H.attach({json.dumps(str(path))})
        local client = H.client(buf)
        local function run_diagnostics()
          local out = {{}}
          for _, d in ipairs(vim.diagnostic.get(buf)) do
            if d.code == 'R001' or d.code == 'R006' then
              out[#out + 1] = {{ code = d.code, line = d.lnum,
                                unnecessary = d._tags and d._tags.unnecessary or false }}
            end
          end
          table.sort(out, function(a, b) return a.line < b.line or
            (a.line == b.line and a.code < b.code) end)
          return out
        end
        local function lens_titles()
          local out = {{}}
          for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
            if lens.command then out[#out + 1] = lens.command.title end
          end
          return out
        end
        local function lens_says(pattern)
          return function()
            for _, title in ipairs(lens_titles()) do
              if title:match(pattern) then return true end
            end
            return false
          end
        end
        vim.api.nvim_win_set_cursor(0, {{ 1, 0 }})
        vim.cmd('LspWaveRun')
        H.wait('R001 in vim.diagnostic.get', function()
          for _, d in ipairs(run_diagnostics()) do
            if d.code == 'R001' then return true end
          end
          return false
        end, 10000)
        local after_run = run_diagnostics()
        H.wait('the error in the lens', lens_says('^✕ out of bounds'), 10000)

        -- an edit re-runs the kernel (it is live now); the lens follows without CursorHold
        vim.api.nvim_buf_set_lines(buf, 4, 5, false, {{ '    mov_imm r1, 16' }})
        local started = vim.uv.hrtime()
        H.wait('the re-run in the lens', lens_says('^✓'), 3000)
        local waited_ms = (vim.uv.hrtime() - started) / 1e6
        return {{ after_run = after_run, lenses = lens_titles(), waited_ms = waited_ms,
                  after_edit = run_diagnostics(),
                  pull_offered = client.server_capabilities.diagnosticProvider ~= nil }}
    """)
    assert result["pull_offered"] is False
    found = {(d["code"], d["line"]) for d in result["after_run"]}
    assert ("R001", STORE) in found, result["after_run"]
    greyed = [d for d in result["after_run"] if d["code"] == "R006"]
    assert {d["line"] for d in greyed} == {STORE + 1, STORE + 2}    # not the faulting line
    assert all(d["unnecessary"] for d in greyed)
    assert not any(d["code"] == "R001" for d in result["after_edit"])   # in bounds now
    assert any(title.startswith("✓") for title in result["lenses"])
    assert not any("running" in title for title in result["lenses"])


def test_terminal_shows_the_run_error_the_greyed_lines_and_the_lens(tmp_path, terminal):
    """What a person sees in a 256-colour terminal after `:LspWaveRun` (capture saved under
    test-artifacts/nvim-tmux-run-error.txt), with `virtual_text = true` as `:help wave`
    suggests: the error beside its line, the failed run's message on one line (no "Press
    ENTER" prompt), and the lines the run did not reach greyed but not written on
    (R006 is an Unnecessary hint)."""
    path = tmp_path / "oob.wave"
    path.write_text(OUT_OF_BOUNDS, encoding="utf-8")
    term = terminal(path)
    term.wait_for("regs ·", timeout=60)     # attached: the lenses are there
    term.keys(":LspWaveRun", "Enter")
    screen = term.wait_for("out of bounds at line", "memory access out of bounds")
    time.sleep(1)
    screen = term.screen()
    save("nvim-tmux-run-error.txt", screen)
    assert "Press ENTER" not in screen, screen
    rows = screen.split("\n")
    assert rows[-2].startswith("wave-lsp") and "out of bounds" in rows[-2], screen   # one line
    row = lambda text: next((line for line in rows if text in line), "")  # noqa: E731
    assert "memory access out of bounds" in row("device_store_u32"), screen  # R001 beside it
    assert "not executed" not in screen, screen                             # R006 not written
    assert "r0 = 0, 1, 2, 3" in row("mov_sr"), screen                         # run values
    assert "0000" not in row("mov_sr"), screen                                # no offsets
