"""What happens when an analysis pass fails: it is reported, never swallowed.

A defect in one pass (the divergence analysis of one kernel, the encoding view of one line)
must not take the other diagnostics down, so such passes run inside `guarded(what)`. The failure
is logged on the `wave_lsp.analysis` logger with its traceback (the language server forwards that
logger to the client's log) and, in strict mode, raised: strict mode is on when the environment
variable `WAVE_LSP_STRICT` is set (the test suite sets it), so a test cannot pass over a failure.
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from typing import Iterator

from ..cancellation import Cancelled

logger = logging.getLogger("wave_lsp.analysis")


def strict() -> bool:
    """Whether failures are raised (tests) rather than only logged."""
    return bool(os.environ.get("WAVE_LSP_STRICT"))


@contextmanager
def guarded(what: str) -> Iterator[None]:
    """Run a pass; a failure is logged (and raised in strict mode). Cancellation passes."""
    try:
        yield
    except Cancelled:
        raise
    except Exception as exc:
        logger.error("%s failed: %r", what, exc, exc_info=True)
        if strict():
            raise
