"""The editor's limits on a run, imposed in one place: the settings `run.maxInstructions`
(wave-instructions, 0: none) and `run.timeLimitMs` (0: none) bound every job the editor starts
from a launch line (inline runs, profiles, the portability check, kernel tests); a launch line's
own `--max-instructions` and `--time-limit` may lower them but never raise them, nor lift them
with 0."""

from __future__ import annotations


def editor_limits(max_instructions: int, time_limit_ms: int, line_instructions: int = 0,
                  line_seconds: float | None = None) -> tuple[int, float | None]:
    """(wave-instructions, seconds or None) a run may take: the smaller of the settings'
    (`max_instructions`, `time_limit_ms`) and the launch line's (`line_instructions`, 0: none
    given; `line_seconds`, None: none given); 0 and None only where neither sets one."""
    steps = [v for v in (max_instructions, line_instructions) if v > 0]
    seconds = [v for v in (time_limit_ms / 1000 if time_limit_ms > 0 else None, line_seconds)
               if v is not None]
    return (min(steps) if steps else 0), (min(seconds) if seconds else None)
