"""Benchmark `wave-lsp test` on a folder of kernel-test files, serial and parallel.

    python benchmarks/bench_kernel_tests.py [--files 40] [--repeat 3] [--jobs 1,2]

The folder holds `--files` files, copies of the project's examples (each with its kernel test,
every fourth one failing, explained from its one run). Each figure is the median wall
time of `--repeat` runs of the real command, `--jobs N` each; plus the in-process time of one
warm test (`ide.kernel_tests.run_test`) for scale. Prints one line per figure.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_folder(folder: Path, count: int) -> int:
    """`count` test files in `folder`; returns how many of them fail."""
    examples = sorted((ROOT / "examples").glob("*.wave"))
    failing = 0
    for n in range(count):
        text = examples[n % len(examples)].read_text()
        if n % 4 == 3:                       # a wrong first expectation
            marker = "; wave-lsp expect: "
            at = text.index(marker) + len(marker)
            end = text.index("\n", at)
            text = text[:at] + "12345" + text[end:]
            failing += 1
        (folder / f"k{n:03}_{examples[n % len(examples)].name}").write_text(text)
    return failing


def time_command(folder: Path, jobs: int, repeat: int, failing: int) -> list[float]:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "wave_lsp", "test", "--jobs", str(jobs),
                            str(folder)], capture_output=True, text=True)
        times.append(time.perf_counter() - began)
        assert r.returncode == (1 if failing else 0), r.stdout + r.stderr
        assert r.stdout.count("FAIL kernel") == failing, r.stdout
    return times


def in_process() -> float:
    from wave_lsp.ide.kernel_tests import discover, run_test
    path = ROOT / "examples" / "vector_add.wave"
    text = path.read_text()
    [test] = discover(text)
    run_test(text, test, path=path)                         # warm
    times = []
    for _ in range(10):
        began = time.perf_counter()
        assert run_test(text, test, path=path).passed
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", default="1,2", help="comma-separated --jobs values")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        failing = make_folder(folder, args.files)
        for jobs in (int(j) for j in args.jobs.split(",")):
            times = time_command(folder, jobs, args.repeat, failing)
            print(f"wave-lsp test, {args.files} files ({failing} failing), --jobs {jobs}: "
                  f"median {statistics.median(times):.2f} s (min {min(times):.2f} s)")
    print(f"one warm test in process (vector_add, 1024 threads): {in_process() * 1000:.1f} ms")


if __name__ == "__main__":
    main()
