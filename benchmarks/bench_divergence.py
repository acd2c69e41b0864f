"""Benchmark: uniformity analysis and divergence lints on `gemm_blocked.wave` repeated to 20,000
lines (target ≤ 200 ms). Prints the cold time (fresh caches), the time with warm per-instruction
caches, and the cached re-run.

Usage: python benchmarks/bench_divergence.py [--lines N] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from wave_lsp.analysis import divergence, uniformity, uniformity_steps
from wave_lsp.analysis.divergence import divergence_diagnostics
from wave_lsp.syntax.document import Document

EXAMPLE = Path(__file__).resolve().parents[1].parent / "shared" / "wave-examples" / "gemm_blocked.wave"


def source(lines: int) -> str:
    text = EXAMPLE.read_text(encoding="utf-8")
    body = text.splitlines()
    out: list[str] = []
    while len(out) < lines:
        out.extend(body)
    # keep whole kernels: cut after the last `.end` before the limit
    cut = max(i for i, line in enumerate(out[:lines]) if line.strip() == ".end")
    return "\n".join(out[:cut + 1]) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    if not EXAMPLE.exists():
        print(f"skipped: {EXAMPLE} is not there", file=sys.stderr)
        return 0
    text = source(args.lines)
    doc = Document(text)
    program = doc.program
    count = sum(len(k.instructions) for k in program.kernels)
    print(f"{len(doc.lines)} lines, {len(program.kernels)} kernels, {count} instructions")

    cold, warm, cached = [], [], []
    for _ in range(args.repeat):
        uniformity_steps._CACHE.clear()
        uniformity._CACHE.clear()
        uniformity._LAST.clear()
        t0 = time.perf_counter()
        found = divergence_diagnostics(program)
        cold.append(time.perf_counter() - t0)
        uniformity._CACHE.clear()
        uniformity._LAST.clear()
        t0 = time.perf_counter()
        divergence_diagnostics(program)
        warm.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        divergence_diagnostics(program)
        cached.append(time.perf_counter() - t0)
    ms = lambda xs: f"median {statistics.median(xs) * 1e3:7.1f} ms, min {min(xs) * 1e3:7.1f} ms"
    print(f"analysis, cold caches              : {ms(cold)}")
    print(f"analysis, instruction cache warm   : {ms(warm)}")
    print(f"analysis, kernel results cached    : {ms(cached)}")
    print(f"diagnostics: {len(found)}  (target: ≤ 200 ms)")
    _ = divergence
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
