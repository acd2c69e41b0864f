"""Colours in the real Neovim 0.11 with its default colour scheme, before and after wave-lsp
attaches: the semantic tokens must not turn registers, special registers or labels into plain
text (Neovim links `@lsp.type.variable` to plain `@variable`, and semantic tokens outrank the
syntax file), and registers, special registers, labels and mnemonics stay apart from plain text
and from each other where the scheme has the colours (lua/wave/highlight.lua)."""

from __future__ import annotations

import json
import re
import time

from .nvim import run_nvim
from .test_nvim_terminal import save, terminal  # noqa: F401 (the tmux fixture)

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


def _sgr(state: dict, sequence: str) -> None:
    """Apply one SGR sequence to `state` (foreground and bold: what tells tokens apart)."""
    params = sequence[2:-1].replace(":", ";").split(";") if sequence[2:-1] else ["0"]
    i = 0
    while i < len(params):
        p = params[i] or "0"
        if p == "0":
            state.update(fg="default", bold=False)
        elif p == "1":
            state["bold"] = True
        elif p == "22":
            state["bold"] = False
        elif p == "39":
            state["fg"] = "default"
        elif p == "38":
            width = 5 if params[i + 1] == "2" else 3
            state["fg"] = ";".join(params[i:i + width])
            i += width - 1
        elif p == "48":
            i += 4 if params[i + 1] == "2" else 2
        elif 30 <= int(p) <= 37 or 90 <= int(p) <= 97:
            state["fg"] = p
        i += 1


def _look(screen: str, row_text: str, word: str) -> tuple[str, bool]:
    """(foreground, bold) where `word` starts, on the row showing `row_text` (plain text)."""
    for row in screen.split("\n"):
        pieces = re.split(r"(\x1b\[[0-9;:]*m)", row)
        plain = "".join(p for p in pieces if not p.startswith("\x1b"))
        if row_text not in plain:
            continue
        target = plain.index(word, plain.index(row_text))
        state = {"fg": "default", "bold": False}
        seen = 0
        for piece in pieces:
            if piece.startswith("\x1b"):
                _sgr(state, piece)
            elif seen + len(piece) > target:
                return state["fg"], state["bold"]
            else:
                seen += len(piece)
    raise AssertionError(f"{row_text!r} is not on the screen:\n{screen}")


def test_terminal_colours_after_attach(tmp_path, terminal, monkeypatch):
    """What the user saw in tmux: once the server attaches, registers and sr_* still differ
    from plain text and from each other, and the mnemonics from both. In 24-bit colour (Neovim
    turns 'termguicolors' on for COLORTERM=truecolor), where the default scheme's `@variable`
    has a colour of its own (plain text) that hid the syntax file's."""
    monkeypatch.setenv("COLORTERM", "truecolor")
    path = tmp_path / "colours.wave"
    path.write_text(SOURCE, encoding="utf-8")
    term = terminal(path)
    term.wait_for("regs ·", timeout=60)  # the server's code lens: it has attached
    deadline = time.monotonic() + 20
    while True:  # the semantic tokens are drawn: `iadd` (a function) no longer looks like `halt`
        screen = term.screen(escapes=True)
        if _look(screen, "iadd", "iadd") != _look(screen, "halt", "halt") \
                or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    save("nvim-tmux-colours.txt", screen)
    looks = {"register": _look(screen, "mov_sr", "r0"),
             "special": _look(screen, "mov_sr", "sr_lane_id"),
             "plain": _look(screen, "mov_sr", ","),
             "mnemonic": _look(screen, "iadd", "iadd"),
             "keyword": _look(screen, "halt", "halt"),
             "label": _look(screen, "top:", "top")}
    assert looks["mnemonic"] != looks["keyword"], "semantic tokens never drawn"
    assert len({looks[k] for k in ("register", "special", "plain", "mnemonic")}) == 4, looks
    assert looks["label"] != looks["plain"], looks


def test_terminal_hints_and_lenses_have_colours_without_termguicolors(tmp_path, terminal,
                                                                       monkeypatch):
    """In a 256-colour terminal without 'termguicolors' the default scheme has
    no cterm colour for NonText, so run values and lenses were drawn like code; the plugin gives
    LspInlayHint, LspCodeLens and DiagnosticUnnecessary 256-colour foregrounds."""
    monkeypatch.delenv("COLORTERM", raising=False)
    path = tmp_path / "colours.wave"
    path.write_text("; wave-lsp run: --workgroup 4,1,1 --wave-width 4\n" + SOURCE.replace(
        "    call top\n", ""), encoding="utf-8")
    term = terminal(path)
    term.wait_for("regs ·", timeout=60)
    term.keys(":set notermguicolors", "Enter", ":/mov_sr", "Enter", ":LspWaveRun", "Enter")
    term.wait_for("r0 = 0, 1, 2, 3", "✓")
    time.sleep(0.5)
    screen = term.screen(escapes=True)
    save("nvim-tmux-colours-256.txt", screen)
    plain = _look(screen, "mov_sr", "mov_sr")
    looks = {"hint": _look(screen, "mov_sr", "r0 = 0"),
             "lens": _look(screen, ".kernel colours", "▶ Run"),
             "run lens": _look(screen, "Run again", "✓")}    # after or below the launch line
    assert "38;2" not in screen, "24-bit colours: 'termguicolors' is on"
    for name, look in looks.items():
        assert look[0] not in ("default", plain[0]), (name, looks, plain)
    assert looks["hint"] != looks["lens"], looks
