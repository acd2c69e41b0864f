"""What is under the cursor: the syntax element at a (line, column) of a document.

Shared by hover, navigation, rename and highlights. Columns are code points; a cursor touching
either end of a token counts as on it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..isa import INSTRUCTIONS, OperandKind, SCOPE_BY_NAME
from ..syntax.ast import Directive, Instruction, Label, Operand, OperandSyntax, Statement
from ..syntax.document import Document


class TargetKind(enum.Enum):
    MNEMONIC = "mnemonic"
    HINT = "cache hint"
    GUARD = "guard"
    REGISTER = "register"
    PREDICATE = "predicate"
    SPECIAL = "special register"
    SCOPE = "scope"
    NUMBER = "number"
    LABEL_DEFINITION = "label definition"
    LABEL_REFERENCE = "label reference"
    KERNEL = "kernel"
    DIRECTIVE = "directive"
    OTHER = "other"


@dataclass(frozen=True)
class Target:
    kind: TargetKind
    line: int
    start: int
    end: int
    text: str
    statement: Statement
    operand_index: int | None = None


OPERAND_KINDS = {
    OperandSyntax.REGISTER: TargetKind.REGISTER,
    OperandSyntax.PREDICATE: TargetKind.PREDICATE,
    OperandSyntax.NEGATED_PREDICATE: TargetKind.PREDICATE,
    OperandSyntax.SPECIAL: TargetKind.SPECIAL,
    OperandSyntax.LEGACY_SPECIAL: TargetKind.SPECIAL,
    OperandSyntax.INTEGER: TargetKind.NUMBER,
    OperandSyntax.FLOAT: TargetKind.NUMBER,
}


def _on(col: int, start: int, end: int) -> bool:
    return start <= col <= end


def operand_kind(stmt: Instruction, index: int, operand: Operand) -> TargetKind:
    """The kind of an instruction operand, from its written form and the slot it fills."""
    kind = OPERAND_KINDS.get(operand.syntax)
    if kind is not None:
        return kind
    if operand.syntax is OperandSyntax.DOTTED:
        return TargetKind.SCOPE if operand.text[1:] in SCOPE_BY_NAME else TargetKind.OTHER
    if operand.syntax is OperandSyntax.NAME:
        spec = INSTRUCTIONS.get(stmt.mnemonic.text)
        slot = spec.operands[index].kind if spec and index < len(spec.operands) else None
        if slot is OperandKind.SCOPE or (slot is None and operand.text in SCOPE_BY_NAME):
            return TargetKind.SCOPE
        return TargetKind.LABEL_REFERENCE
    return TargetKind.OTHER


def target_at(doc: Document, line: int, col: int) -> Target | None:
    """The element at a position, or None (blank space, comments, unparsable lines)."""
    if not 0 <= line < len(doc.syntax):
        return None
    for stmt in doc.syntax[line].statements:
        if not _on(col, stmt.start, stmt.end):
            continue
        if isinstance(stmt, Label):
            return Target(TargetKind.LABEL_DEFINITION, line, stmt.name.start, stmt.name.end,
                          stmt.name.text, stmt)
        if isinstance(stmt, Directive):
            if stmt.name.text == "kernel" and stmt.args and _on(col, stmt.args[0].start,
                                                                 stmt.args[0].end):
                arg = stmt.args[0]
                return Target(TargetKind.KERNEL, line, arg.start, arg.end, arg.text, stmt, 0)
            for i, arg in enumerate(stmt.args):
                if _on(col, arg.start, arg.end):
                    kind = OPERAND_KINDS.get(arg.syntax, TargetKind.OTHER)
                    return Target(kind, line, arg.start, arg.end, arg.text, stmt, i)
            return Target(TargetKind.DIRECTIVE, line, stmt.start, stmt.name.end,
                          stmt.name.text, stmt)
        assert isinstance(stmt, Instruction)
        guard = stmt.guard
        if guard is not None and _on(col, guard.start, guard.end):
            reg = guard.register
            return Target(TargetKind.GUARD, line, reg.start, reg.end, reg.text, stmt)
        if _on(col, stmt.mnemonic.start, stmt.head_end):
            return Target(TargetKind.MNEMONIC, line, stmt.mnemonic.start, stmt.head_end,
                          stmt.head, stmt)
        if stmt.hint is not None and _on(col, stmt.hint.start, stmt.hint.end):
            return Target(TargetKind.HINT, line, stmt.hint.start, stmt.hint.end,
                          stmt.hint.text, stmt)
        for i, operand in enumerate(stmt.operands):
            if _on(col, operand.start, operand.end):
                return Target(operand_kind(stmt, i, operand), line, operand.start, operand.end,
                              operand.text, stmt, i)
        return None
    return None


def label_references(doc: Document, name: str) -> list[tuple[int, Operand]]:
    """Every operand that names label `name` (call targets), in document order."""
    found = []
    for number, line in enumerate(doc.syntax):
        for stmt in line.statements:
            if isinstance(stmt, Instruction) and stmt.operands:
                for i, operand in enumerate(stmt.operands):
                    if (operand.syntax is OperandSyntax.NAME and operand.text == name
                            and operand_kind(stmt, i, operand) is TargetKind.LABEL_REFERENCE):
                        found.append((number, operand))
    return found
