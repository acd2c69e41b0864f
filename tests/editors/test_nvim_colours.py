"""Colours in the real Neovim 0.11 with its default colour scheme, before and after wave-lsp
attaches: the semantic tokens must not turn registers, special registers or labels into plain
text (Neovim links `@lsp.type.variable` to plain `@variable`, and semantic tokens outrank the
syntax file), and registers, special registers, labels and mnemonics stay apart from plain text
and from each other where the scheme has the colours (lua/wave/highlight.lua)."""

from __future__ import annotations

import json

from .nvim import run_nvim

SOURCE = """.kernel colours
.registers 8
    mov_sr  r0, sr_lane_id
top:
    iadd    r1, r0, r0
    icmp_eq p1, r1, r0
    call top
    halt
.end
"""
# (name, 0-based line, byte column) of the tokens compared
PLACES = {"register": (2, 12), "special": (2, 16), "label": (3, 0), "mnemonic": (4, 4),
          "predicate": (5, 12), "label_reference": (6, 9), "kernel": (0, 8), "plain": (2, 14)}

EFFECTIVE = """
  local function resolve(name)  -- a dotted group falls back to its parent, as Neovim draws it
    while name do
      if vim.fn.hlexists(name) == 1 then
        return vim.api.nvim_get_hl(0, { name = name, link = false })
      end
      name = name:match('^(.*)%.[^.]*$')
    end
    return {}
  end
  local function effective(buf, row, col)
    local info = vim.inspect_pos(buf, row, col)
    local out = { fg = vim.api.nvim_get_hl(0, { name = 'Normal' }).fg, bold = false,
                  groups = {}, semantic = #info.semantic_tokens }
    local function take(name)
      local hl = resolve(name)
      out.fg = hl.fg or out.fg
      out.bold = out.bold or hl.bold == true
      out.groups[#out.groups + 1] = name
    end
    for _, s in ipairs(info.syntax) do take(s.hl_group) end
    local tokens = vim.deepcopy(info.semantic_tokens)
    table.sort(tokens, function(a, b) return a.opts.priority < b.opts.priority end)
    for _, t in ipairs(tokens) do take(t.opts.hl_group) end
    out.fg = string.format('#%06x', out.fg)
    return out
  end
"""


def colours(tmp_path, attach: bool) -> dict:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "colours.wave"
    path.write_text(SOURCE, encoding="utf-8")
    places = json.dumps(json.dumps(PLACES))
    wait = """
        H.client(buf)
        H.wait('semantic tokens', function()
          return #vim.inspect_pos(buf, 2, 12).semantic_tokens > 0
            and #vim.inspect_pos(buf, 3, 0).semantic_tokens > 0
        end)""" if attach else ""
    return run_nvim(tmp_path, f"""{EFFECTIVE}
        local buf = H.open({json.dumps(str(path))})
        {wait}
        local out = {{}}
        for name, at in pairs(vim.json.decode({places})) do
          out[name] = effective(buf, at[1], at[2])
        end
        return out
    """, **({} if attach else {"WAVE_NO_LSP": "1"}))


def test_semantic_tokens_keep_the_syntax_colours(tmp_path):
    before = colours(tmp_path / "before", attach=False)
    after = colours(tmp_path / "after", attach=True)
    assert all(after[k]["semantic"] > 0 for k in ("register", "special", "label", "mnemonic"))
    plain = after["plain"]
    assert before["plain"]["fg"] == plain["fg"] and not plain["bold"]
    for kind in ("register", "special", "label", "predicate", "kernel"):
        assert (after[kind]["fg"], after[kind]["bold"]) == \
            (before[kind]["fg"], before[kind]["bold"]), (kind, before[kind], after[kind])
        assert (after[kind]["fg"], after[kind]["bold"]) != (plain["fg"], False), kind
    # registers, special registers, labels and mnemonics: four different looks
    looks = {k: (after[k]["fg"], after[k]["bold"]) for k in
             ("register", "special", "label", "mnemonic")}
    assert looks["register"] != looks["special"] and looks["register"] != looks["mnemonic"]
    assert looks["label"] not in (looks["register"], looks["special"], looks["mnemonic"])
    assert looks["mnemonic"] != (plain["fg"], False)
    assert after["label_reference"]["fg"] == after["label"]["fg"]
