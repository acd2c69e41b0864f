"""Benchmark: `wave-lsp verify` per kernel (targets: median ≤ 1 s, none over 10 s) over the
verifier's corpus (tests/verify/corpus/), the project's examples and the 16 shared kernels
(`../shared/wave-examples/`, left out where absent). Each kernel is verified `--repeat` times
(the solver's work only: no witness replay); prints one line per kernel (the solver's verdict,
median and max seconds) and the overall median and max, and the corpus's decided share and
wrong `proved` count as `wave-lsp verify` gives them, witnesses replayed (its `; verify:`
annotations are the truth).

Usage: python benchmarks/bench_verify.py [--repeat R] [--only corpus|examples|shared]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wave_lsp.analysis.verify import verify_kernel  # noqa: E402
from wave_lsp.launch.verify import geometry_for, verify_source  # noqa: E402
from wave_lsp.syntax.document import Document  # noqa: E402

SETS = {"corpus": ROOT / "tests" / "verify" / "corpus", "examples": ROOT / "examples",
        "shared": ROOT.parent / "shared" / "wave-examples"}


def _flags(text: str) -> dict[str, str]:
    for line in text.splitlines():
        if line.startswith("; verify-flags: "):
            words = shlex.split(line.split(": ", 1)[1])
            return dict(zip(words[::2], words[1::2]))
    return {}


def _truth(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith("; verify: "):
            return line.split(": ", 1)[1].strip()
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=sorted(SETS))
    args = parser.parse_args()
    times, decided, wrong, corpus = [], 0, 0, 0
    for name, folder in SETS.items():
        if args.only and name != args.only:
            continue
        if not folder.is_dir():
            print(f"{name}: {folder} is absent, left out")
            continue
        for path in sorted(folder.glob("*.wave")):
            text = path.read_text(encoding="utf-8")
            program = Document(text).program
            lines = text.splitlines()
            for kernel in program.kernels:
                geometry = geometry_for(kernel, lines, _flags(text))
                runs = [verify_kernel(kernel, geometry) for _ in range(args.repeat)]
                secs = [v.elapsed for v in runs]
                times.append(statistics.median(secs))
                verdict = runs[0].verdict
                print(f"{name}/{path.name} {kernel.name}: {verdict:<10} median "
                      f"{statistics.median(secs):.3f} s, max {max(secs):.3f} s")
                if name == "corpus":     # the verdict as `wave-lsp verify` gives it (replayed)
                    final = verify_source(text, program, _flags(text), kernel.name)[0][0]
                    corpus += 1
                    decided += final.verdict != "unknown"
                    wrong += final.verdict == "proved" and _truth(text) != "proved"
    print(f"all kernels: {len(times)}, median {statistics.median(times):.3f} s, "
          f"max {max(times):.3f} s, over 10 s: {sum(t > 10 for t in times)}")
    if corpus:
        print(f"corpus: {decided}/{corpus} decided ({100 * decided / corpus:.0f} %), "
              f"wrong proved: {wrong} (the replays are in tests/verify/test_verify_corpus.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
