"""Benchmark of the analysis: open + analyse, and re-analysis after a one-line edit.

Inputs are built by repeating ../shared/wave-examples/gemm_blocked.wave (or a file given with
--kernel). Prints medians in milliseconds. Run: python benchmarks/bench_analysis.py
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from wave_lsp.analysis import analyze
from wave_lsp.analysis.kernel_checks import _FACTS
from wave_lsp.analysis.line_checks import check_line
from wave_lsp.syntax.document import Document
from wave_lsp.syntax.parser import parse_line

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "wave-examples" / "gemm_blocked.wave"


def repeated(source: str, lines: int) -> str:
    out, n = [], 0
    while n < lines:
        out.append(source)
        n += source.count("\n")
    return "".join(out)


def clear_caches() -> None:
    for f in (parse_line, check_line):
        f.cache_clear()
    _FACTS.clear()


def time_open(text: str, cold: bool) -> float:
    if cold:
        clear_caches()
    t = time.perf_counter()
    analyze(Document(text))
    return time.perf_counter() - t


def time_edit(text: str, rounds: int, kind: str, in_loop: bool = False) -> float:
    """Median time of one edit plus re-analysis. `comment`: append to a trailing comment;
    `instruction`: change the immediate of a `mov_imm` to a value never used before (the
    kernel's code changes, nothing can come from a cache)."""
    doc = Document(text)
    analyze(doc)
    # the same line in both inputs: the last `mov_imm` among the first 200 lines (before the
    # kernel's main loop); or, with `in_loop`, the first `mov_imm` inside its innermost loop
    if in_loop:
        inner = [i for i, l in enumerate(doc.lines[:663]) if l.strip() == "loop"][1]
        target = next(i for i in range(inner, 663) if doc.lines[i].strip().startswith("mov_imm"))
    else:
        target = max(i for i, l in enumerate(doc.lines[:200])
                     if l.strip().startswith("mov_imm r11"))
    column = doc.lines[target].index(",") + 2
    samples = []
    for i in range(rounds):
        line = doc.lines[target]
        if kind == "comment":
            start = end = len(line)
            new = f" ; edit {len(doc.lines)}-{i}"  # never seen before: the line is parsed
        else:
            start, end = column, len(line)
            new = str(100_000 * len(doc.lines) + i)
        t = time.perf_counter()
        doc.apply_edit((target, start), (target, end), new)
        analyze(doc)
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kernel", type=Path, default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--without-divergence", action="store_true",
                        help="leave out the divergence analysis (D6xx), to measure the language "
                             "core's own checks")
    args = parser.parse_args()
    if args.without_divergence:
        import wave_lsp.analysis as analysis
        analysis._divergence = lambda kernel: []
    source = args.kernel.read_text()
    ten_k = repeated(source, 10_000)
    print(f"open+analyse {ten_k.count(chr(10))} lines, cold caches: "
          f"{statistics.median(time_open(ten_k, True) for _ in range(5)) * 1e3:.1f} ms")
    print(f"open+analyse {ten_k.count(chr(10))} lines, warm caches: "
          f"{statistics.median(time_open(ten_k, False) for _ in range(5)) * 1e3:.1f} ms")
    big = repeated(source, 20_000)
    small = "".join(source.splitlines(keepends=True)[:200])
    for kind in ("instruction", "comment"):
        t_big = time_edit(big, args.rounds, kind)
        t_small = time_edit(small, args.rounds, kind)
        print(f"{kind} edit + re-analysis: {big.count(chr(10))} lines {t_big * 1e3:.2f} ms, "
              f"{small.count(chr(10))} lines {t_small * 1e3:.2f} ms, ratio {t_big / t_small:.1f}x")
    t_loop = time_edit(big, args.rounds, "instruction", in_loop=True)
    print(f"instruction edit inside the kernel's innermost loop (no 200-line counterpart: the "
          f"first 200 lines hold no loop): {big.count(chr(10))} lines {t_loop * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
