"""The buffer-local commands (`:LspWaveAssemble`, `:LspWaveEncoding`, `:LspWaveRun`,
`:LspWaveClear`, `:LspWaveDump`) and `:checkhealth wave`, in the real Neovim 0.11 against the real server."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from wave_lsp import __version__
from wave_lsp.asm.assembler import assemble
from wave_lsp.asm.encoding_view import encoding_listing
from wave_lsp.syntax.document import Document

from .nvim import ROOT, run_nvim, server_commands
from tests.forkserver import wave_lsp_argv

EXAMPLE = ROOT / "examples" / "divergent_break.wave"


def copy_example(tmp_path, launch: str | None = None):
    text = EXAMPLE.read_text(encoding="utf-8")
    if launch is not None:
        text = text.replace(".kernel divergent_break", f"; wave-lsp run: {launch}\n"
                                                         ".kernel divergent_break")
    path = tmp_path / EXAMPLE.name
    path.write_text(text, encoding="utf-8")
    return path, text


def test_assemble_writes_the_wbin(tmp_path):
    path, text = copy_example(tmp_path)
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        vim.cmd('LspWaveAssemble')
        H.wait('the assembly', function() return vim.b[buf].wave_last_assemble ~= nil end)
        return vim.b[buf].wave_last_assemble
    """)
    wbin = path.with_suffix(".wbin")
    assert result["path"] == str(wbin)
    assert wbin.read_bytes() == assemble(Document(text)).wbin()
    assert result["size"] == wbin.stat().st_size


def test_encoding_opens_the_listing_beside_the_source(tmp_path):
    path, text = copy_example(tmp_path)
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        vim.cmd('LspWaveEncoding')
        H.wait('the encoding split', function() return #vim.api.nvim_list_wins() == 2 end)
        local listing = vim.api.nvim_get_current_buf()
        return {{ name = vim.api.nvim_buf_get_name(listing), syntax = vim.bo[listing].syntax,
                  modifiable = vim.bo[listing].modifiable,
                  lines = vim.api.nvim_buf_get_lines(listing, 0, -1, false) }}
    """)
    assert result["name"] == f"wave-encoding://{path}"
    assert result["lines"] == encoding_listing(Document(text, uri=path.as_uri())).split("\n")
    assert result["syntax"] == "wave" and result["modifiable"] is False


RUN = """
    local buf = H.open(path)
    local client = H.client(buf)
    vim.api.nvim_win_set_cursor(0, { cursor, 0 })
    vim.cmd('LspWaveRun ' .. flags)
    H.wait('the run', function() return vim.b[buf].wave_last_run ~= nil end)
    local function labels()
      local out = {}
      for _, hint in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
        local label = hint.inlay_hint.label
        if type(label) == 'table' then
          label = table.concat(vim.tbl_map(function(part) return part.value end, label))
        end
        out[#out + 1] = { hint.inlay_hint.position.line, label }
      end
      return out
    end
    local function has_value()
      for _, hint in ipairs(labels()) do
        if hint[2]:match('r0%s*=') then return true end
      end
      return false
    end
    H.wait('run values in the inlay hints', has_value)
    local after_run = labels()
    vim.cmd('LspWaveClear')
    H.wait('the values to go', function() return not has_value() end)
    return { run = vim.b[buf].wave_last_run, hints = after_run, cleared = labels() }
"""


def test_run_shows_lane_values_as_inlay_hints_and_clear_removes_them(tmp_path):
    assert "wave-lsp.run" in server_commands(tmp_path)
    path, text = copy_example(tmp_path, "--workgroup 8,1,1 --wave-width 8 --dump-u32 0:8")
    lines = text.split("\n")
    cursor = next(i for i, line in enumerate(lines) if "mov_sr" in line) + 1
    result = run_nvim(tmp_path, f"local path, cursor, flags = {json.dumps(str(path))}, {cursor}, ''\n"
                      + RUN)
    hints = {}
    for line, label in result["hints"]:
        hints.setdefault(line, []).append(label)
    lane_ids = " ".join(hints[cursor - 1])
    assert re.search(r"r0\s*=\s*0, 1, 2\b.*\b7\b", lane_ids), lane_ids
    counter = " ".join(hints[next(i for i, l in enumerate(lines) if "iadd r1" in l)])
    assert "×" in counter  # the loop body ran more than once
    assert not any(re.search(r"r\d+\s*=", label) for _, label in result["cleared"])


def health(tmp_path, setup: str = "") -> list[str]:
    return run_nvim(tmp_path, f"""
        {setup}
        vim.cmd('checkhealth wave')
        return vim.api.nvim_buf_get_lines(0, 0, -1, false)
    """)


def test_checkhealth_finds_server_version_and_python(tmp_path):
    report = "\n".join(health(tmp_path))
    assert f"version: wave-lsp {__version__}" in report
    assert re.search(r"OK Python 3\.\d+\.\d+", report), report
    for package in ("pygls", "lsprotocol", "parsimonious", "numpy"):
        assert re.search(rf"OK {package} \d", report), package
    assert 'OK *.wave files get filetype "wave"' in report
    assert "ERROR" not in report, report


def test_checkhealth_says_what_is_missing(tmp_path):
    report = "\n".join(health(tmp_path, "vim.lsp.config('wave', { cmd = { "
                                        "'wave-lsp-not-installed', 'serve' } })"))
    assert "ERROR server command \"wave-lsp-not-installed\" not found" in report, report
    assert f"bin/pip install '{ROOT}'" in report        # this checkout: works today


def run_at(path, line: int) -> str:
    """Lua that opens `path` and runs its kernel from the launch line on 0-based `line`."""
    return f"""
        local buf = H.attach({json.dumps(str(path))})
        vim.api.nvim_win_set_cursor(0, {{ {line + 1}, 0 }})
        vim.cmd('LspWaveRun')
        H.wait('the run', function() return vim.b[buf].wave_last_run ~= nil end)
    """


def test_run_from_a_launch_line_uses_that_launch(tmp_path):
    assert "wave-lsp.run" in server_commands(tmp_path)
    path, text = copy_example(tmp_path, "--workgroup 8,1,1 --wave-width 8\n"
                                        "; wave-lsp run: --workgroup 4,1,1 --wave-width 4")
    second = next(i for i, line in enumerate(text.split("\n")) if "--workgroup 4" in line)
    result = run_nvim(tmp_path, run_at(path, second) + """
        return vim.b[buf].wave_last_run
    """)
    assert result["kernel"] == "divergent_break"
    assert result["launchLine"] == second
    assert result["ok"], result
    assert len(result["threads"]) <= 4


DUMP_FLAGS = "--workgroup 8,1,1 --wave-width 8 --device-memory 4096 --fill-iota 0:f32:1024 " \
             "--dump-f32 0:1024"


def test_dump_shows_later_values_of_a_dump_in_a_split(tmp_path):
    """`:LspWaveDump 0 600 5` on the launch line: values 600..604 of a dump of 1,024, as
    `wave-lsp run` prints them; a bad window is a message, not a split."""
    assert "wave-lsp.dump" in server_commands(tmp_path)
    path, text = copy_example(tmp_path, DUMP_FLAGS)
    launch = next(i for i, line in enumerate(text.split("\n")) if "wave-lsp run:" in line)
    result = run_nvim(tmp_path, run_at(path, launch) + """
        vim.cmd('LspWaveDump 0 2000 5')
        vim.cmd('LspWaveDump 0 600 5')
        H.wait('the dump split', function() return #vim.api.nvim_list_wins() == 2 end)
        local listing = vim.api.nvim_get_current_buf()
        -- the server's window/showMessage, which Neovim echoes into the message history
        return { name = vim.api.nvim_buf_get_name(listing), dump = vim.b[listing].wave_dump,
                 lines = vim.api.nvim_buf_get_lines(listing, 0, -1, false),
                 messages = vim.api.nvim_exec2('messages', { output = true }).output }
    """)
    cli = subprocess.run(wave_lsp_argv("run", str(path), *DUMP_FLAGS.split()),
                         capture_output=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    printed = cli.stdout.decode().splitlines()
    assert len(printed) == 1024
    assert result["name"] == f"wave-dump://{path}"
    assert printed[600:605] == ["600.0", "601.0", "602.0", "603.0", "604.0"]
    # each value with its index in the dump and its device address
    assert result["lines"][0].split() == ["index", "address", "f32"]
    rows = [line.split() for line in result["lines"][1:]]
    assert rows == [[str(i), f"0x{4 * i:08x}", printed[i]] for i in range(600, 605)], rows
    assert result["dump"]["start"] == 600 and result["dump"]["total"] == 1024
    assert "start 2000 is outside the dump: it has 1,024 values" in result["messages"]
