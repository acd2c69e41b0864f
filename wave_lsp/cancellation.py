"""Cooperative cancellation of long computations (parsing, analysis, formatting a big file).

A job runs under a `CancelToken` (`with running(token): ...`); the long loops of every layer
call `checkpoint()` now and then, which raises `Cancelled` once the token is cancelled (for
example because a newer edit made the job's result useless). Outside a job `checkpoint()` does
nothing, so the command line and the tests run the same code without any of this.

A job may also be *background* work (`CancelToken(background=True)`: the analysis of a whole
document) that yields to *foreground* jobs, those a request waits for (`with foreground(): ...`:
hover, semantic tokens): at each checkpoint a background job waits, at most `YIELD_SECONDS` at a
time, while a foreground job runs, so the two do not share the interpreter lock half and half
(semantic tokens of a just-opened 100,000-line file took twice as long beside its analysis).

This module sits beside the layers (like `cache.py`): every layer may import it; it imports
nothing of the project.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator


class Cancelled(Exception):
    """The job's token was cancelled: its result would be stale."""


YIELD_SECONDS = 0.25


class CancelToken:
    """A flag one side sets and the job polls. Thread-safe (a bool write is atomic).
    `background`: the job yields to foreground jobs at its checkpoints."""

    __slots__ = ("cancelled", "reason", "background")

    def __init__(self, background: bool = False) -> None:
        self.cancelled = False
        self.reason = ""
        self.background = background

    def cancel(self, reason: str = "cancelled") -> None:
        self.reason = reason
        self.cancelled = True
        if self.background:
            with _wake:              # a background job waiting at a checkpoint stops now
                _wake.notify_all()

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


_foreground = 0                      # foreground jobs running
_wake = threading.Condition()        # a foreground job ended, or a token was cancelled


@contextmanager
def foreground() -> Iterator[None]:
    """A job a request waits for runs meanwhile: background jobs wait at their checkpoints."""
    global _foreground
    with _wake:
        _foreground += 1
    try:
        yield
    finally:
        with _wake:
            _foreground -= 1
            if _foreground == 0:
                _wake.notify_all()


def checkpoint() -> None:
    """Raise `Cancelled` when the job running in this thread has been cancelled; in a
    background job, first wait while a foreground job runs (`YIELD_SECONDS` at most; a
    cancellation ends the wait at once: an edit waits for the job to stop)."""
    token = getattr(_current, "token", None)
    if token is None:
        return
    if token.background and _foreground and not token.cancelled:
        with _wake:
            _wake.wait_for(lambda: not _foreground or token.cancelled, YIELD_SECONDS)
    if token.cancelled:
        raise Cancelled(token.reason)
