"""The first hour with the Neovim plugin, in the real Neovim 0.11 started with exactly the
README's two lines of init.lua: `:help wave` and a tag for every command and option, folds from
the server, a label dedented when its `:` is typed, code typed under a comment header staying
code, one warning when wave-lsp cannot start, the emit split on the right with its targets
completed in order."""

from __future__ import annotations

import json
import re
import subprocess

from .nvim import ROOT, nvim_path, run_nvim

PLUGIN = ROOT / "editors" / "nvim"
KERNEL = """; A header comment
; Launch: wave-lsp run k.wave
.kernel k
.registers 8
    mov_sr  r0, sr_lane_id
    loop
        iadd    r1, r1, r0
        break p1
    endloop
    halt
.end
"""


def plugin_names() -> tuple[set[str], set[str]]:
    """The commands and the g:/b: options the plugin's Lua defines or reads."""
    sources = "\n".join(p.read_text() for p in PLUGIN.rglob("*.lua"))
    commands = set(re.findall(r"(?:create|nvim_create_user_command)\('(\w+)'", sources))
    options = set()
    for name in re.findall(r"enabled\('(wave_\w+)'\)", sources):
        options |= {f"g:{name}", f"b:{name}"}
    options |= {f"b:{n}" for n in re.findall(r"vim\.b\[\w+\]\.(wave_\w+)", sources)}
    return commands, options


def test_help_opens_and_every_command_and_option_has_a_tag(tmp_path):
    commands, options = plugin_names()
    assert {"LspWaveRun", "LspWaveEmit", "WaveDebug"} <= commands
    assert {"g:wave_codelens", "b:wave_folding", "b:wave_emit_map"} <= options
    tags = [f":{c}" for c in sorted(commands)] + sorted(options) + ["wave", ":checkhealth-wave"]
    result = run_nvim(tmp_path, f"""
        vim.cmd.help('wave')
        local opened = {{ filetype = vim.bo.filetype, name = vim.api.nvim_buf_get_name(0),
                          line = vim.api.nvim_get_current_line() }}
        local missing = {{}}
        for _, tag in ipairs(vim.json.decode({json.dumps(json.dumps(tags))})) do
          if not pcall(vim.cmd.help, tag) then
            missing[#missing + 1] = tag
          end
        end
        return {{ opened = opened, missing = missing }}
    """, WAVE_NO_LSP="1")
    assert result["opened"]["filetype"] == "help"
    assert result["opened"]["name"] == str(PLUGIN / "doc" / "wave.txt")
    assert "*wave*" in result["opened"]["line"]
    assert result["missing"] == []


def test_shipped_help_tags_are_current(tmp_path):
    copy = tmp_path / "doc"
    copy.mkdir()
    (copy / "wave.txt").write_text((PLUGIN / "doc" / "wave.txt").read_text())
    subprocess.run(["timeout", "30", nvim_path(), "--headless", "--clean", "-c",
                    f"helptags {copy}", "-c", "qa!"], check=True, capture_output=True)
    assert (PLUGIN / "doc" / "tags").read_text() == (copy / "tags").read_text(), \
        "run: nvim --headless -c 'helptags editors/nvim/doc' -c q"


def test_folds_come_from_the_server(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL)
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        H.wait('folds', function() return vim.fn.foldlevel(7) > 0 end)
        local out = {{ method = vim.wo.foldmethod, expr = vim.wo.foldexpr,
                       levels = {{}}, open = vim.fn.foldclosed(7) }}
        for l = 1, vim.api.nvim_buf_line_count(buf) do out.levels[l] = vim.fn.foldlevel(l) end
        vim.api.nvim_win_set_cursor(0, {{ 7, 0 }})
        vim.cmd('normal! zc')
        out.closed = {{ vim.fn.foldclosed(7), vim.fn.foldclosedend(7) }}
        return out
    """)
    assert result["method"] == "expr" and "vim.lsp.foldexpr()" in result["expr"]
    assert result["open"] == -1  # nothing folded on attach
    levels = result["levels"]
    assert levels[6] > levels[4] > 0  # the loop body is inside the kernel's fold
    assert result["closed"] == [6, 8]  # zc closes the loop body (`endloop` stays in view)


def test_typing_a_label_and_code_under_a_comment_header(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL)
    result = run_nvim(tmp_path, f"""
        local buf = H.open({json.dumps(str(path))})
        local function type(keys)
          vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'xt', false)
        end
        vim.api.nvim_win_set_cursor(0, {{ 7, 0 }})
        type('onext:<Esc>')                          -- a label typed inside the loop
        vim.api.nvim_win_set_cursor(0, {{ 2, 0 }})
        type('o.kernel other<Esc>')                  -- `o` on the last header line
        vim.api.nvim_win_set_cursor(0, {{ 1, 0 }})
        type('A<CR>halt<Esc>')                       -- Enter at the end of a comment
        vim.api.nvim_win_set_cursor(0, {{ 9, 0 }})
        type('A ; note<Esc>ohalt<Esc>')              -- `o` after a code line with a comment
        return {{ lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
                  formatoptions = vim.bo.formatoptions, indentkeys = vim.bo.indentkeys }}
    """, WAVE_NO_LSP="1")
    lines = result["lines"]
    assert lines[1] == "halt", lines  # not '; halt'
    assert lines[3] == ".kernel other", lines
    assert "next:" in lines and lines[lines.index("next:")].startswith("next:")
    note = next(i for i, l in enumerate(lines) if l.endswith("; note"))
    assert lines[note + 1] == "        halt", lines
    assert "<:>" in result["indentkeys"]
    assert "o" not in result["formatoptions"] and "r" not in result["formatoptions"]


def test_one_warning_naming_checkhealth_when_the_server_is_missing(tmp_path):
    for name in ("a.wave", "b.wave"):
        (tmp_path / name).write_text(KERNEL)
    result = run_nvim(tmp_path, f"""
        local seen = {{}}
        vim.notify = function(msg, level) seen[#seen + 1] = {{ msg = msg, level = level }} end
        H.open({json.dumps(str(tmp_path / "a.wave"))})
        H.open({json.dumps(str(tmp_path / "b.wave"))})
        vim.wait(300)
        return {{ seen = seen, clients = #vim.lsp.get_clients() }}
    """, PATH="/usr/bin:/bin")
    assert result["clients"] == 0
    assert len(result["seen"]) == 1, result["seen"]
    warning = result["seen"][0]
    assert ":checkhealth wave" in warning["msg"] and "wave-lsp" in warning["msg"]
    assert warning["level"] == 3  # vim.log.levels.WARN


def test_emit_opens_on_the_right_and_targets_complete_in_order(tmp_path):
    path = tmp_path / "k.wave"
    path.write_text(KERNEL)
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        local source = vim.api.nvim_get_current_win()
        local completion = vim.fn.getcompletion('LspWaveEmit ', 'cmdline')
        vim.cmd('LspWaveEmit ptx')
        H.wait('the PTX split', function() return #vim.api.nvim_list_wins() == 2 end)
        local split = vim.tbl_filter(function(w) return w ~= source end,
          vim.api.nvim_list_wins())[1]
        return {{ completion = completion,
                  source = vim.fn.win_screenpos(source), split = vim.fn.win_screenpos(split),
                  filetype = vim.bo[vim.api.nvim_win_get_buf(split)].filetype }}
    """)
    assert result["completion"] == ["hip", "metal", "ptx", "sycl"]
    assert result["filetype"] == "asm"
    assert result["split"][0] == result["source"][0]  # side by side
    assert result["split"][1] > result["source"][1]   # the split is on the right
