"""Block roles: how the structured control-flow instructions open, split, close and leave blocks.

`if` … [`else` …] `endif` and `loop` … `endloop` nest (spec v0.2 §5.1). This is the one table of
which mnemonic opens which construct, splits it (`else`), closes it, leaves a loop (`break`,
`continue`) or ends threads (`halt`). `syntax.blocks` matches blocks with it (the structure
checks, the uniformity analysis, folding and the emulator's skip plan read that matching);
editors indent and fold by the same roles (the Vim indent rules are generated from `BLOCKS`,
`wave_lsp.generate.vim_files`).
"""

from __future__ import annotations

import enum


class BlockRole(enum.Enum):
    OPEN = "opens a block"
    ELSE = "starts the other branch of an if"
    CLOSE = "closes a block"
    EXIT = "leaves the innermost loop"
    HALT = "ends the threads that reach it"


IF, LOOP = "if", "loop"   # the two constructs

# mnemonic -> (role, construct it belongs to; None for halt)
BLOCK_ROLES: dict[str, tuple[BlockRole, str | None]] = {
    "if": (BlockRole.OPEN, IF),
    "else": (BlockRole.ELSE, IF),
    "endif": (BlockRole.CLOSE, IF),
    "loop": (BlockRole.OPEN, LOOP),
    "break": (BlockRole.EXIT, LOOP),
    "continue": (BlockRole.EXIT, LOOP),
    "endloop": (BlockRole.CLOSE, LOOP),
    "halt": (BlockRole.HALT, None),
}


def _with(role: BlockRole) -> dict[str, str]:
    """construct -> the mnemonic with `role` in it (one per construct)."""
    return {construct: m for m, (r, construct) in BLOCK_ROLES.items() if r is role}


OPENER = _with(BlockRole.OPEN)
CLOSER = _with(BlockRole.CLOSE)
# the mnemonics that delimit blocks (a guard on them is ignored by the hardware model)
DELIMITERS = frozenset(m for m, (role, _) in BLOCK_ROLES.items()
                       if role in (BlockRole.OPEN, BlockRole.ELSE, BlockRole.CLOSE))

# opener -> (mnemonics that continue it, the mnemonic that closes it): the editors' view
BLOCKS: dict[str, tuple[tuple[str, ...], str]] = {
    OPENER[c]: (tuple(m for m, (r, k) in BLOCK_ROLES.items() if r is BlockRole.ELSE and k == c),
                CLOSER[c])
    for c in OPENER
}

BLOCK_OPENERS: frozenset[str] = frozenset(BLOCKS)
BLOCK_MIDDLES: frozenset[str] = frozenset(m for middles, _ in BLOCKS.values() for m in middles)
BLOCK_CLOSERS: frozenset[str] = frozenset(close for _, close in BLOCKS.values())
