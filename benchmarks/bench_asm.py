"""Benchmark: assemble `gemm_blocked.wave` repeated 20 times (about 13,000 lines), target <= 1 s.

Prints the median of several runs from source text (document parse + layout + encoding +
`.wbin` writing) in both modes, the cold first run (line-parse cache empty), and, for
reference, read + disassemble of the result. Run: `python benchmarks/bench_asm.py [REPEAT]`.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from wave_lsp.asm import assemble, read_wbin
from wave_lsp.asm.disassembler import disassemble
from wave_lsp.syntax.parser import parse_line

EXAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "wave-examples"


def source(repeat: int) -> str:
    """gemm_blocked.wave `repeat` times, kernels renamed so every name is distinct."""
    text = (EXAMPLES / "gemm_blocked.wave").read_text(encoding="utf-8")
    labels = sorted({line.split(":")[0].strip() for line in text.splitlines()
                     if line.strip().endswith(":") and not line.strip().startswith((";", "#"))})
    parts = []
    for i in range(repeat):
        copy = text.replace(".kernel gemm_blocked", f".kernel gemm_blocked_{i}")
        for label in labels:
            copy = copy.replace(f"{label}:", f"{label}_{i}:")
        parts.append(copy)
    return "\n".join(parts)


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> int:
    if not (EXAMPLES / "gemm_blocked.wave").is_file():
        print(f"skipped: {EXAMPLES / 'gemm_blocked.wave'} not found")
        return 0
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    text = source(repeat)
    lines = text.count("\n") + 1
    parse_line.cache_clear()
    cold = timed(lambda: assemble(text).wbin(), 1)[0]
    print(f"gemm_blocked x{repeat}: {lines} lines, {len(assemble(text).wbin())} bytes")
    print(f"  cold (empty line cache), default mode: {cold * 1000:8.1f} ms")
    for compat in (False, True):
        runs = timed(lambda: assemble(text, compat=compat).wbin(), 7)
        mode = "compat " if compat else "default"
        print(f"  warm, {mode} mode: median {statistics.median(runs) * 1000:8.1f} ms  "
              f"(min {min(runs) * 1000:.1f}, max {max(runs) * 1000:.1f})  target <= 1000 ms")
    data = assemble(text).wbin()
    runs = timed(lambda: disassemble(read_wbin(data)), 5)
    print(f"  read + disassemble: median {statistics.median(runs) * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
