"""Memoisation by line text, bounded in entries and in the size of what it keeps.

The per-line passes (parsing, line checks, suppression comments, semantic-token classes) are
pure functions of a line's text, so their results are shared by every document and every
revision. `line_memo` keeps at most `LINE_CACHE_SIZE` results and never keeps a line longer than
`MEMO_MAX_LINE` characters: real statements are far shorter, and a long (often edited) comment
line would otherwise pin one copy of itself per edit in every cache until the process exits.
"""

from __future__ import annotations

from functools import lru_cache, wraps

# More entries than the lines of the largest file we expect, or a file bigger than the cache
# evicts its own lines and every pass over it parses them again.
LINE_CACHE_SIZE = 1 << 18
MEMO_MAX_LINE = 1024


def line_memo(function):
    """Memoise `function(text, *args)` for lines of at most `MEMO_MAX_LINE` characters."""
    cached = lru_cache(maxsize=LINE_CACHE_SIZE)(function)

    @wraps(function)
    def call(text: str, *args):
        if len(text) > MEMO_MAX_LINE:
            return function(text, *args)
        return cached(text, *args)

    call.cache_clear = cached.cache_clear
    call.cache_info = cached.cache_info
    return call
