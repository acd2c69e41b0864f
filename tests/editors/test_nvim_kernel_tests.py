"""`:LspWaveTest [file|KERNEL]` in the real Neovim 0.11 against the real server: the buffer's
kernel tests run through `wave-lsp.test`, the failures fill the quickfix list (file, expect line,
what was expected and printed, the wrong store), the quickfix window opens and the outcome
lenses come back; and the same in a real terminal (tmux), whose screen is saved under
test-artifacts/."""

from __future__ import annotations

import json
import sys
import time

from .nvim import ROOT, run_nvim, server_commands
from .test_nvim_terminal import save, terminal  # noqa: F401  (the tmux fixture)

sys.path.insert(0, str(ROOT / "tests"))
from kernel_test_cases import LOOP_BRANCH_OUTPUT, line_of, loop_branch, store  # noqa: E402

WRONG = ["0", "10", "25", "30"]        # lane 2 stores 20

RUN = """
    local buf = H.attach(path)
    vim.cmd('LspWaveTest ' .. what)
    H.wait('the tests', function() return vim.b[buf].wave_last_test ~= nil end)
    local qf = vim.fn.getqflist({ items = 1, title = 1 })
    local items = {}
    for _, item in ipairs(qf.items) do
      items[#items + 1] = { file = vim.api.nvim_buf_get_name(item.bufnr), lnum = item.lnum,
                            text = item.text, type = item.type }
    end
    local quickfix_open = false
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.fn.getwininfo(win)[1].quickfix == 1 then quickfix_open = true end
    end
    vim.api.nvim_set_current_win(vim.fn.bufwinid(buf))    -- from the quickfix window
    local lenses = {}
    H.wait('the outcome lenses', function()
      lenses = {}
      for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
        if lens.command then lenses[#lenses + 1] = lens.command.title end
      end
      return vim.tbl_contains(lenses, '✓ passed') or
        #vim.tbl_filter(function(t) return vim.startswith(t, '✕') end, lenses) > 0
    end)
    return { title = qf.title, items = items, quickfix_open = quickfix_open, lenses = lenses,
             answer = vim.b[buf].wave_last_test,
             complete = vim.fn.getcompletion('LspWaveTest ', 'cmdline') }
"""


def kernels(tmp_path):
    text = store(*WRONG) + "\n" + loop_branch(LOOP_BRANCH_OUTPUT)
    path = tmp_path / "tests.wave"
    path.write_text(text, encoding="utf-8")
    return path, text


def run_tests(tmp_path, path, what: str) -> dict:
    return run_nvim(tmp_path, f"local path, what = {json.dumps(str(path))}, "
                              f"{json.dumps(what)}\n{RUN}")


def test_lsp_wave_test_fills_the_quickfix_list_with_the_failures(tmp_path):
    assert "wave-lsp.test" in server_commands(tmp_path)
    path, text = kernels(tmp_path)
    result = run_tests(tmp_path, path, "")
    assert result["title"] == "wave-lsp test: 1 passed, 1 failed"
    [item] = result["items"]
    assert item["file"] == str(path) and item["type"] == "E"
    assert item["lnum"] == line_of(text, "expect: 25") + 1          # the first wrong expect line
    store_line = line_of(text, "device_store_u32 r4, r2") + 1
    assert item["text"] == ('FAIL kernel store: expected "25", got "20" '
                            f'(line {store_line}, lane 2 wrote 20, expected 25)')
    assert result["quickfix_open"]
    assert f"✕ failed: line {store_line}, lane 2 wrote 20, expected 25" in result["lenses"]
    assert [t["kernel"] for t in result["answer"]["tests"]] == ["store", "loop_branch"]
    assert result["complete"] == ["file", "store", "loop_branch"]


def test_lsp_wave_test_kernel_runs_only_that_kernels_tests(tmp_path):
    path, _text = kernels(tmp_path)
    result = run_tests(tmp_path, path, "loop_branch")
    assert result["title"] == "wave-lsp test: 1 passed, 0 failed"
    assert result["items"] == [] and not result["quickfix_open"]
    assert [t["kernel"] for t in result["answer"]["tests"]] == ["loop_branch"]
    assert "✓ passed" in result["lenses"]
    file = run_tests(tmp_path, path, "file")
    assert file["title"] == "wave-lsp test: 1 passed, 1 failed"


def test_the_quickfix_list_in_a_real_terminal(tmp_path, terminal):  # noqa: F811
    path, text = kernels(tmp_path)
    term = terminal(path)
    term.wait_for(".kernel store")
    term.wait_for("▶ Test", timeout=60)         # the server attached: its lenses are drawn
    term.keys(":LspWaveTest", "Enter")
    screen = term.wait_for("wave-lsp test: 1 passed, 1 failed", 'expected "25", got "20"',
                           timeout=60)
    save("nvim-kernel-tests.txt", screen)
    assert "wave-lsp test: 1 passed, 1 failed" in screen       # the quickfix window's title
    row = next(r for r in screen.splitlines() if 'got "20"' in r)
    assert f"tests.wave|{line_of(text, 'expect: 25') + 1} col 1 error|" in row



def test_completion_on_a_new_expect_line_inserts_the_printed_value(tmp_path, terminal):
    """In a terminal, `<C-x><C-o>` (the LSP omnifunc Neovim 0.11 sets) after
    `; wave-lsp expect: ` typed below the last expect line inserts what the run printed there."""
    text = store("0", "10")
    path = tmp_path / "complete.wave"
    path.write_text(text, encoding="utf-8")
    term = terminal(path)
    term.wait_for("▶ Test", timeout=60)                   # attached (the test runs on demand)
    term.keys(":/expect: 10", "Enter")
    term.keys("o; wave-lsp expect: ", "C-x", "C-o")
    term.wait_for("expect: 20")
    term.keys("Escape")
    time.sleep(0.5)
    screen = term.screen()
    save("nvim-tmux-expect-completion.txt", screen)
    rows = screen.split("\n")
    assert any(row.strip().startswith("; wave-lsp expect: 20") for row in rows), screen
