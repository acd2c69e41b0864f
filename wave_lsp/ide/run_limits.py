"""The limits of an inline run (settings `run.maxInstructions` and `run.timeLimitMs`) and the
few facts about runs the server needs before any run: small and free of the emulator, so the
server can name them without loading it."""

from __future__ import annotations

from dataclasses import dataclass

from ..syntax.tool_comments import LAUNCH_MARKER   # noqa: F401  (the server names it here)

DEFAULT_MAX_INSTRUCTIONS = 1_000_000     # wave-instructions per workgroup
DEFAULT_TIME_LIMIT_MS = 2_000            # an infinite loop stops within about 2 s
DEFAULT_RECORD_BUDGET_MIB = 256          # a run's write log (who wrote each value)
WHO_WROTE_COMMAND = "wave-lsp.whoWrote"  # who wrote a value (who_wrote, server who_wrote)
NOT_EXECUTED = "R006"                    # the code of lines no shown lane executed (greyed)
DUMP_COMMAND = "wave-lsp.dump"   # a window of a dump on request (run_dump, server run_commands)


@dataclass(frozen=True)
class RunLimits:
    """From the settings `run.maxInstructions` and `run.timeLimitMs` (0: no limit), and
    `run.recordBudgetMiB` (the memory a run's write log may take; 0: runs are not recorded)."""

    max_instructions: int = DEFAULT_MAX_INSTRUCTIONS
    time_limit_ms: int = DEFAULT_TIME_LIMIT_MS
    record_budget_mib: int = DEFAULT_RECORD_BUDGET_MIB
