"""Comparing a kernel test's expected output lines with what the run printed.

Lines compare exactly, character for character. A launch line may allow a float tolerance with
`--tolerance ATOL[:RTOL]` (numpy's `isclose` rule): a line then matches when it has the same
words and separators and every pair of differing words are decimal numbers with
`|got - expected| <= ATOL + RTOL * |expected|`; `NaN` matches only `NaN`, `inf` only `inf` of the
same sign. Integers are numbers too (an ATOL below 1 never lets two different integers match).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import NamedTuple, Sequence

TOLERANCE_FLAG = "--tolerance"
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|NaN)")
_WORDS = re.compile(r"(\s+)")


class ToleranceError(ValueError):
    """A `--tolerance` value that is not ATOL[:RTOL] with finite non-negative numbers."""


@dataclass(frozen=True)
class Tolerance:
    """How far a number in the output may be from the expected one."""

    absolute: float
    relative: float = 0.0

    def close(self, expected: float, got: float) -> bool:
        if math.isnan(expected) or math.isnan(got):
            return math.isnan(expected) and math.isnan(got)
        if math.isinf(expected) or math.isinf(got):
            return expected == got
        return abs(got - expected) <= self.absolute + self.relative * abs(expected)

    def __str__(self) -> str:
        return f"{self.absolute:g}" + (f":{self.relative:g}" if self.relative else "")


def parse_tolerance(text: str) -> Tolerance:
    """`ATOL[:RTOL]`, each a finite number >= 0 (`1e-6`, `0:1e-5`)."""
    parts = text.split(":")
    if not 1 <= len(parts) <= 2:
        raise ToleranceError(f"{TOLERANCE_FLAG}: expected ATOL[:RTOL], got '{text}'")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ToleranceError(f"{TOLERANCE_FLAG}: '{text}' is not ATOL[:RTOL] "
                             f"(numbers, e.g. 1e-6 or 0:1e-5)") from None
    if any(not math.isfinite(v) or v < 0 for v in values):
        raise ToleranceError(f"{TOLERANCE_FLAG}: ATOL and RTOL must be finite and not "
                             f"negative, got '{text}'")
    return Tolerance(*values)


def tolerance_of(words: Sequence[str]) -> Tolerance | None:
    """The `--tolerance` of a launch line's flag words (the last one wins, as argparse's);
    ToleranceError for a bad value."""
    found = None
    for i, word in enumerate(words):
        if word == TOLERANCE_FLAG:
            if i + 1 >= len(words):
                raise ToleranceError(f"{TOLERANCE_FLAG} expects ATOL[:RTOL], e.g. 1e-6")
            found = words[i + 1]
        elif word.startswith(TOLERANCE_FLAG + "="):
            found = word.split("=", 1)[1]
    return parse_tolerance(found) if found is not None else None


def _number(word: str) -> float | None:
    return float(word) if _NUMBER.fullmatch(word) else None


def lines_match(expected: str, got: str, tolerance: Tolerance | None = None) -> bool:
    """Whether an output line matches its expectation (exactly, or within `tolerance`)."""
    if expected == got:
        return True
    if tolerance is None:
        return False
    want, have = _WORDS.split(expected), _WORDS.split(got)
    if len(want) != len(have):
        return False
    for i, (a, b) in enumerate(zip(want, have)):
        if a == b:
            continue
        if i % 2:                 # separators must be equal
            return False
        x, y = _number(a), _number(b)
        if x is None or y is None or not tolerance.close(x, y):
            return False
    return True


class Difference(NamedTuple):
    """The first place a run's output differs from the test's expectations. `index` is the
    position among the expected stdout lines (len(expected) for a line the run printed beyond
    them); `expected` / `got` are None for a line that is missing on that side. `what` is
    "output", "exit" (exit statuses as text) or "stderr" (first lines of stderr)."""

    index: int
    expected: str | None
    got: str | None
    what: str = "output"


def first_difference(expected: Sequence[str], got: Sequence[str],
                     tolerance: Tolerance | None = None) -> Difference | None:
    """The first differing output line of two lists of lines, or None."""
    for i, (want, have) in enumerate(zip(expected, got)):
        if not lines_match(want, have, tolerance):
            return Difference(i, want, have)
    if len(expected) == len(got):
        return None
    i = min(len(expected), len(got))
    return Difference(i, expected[i] if i < len(expected) else None,
                      got[i] if i < len(got) else None)
