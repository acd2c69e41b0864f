"""`wave-lsp run FILE ... --profile [--profile-target T] [--profile-lines N]`: the command
writes the kernel profile's table after the normal output. The flags are the table's
(`launch.table`), checked with the others (`launch.request`); the table's text and the JSON
document's "profile" object are `launch.profile_text`'s, which kernel tests print too. Past
`--time-limit` (the run and the profile's counting together) the command prints
`Error: time limit: ...` and exits with status 1."""

from __future__ import annotations

import sys
import time

from ..launch.profile_text import profile_table


def write_profile(args, report, program) -> str | None:
    """The table and totals on stdout (after the normal output) for parsed flags `args`
    (`profile_target`, `profile_lines`, `time_limit`, `profile_started`); the error instead when
    the counting stopped at `--time-limit`."""
    table, stopped = profile_table(report, program, args.profile_target, args.profile_lines,
                                   getattr(args, "time_limit", None),
                                   getattr(args, "profile_started", time.monotonic()))
    if stopped is not None:
        return stopped
    sys.stdout.write("\n".join(table) + "\n")
    sys.stdout.flush()
    return None
