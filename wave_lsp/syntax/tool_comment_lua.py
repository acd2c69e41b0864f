"""Neovim's patterns for tool comments (`editors/nvim/lua/wave/tool_comments.lua`), generated
from `wave_lsp.syntax.tool_comments`, the one definition of their grammar.

`python -m wave_lsp.syntax.tool_comment_lua` rewrites the file and `--check` fails when it is
stale (a test runs the check). Each verb's pattern captures the comment's text after the colon:
a launch line's flags or an args line's registers (blanks around them dropped), an expect line's output line (one space after
the colon dropped, as `expect_text` does).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..isa import generated
from .tool_comments import ARGS, COMMENT_CHARS, EXPECT, RUN, VERBS, marker

LUA_PATH = Path("editors/nvim/lua/wave/tool_comments.lua")
_MAGIC = "^$()%.[]*+-?"
# What follows the colon, per verb, as a Lua capture.
_TEXT = {RUN: "%s*(.-)%s*$", EXPECT: " ?(.*)$", ARGS: "%s*(.-)%s*$"}


def lua_literal(text: str) -> str:
    """`text` as a Lua pattern matching it literally."""
    return "".join("%" + c if c in _MAGIC else c for c in text)


def lua_pattern(verb: str) -> str:
    """The Lua pattern of a whole tool comment of `verb`, capturing its text."""
    chars = "".join("%" + c if c in "%]^-" else c for c in COMMENT_CHARS)
    return f"^%s*[{chars}]+%s*{lua_literal(marker(verb))}{_TEXT[verb]}"


def render_lua() -> str:
    entries = "".join(f"  {verb} = '{lua_pattern(verb)}',\n" for verb in VERBS)
    return ("-- Patterns of wave-lsp's tool comments (`; wave-lsp VERB: TEXT`), each capturing TEXT.\n"
            "-- GENERATED from wave_lsp/syntax by `python -m wave_lsp.syntax.tool_comment_lua`: "
            "do not edit.\n"
            f"return {{\n{entries}}}\n")


GENERATED = {LUA_PATH: render_lua}


def main(argv: list[str] | None = None) -> int:
    return generated.main("wave_lsp.syntax.tool_comment_lua", "Write Neovim's tool-comment "
                          "patterns from the one grammar of tool comments.", GENERATED, argv)


if __name__ == "__main__":
    sys.exit(main())
