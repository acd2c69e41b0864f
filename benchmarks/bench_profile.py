"""The kernel profile's cost (target: `--profile` at most 2x a plain run of gemm_blocked
N=256): paired runs, plain and profiled alternating, same process setup.

- whole command: `wave-lsp run gemm_blocked.wave FLAGS` against `... FLAGS --profile` (default
  target; the table goes to /dev/null), each a fresh process;
- in process, native core: `run(asm, launch, RunOptions(engine="native"))` against the same
  with `profile=True` plus `profile_for` (what the command does);
- in process, numpy engine: the same with `engine="numpy"`.
The kernel and its flags are those of ../shared/wave-examples/INDEX.md at N = 256 (grid 2x2).
Usage: python benchmarks/bench_profile.py [--repeat N] [--n 256]. Prints best and median of each
and the median of the per-pair ratios; in process both in wall time and in the process's CPU
time (steadier on a shared machine).
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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_emu import EXAMPLES, gemm_files, gemm_flags, gemm_launch  # noqa: E402

from wave_lsp.asm import assemble  # noqa: E402
from wave_lsp.emu import EngineUnavailable, RunOptions, run  # noqa: E402
from wave_lsp.emu.profile import profile_for  # noqa: E402


def paired(plain, profiled, repeat: int, clock=time.perf_counter):
    a, b = [], []
    plain(), profiled()                                  # warm
    for _ in range(repeat):
        for fn, out in ((plain, a), (profiled, b)):
            start = clock()
            fn()
            out.append(clock() - start)
    return a, b


def report(what: str, a: list[float], b: list[float]) -> None:
    ratios = [y / x for x, y in zip(a, b)]
    print(f"{what:<28} plain best {min(a):.3f} s median {statistics.median(a):.3f} s | "
          f"--profile best {min(b):.3f} s median {statistics.median(b):.3f} s | "
          f"ratio median {statistics.median(ratios):.2f}x (best/best {min(b) / min(a):.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--n", type=int, default=256)
    args = parser.parse_args()
    n, repeat = args.n, args.repeat
    gemm = EXAMPLES / "gemm_blocked.wave"
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        a, b = gemm_files(tmp, n)
        command = [sys.executable, "-m", "wave_lsp.cli.main", "run", str(gemm),
                   *gemm_flags(tmp, n)]
        env = dict(os.environ, PYTHONPATH=str(ROOT))

        def whole(extra):
            def go():
                subprocess.run(command + extra, env=env, check=True,
                               stdout=subprocess.DEVNULL)
            return go
        report(f"whole command N={n}", *paired(whole([]), whole(["--profile"]), repeat))

        asm = assemble(gemm.read_text())
        launch = gemm_launch(n, a, b)
        for engine in ("native", "numpy"):
            plain = RunOptions(engine=engine)
            profiled = RunOptions(engine=engine, profile=True)
            try:
                run(asm, launch, plain)
            except EngineUnavailable as err:
                print(f"{engine}: not available for this launch ({err.reason})")
                continue
            for clock, what in ((time.perf_counter, "wall"), (time.process_time, "cpu")):
                report(f"{engine} engine N={n} ({what})", *paired(
                    lambda: run(asm, launch, plain),
                    lambda: profile_for(run(asm, launch, profiled).profile), repeat, clock))
        record = run(asm, launch, RunOptions(engine="numpy", profile=True)).profile
        start = time.perf_counter()
        for target in ("default", "ptx", "hip-cdna", "hip-rdna", "metal", "sycl"):
            profile_for(record, target)
        print(f"every preset from one record: {time.perf_counter() - start:.3f} s "
              f"({sum(len(x.patterns) for x in record.accesses.values())} distinct access "
              "patterns)")


if __name__ == "__main__":
    main()
