"""The portability check as plain data: one kernel's launch run once per wave width the
configured targets use (`isa/backends.py`), the device memory the runs leave compared
(`emu.wave_widths`), and the results kept on the document's state for its current revision only
(so an edit, or closing the document, drops them).

The launch is the kernel's first `; wave-lsp run: FLAGS` line, parsed and confined as inline runs
are (its `--arg` files read in the worker), else the kernel's own workgroup size on one
workgroup; a GPU run (`ide.gpu`) uses the same launch.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..isa.backends import targets_widths
from .arg_files import ArgFiles
from .run_limits import RunLimits
from .state import DocumentState

if TYPE_CHECKING:
    from ..emu import Launch, RunOptions, WidthComparison
    from .launch_lines import LaunchLine

MAX_INSTRUCTIONS = 2_000_000      # per width
TIME_LIMIT_MS = 10_000            # for all the widths together


def kernel_launch(kernel: str, lines: list[LaunchLine], limits: RunLimits, files: ArgFiles,
                  root: Path | None, cancel: Callable[[], bool] | None = None
                  ) -> tuple[Launch, RunOptions]:
    """The launch a check (or a GPU run) of `kernel` runs and how: its first launch line
    (`lines`, in order), with its limits capped at `limits`. Raises LaunchError (a ValueError)
    on a bad launch line."""
    from ..emu import LaunchError
    from .run_session import editor_launch, editor_options
    line = lines[0] if lines else None
    if line is not None and line.problem is not None:
        raise LaunchError(f"launch line {line.line + 1}: {line.problem.message}")
    launch = editor_launch(line, kernel, files, root)
    return (replace(launch, metadata_first=line is None or launch.metadata_first),
            editor_options(line, limits, cancel=cancel))


def widths_of(targets: tuple[str, ...]) -> tuple[int, ...]:
    """The wave widths the configured targets use."""
    return tuple(targets_widths(targets))


def check_widths(text: str, kernel: str, lines: list[LaunchLine], widths: tuple[int, ...],
                 files: ArgFiles, root: Path | None,
                 cancel: Callable[[], bool]) -> WidthComparison:
    """Run the kernel's launch at every width (each within the check's limits) and compare.
    Runs for seconds: call it off the event loop. Raises ValueError when it cannot run."""
    from ..emu import compare_widths   # numpy: not at start-up
    limits = RunLimits(MAX_INSTRUCTIONS, TIME_LIMIT_MS // len(widths))
    launch, options = kernel_launch(kernel, lines, limits, files, root, cancel)
    return compare_widths(text, launch, widths, options)


def summary(comparison: WidthComparison) -> str:
    """The outcome in one line."""
    widths = ", ".join(f"W{w}" for w in comparison.widths)
    if comparison.portable:
        return f"kernel {comparison.kernel}: same device memory at {widths}"
    parts = [f"{len(comparison.differences)} word(s) of device memory differ between {widths}"]
    parts += [f"W{w}: {message}" for w, message in comparison.errors.items()]
    lines = [str(line + 1) for line in comparison.by_line if line is not None]
    if lines:
        parts.append(f"at line(s) {', '.join(lines)}")
    return f"kernel {comparison.kernel}: " + "; ".join(parts)


def checks(doc: DocumentState) -> dict[str, WidthComparison]:
    """The checks of the document's current revision, by kernel (empty after an edit)."""
    return doc.portability.current(doc.revision) if doc.portability is not None else {}


def keep(doc: DocumentState, revision: int, comparison: WidthComparison) -> None:
    """Keep a check of `revision` on the document's job record, unless it has changed since."""
    if doc.revision == revision:
        doc.check_state("portability").store(comparison.kernel, revision, comparison)


def differing_lines(doc: DocumentState) -> list[tuple[int, WidthComparison]]:
    """(source line, its check) for every store line whose memory differs between widths."""
    return [(line, comparison) for comparison in checks(doc).values()
            for line in comparison.by_line if line is not None and line < len(doc.lines)]
