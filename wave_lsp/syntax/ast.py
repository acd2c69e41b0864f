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


# Construction without the frozen dataclasses' generated `__init__`, which sets each field with
# `object.__setattr__` (about three times the cost of setting a slot): the line parser makes a
# token, an instruction and a line parse for every line of a document (100,000 lines: a fifth of
# the parse). Each `__init__` takes the same arguments as the generated one; the classes stay
# frozen (assignment still raises).
def _slot_setters(cls, *names: str) -> tuple:
    return tuple(getattr(cls, name).__set__ for name in names)


_TOKEN = _slot_setters(Token, "text", "start", "end")
_INSTRUCTION = _slot_setters(Instruction, "guard", "mnemonic", "suffixes", "hint", "operands",
                             "start", "end", "_hash")
_LINE = _slot_setters(LineSyntax, "statements", "comment", "problem")


def _token_init(self, text: str, start: int, end: int) -> None:
    set_text, set_start, set_end = _TOKEN
    set_text(self, text)
    set_start(self, start)
    set_end(self, end)


def _instruction_init(self, guard: Guard | None, mnemonic: Token, suffixes: tuple[Token, ...],
                      hint: Token | None, operands: tuple[Operand, ...], start: int,
                      end: int) -> None:
    s_guard, s_mnemonic, s_suffixes, s_hint, s_operands, s_start, s_end, s_hash = _INSTRUCTION
    s_guard(self, guard)
    s_mnemonic(self, mnemonic)
    s_suffixes(self, suffixes)
    s_hint(self, hint)
    s_operands(self, operands)
    s_start(self, start)
    s_end(self, end)
    s_hash(self, None)


def _line_init(self, statements: tuple[Statement, ...], comment: Token | None,
               problem: SyntaxProblem | None) -> None:
    s_statements, s_comment, s_problem = _LINE
    s_statements(self, statements)
    s_comment(self, comment)
    s_problem(self, problem)


Token.__init__ = _token_init
Instruction.__init__ = _instruction_init
LineSyntax.__init__ = _line_init
