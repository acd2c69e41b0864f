"""A launch whose workgroups race (a vector add whose output overlaps the next workgroup's
input), as whole `wave-lsp run` commands beside upstream `wave-emu` on the same `.wbin`, and,
with `--before PATH`, another checkout of this project (there the race left the native core for
the numpy engine). Runs are interleaved (ours, upstream, before, ...) so that load on the machine
hits all alike; stdout must equal upstream's; wall time (median) and CPU time (user + system of
the child, median) per command; the engine as WAVE_LSP_SHOW_ENGINE=1 says, and the race warning.
Usage: python benchmarks/bench_races.py [--repeat N] [--before PATH] [--sizes 65536,1048576]
Needs ../shared/upstream/bin (wave-asm, wave-emu).
"""

from __future__ import annotations

import argparse
import os
import resource
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


def flags(n: int) -> list[str]:
    """c = a + b with c 1 KiB past b: workgroup k writes what workgroup k+1 reads as b."""
    size = 4 * n
    return ["--grid", f"{n // 256},1,1", "--device-memory", str(3 * size),
            "--fill-iota", f"0:f32:{n}:1", "--fill-iota", f"{size}:f32:{n}:2",
            "--set-reg", "0:0", "--set-reg", f"1:{size}", "--set-reg", f"2:{size + 1024}",
            "--dump-f32", f"{size + 1024 + 4 * (n - 4)}:4"]


def timed(words: list[str], env, cwd) -> tuple[float, float, str, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(words, env=env, capture_output=True, text=True, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{words[0]} failed: {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout, done.stderr


def compare_with_upstream(title, name: str, source: str, flags_of, doc: str = __doc__) -> None:
    """`wave-lsp run` of `source` against upstream's `wave-emu`, at each `--sizes` thread count
    (`flags_of(n)`: the launch), interleaved `--repeat` times: medians of wall and CPU, the
    engine each of ours ran on, whether it reported the race, and whether stdout equals
    upstream's; `--before` another checkout beside this one. `title(n)` heads each size; `doc`:
    the calling script's docstring, for `--help`."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout to compare with")
    parser.add_argument("--sizes", default="65536,1048576", help="threads per launch")
    args = parser.parse_args()
    if not (UPSTREAM / "wave-emu").is_file():
        raise SystemExit(f"upstream wave-emu not found in {UPSTREAM}")
    trees = {"ours": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, WAVE_LSP_THREADS="
          f"{os.environ.get('WAVE_LSP_THREADS', 'all')}; {args.repeat} interleaved runs each; "
          "medians of wall and CPU")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        wbin = upstream_wbin(tmp, name, source)
        for n in (int(s) for s in args.sizes.split(",")):
            argv = {who: [sys.executable, "-m", "wave_lsp.cli.main", "run", str(wbin),
                          *flags_of(n)] for who in trees}
            argv["upstream"] = [str(UPSTREAM / "wave-emu"), str(wbin), *flags_of(n)]
            env = {who: dict(os.environ, PYTHONPATH=str(tree), WAVE_LSP_SHOW_ENGINE="1")
                   for who, tree in trees.items()}
            walls = {who: [] for who in argv}
            cpus = {who: [] for who in argv}
            outputs, notes = {}, {}
            for _ in range(args.repeat):
                for who, words in argv.items():
                    wall, cpu, out, err = timed(words, env.get(who), tmp)
                    walls[who].append(wall)
                    cpus[who].append(cpu)
                    outputs[who] = out
                    engine = next((line[8:] for line in err.splitlines()
                                   if line.startswith("engine: ")), "-")
                    race = "race reported" if "data race" in err else "no race reported"
                    notes[who] = f"[{engine}; {race}]"
            up = statistics.median(walls["upstream"])
            print(f"{title(n)}:")
            for who in argv:
                wall, cpu = statistics.median(walls[who]), statistics.median(cpus[who])
                same = "" if outputs[who] == outputs["upstream"] else " OUTPUT DIFFERS"
                print(f"  {who:8} wall {wall:7.3f}s ({wall / up:5.2f}x upstream)  cpu {cpu:7.3f}s"
                      f"  {notes.get(who, '')}{same}", flush=True)


def main() -> None:
    compare_with_upstream(lambda n: f"racy vector add, {n:,} threads", "vec", VECTOR_ADD, flags)


if __name__ == "__main__":
    main()
