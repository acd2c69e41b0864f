"""Launches that warn, stop at an error or carry a time limit and a cancel callback: what they
cost now that the native core reports them itself (before, each of them ran a second time on the
numpy engine, or on it alone), against upstream `wave-emu` and, with `--before PATH`, against
another checkout of this project (e.g. `git archive` of an earlier commit with its built core).

Whole commands (`wave-lsp run`, Python start-up included) are run in pairs with upstream's on
the same `.wbin`, interleaved (ours, upstream, before, ...) so that load on the machine hits all
alike; stdout must equal upstream's. The API workloads time `run()` in one process (the
editor's path: a time limit and a cancel callback, no printing; the kernels of
bench_initcheck.py), the fastest of N.
Usage: python benchmarks/bench_native_reports.py [--repeat N] [--before PATH]
Needs ../shared/upstream/bin (wave-asm, wave-emu).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream" / "bin"
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_emu import VECTOR_ADD  # noqa: E402  (base addresses in r0, r1, r2)
from bench_emu_upstream import upstream_wbin  # noqa: E402

N = 1 << 20
SIZE = 4 * N
# the vector add with its base registers set: clean; without them: every thread reads r0-r2
# before anything wrote them (three uninitialised_register warnings), as "print 1M" does
CLEAN = ["--grid", f"{N // 256},1,1", "--device-memory", str(3 * SIZE),
         "--fill-iota", f"0:f32:{N}:1", "--fill-iota", f"{SIZE}:f32:{N}:2",
         "--set-reg", "0:0", "--set-reg", f"1:{SIZE}", "--set-reg", f"2:{2 * SIZE}",
         "--dump-f32", f"{2 * SIZE + 4 * (N - 4)}:4"]
WARNS = ["--grid", f"{N // 256},1,1", "--device-memory", str(3 * SIZE),
         "--fill-iota", f"0:f32:{N}:1", "--dump-f32", f"{4 * (N - 4)}:4"]
PRINT = ["--device-memory", str(SIZE), "--fill-iota", f"0:f32:{N}:0.37", "--dump-f32", f"0:{N}"]
COMMANDS = {
    "vector add 1M (clean)": CLEAN,
    "vector add 1M, uninitialised reads": WARNS,
    "print 1M f32 (uninitialised reads)": PRINT,
}
API = """
import sys, time
sys.path.insert(0, sys.argv[3])
from bench_initcheck import gemm, vector_add
from wave_lsp.emu import RunOptions, prepare, run
source, launch = vector_add(1 << 16) if sys.argv[1] == "vector" else gemm(128)
prepared = prepare(source, launch)
options = RunOptions(time_limit=30.0, cancel=lambda: False)
best, engine = 1e9, None
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    report = run(prepared, options=options)
    best = min(best, time.perf_counter() - start)
    engine = report.engine + (f" ({report.fallback})" if report.fallback else "")
print(f"{best:.4f} {engine}")
"""
APIS = {"vector": "run() vector add 65,536 threads", "gemm": "run() gemm tiles N=128"}


def command(tree: Path, wbin: Path, flags: list[str]) -> list[str]:
    return [sys.executable, "-m", "wave_lsp.cli.main", "run", str(wbin), *flags]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout to compare with")
    args = parser.parse_args()
    if not (UPSTREAM / "wave-emu").is_file():
        raise SystemExit(f"upstream wave-emu not found in {UPSTREAM}")
    trees = {"ours": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {args.repeat} paired runs "
          "each; medians; engine as WAVE_LSP_SHOW_ENGINE=1 says")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        wbin = upstream_wbin(tmp, "vec", VECTOR_ADD)
        for name, flags in COMMANDS.items():
            argv = {who: command(tree, wbin, flags) for who, tree in trees.items()}
            argv["upstream"] = [str(UPSTREAM / "wave-emu"), str(wbin), *flags]
            env = {who: dict(os.environ, PYTHONPATH=str(tree)) for who, tree in trees.items()}
            times: dict[str, list[float]] = {who: [] for who in argv}
            outputs: dict[str, str] = {}
            for _ in range(args.repeat):
                for who, words in argv.items():
                    start = time.perf_counter()
                    done = subprocess.run(words, env=env.get(who), capture_output=True,
                                          text=True, cwd=tmp)
                    times[who].append(time.perf_counter() - start)
                    if done.returncode:
                        raise SystemExit(f"{who} failed on {name}: {done.stderr}")
                    outputs[who] = done.stdout
            up = statistics.median(times["upstream"])
            parts = [f"upstream {up:7.3f}s"]
            for who in trees:
                engine = subprocess.run(argv[who], env=dict(env[who], WAVE_LSP_SHOW_ENGINE="1"),
                                        capture_output=True, text=True, cwd=tmp).stderr
                engine = next((line[8:] for line in engine.splitlines()
                               if line.startswith("engine: ")), "-")
                mine = statistics.median(times[who])
                same = "" if outputs[who] == outputs["upstream"] else " OUTPUT DIFFERS"
                parts.append(f"{who} {mine:7.3f}s {mine / up:5.2f}x [{engine}]{same}")
            print(f"{name:36} " + "  ".join(parts), flush=True)
        for which, name in APIS.items():
            for who, tree in trees.items():
                done = subprocess.run([sys.executable, "-c", API, which, str(args.repeat),
                                       str(tree / "benchmarks")],
                                      env=dict(os.environ, PYTHONPATH=str(tree)),
                                      capture_output=True, text=True, check=True, cwd=tmp)
                best, engine = done.stdout.split(" ", 1)
                print(f"{name + ', time limit+cancel':44} {who:6} {float(best) * 1e3:8.2f} ms "
                      f"[{engine.strip()}]", flush=True)


if __name__ == "__main__":
    main()
