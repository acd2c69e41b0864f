"""`wave-lsp run --wave-widths 16,32,64 FILE ...`: run the launch at each width and print the
device memory that differs between them, by the store line that wrote it (exit status 1 when
anything differs or a run fails). With `--json`, the comparison as JSON. `--wave-widths targets`
uses every width of the project's configured targets (`targets` in wave-lsp.toml; all four
backends by default: 8, 16, 32, 64).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..emu import compare_widths
from ..isa.backends import TARGET_NAMES, targets_widths


def parse_widths(text: str, file: Path | None = None) -> tuple[int, ...]:
    """`16,32,64` -> (16, 32, 64), or the configured targets' widths for `targets`; raises
    ValueError with a clear message."""
    if text.strip() == "targets":
        return _configured_widths(file)
    try:
        widths = tuple(int(part, 0) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"--wave-widths expects numbers separated by commas, got '{text}'") \
            from None
    if len(widths) < 2 or not all(1 <= w <= 64 for w in widths):
        raise ValueError(f"--wave-widths needs at least two widths of 1-64, got '{text}'")
    return widths


def _configured_widths(file: Path | None) -> tuple[int, ...]:
    from ..analysis.config import find_config, load_config
    found = find_config(file or Path.cwd())
    targets = TARGET_NAMES
    if found is not None:
        config, problems = load_config(found)
        if problems:
            raise ValueError(f"{found}: {problems[0].message}")
        targets = config.targets
    widths = targets_widths(targets)
    if len(widths) < 2:
        raise ValueError(f"the configured targets ({', '.join(targets) or 'none'}) use one wave "
                         "width: nothing to compare")
    return widths


def run_widths(args, program, request) -> int:
    """Compare the runs of a `launch.request.RunRequest`; print the report; the exit status."""
    comparison = compare_widths(program, request.launch,
                                parse_widths(request.wave_widths, args.file), request.options)
    if request.json:
        print(json.dumps(comparison.as_dict(), indent=1))
    else:
        sys.stdout.write("\n".join(comparison.text(str(args.file))) + "\n")
    return 0 if comparison.portable else 1
