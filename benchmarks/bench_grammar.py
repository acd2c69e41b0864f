"""What building the grammar at every start costs, now that it is never unpickled from disk.

    python benchmarks/bench_grammar.py [--repeat 20]

Prints the median time to compile the Parsimonious grammar in process, what loading the same
grammar from a pickle took (the disk cache wave-lsp used to keep, measured here from memory
only), and the median wall time of a whole `wave-lsp lint` command on a small file.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from parsimonious.grammar import Grammar

from wave_lsp.syntax.grammar import grammar_text


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    text = grammar_text()
    build = median_ms(lambda: Grammar(text), args.repeat)
    data = pickle.dumps(Grammar(text))
    load = median_ms(lambda: pickle.loads(data), args.repeat)
    print(f"grammar build: {build:.1f} ms median; unpickling it instead: {load:.2f} ms "
          f"({len(data)} bytes)")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "k.wave"
        source.write_text(".kernel k\n    iadd r1, r2, r3\n    halt\n.end\n")
        command = [sys.executable, "-m", "wave_lsp", "lint", str(source)]
        walls = []
        for _ in range(max(5, args.repeat // 4)):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            walls.append((time.perf_counter() - start) * 1000)
    print(f"`wave-lsp lint` on a 4-line file: {statistics.median(walls):.0f} ms median wall time "
          f"(of {len(walls)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
