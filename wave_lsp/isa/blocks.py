"""Block roles: how the structured control-flow instructions open, split, close and leave blocks.

The one table of which mnemonic opens which construct (`if`, `loop`), splits it (`else`),
closes it (`endif`, `endloop`), leaves a loop (`break`, `continue`) or ends threads (`halt`).
`syntax.blocks` matches blocks with it; the structure checks, the uniformity analysis, folding
and the emulator's skip plan all read the matching from there.
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

OPENER = {construct: m for m, (role, construct) in BLOCK_ROLES.items()
          if role is BlockRole.OPEN}
CLOSER = {construct: m for m, (role, construct) in BLOCK_ROLES.items()
          if role is BlockRole.CLOSE}
# the mnemonics that delimit blocks (a guard on them is ignored by the hardware model)
DELIMITERS = frozenset(m for m, (role, _) in BLOCK_ROLES.items()
                       if role in (BlockRole.OPEN, BlockRole.ELSE, BlockRole.CLOSE))
