"""Per-lane expressions over a stopped wave, for conditional breakpoints, logpoints, `evaluate`
(watch, hover, debug console) and the values typed into `setVariable`.

The language is a small subset of Python expressions, evaluated for every lane of the wave at
once: registers `r0`..`rN` (unsigned 32-bit), predicates `p0`..`p3` (booleans), special
registers by name (`sr_lane_id`, ...), `lane` (lane within the wave), `thread` (global thread
id), `active` (the lane executes the next instruction); integer and float literals;
`+ - * / // % & | ^ << >> ~`, comparisons (chained too), `and`, `or`, `not`; and the
reinterpreting functions `f32(x)`, `i32(x)`, `u32(x)`. A breakpoint condition holds when it is
true in any active lane.
"""

from __future__ import annotations

import ast
import operator
import re

import numpy as np

from ..isa import PREDICATE_COUNT, SPECIAL_BY_NAME

_REGISTER = re.compile(r"^r(\d+)$")
_PREDICATE = re.compile(r"^p(\d+)$")
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift}
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
        self.text = text
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as err:
            raise ExpressionError(f"cannot parse '{text}': {err.msg}") from None
        self._check(tree.body)
        self.tree = tree.body

    def _check(self, node: ast.AST) -> None:
        allowed = (ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name, ast.Constant,
                   ast.Call, ast.Load, ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd,
                   ast.Invert, *_BINARY, *_COMPARE)
        for sub in ast.walk(node):
            if not isinstance(sub, allowed):
                raise ExpressionError(f"'{self.text}': {type(sub).__name__} is not supported")
            if isinstance(sub, ast.Constant) and not isinstance(sub.value, (int, float)):
                raise ExpressionError(f"'{self.text}': only numbers are allowed as constants")
            if isinstance(sub, ast.Call) and not (isinstance(sub.func, ast.Name)
                                                   and sub.func.id in _FUNCTIONS
                                                   and len(sub.args) == 1 and not sub.keywords):
                raise ExpressionError(f"'{self.text}': the functions are f32(x), i32(x), u32(x)")
            if isinstance(sub, ast.Name) and not _known_name(sub.id) \
                    and sub.id not in _FUNCTIONS:
                raise ExpressionError(f"'{self.text}': unknown name '{sub.id}'")

    def evaluate(self, run, wave: int) -> np.ndarray:
        """Values per lane of `wave` of the run's current workgroup."""
        lanes = run.wave_lanes(wave)
        with np.errstate(all="ignore"):
            value = _Evaluator(run, wave, lanes).eval(self.tree)
        return np.broadcast_to(np.asarray(value), (run.geo.wave_width,))

    def holds(self, run, wave: int, mask: np.ndarray) -> np.ndarray:
        """Lanes of `mask` where the expression is true (non-zero)."""
        value = self.evaluate(run, wave)
        truth = value != 0 if value.dtype != bool else value
        return truth & mask


def _known_name(name: str) -> bool:
    return bool(_REGISTER.match(name) or _PREDICATE.match(name)) or name in SPECIAL_BY_NAME \
        or name in ("lane", "thread", "active")


class _Evaluator:
    def __init__(self, run, wave: int, lanes: slice):
        self.run, self.wave, self.lanes = run, wave, lanes

    def eval(self, node):
        if isinstance(node, ast.Constant):
            return node.value
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
        run, lanes = self.run, self.lanes
        b = run.batch
        if m := _REGISTER.match(name):
            reg = int(m.group(1))
            if reg >= run.geo.registers:
                raise ExpressionError(f"r{reg} is beyond the kernel's {run.geo.registers} "
                                      "registers")
            return b.R[reg, lanes].astype(np.int64)
        if m := _PREDICATE.match(name):
            pred = int(m.group(1))
            if pred >= PREDICATE_COUNT:
                raise ExpressionError(f"p{pred} does not exist (p0..p{PREDICATE_COUNT - 1})")
            return b.P[pred, lanes].copy()
        if name in SPECIAL_BY_NAME:
            return b.special(SPECIAL_BY_NAME[name].index)[lanes].astype(np.int64)
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
