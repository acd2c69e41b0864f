"""Cooperative cancellation of long computations (parsing, analysis, formatting a big file).

A job runs under a `CancelToken` (`with running(token): ...`); the long loops of every layer
call `checkpoint()` now and then, which raises `Cancelled` once the token is cancelled (for
example because a newer edit made the job's result useless). Outside a job `checkpoint()` does
nothing, so the command line and the tests run the same code without any of this.

This module sits beside the layers (like `cache.py`): every layer may import it; it imports
nothing of the project.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator


class Cancelled(Exception):
    """The job's token was cancelled: its result would be stale."""


class CancelToken:
    """A flag one side sets and the job polls. Thread-safe (a bool write is atomic)."""

    __slots__ = ("cancelled", "reason")

    def __init__(self) -> None:
        self.cancelled = False
        self.reason = ""

    def cancel(self, reason: str = "cancelled") -> None:
        self.reason = reason
        self.cancelled = True

    def check(self) -> None:
        if self.cancelled:
            raise Cancelled(self.reason)


_current = threading.local()


@contextmanager
def running(token: CancelToken | None) -> Iterator[CancelToken | None]:
    """Make `token` the one `checkpoint()` polls in this thread, for the duration."""
    previous = getattr(_current, "token", None)
    _current.token = token
    try:
        yield token
    finally:
        _current.token = previous


def current() -> CancelToken | None:
    """The token of the job running in this thread (for a helper thread it starts: `running`)."""
    return getattr(_current, "token", None)


def checkpoint() -> None:
    """Raise `Cancelled` when the job running in this thread has been cancelled."""
    token = getattr(_current, "token", None)
    if token is not None and token.cancelled:
        raise Cancelled(token.reason)
