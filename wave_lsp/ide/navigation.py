"""Navigation for labels and kernels: the symbol under the cursor, its definitions and uses, and
whether a new name is acceptable for a rename. A label is defined by `name:` and referenced by
`call name`; a kernel is defined by `.kernel name` (nothing in a source file refers to it).
Positions are (line, start column, end column) in code points.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..analysis.operand_checks import bad_name
from .locate import TargetKind, label_references, target_at
from .state import DocumentState

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LABELS = (TargetKind.LABEL_DEFINITION, TargetKind.LABEL_REFERENCE)


class Symbol(NamedTuple):
    kind: str          # "label" or "kernel"
    name: str
    start: int
    end: int


def symbol_at(state: DocumentState, line: int, col: int) -> Symbol | None:
    """The named symbol at a position."""
    target = target_at(state.document, line, col)
    if target is None:
        return None
    if target.kind in _LABELS:
        return Symbol("label", target.text, target.start, target.end)
    if target.kind is TargetKind.KERNEL:
        return Symbol("kernel", target.text, target.start, target.end)
    return None


def definitions(state: DocumentState, kind: str, name: str) -> list[tuple[int, int, int]]:
    """(line, start, end) of every definition."""
    program = state.program
    if kind == "label":
        return [(line, lab.name.start, lab.name.end)
                for line, lab, _k in program.labels.get(name, [])]
    return [(k.line, k.directive.args[0].start, k.directive.args[0].end)
            for k in program.kernels if k.name == name and k.directive.args]


def references(state: DocumentState, kind: str, name: str) -> list[tuple[int, int, int]]:
    """(line, start, end) of every use (not definitions)."""
    if kind != "label":
        return []
    return [(line, op.start, op.end) for line, op in label_references(state.document, name)]


def rename_problem(state: DocumentState, kind: str, name: str, new: str) -> str | None:
    """Why `new` cannot replace `name`, or None."""
    problem = None if NAME.fullmatch(new) else "is not a valid name"
    problem = problem or bad_name(new)
    program = state.program
    if problem is None and new != name and (
            (kind == "label" and new in program.labels)
            or (kind == "kernel" and program.kernel_named(new))):
        problem = f"is already a {kind} in this file"
    return problem


def rename_places(state: DocumentState, kind: str, name: str) -> list[tuple[int, int, int]]:
    """Every place a rename rewrites, in order."""
    return sorted(definitions(state, kind, name) + references(state, kind, name))
