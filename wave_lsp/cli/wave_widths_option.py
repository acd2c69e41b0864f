"""`wave-lsp run --wave-widths 16,32,64 FILE ...`: run the launch at each width and print the
device memory that differs between them, by the store line that wrote it (exit status 1 when
anything differs or a run fails). With `--json`, the comparison as JSON.
"""

from __future__ import annotations

import json
import sys

from ..emu.wave_widths import compare_widths


def parse_widths(text: str) -> tuple[int, ...]:
    """`16,32,64` -> (16, 32, 64); raises ValueError with a clear message."""
    try:
        widths = tuple(int(part, 0) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"--wave-widths expects numbers separated by commas, got '{text}'") \
            from None
    if len(widths) < 2 or not all(1 <= w <= 64 for w in widths):
        raise ValueError(f"--wave-widths needs at least two widths of 1-64, got '{text}'")
    return widths


def run_widths(args, program, launch) -> int:
    """Compare the runs; print the report; the exit status."""
    comparison = compare_widths(program, launch, parse_widths(args.wave_widths))
    if args.json:
        print(json.dumps(comparison.as_dict(), indent=1))
    else:
        sys.stdout.write("\n".join(comparison.text(str(args.file))) + "\n")
    return 0 if comparison.portable else 1
