"""Memoisation by line text, bounded in entries and in the size of what it keeps.

The per-line passes (parsing, line checks, suppression comments, semantic-token classes) are
pure functions of a line's text, so their results are shared by every document and every
revision. `line_memo` keeps at most `LINE_CACHE_SIZE` results and never keeps a line longer than
`MEMO_MAX_LINE` characters: real statements are far shorter, and a long (often edited) comment
line would otherwise pin one copy of itself per edit in every cache until the process exits.
`value_memo` is the same bound for passes memoised by a parsed value (an `Instruction`).
Every such memo is registered: `memo_entries()` counts what they hold and `clear_memos()` empties
them (the server does when documents closed and the memos hold far more than the open
documents' lines: their entries would otherwise stay until the process exits).
"""

from __future__ import annotations

from functools import lru_cache, wraps
from typing import Callable

# More entries than the lines of the largest file we expect, or a file bigger than the cache
# evicts its own lines and every pass over it parses them again.
LINE_CACHE_SIZE = 1 << 18
MEMO_MAX_LINE = 1024


# every memo, as (how many entries it holds, how to empty it)
_MEMOS: list[tuple[Callable[[], int], Callable[[], None]]] = []


def register_memo(size: Callable[[], int], clear: Callable[[], None]) -> None:
    """Register a cache of another kind (the vendor compilers' outcomes, keyed by the text
    they compiled) with the memos `clear_memos` empties."""
    _MEMOS.append((size, clear))


def _register(cached) -> None:
    register_memo(lambda: cached.cache_info().currsize, cached.cache_clear)


def value_memo(function=None, *, maxsize: int = LINE_CACHE_SIZE):
    """Memoise `function(*values)` (hashable), at most `maxsize` results, registered (used
    bare, `@value_memo`, or with a size, `@value_memo(maxsize=N)`)."""
    def memoise(function):
        cached = lru_cache(maxsize=maxsize)(function)
        _register(cached)
        return cached
    return memoise(function) if function is not None else memoise


def memo_entries() -> int:
    """How many results every registered memo holds together."""
    return sum(size() for size, _ in _MEMOS)


def clear_memos() -> None:
    """Empty every registered memo (they fill again as lines are parsed and analysed)."""
    for _, clear in _MEMOS:
        clear()


def line_memo(function):
    """Memoise `function(text, *args)` for lines of at most `MEMO_MAX_LINE` characters."""
    cached = lru_cache(maxsize=LINE_CACHE_SIZE)(function)
    _register(cached)

    @wraps(function)
    def call(text: str, *args):
        if len(text) > MEMO_MAX_LINE:
            return function(text, *args)
        return cached(text, *args)

    call.cache_clear = cached.cache_clear
    call.cache_info = cached.cache_info
    return call
