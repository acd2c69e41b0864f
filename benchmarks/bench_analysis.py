"""Benchmark of the analysis (in process): open + analyse, and re-analysis after one-line edits.

Two kinds of input, both reported (DESIGN.md §5 targets are for the first):
- distinct lines from every generator of `corpus_kernels.GENERATORS`, as real files are — the
  per-line caches hardly ever hit: structured kernels (loops, ifs, local memory, barriers),
  straight-line math of every instruction class, many labels and calls, comment-heavy files,
  and the mixed corpus (`corpus.distinct_source`) in two styles: "mixed" (what a kernel author
  writes: a few diagnostics in 20,000 lines) and "mixed-many" (every instruction anywhere:
  about 2,000 diagnostics in 20,000 lines);
- one kernel repeated (../shared/wave-examples/gemm_blocked.wave, or --kernel FILE), where they
  almost always do.
Edits go through the per-document state (`ide.state.DocumentState`), as in the server. Prints
medians in milliseconds. Run: python benchmarks/bench_analysis.py [--only structured ...]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import repeated_source  # noqa: E402
from corpus_kernels import GENERATORS  # noqa: E402

from wave_lsp.analysis.kernel_checks import facts  # noqa: E402
from wave_lsp.analysis.line_checks import check_line  # noqa: E402
from wave_lsp.ide.state import DocumentState  # noqa: E402
from wave_lsp.syntax.memo import clear_memos  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "wave-examples" / "gemm_blocked.wave"


def clear_caches() -> None:
    """Forget every line ever parsed or checked (a fresh process, without its start-up)."""
    clear_memos()
    for f in (check_line, facts):
        f.cache_clear()


def time_open(text: str, cold: bool) -> float:
    if cold:
        clear_caches()
    t = time.perf_counter()
    DocumentState("file:///bench.wave", text, 1).diagnostics()
    return time.perf_counter() - t


def edit_targets(state: DocumentState, limit: int) -> list[int]:
    """Lines of instructions with a register operand after a comma, spread over the first
    `limit` lines."""
    found = [i for i, line in enumerate(state.lines[:limit])
             if line.startswith("    ") and ", r" in line and not line.lstrip().startswith(";")]
    step = max(1, len(found) // 15)
    return found[::step][:15]


def time_edits(text: str, kind: str, limit: int) -> float:
    """Median time of one edit plus re-analysis, over edits spread in the first `limit` lines.
    `instruction`: a new immediate (the kernel's code changes); `comment`: a new trailing
    comment; `insert`/`delete`: a line added or removed (every later line moves)."""
    state = DocumentState("file:///bench.wave", text, 1)
    state.diagnostics()
    gc.freeze()           # what the host does after a large document's analysis (host.settle)
    samples = []
    version = 1
    for round_ in range(3):
        for n in edit_targets(state, limit):
            if n >= len(state.lines):
                continue    # deletions shortened the file
            line = state.lines[n]
            version += 1
            if kind == "instruction":     # the last register operand becomes another
                col = line.rindex(", r") + 3
                end = col
                while end < len(line) and line[end].isdigit():
                    end += 1
                edit = ((n, col), (n, end), str(8 + (version + n) % 40))
            elif kind == "comment":
                edit = ((n, len(line)), (n, len(line)), f" ; edit {version}")
            elif kind == "insert":
                edit = ((n, 0), (n, 0), f"    iadd r{version % 50}, r2, r3\n")
            else:
                edit = ((n - 1, 0), (n, 0), "")
            t = time.perf_counter()
            state.apply_edit(*edit, version)
            state.diagnostics()
            samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def report(name: str, make) -> None:
    ten_k = make(10_000)
    print(f"[{name}] open+analyse {ten_k.count(chr(10))} lines, cold caches: "
          f"{statistics.median(time_open(ten_k, True) for _ in range(3)) * 1e3:.0f} ms; "
          f"warm: {statistics.median(time_open(ten_k, False) for _ in range(3)) * 1e3:.0f} ms")
    big, small = make(20_000), make(20_000)
    small = "".join(small.splitlines(keepends=True)[:200])
    for kind in ("instruction", "comment", "insert", "delete"):
        t_big = time_edits(big, kind, 20_000)
        t_small = time_edits(small, kind, 200)
        print(f"[{name}] {kind} edit + re-analysis: {big.count(chr(10))} lines "
              f"{t_big * 1e3:.2f} ms, 200 lines {t_small * 1e3:.2f} ms, "
              f"ratio {t_big / t_small:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", type=Path, default=DEFAULT,
                        help="the kernel repeated for the cache-friendly case")
    parser.add_argument("--only", choices=(*GENERATORS, "repeated"), action="append",
                        help="run only these inputs (repeatable)")
    args = parser.parse_args()
    only = set(args.only or (*GENERATORS, "repeated"))
    for name, make in GENERATORS.items():
        if name in only:
            report(name, lambda n, make=make: make(n, 7))
    if "repeated" not in only:
        return
    if args.kernel.is_file():
        source = args.kernel.read_text()
        report(f"repeated {args.kernel.name}", lambda n: repeated_source(source, n))
    else:
        print(f"(repeated case skipped: {args.kernel} not found)")


if __name__ == "__main__":
    main()
