"""Navigation for labels, kernels and registers: the symbol under the cursor, its definitions,
its uses, the document highlights (reads and writes), and rename with its checks. A label is
defined by `name:` and referenced by `call name`; a kernel is defined by `.kernel name`
(nothing in a source file refers to it); a register is a symbol of its kernel
(`register_navigation.py`). Positions are (line, start column, end column) in code points.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..analysis.operand_checks import bad_name
from .locate import TargetKind, label_references, target_at
from .register_navigation import (RegisterSymbol, register_at, register_definitions,
                                  register_references, register_rename)
from .state import DocumentState

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LABELS = (TargetKind.LABEL_DEFINITION, TargetKind.LABEL_REFERENCE)

Span = tuple[int, int, int]          # (line, start, end)


class Symbol(NamedTuple):
    kind: str          # "label", "kernel" or "register"
    name: str
    line: int
    start: int
    end: int
    register: RegisterSymbol | None = None


def symbol_at(state: DocumentState, line: int, col: int) -> Symbol | None:
    """The named symbol at a position."""
    target = target_at(state.document, line, col)
    if target is not None and target.kind in _LABELS:
        return Symbol("label", target.text, line, target.start, target.end)
    if target is not None and target.kind is TargetKind.KERNEL:
        return Symbol("kernel", target.text, line, target.start, target.end)
    if target is None or target.kind is TargetKind.REGISTER:
        found = register_at(state, line, col)
        if found is not None:
            return Symbol("register", f"r{found.register}", line, found.start, found.end,
                          found)
    return None


def definitions(state: DocumentState, symbol: Symbol) -> list[Span]:
    """(line, start, end) of every definition: a register's are the writes that reach the read
    under the cursor."""
    if symbol.register is not None:
        return [p[:3] for p in register_definitions(state, symbol.register)]
    program, name = state.program, symbol.name
    if symbol.kind == "label":
        return [(line, lab.name.start, lab.name.end)
                for line, lab, _k in program.labels.get(name, [])]
    return [(k.line, k.directive.args[0].start, k.directive.args[0].end)
            for k in program.kernels if k.name == name and k.directive.args]


def references(state: DocumentState, symbol: Symbol, include_declaration: bool
               ) -> list[Span]:
    """(line, start, end) of every use, in order; of a register: every read and write in its
    kernel, whatever `include_declaration` says (each write declares a value)."""
    if symbol.register is not None:
        return [p[:3] for p in register_references(state, symbol.register)]
    places = [] if symbol.kind != "label" else \
        [(line, op.start, op.end) for line, op in label_references(state.document, symbol.name)]
    if include_declaration:
        places = definitions(state, symbol) + places
    return sorted(places)


def highlights(state: DocumentState, symbol: Symbol) -> list[tuple[int, int, int, bool]]:
    """(line, start, end, written?) of every place the symbol is named in the document: a
    register's reads and writes in its kernel; a label's definitions (written) and calls."""
    if symbol.register is not None:
        return [tuple(p) for p in register_references(state, symbol.register)]
    out = [(*d, True) for d in definitions(state, symbol)]
    return sorted(out + [(*r, False) for r in references(state, symbol, False)])


def rename(state: DocumentState, symbol: Symbol, new: str
           ) -> tuple[str | None, list[tuple[int, int, int, str]]]:
    """(why `new` cannot replace the symbol's name, as a sentence, or None; the edits)."""
    if symbol.register is not None:
        problem, edits = register_rename(state, symbol.register, new)
        return (f"cannot rename {symbol.name} to '{new}': {problem}" if problem else None), edits
    kind, name = symbol.kind, symbol.name
    problem = None if NAME.fullmatch(new) else "is not a valid name"
    problem = problem or bad_name(new)
    program = state.program
    if problem is None and new != name and (
            (kind == "label" and new in program.labels)
            or (kind == "kernel" and program.kernel_named(new))):
        problem = f"is already a {kind} in this file"
    if problem:
        return f"cannot rename {kind} '{name}' to '{new}': {new!r} {problem}", []
    return None, [(*p, new) for p in references(state, symbol, True)]
