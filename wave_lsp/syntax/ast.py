"""Syntax tree of one line of WAVE assembly, with exact source ranges.

Columns are offsets into the line's Python string (Unicode code points); a node never knows its
line number, so a parsed line can be shared by every line with the same text. `Document` adds
the line numbers. Nodes are immutable.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Token:
    """A piece of source text and its columns [start, end)."""

    text: str
    start: int
    end: int


class OperandSyntax(enum.Enum):
    """The written form of an operand (what it looks like, not what the slot wants)."""

    __hash__ = object.__hash__   # members are singletons; Enum's own hashes the name (slow)

    REGISTER = "register"            # r7, r7.lo
    PREDICATE = "predicate"          # p1
    NEGATED_PREDICATE = "negated predicate"  # !p1 (legacy, break !p0)
    SPECIAL = "special register"     # sr_lane_id (or an invalid sr_* name)
    LEGACY_SPECIAL = "legacy special register"  # %tid.x
    INTEGER = "integer"              # 42, -1, 0x10
    FLOAT = "float"                  # 1.5, 1e3
    DOTTED = "dotted word"           # .device (scope), .5 (bad number)
    NAME = "name"                    # label reference, or a bare scope word
    MEMORY = "memory operand"        # [r1 + 16] (legacy)


@dataclass(frozen=True, slots=True)
class Operand:
    """One operand as written."""

    syntax: OperandSyntax
    text: str
    start: int
    end: int
    value: int | float | None = None  # register/predicate index, or the literal's value
    suffix: str | None = None          # register half (`lo`, `hi`, or anything invalid)


@dataclass(frozen=True, slots=True)
class Guard:
    """`@pN` / `@!pN` before an instruction. `register` is the written predicate name."""

    negated: bool
    register: Token
    start: int
    end: int
    index: int | None      # N when `register` is p<digits>
    spaced: bool           # whitespace inside the guard (`@ p1`), which wave-asm rejects


@dataclass(frozen=True, slots=True)
class Instruction:
    """`[guard] mnemonic[.suffix...] [.hint] [operand, ...]`."""

    guard: Guard | None
    mnemonic: Token
    suffixes: tuple[Token, ...]   # attached `.word`s, each token including its dot
    hint: Token | None            # whitespace-separated `.word` before the operands
    operands: tuple[Operand, ...]
    start: int
    end: int
    # the hash, computed on first use: the analysis memoises a dozen passes by instruction, and
    # hashing one anew (its tokens and operands) took a fifth of a file's analysis
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        found = self._hash
        if found is None:
            found = hash((self.guard, self.mnemonic, self.suffixes, self.hint, self.operands,
                          self.start, self.end))
            object.__setattr__(self, "_hash", found)
        return found

    @property
    def head(self) -> str:
        """Mnemonic with its attached suffixes, as written (`add.s32`)."""
        return self.mnemonic.text + "".join(s.text for s in self.suffixes)

    @property
    def head_end(self) -> int:
        return self.suffixes[-1].end if self.suffixes else self.mnemonic.end


@dataclass(frozen=True, slots=True)
class Label:
    """`name:` — a label definition."""

    name: Token
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Directive:
    """`.name args` — `name` excludes the dot; `start` is the dot's column."""

    name: Token
    args: tuple[Operand, ...]
    start: int
    end: int


Statement = Instruction | Label | Directive


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """Why a line could not be parsed, at a column."""

    message: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class LineSyntax:
    """The parse of one line: its statements and comment, or the problem that stopped it."""

    statements: tuple[Statement, ...]
    comment: Token | None
    problem: SyntaxProblem | None

    @property
    def instructions(self) -> tuple[Instruction, ...]:
        return tuple(s for s in self.statements if isinstance(s, Instruction))
