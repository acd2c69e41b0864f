"""The kernel profile in the real Neovim 0.11: `:LspWaveProfile` profiles the kernel
and the plugin draws the heat as extmarks (a bar in the sign column in the level's colour, the
share of the kernel's cost at the right edge, the hottest lines highlighted) at the levels the
server computes; the server's hints come as inlay hints; an edit re-profiles and the extmarks
follow (`wave-lsp/profileChanged`); `:LspWaveProfile!` clears them. And what a person sees in a
terminal (capture saved under test-artifacts/nvim-tmux-profile.txt)."""

from __future__ import annotations

import json
import re
import time

from profile_kernels import BANKS, SECTORS, STRIDE_WORDS, STRIDED

from .nvim import run_nvim, server_commands
from .test_nvim_terminal import save, terminal  # noqa: F401 (the fixture)

BARS = "▁▃▄▆█"


def expected_levels(text: str) -> dict[int, int]:
    """0-based line -> heat level, from the ide layer on the same text."""
    from wave_lsp.ide.profile_session import profile_kernels
    from wave_lsp.ide.run_limits import RunLimits
    from wave_lsp.ide.run_session import kernel_launch_lines, plan_runs
    from wave_lsp.ide.state import DocumentState
    doc = DocumentState("file:///heat.wave", text, 1)
    snapshot = plan_runs(doc, {"strided": None}, kernel_launch_lines(doc, None))
    return {h.line: h.level for h in profile_kernels(snapshot, RunLimits())[0].view.heat.values()}


MARKS = """
        local function marks()
          local ns = require('wave.profile').ns
          local out = {}
          for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
            local d = m[4]
            out[#out + 1] = { line = m[2], sign = vim.trim(d.sign_text or ''),
                              sign_hl = d.sign_hl_group, line_hl = d.line_hl_group or '',
                              text = d.virt_text and d.virt_text[1][1] or '',
                              text_hl = d.virt_text and d.virt_text[1][2] or '' }
          end
          return out
        end
        local function hints()
          local out = {}
          for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
            local label = h.inlay_hint.label
            out[tostring(h.inlay_hint.position.line)] = type(label) == 'string' and label or label[1].value
          end
          return out
        end
"""


def test_profile_draws_the_heat_as_extmarks_and_follows_edits(tmp_path):
    assert "wave-lsp.profile" in server_commands(tmp_path)
    path = tmp_path / "strided.wave"
    path.write_text(STRIDED, encoding="utf-8")
    edit_line = STRIDED.split("\n").index(f"    {STRIDE_WORDS}")
    result = run_nvim(tmp_path, f"""
        local buf = H.attach({json.dumps(str(path))})
        {MARKS}
        vim.api.nvim_win_set_cursor(0, {{ 1, 0 }})
        vim.cmd('LspWaveProfile')
        H.wait('the heat extmarks', function() return #marks() >= 10 end, 20000)
        H.wait('the profile hints', function() return hints()['{BANKS}'] ~= nil end, 10000)
        local first = {{ marks = marks(), hints = hints(),
                        kernels = vim.tbl_keys(vim.b[buf].wave_profile or {{}}) }}
        vim.api.nvim_buf_set_lines(buf, {edit_line}, {edit_line + 1}, false,
                                   {{ '    mov_imm r1, 4' }})
        H.wait('the re-profile', function()
          local p = (vim.b[buf].wave_profile or {{}}).strided
          return p and p.version == vim.lsp.util.buf_versions[buf] and p.complete
        end, 20000)
        H.wait('the hints of the new profile', function()
          return hints()['{BANKS}'] == nil and hints()['{SECTORS}'] ~= nil
        end, 10000)
        local edited = {{ marks = marks(), hints = hints() }}
        vim.cmd('LspWaveProfile!')
        H.wait('the heat cleared', function() return #marks() == 0 end, 10000)
        H.wait('the hints cleared', function() return next(hints()) == nil end, 10000)
        return {{ first = first, edited = edited, cleared = vim.b[buf].wave_profile }}
    """)
    for stage, text in (("first", STRIDED),
                        ("edited", STRIDED.replace(STRIDE_WORDS, "mov_imm r1, 4"))):
        expected = expected_levels(text)
        marks = result[stage]["marks"]
        levels = {m["line"]: int(m["sign_hl"].removeprefix("WaveHeat")) for m in marks}
        assert levels == expected, (stage, levels, expected)
        for m in marks:
            level = levels[m["line"]]
            assert m["sign"] == BARS[level - 1], m
            if m["text"]:
                assert re.fullmatch(r"\d+% of the cost", m["text"]) and \
                    m["text_hl"] == m["sign_hl"], m
            assert m["line_hl"] == ("WaveHeatLine" if level == 5 else ""), m
    first, edited = result["first"], result["edited"]
    assert first["kernels"] == ["strided"]
    assert first["hints"][str(BANKS)] == "2-way bank conflict"
    assert first["hints"][str(SECTORS)] == "8 wave-instrs · 32 sectors (ideal 4)"
    assert str(BANKS) not in edited["hints"] and str(SECTORS) in edited["hints"]
    said = {m["line"]: int(m["text"].split("%")[0]) for m in first["marks"] if m["text"]}
    assert said[SECTORS] >= 50 and BANKS in said and len(said) < len(first["marks"])
    assert result["cleared"] in (None, {}, [])


def test_terminal_shows_the_heat_beside_the_kernel(tmp_path, terminal):
    """What a person sees in a 256-colour terminal after `:LspWaveProfile`."""
    path = tmp_path / "strided.wave"
    path.write_text(STRIDED, encoding="utf-8")
    term = terminal(path)
    term.wait_for("regs ·", timeout=60)          # attached: the lenses are there
    term.keys(":LspWaveProfile", "Enter")
    screen = term.wait_for("32 sectors (ideal 4)", "2-way bank conflict", "◔ Profile:")
    time.sleep(0.5)
    screen = term.screen()
    coloured = term.screen(escapes=True)
    save("nvim-tmux-profile.txt", screen)
    save("nvim-tmux-profile-escapes.txt", coloured)
    rows = screen.split("\n")
    row = lambda text: next((line for line in rows if text in line), "")  # noqa: E731
    hottest = row("device_load_u32")
    assert "32 sectors (ideal 4)" in hottest, screen     # the hint after the line
    assert hottest.lstrip().startswith("█"), screen       # the hottest bar in the sign column
    assert re.search(r"\(ideal 4\)\s+\d+% of the cost", hottest), screen   # its share next
    assert "2-way bank conflict" in row("local_store_u32"), screen
    assert "4 wave-instrs · 25% lanes" in row("iadd r7, r5, r0"), screen
    assert "4 of 8 divergent" in row("if p1"), screen
    assert "▁" in row("mov_sr"), screen                    # a cool line: the lowest bar
    # the hottest bar is drawn in its colour (#a81f2a, or 124 without 'termguicolors')
    line = next(l for l in coloured.split("\n") if "device_load_u32" in l)
    assert re.search(r"\x1b\[[0-9;]*(38;2;168;31;42|38;5;124)[0-9;]*m[^\x1b]*█", line), line
