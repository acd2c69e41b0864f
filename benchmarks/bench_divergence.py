"""Benchmark: uniformity analysis and divergence lints on `gemm_blocked.wave` repeated to 20,000
lines (target ≤ 200 ms), or on the distinct lines of the generators of `corpus_kernels.py`
(`--generator NAME`, or `all`). Prints the cold time (fresh memos), the time with warm
per-instruction memos, and a re-run reusing each kernel's previous analysis.

Usage: python benchmarks/bench_divergence.py [--lines N] [--repeat R] [--generator all]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_kernels import GENERATORS  # noqa: E402

from wave_lsp.analysis import AnalysisState, divergence  # noqa: E402
from wave_lsp.analysis.divergence import divergence_diagnostics  # noqa: E402
from wave_lsp.syntax.document import Document  # noqa: E402
from wave_lsp.syntax.memo import clear_memos  # noqa: E402

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
    parser.add_argument("--generator", choices=(*GENERATORS, "all"),
                        help="distinct lines of this generator (or of each) instead")
    args = parser.parse_args()
    if args.generator:
        names = list(GENERATORS) if args.generator == "all" else [args.generator]
        for name in names:
            print(f"[{name}]", end=" ")
            measure(GENERATORS[name](args.lines, 7), args.repeat)
        return 0
    if not EXAMPLE.exists():
        print(f"skipped: {EXAMPLE} is not there", file=sys.stderr)
        return 0
    measure(source(args.lines), args.repeat)
    return 0


def measure(text: str, repeat: int) -> None:
    doc = Document(text)
    program = doc.program
    count = sum(len(k.instructions) for k in program.kernels)
    print(f"{len(doc.lines)} lines, {len(program.kernels)} kernels, {count} instructions")

    cold, warm, cached = [], [], []
    for _ in range(repeat):
        clear_memos()                   # every per-line and per-instruction result
        t0 = time.perf_counter()
        found = divergence_diagnostics(program)
        cold.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        divergence_diagnostics(program)
        warm.append(time.perf_counter() - t0)
        state = AnalysisState(doc)      # the kernels' previous analyses reused
        divergence_diagnostics(program, state.uniformity)
        t0 = time.perf_counter()
        divergence_diagnostics(program, state.uniformity)
        cached.append(time.perf_counter() - t0)
    ms = lambda xs: f"median {statistics.median(xs) * 1e3:7.1f} ms, min {min(xs) * 1e3:7.1f} ms"
    print(f"analysis, cold caches              : {ms(cold)}")
    print(f"analysis, instruction cache warm   : {ms(warm)}")
    print(f"analysis, previous analyses reused : {ms(cached)}")
    print(f"diagnostics: {len(found)}  (target: ≤ 200 ms)")
    _ = divergence


if __name__ == "__main__":
    raise SystemExit(main())
