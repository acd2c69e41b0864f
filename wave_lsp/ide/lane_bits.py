"""The bits one line wrote, per shown thread, kept compactly for as long as a run is shown.

A run keeps, for every written value of every executed line, the bits of each shown thread
(the hover lists them all). As a dict of Python ints that was a dict and one int object per
lane: most of an open document's memory (about 1.5 MB for a 600-line kernel shown over 32
lanes), and, once the document closed, what was left scattered over the allocator's arenas.
`LaneBits` is a read-only mapping thread -> bits over one tuple of threads (the run's own
when every shown thread wrote) and one array of 64-bit words.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping

_WORD = 1 << 64


class LaneBits(Mapping):
    """thread -> bits, in the order of the run's shown threads."""

    __slots__ = ("_threads", "_bits")

    def __init__(self, bits: Mapping[int, int], threads: tuple[int, ...] = ()) -> None:
        order = tuple(t for t in threads if t in bits)
        if len(order) != len(bits):              # threads the run does not show: kept after
            known = set(order)
            order += tuple(t for t in bits if t not in known)
        self._threads = threads if order == threads else order
        words = [bits[t] for t in self._threads]
        self._bits = (array("Q", words) if all(0 <= w < _WORD for w in words)
                      else tuple(words))

    def _index(self, thread: int) -> int:
        threads = self._threads
        if threads:
            guess = thread - threads[0]          # shown threads are usually consecutive
            if 0 <= guess < len(threads) and threads[guess] == thread:
                return guess
        try:
            return threads.index(thread)
        except ValueError:
            raise KeyError(thread) from None

    def __getitem__(self, thread: int) -> int:
        return self._bits[self._index(thread)]

    def __contains__(self, thread: object) -> bool:
        try:
            self._index(thread)                  # type: ignore[arg-type]
        except (KeyError, TypeError):
            return False
        return True

    def __iter__(self) -> Iterator[int]:
        return iter(self._threads)

    def __len__(self) -> int:
        return len(self._threads)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    def __hash__(self) -> int:                    # read-only: a value like a frozen dict
        return hash(tuple(self.items()))

    def __repr__(self) -> str:
        return f"LaneBits({dict(self.items())!r})"


NONE = LaneBits({})          # a line that ran once wrote nothing before: shared, not one per line
