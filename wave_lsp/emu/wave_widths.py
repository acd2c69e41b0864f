"""The wave-width check: run one launch at several wave widths and report the device memory
that differs between them, attributed to the store (or atomic) line that last wrote it.

A portable kernel leaves the same memory at every width its targets use (8, 16, 32, 64; see
`isa/backends.py`); a kernel whose result depends on the width (a ballot mask, a reduction over
one wave, a hard-coded lane) does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .geometry import load_kernels
from .kernel_launch import Launch
from .options import RunOptions
from .pipeline import run
from .report import RunReport
from .writers import StoreWriters

MAX_SHOWN = 8   # differing words listed per line
COMPARE_CHUNK = 1 << 22     # device bytes compared at a time (a multiple of 4)


@dataclass(frozen=True)
class WordDifference:
    """One 32-bit word of device memory that is not the same at every width."""

    address: int
    values: dict[int, int]              # width -> the word's value
    writers: dict[int, int | None]      # width -> line (pc) of its last store, None: never written


@dataclass
class WidthComparison:
    """The outcome of running one launch at several widths."""

    kernel: str
    widths: tuple[int, ...]
    reports: dict[int, RunReport]
    differences: list[WordDifference] = field(default_factory=list)
    by_line: dict[int | None, list[WordDifference]] = field(default_factory=dict)
    by_pc: bool = False     # `.wbin` input: the keys of by_line are byte offsets, not lines

    @property
    def errors(self) -> dict[int, str]:
        return {w: r.errors[0].message for w, r in self.reports.items() if r.errors}

    @property
    def portable(self) -> bool:
        return not self.differences and not self.errors

    def line_message(self, line: int | None) -> str:
        """What differs at one store line, in one sentence."""
        words = self.by_line.get(line, [])
        shown = "; ".join(
            f"0x{d.address:x}: " + ", ".join(f"W{w}={v:#x}" for w, v in d.values.items())
            for d in words[:MAX_SHOWN])
        more = f" (and {len(words) - MAX_SHOWN} more)" if len(words) > MAX_SHOWN else ""
        return f"{len(words)} word(s) differ between wave widths: {shown}{more}"

    def as_dict(self) -> dict:
        return {
            "kernel": self.kernel, "widths": list(self.widths), "portable": self.portable,
            "lineKind": "pc" if self.by_pc else "line",
            "errors": {str(w): e for w, e in self.errors.items()},
            "differences": [{"address": d.address, "values": {str(w): v for w, v in
                                                              d.values.items()},
                             "lines": {str(w): l for w, l in d.writers.items()}}
                            for d in self.differences],
            "lines": [{"line": line, "count": len(words), "message": self.line_message(line)}
                      for line, words in self.by_line.items()],
        }

    def text(self, path: str = "") -> list[str]:
        """The report as lines for the command line: `PATH:LINE: message` (1-based) per store
        line."""
        out = [f"kernel {self.kernel}: wave widths {', '.join(map(str, self.widths))}"]
        for w, message in self.errors.items():
            out.append(f"  W{w}: error: {message}")
        if self.portable:
            out.append("  device memory is the same at every width")
            return out
        for line in self.by_line:
            if line is None:
                where = f"{path}: (never stored)"
            else:
                where = f"{path}: pc 0x{line:04x}" if self.by_pc else f"{path}:{line + 1}"
            out.append(f"{where}: {self.line_message(line)}")
        return out


def compare_widths(program, launch: Launch, widths,
                   options: RunOptions | None = None) -> WidthComparison:
    """Run `launch` once per width (as `options` say, with the store-writer record) and compare
    the device memory the runs leave."""
    widths = tuple(dict.fromkeys(int(w) for w in widths))
    kernels = load_kernels(program)
    reports: dict[int, RunReport] = {}
    writers: dict[int, StoreWriters | None] = {}
    options = replace(options or RunOptions(), writers=True, engine="numpy")
    for width in widths:
        reports[width] = run(kernels, replace(launch, wave_width=width), options)
        writers[width] = reports[width].writers
    name = next(iter(reports.values())).kernel if reports else ""
    kernel = next((k for k in kernels if k.name == name), None)
    by_pc = kernel is not None and any(i.line is None for i in kernel.instructions)
    comparison = WidthComparison(name, widths, reports, by_pc=by_pc)
    _differences(comparison, writers)
    return comparison


def _differences(comparison: WidthComparison, writers) -> None:
    """The words that differ between widths, compared a chunk at a time (no copy of device
    memory is made: it may be gigabytes)."""
    memories = [comparison.reports[w].device_memory for w in comparison.widths]
    if len(memories) < 2 or any(m.size != memories[0].size for m in memories):
        return
    size = memories[0].size
    first = memories[0]
    for lo in range(0, size, COMPARE_CHUNK):
        hi = min(size, lo + COMPARE_CHUNK)
        differs = np.zeros(hi - lo, dtype=bool)
        for other in memories[1:]:
            differs |= first[lo:hi] != other[lo:hi]
        for word in np.unique(np.flatnonzero(differs) >> 2).tolist():
            _difference(comparison, writers, memories, lo + 4 * word)


def _difference(comparison: WidthComparison, writers, memories, address: int) -> None:
    values = {w: int.from_bytes(bytes(m[address:address + 4]).ljust(4, b"\0"), "little")
              for w, m in zip(comparison.widths, memories)}
    lines = {}
    for w in comparison.widths:
        who = writers.get(w)
        lines[w] = who.last(address, 4) if who is not None else None
    diff = WordDifference(address, values, lines)
    comparison.differences.append(diff)
    for line in dict.fromkeys(lines.values()):
        if line is not None or all(v is None for v in lines.values()):
            comparison.by_line.setdefault(line, []).append(diff)
