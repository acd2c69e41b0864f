"""The semantic token types the server gives registers, special registers, labels and mnemonics
keep four different colours in VS Code's default theme, Dark Modern: each type goes through the
extension's `semanticTokenScopes` to a TextMate scope, coloured by the theme's rules (read from
the code-server install of .ci/tools/vscode.sh). Neovim's side is tests/editors/test_nvim_colours.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from wave_lsp.ide.highlight import TOKEN_MODIFIERS, TOKEN_TYPES, line_tokens

from conftest import ROOT

THEMES = ROOT / ".tools" / "code-server" / "lib" / "vscode" / "extensions" / "theme-defaults" / \
    "themes"
LINE = "top: mov_sr r0, sr_lane_id"
WORDS = {"label": "top", "mnemonic": "mov_sr", "register": "r0", "special": "sr_lane_id"}


def theme_rules(path: Path) -> tuple[list[tuple[str, str]], str]:
    """(TextMate selector, foreground) rules of a theme with its includes, in order (a later
    rule wins a tie), and the editor's foreground."""
    theme = json.loads(path.read_text())
    rules: list[tuple[str, str]] = []
    foreground = ""
    if "include" in theme:
        rules, foreground = theme_rules(path.parent / theme["include"])
    foreground = theme.get("colors", {}).get("editor.foreground", foreground)
    for rule in theme.get("tokenColors", []):
        colour = rule.get("settings", {}).get("foreground")
        scopes = rule.get("scope", [])
        for selector in ([scopes] if isinstance(scopes, str) else scopes):
            for part in selector.split(","):
                if colour and part.strip() and " " not in part.strip():
                    rules.append((part.strip(), colour.upper()))
    return rules, foreground.upper()


def colour_of(scope: str, rules: list[tuple[str, str]], default: str) -> str:
    """The foreground the most specific matching selector gives `scope` (the last of equals)."""
    best, colour = -1, default
    for selector, fg in rules:
        if scope == selector or scope.startswith(selector + "."):
            depth = selector.count(".") + 1
            if depth >= best:
                best, colour = depth, fg
    return colour


def semantic_key(token_type: int, modifiers: int, mapping: dict) -> str:
    """The `semanticTokenScopes` key VS Code picks for a token: its type with the most of its
    modifiers that a key lists."""
    name = TOKEN_TYPES[token_type]
    mods = {m for i, m in enumerate(TOKEN_MODIFIERS) if modifiers >> i & 1}
    keys = [k for k in mapping if k.split(".")[0] == name and set(k.split(".")[1:]) <= mods]
    assert keys, f"no semanticTokenScopes entry for {name}"
    return max(keys, key=lambda k: k.count("."))


def test_registers_special_registers_labels_and_mnemonics_differ_in_dark_modern():
    dark_modern = THEMES / "dark_modern.json"
    if not dark_modern.is_file():
        message = f"{dark_modern} not found: run bash .ci/tools/vscode.sh"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    rules, foreground = theme_rules(dark_modern)
    manifest = json.loads((ROOT / "vscode-extension" / "package.json").read_text())
    mapping = next(e["scopes"] for e in manifest["contributes"]["semanticTokenScopes"]
                   if e["language"] == "wave")
    tokens = {LINE[start:end]: (kind, mods) for start, end, kind, mods in line_tokens(LINE)}
    colours = {}
    for role, word in WORDS.items():
        scope = mapping[semantic_key(*tokens[word], mapping)][0]
        colours[role] = colour_of(scope, rules, foreground)
    assert len(set(colours.values())) == 4, colours
    assert foreground not in colours.values(), (foreground, colours)
