"""The structured blocks of WAVE control flow: which mnemonics open, continue and close a block.

`if` … [`else` …] `endif` and `loop` … `endloop` nest (spec v0.2 §5.1). Editors indent and fold
by these roles; the Vim indent rules are generated from this table (`vim_files.py`).
"""

from __future__ import annotations

# opener -> (mnemonics that continue it, the mnemonic that closes it)
BLOCKS: dict[str, tuple[tuple[str, ...], str]] = {
    "if": (("else",), "endif"),
    "loop": ((), "endloop"),
}

BLOCK_OPENERS: frozenset[str] = frozenset(BLOCKS)
BLOCK_MIDDLES: frozenset[str] = frozenset(m for middles, _ in BLOCKS.values() for m in middles)
BLOCK_CLOSERS: frozenset[str] = frozenset(close for _, close in BLOCKS.values())
