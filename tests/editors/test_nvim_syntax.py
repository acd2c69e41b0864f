"""The generated Vim syntax file and the indent rules, in the real Neovim without the server:
every mnemonic, special register, directive and operand kind gets its group, the checked-in
generated files match the ISA table, and `=` indents the example kernels as they are written."""

from __future__ import annotations

import json

import pytest

from wave_lsp.isa import DIRECTIVES, INSTRUCTIONS, SPECIAL_REGISTERS
from wave_lsp.generate.vim_files import GENERATED, class_group, family_group, stale

from .nvim import ROOT, run_nvim

SYNTAX_AT = """
    local buf = H.open(path)
    local function standard(name)  -- follow links to the first group that is not wave's own
      while name:match('^wave') do
        name = vim.api.nvim_get_hl(0, { name = name, link = true }).link or ''
      end
      return name
    end
    local out = {}
    for _, probe in ipairs(probes) do
      local name = vim.fn.synIDattr(vim.fn.synID(probe[1], probe[2], 1), 'name')
      out[#out + 1] = { name, standard(name) }
    end
    return { groups = out, syntax = vim.bo[buf].syntax, clients = #vim.lsp.get_clients() }
"""


def probe(tmp_path, lines: list[str], positions: list[tuple[int, int]]):
    """(group, highlight group) at each (line, column) of `lines` (0-based), without a server."""
    path = tmp_path / "colours.wave"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    probes = [[line + 1, col + 1] for line, col in positions]
    result = run_nvim(tmp_path, f"local path = {json.dumps(str(path))}\n"
                                f"local probes = vim.json.decode({json.dumps(json.dumps(probes))})\n"
                                + SYNTAX_AT, WAVE_NO_LSP="1")
    assert result["syntax"] == "wave"
    assert result["clients"] == 0  # coloured before (without) any server
    return [tuple(g) for g in result["groups"]]


def test_generated_files_are_current():
    assert stale(ROOT) == [], "run: python -m wave_lsp.generate.vim_files"


def test_stale_check_notices_a_missing_mnemonic(tmp_path):
    for path, render in GENERATED.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(render().replace(" wave_ballot", ""), encoding="utf-8")
    assert [p.name for p in stale(tmp_path)] == ["wave.vim"]


def test_every_mnemonic_has_its_class_group(tmp_path):
    names = list(INSTRUCTIONS)
    groups = probe(tmp_path, [f"    {m} r1" for m in names], [(i, 4) for i in range(len(names))])
    for name, (group, _) in zip(names, groups):
        assert group == class_group(INSTRUCTIONS[name].iclass), name


def test_operands_directives_labels_and_comments(tmp_path):
    lines = [
        ".kernel saxpy  ; TODO tune",             # 0
        ".workgroup_size 64, 1, 1",                # 1
        "top:    mov_sr r3, sr_lane_id",          # 2
        "    @!p1 mov_imm r4, 0x3F800000",        # 3
        "    mov_imm r5, 1.5",                    # 4
        "    atomic_add r1, r2, r3, .device",     # 5
        "    device_load_u32 .cached r1, r2",     # 6
        "    mov r1, %tid.x",                     # 7
        "; wave-lsp run: --grid 4,1,1",           # 8
        "    barrier",                            # 9
        "; wave-lsp expect: 0 1 2",               # 10
    ]
    at = {
        (0, 0): ("waveDirective", "PreProc"),
        (0, 8): ("waveKernelName", "Function"),
        (0, 15): ("waveComment", "Comment"),
        (0, 17): ("waveTodo", "Todo"),
        (1, 0): ("waveDirective", "PreProc"),
        (1, 16): ("waveNumber", "Number"),
        (2, 0): ("waveLabel", "Label"),
        (2, 8): ("waveMisc", "Statement"),
        (2, 15): ("waveRegister", "Identifier"),
        (2, 19): ("waveSpecialRegister", "Special"),
        (3, 4): ("waveGuard", "PreCondit"),
        (3, 21): ("waveNumber", "Number"),
        (4, 16): ("waveFloatLiteral", "Float"),
        (5, 4): ("waveAtomic", "Function"),
        (5, 28): ("waveScope", "StorageClass"),
        (6, 21): ("waveCacheHint", "StorageClass"),
        (7, 12): ("waveLegacySpecial", "Error"),
        (8, 2): ("waveToolComment", "SpecialComment"),
        (9, 4): ("waveSync", "Exception"),
        (10, 2): ("waveToolComment", "SpecialComment"),
        (10, 19): ("waveComment", "Comment"),
    }
    groups = probe(tmp_path, lines, list(at))
    assert dict(zip(at, groups)) == at


def test_special_registers_and_directives_all_coloured(tmp_path):
    lines = [f"    mov_sr r1, {s.name}" for s in SPECIAL_REGISTERS] + \
            [f".{d.name}" for d in DIRECTIVES]
    positions = [(i, 15) for i in range(len(SPECIAL_REGISTERS))] + \
                [(len(SPECIAL_REGISTERS) + i, 1) for i in range(len(DIRECTIVES))]
    groups = probe(tmp_path, lines, positions)
    expected = [("waveSpecialRegister", "Special")] * len(SPECIAL_REGISTERS) + \
               [("waveDirective", "PreProc")] * len(DIRECTIVES)
    assert groups == expected


def test_control_flow_links_to_conditional():
    assert family_group(INSTRUCTIONS["loop"].iclass) == "waveControlFlow"
    text = (ROOT / "editors/nvim/syntax/wave.vim").read_text()
    assert "hi def link waveControlFlow Conditional" in text


INDENT = """
    local buf = H.open(path)
    vim.cmd('silent normal! gg=G')
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
"""


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "examples").glob("*.wave")))
def test_indent_restores_the_examples(tmp_path, name):
    original = (ROOT / "examples" / name).read_text(encoding="utf-8").split("\n")[:-1]
    path = tmp_path / name
    path.write_text("\n".join(line.lstrip() for line in original) + "\n", encoding="utf-8")
    result = run_nvim(tmp_path, f"local path = {json.dumps(str(path))}\n" + INDENT,
                      WAVE_NO_LSP="1")
    assert result == original


def test_indent_nests_blocks_and_keeps_labels_at_column_zero(tmp_path):
    expected = [
        "; header",
        ".kernel k",
        ".registers 8",
        "    mov_sr r0, sr_lane_id",
        "    loop",
        "        icmp_ge p1, r1, r0",
        "        if p1",
        "            ; inside both",
        "            iadd r1, r1, r2",
        "        else",
        "inner: isub r1, r1, r2",
        "            break p1",
        "        endif",
        "    endloop",
        "done:",
        "    halt",
        ".end",
        "; trailer",
    ]
    path = tmp_path / "nest.wave"
    flat = ["  " + line.lstrip() for line in expected]
    path.write_text("\n".join(flat) + "\n", encoding="utf-8")
    result = run_nvim(tmp_path, f"local path = {json.dumps(str(path))}\n" + INDENT,
                      WAVE_NO_LSP="1")
    assert result == expected


def test_typing_reindents_block_keywords(tmp_path):
    path = tmp_path / "typed.wave"
    path.write_text(".kernel k\n.registers 8\n    icmp_lt p1, r1, r2\n.end\n", encoding="utf-8")
    result = run_nvim(tmp_path, f"""
        local buf = H.open({json.dumps(str(path))})
        vim.api.nvim_win_set_cursor(0, {{ 3, 0 }})
        local keys = vim.api.nvim_replace_termcodes(
          'oif p1<CR>iadd r1, r1, r2<CR>else<CR>isub r1, r1, r2<CR>endif<CR>.workgroup_size 8, 1, 1<Esc>',
          true, false, true)
        vim.api.nvim_feedkeys(keys, 'xt', false)
        return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    """, WAVE_NO_LSP="1")
    assert result == [".kernel k", ".registers 8", "    icmp_lt p1, r1, r2", "    if p1",
                      "        iadd r1, r1, r2", "    else", "        isub r1, r1, r2", "    endif",
                      ".workgroup_size 8, 1, 1", ".end"]
