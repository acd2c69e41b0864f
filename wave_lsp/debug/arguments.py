"""The arguments of a DAP request, read with their types checked: every handler takes its
fields through `Arguments`, so a missing field, a string where a number belongs, a negative
count or an integer past every real value is answered with a message naming the field and what
it must be, never an internal error.

Bounds on what a request may cost live here too: `MAX_INSTRUCTIONS` for one `disassemble`,
`MAX_TEXT` for an expression or a value typed by the user.
"""

from __future__ import annotations

from typing import Any

MAX_INSTRUCTIONS = 10_000    # instructions one `disassemble` request may ask for
MAX_TEXT = 4_096             # characters of one expression, condition or value
MAX_INT = (1 << 63) - 1      # integers beyond 64 bits are no reference, offset or count
_MISSING = object()


class ArgumentError(ValueError):
    """A request argument of the wrong type or out of range; the message names it."""


def _show(value: Any) -> str:
    text = "null" if value is None else repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


class Arguments:
    """A request's `arguments` object (or one object inside it, named by `where`)."""

    def __init__(self, data: dict, where: str) -> None:
        self.data = data
        self.where = where

    def _get(self, name: str, default: Any, what: str) -> Any:
        value = self.data.get(name, _MISSING)
        if value is _MISSING or (value is None and default is not _MISSING):
            if default is _MISSING:
                raise ArgumentError(f"{self.where}: '{name}' is missing ({what})")
            return default
        return value

    def integer(self, name: str, default: Any = _MISSING, minimum: int = -MAX_INT,
                maximum: int = MAX_INT) -> Any:
        what = f"an integer from {minimum} to {maximum}"
        value = self._get(name, default, what)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, int) or isinstance(value, bool) \
                or not minimum <= value <= maximum:
            raise ArgumentError(f"{self.where}: '{name}' must be {what}, not {_show(value)}")
        return value

    def string(self, name: str, default: Any = _MISSING, limit: int | None = None) -> Any:
        value = self._get(name, default, "a string")
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str):
            raise ArgumentError(f"{self.where}: '{name}' must be a string, not {_show(value)}")
        if limit is not None and len(value) > limit:
            raise ArgumentError(f"{self.where}: '{name}' is {len(value)} characters long; "
                                f"the limit is {limit}")
        return value

    def boolean(self, name: str, default: bool = False) -> bool:
        value = self._get(name, default, "true or false")
        if not isinstance(value, bool):
            raise ArgumentError(f"{self.where}: '{name}' must be true or false, not "
                                f"{_show(value)}")
        return value

    def object(self, name: str) -> "Arguments":
        """A nested object (empty when absent or null)."""
        value = self._get(name, {}, "an object")
        if not isinstance(value, dict):
            raise ArgumentError(f"{self.where}: '{name}' must be an object, not {_show(value)}")
        return Arguments(value, f"{self.where}.{name}")

    def array(self, name: str, default: Any = ()) -> list:
        value = self._get(name, default, "an array")
        if value is default:
            return value
        if not isinstance(value, list):
            raise ArgumentError(f"{self.where}: '{name}' must be an array, not {_show(value)}")
        return value

    def objects(self, name: str, default: Any = ()) -> list["Arguments"]:
        """An array of objects."""
        items = self.array(name, default)
        if items is default:
            return default if default is None else []
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise ArgumentError(f"{self.where}: '{name}[{i}]' must be an object, not "
                                    f"{_show(item)}")
            out.append(Arguments(item, f"{self.where}.{name}[{i}]"))
        return out

    def strings(self, name: str) -> list[str]:
        items = self.array(name)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise ArgumentError(f"{self.where}: '{name}[{i}]' must be a string, not "
                                    f"{_show(item)}")
        return list(items)

    def integers(self, name: str) -> list[int]:
        items = self.array(name)
        for i, item in enumerate(items):
            if not isinstance(item, int) or isinstance(item, bool) or abs(item) > MAX_INT:
                raise ArgumentError(f"{self.where}: '{name}[{i}]' must be an integer, not "
                                    f"{_show(item)}")
        return list(items)


def breakpoint_options(raw: Arguments) -> dict:
    """The checked fields of one `SourceBreakpoint` / `InstructionBreakpoint`."""
    out: dict = {}
    for name in ("condition", "hitCondition", "logMessage"):
        value = raw.string(name, None, MAX_TEXT)
        if value is not None:
            out[name] = value
    return out
