"""The types of the verification extensions (`extensions` declares the commands
`wave-lsp.verify` and `wave-lsp.replayWitness`): a kernel's verdict and a witness's replay."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .proto import ABSENT, Open


@dataclass(frozen=True)
class Verification(Open):
    """`wave-lsp verify --json`'s kernel entry (`ide.verify.Verification.as_dict`), URI added."""
    uri: str
    kernel: str
    verdict: str
    witness: dict[str, Any] | None
    debug_at_moment: dict[str, Any] = ABSENT    # a witness's debug launch (ide.moments)


@dataclass(frozen=True)
class Replayed(Open):
    """A witness's launch run: `shown` when it showed the race (or barrier error), `message`."""
    uri: str
    launch: str
    shown: bool
    message: str


VERIFY_TEXT = ("`wave-lsp verify` of the kernel; the verdict in its lens, a witness as R031/R032 (the "
               "other access related) until the next edit. With a witness of a file on disk, "
               "`debugAtMoment`: the launch configuration of \"Debug witness\" (the witness's "
               "launch paused at its first access, `stopAt`).")
REPLAY_TEXT = "Runs the launch of the kernel's witness."
