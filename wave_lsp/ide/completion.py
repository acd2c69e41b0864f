"""Completion as plain data: what may be written at the cursor, from the ISA table and the
document. `context_at` classifies the cursor (statement start: mnemonics; after `.`:
directives; after `@`: predicates; an operand position: what the instruction's operand kind
there accepts; after a mnemonic and `.`: cache hints); `operand_choices` lists what fits an
operand slot (registers of the kernel, predicates, special registers, labels, scopes);
`mnemonic_choices`, `directive_choices`, `predicate_choices` and `hint_choices` list the rest.
Every proposal is a `Choice`; the server only converts them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from ..isa import (CACHE_HINTS, DIRECTIVES, INSTRUCTIONS, MAX_REGISTER, PREDICATE_COUNT, SCOPES,
                   SPECIAL_REGISTERS, InstructionSpec, OperandKind)
from .hover import spec_markdown
from .state import DocumentState

_LABEL = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_]*:")
_GUARD = re.compile(r"\s*@\s*!?\s*[A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z0-9_.%!]*$")


@dataclass(frozen=True)
class Context:
    """Where the cursor is: what may go there and the word typed so far."""

    kind: str                     # mnemonic, directive, predicate, operand, hint, none
    word_start: int
    spec: InstructionSpec | None = None
    operand_index: int = 0


def context_at(line_text: str, col: int) -> Context:
    """Classify the cursor position from the text before it."""
    prefix = line_text[:col]
    for marker in (";", "#"):
        if marker in prefix:
            return Context("none", col)
    word_start = col - len(_WORD.search(prefix).group(0))
    rest_start = 0
    if m := _LABEL.match(prefix):
        rest_start = m.end()
    if m := _GUARD.match(prefix, rest_start):
        if m.end() == col:
            return Context("predicate", col - len(re.search(r"[A-Za-z0-9_]*$", prefix).group(0)))
        rest_start = m.end()
    rest = prefix[rest_start:]
    stripped = rest.lstrip()
    if not stripped or re.fullmatch(r"[A-Za-z0-9_.]*", stripped):
        if stripped.startswith("."):
            return Context("directive", word_start)
        return Context("mnemonic", word_start)
    head, _, operands = stripped.partition(" ")
    if head.startswith("."):
        return Context("none", col)
    spec = INSTRUCTIONS.get(head.split(".")[0])
    if spec is None:
        return Context("none", col)
    written = operands.lstrip()
    if written.startswith(".") and "," not in written and " " not in written.strip() \
            and not (spec.operands and spec.operands[0].kind is OperandKind.SCOPE):
        return Context("hint", word_start, spec)
    if re.match(r"\.[A-Za-z]+\s", written):
        written = written.split(None, 1)[1] if len(written.split(None, 1)) > 1 else ""
    return Context("operand", word_start, spec, written.count(","))



class Choice(NamedTuple):
    """One proposal: `kind` is "mnemonic", "directive", "hint", "register", "predicate",
    "special", "label" or "scope"; a `dotted` choice replaces the word typed so far (it starts
    with a dot); `snippet` is the text to insert with `${1:name}` placeholders, when asked for."""

    label: str
    kind: str
    detail: str
    documentation: str | None = None
    sort_text: str | None = None
    dotted: bool = False
    snippet: str | None = None


def _fields(names) -> str:
    return ", ".join(f"${{{i}:{name}}}" for i, name in enumerate(names, 1))


@lru_cache(maxsize=4)
def mnemonic_choices(snippets: bool, markdown: bool) -> tuple[Choice, ...]:
    """Every mnemonic, documented (markdown or plain text), with an operand snippet."""
    return tuple(Choice(
        spec.mnemonic, "mnemonic", spec.summary,
        spec_markdown(spec) if markdown else spec.description,
        snippet=f"{spec.mnemonic} {_fields(op.name for op in spec.operands)}"
        if snippets and spec.operands else None) for spec in INSTRUCTIONS.values())


def directive_choices(snippets: bool) -> list[Choice]:
    return [Choice(f".{d.name}", "directive", d.summary, dotted=True,
                   snippet=f".{d.name} " + _fields(n for n, _ in d.args)
                   if snippets and d.args else None) for d in DIRECTIVES]


def predicate_choices() -> list[Choice]:
    return [Choice(f"p{i}", "predicate", "guard predicate") for i in range(PREDICATE_COUNT)]


def hint_choices() -> list[Choice]:
    return [Choice(f".{name}", "hint", text, dotted=True) for name, text in CACHE_HINTS.items()]


def mnemonic_rank(typed: str):
    """The order to offer mnemonics in after `typed` (a sort key over labels): those that start
    with it first, alphabetically (`wave_reduce_add` … before `wave_any`), then those that contain
    it, then the rest (the client's own fuzzy filter decides what it keeps)."""
    typed = typed.lower()

    def rank(label: str) -> tuple[int, str]:
        return (0 if label.startswith(typed) else 1 if typed in label else 2), label
    return rank


class Proposals(NamedTuple):
    """What completion proposes at a position: `kind` is the context's (`mnemonic`: the ISA's
    mnemonics, ranked by `rank` after `typed`, asked again as the word grows; else `choices`),
    `word_start` the column the proposals replace from."""

    kind: str
    word_start: int
    typed: str
    choices: tuple[Choice, ...] | list[Choice]

    @property
    def incomplete(self) -> bool:
        return self.kind == "mnemonic" and bool(self.typed)

    def ranked(self) -> list[Choice]:
        """The choices in the order to offer them."""
        if self.kind != "mnemonic":
            return list(self.choices)
        rank = mnemonic_rank(self.typed)
        return sorted(self.choices, key=lambda c: rank(c.label))


def proposals(state: DocumentState, line: int, col: int, *, snippets: bool,
              markdown: bool) -> Proposals:
    """What may be written at (`line`, `col`), by the syntactic context there."""
    text = state.lines[line]
    ctx = context_at(text, col)
    typed = text[ctx.word_start:col]
    choices: tuple[Choice, ...] | list[Choice] = []
    if ctx.kind == "mnemonic":
        choices = mnemonic_choices(snippets, markdown)
    elif ctx.kind == "directive":
        choices = directive_choices(snippets)
    elif ctx.kind == "predicate":
        choices = predicate_choices()
    elif ctx.kind == "hint":
        choices = hint_choices()
    elif ctx.kind == "operand" and ctx.spec is not None:
        choices = operand_choices(state, line, ctx.spec, ctx.operand_index)
    return Proposals(ctx.kind, ctx.word_start, typed, choices)


def operand_choices(state: DocumentState, line: int, spec: InstructionSpec,
                    index: int) -> list[Choice]:
    """What may be written as operand `index` of `spec` on `line`."""
    if index >= len(spec.operands):
        return []
    slot = spec.operands[index]
    items: list[Choice] = []
    if slot.kind is OperandKind.REGISTER:
        kernel = state.program.kernel_at(line)
        count = min(kernel.register_count if kernel else 32, MAX_REGISTER + 1)
        items += [Choice(f"r{i}", "register", f"{slot.name}: register", sort_text=f"{i:03d}")
                  for i in range(count)]
    if slot.kind is OperandKind.PREDICATE:
        items += [Choice(f"p{i}", "predicate", f"{slot.name}: predicate")
                  for i in range(PREDICATE_COUNT)]
    if slot.kind is OperandKind.SPECIAL or slot.also_special:
        items += [Choice(sr.name, "special", sr.meaning, sr.value_range)
                  for sr in SPECIAL_REGISTERS]
    if slot.kind is OperandKind.LABEL:
        items += [Choice(name, "label", f"label, line {defs[0][0] + 1}")
                  for name, defs in state.program.labels.items()]
    if slot.kind is OperandKind.SCOPE:
        items += [Choice(f".{s.name}", "scope", s.meaning, dotted=True) for s in SCOPES]
    return items


class Parameter(NamedTuple):
    """An operand of a signature: its name, its [start, end) in the signature's label."""

    name: str
    start: int
    end: int
    documentation: str


class Signature(NamedTuple):
    """An instruction's operand signature while its operands are typed."""

    label: str
    parameters: tuple[Parameter, ...]
    documentation: str            # markdown
    active: int                   # the operand under the cursor


def signature_at(line_text: str, col: int) -> Signature | None:
    """The signature of the instruction whose operands the cursor is in, or None."""
    ctx = context_at(line_text, col)
    if ctx.kind != "operand" or ctx.spec is None or not ctx.spec.operands:
        return None
    spec = ctx.spec
    params = []
    cursor = len(spec.mnemonic)
    for op in spec.operands:
        start = spec.syntax.index(op.name, cursor)
        cursor = start + len(op.name)
        params.append(Parameter(op.name, start, cursor, f"{op.kind.value} → {op.field.value}"
                                + (" (optional)" if op.optional else "")))
    return Signature(spec.syntax, tuple(params), f"**{spec.summary}**\n\n`{spec.semantics}`",
                     min(ctx.operand_index, len(spec.operands) - 1))
