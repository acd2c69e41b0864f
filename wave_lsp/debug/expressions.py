"""Per-lane expressions over a stopped wave, for conditional breakpoints, logpoints, `evaluate`
(watch, hover, debug console) and the values typed into `setVariable`.

The language is a small subset of Python expressions, evaluated for every lane of the wave at
once: registers `r0`..`rN` (unsigned 32-bit), predicates `p0`..`p3` (booleans), special
registers by name (`sr_lane_id`, ...), `lane` (lane within the wave), `thread` (global thread
id), `active` (the lane executes the next instruction); integer and float literals;
`+ - * / // % & | ^ << >> ~`, comparisons (chained too), `and`, `or`, `not`; and the
reinterpreting functions `f32(x)`, `i32(x)`, `u32(x)`. A breakpoint condition holds when it is
true in any active lane.

Integers are 64-bit and wrap (a literal must fit in 64 bits; a shift by a count outside 0..63
gives 0, or -1 for `>>` of a negative value), so one evaluation costs a few array operations
per node however large the numbers; an expression is at most `MAX_TEXT` characters and
`MAX_DEPTH` levels deep.
"""

from __future__ import annotations

import ast
import operator
import re

import numpy as np

from ..isa import PREDICATE_COUNT, SPECIAL_BY_NAME

MAX_TEXT = 4_096     # characters in one expression
MAX_DEPTH = 64       # nesting of operators and parentheses

_REGISTER = re.compile(r"^r(\d{1,4})$")
_PREDICATE = re.compile(r"^p(\d{1,4})$")


def _shift(shift):
    """A 64-bit shift whose count outside 0..63 gives 0 (or -1 for `>>` of a negative)."""
    def apply(left, right):
        left, right = np.asarray(left), np.asarray(right)
        if left.dtype.kind == "f" or right.dtype.kind == "f":
            raise ExpressionError("shifts take integers, not floats")
        left, right = left.astype(np.int64), right.astype(np.int64)
        inside = (right >= 0) & (right < 64)
        out = shift(left, np.where(inside, right, 0))
        beyond = np.where(left < 0, -1, 0) if shift is np.right_shift else 0
        return np.where(inside, out, beyond)
    return apply


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
           ast.LShift: _shift(np.left_shift), ast.RShift: _shift(np.right_shift)}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
            ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne}


class ExpressionError(ValueError):
    """An expression that cannot be parsed or evaluated; the message says why."""


def _f32(x):
    return (np.asarray(x, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.float32) \
        .astype(np.float64)


def _i32(x):
    return (np.asarray(x).astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32) \
        .astype(np.int64)


def _u32(x):
    return np.asarray(x).astype(np.int64) & 0xFFFFFFFF


_FUNCTIONS = {"f32": _f32, "i32": _i32, "u32": _u32}


class Expression:
    """A parsed expression; `evaluate(run, wave)` gives one value per lane of the wave."""

    def __init__(self, text: str):
        if not isinstance(text, str):
            raise ExpressionError(f"an expression is text, not {type(text).__name__}")
        if len(text) > MAX_TEXT:
            raise ExpressionError(f"the expression is {len(text)} characters long; the limit "
                                  f"is {MAX_TEXT}")
        self.text = text
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as err:
            raise ExpressionError(f"cannot parse '{_short(text)}': {err.msg}") from None
        except (RecursionError, MemoryError, ValueError):
            raise ExpressionError(f"'{_short(text)}' is nested too deeply") from None
        if _depth(tree.body) > MAX_DEPTH:
            raise ExpressionError(f"'{_short(text)}' is nested more than {MAX_DEPTH} levels "
                                  "deep")
        self._check(tree.body)
        self.tree = tree.body

    def _check(self, node: ast.AST) -> None:
        allowed = (ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name, ast.Constant,
                   ast.Call, ast.Load, ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd,
                   ast.Invert, *_BINARY, *_COMPARE)
        for sub in ast.walk(node):
            if not isinstance(sub, allowed):
                raise ExpressionError(f"'{self.text}': {type(sub).__name__} is not supported")
            if isinstance(sub, ast.Constant) and (not isinstance(sub.value, (int, float))
                                                  or isinstance(sub.value, bool)):
                raise ExpressionError(f"'{self.text}': only numbers are allowed as constants")
            if isinstance(sub, ast.Constant) and isinstance(sub.value, int) \
                    and not -(1 << 63) <= sub.value < 1 << 64:
                raise ExpressionError(f"'{_short(self.text)}': the literal "
                                      f"{_short(str(sub.value))} does not fit in 64 bits")
            if isinstance(sub, ast.Call) and not (isinstance(sub.func, ast.Name)
                                                   and sub.func.id in _FUNCTIONS
                                                   and len(sub.args) == 1 and not sub.keywords):
                raise ExpressionError(f"'{self.text}': the functions are f32(x), i32(x), u32(x)")
            if isinstance(sub, ast.Name) and not _known_name(sub.id) \
                    and sub.id not in _FUNCTIONS:
                raise ExpressionError(f"'{self.text}': unknown name '{sub.id}'")

    def evaluate(self, run, wave: int) -> np.ndarray:
        """Values per lane of `wave` of the run's current workgroup."""
        with np.errstate(all="ignore"):
            value = _Evaluator(run, wave).eval(self.tree)
        return np.broadcast_to(np.asarray(value), (run.geo.wave_width,))

    def holds(self, run, wave: int, mask: np.ndarray) -> np.ndarray:
        """Lanes of `mask` where the expression is true (non-zero)."""
        value = self.evaluate(run, wave)
        truth = value != 0 if value.dtype != bool else value
        return truth & mask


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _depth(tree: ast.AST) -> int:
    """How deeply the nodes of a tree nest (counted without recursion)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _known_name(name: str) -> bool:
    return bool(_REGISTER.match(name) or _PREDICATE.match(name)) or name in SPECIAL_BY_NAME \
        or name in ("lane", "thread", "active")


class _Evaluator:
    def __init__(self, run, wave: int):
        self.run, self.wave = run, wave

    def eval(self, node):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, float):
                return np.float64(node.value)
            return np.int64(node.value - (1 << 64) if node.value >= 1 << 63 else node.value)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.BinOp):
            left, right = self.eval(node.left), self.eval(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
                right = np.where(np.asarray(right) == 0, 1, right)
            return _BINARY[type(node.op)](_num(left), _num(right))
        if isinstance(node, ast.UnaryOp):
            value = self.eval(node.operand)
            if isinstance(node.op, ast.Not):
                return ~_bool(value)
            if isinstance(node.op, ast.Invert):
                return ~_num(value) & 0xFFFFFFFF
            return -_num(value) if isinstance(node.op, ast.USub) else _num(value)
        if isinstance(node, ast.BoolOp):
            values = [_bool(self.eval(v)) for v in node.values]
            combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            out = values[0]
            for v in values[1:]:
                out = combine(out, v)
            return out
        if isinstance(node, ast.Compare):
            left = self.eval(node.left)
            out = True
            for op, right_node in zip(node.ops, node.comparators):
                right = self.eval(right_node)
                out = np.logical_and(out, _COMPARE[type(op)](_num(left), _num(right)))
                left = right
            return out
        if isinstance(node, ast.Call):
            return _FUNCTIONS[node.func.id](self.eval(node.args[0]))
        raise ExpressionError(f"unsupported expression {ast.dump(node)}")

    def name(self, name: str):
        run, wave = self.run, self.wave
        if m := _REGISTER.match(name):
            reg = int(m.group(1))
            if reg >= run.geo.registers:
                raise ExpressionError(f"r{reg} is beyond the kernel's {run.geo.registers} "
                                      "registers")
            return run.registers_of(wave)[reg].astype(np.int64)
        if m := _PREDICATE.match(name):
            pred = int(m.group(1))
            if pred >= PREDICATE_COUNT:
                raise ExpressionError(f"p{pred} does not exist (p0..p{PREDICATE_COUNT - 1})")
            return run.predicates_of(wave)[pred].copy()
        if name in SPECIAL_BY_NAME:
            return run.special_of(wave, SPECIAL_BY_NAME[name].index).astype(np.int64)
        if name == "lane":
            return np.arange(run.geo.wave_width, dtype=np.int64)
        if name == "thread":
            first = run.workgroup * run.geo.threads_per_wg + self.wave * run.geo.wave_width
            return first + np.arange(run.geo.wave_width, dtype=np.int64)
        return run.executing(self.wave).copy()       # "active"


def _num(value):
    value = np.asarray(value)
    return value.astype(np.int64) if value.dtype == bool else value


def _bool(value):
    return np.asarray(value) != 0
