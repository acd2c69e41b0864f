"""The native core on every core: `wave-lsp run` with `WAVE_LSP_THREADS=1` (one workgroup at a
time) against the default (every core this process may use), beside upstream `wave-emu`.

Each workload runs the three commands on the same `.wbin` (bench_emu_upstream's workloads) in
rounds (one thread, all cores, upstream, ...) so that load on the machine hits them alike; the
outputs of our two runs must be equal (and equal upstream's). Prints per command the median wall
and best wall time (the best is the round least disturbed by other load on the machine), the
median CPU time (user + system, of the child), the speed-up of all cores over one thread (of the
medians and of the bests), the lane-instructions (`--stats`' wave-instructions x 32 lanes) and lane-instructions
per second of each (at the best wall time), and the engine line (`WAVE_LSP_SHOW_ENGINE=1`, which names the threads).
First the launch alone, in-process (`pipeline.run` on the native core, warm, no start-up or
assembly): gemm_blocked N=256 and N=512 with one thread and with all cores, alternately; CPU time
is the process's (every thread's).
Usage: python benchmarks/bench_threads.py [--repeat N] [--only NAME]
Needs ../shared/upstream/bin (wave-asm, wave-emu) and the native core built.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_emu import gemm_launch  # noqa: E402
from bench_emu_upstream import EXAMPLES, UPSTREAM, workloads  # noqa: E402

WAVE_WIDTH = 32                       # the workloads' waves (the default width)


def run_once(argv: list[str], env: dict, cwd: Path) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system) and stdout of one command (os.wait4)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode:
            raise SystemExit(f"{argv[0]} failed: {err.read()}")
        return wall, usage.ru_utime + usage.ru_stime, out.read()


def in_process(repeat: int) -> None:
    """The launch alone, in-process, one thread against all cores (see the module doc)."""
    import numpy as np

    from wave_lsp.asm import assemble
    from wave_lsp.emu import RunOptions, run

    program = assemble((EXAMPLES / "gemm_blocked.wave").read_text())
    options = RunOptions(engine="native", max_instructions=0)
    rng = np.random.default_rng(1)
    for n in (256, 512):
        a = rng.uniform(-1, 1, (n, n)).astype("<f4")
        b = rng.uniform(-1, 1, (n, n)).astype("<f4")
        launch = gemm_launch(n, a, b)
        walls: dict[str, list[float]] = {"1": [], "all": []}
        cpus: dict[str, list[float]] = {"1": [], "all": []}
        results, threads, lanes = {}, {}, 0
        for _ in range(repeat):
            for who in walls:
                if who == "1":
                    os.environ["WAVE_LSP_THREADS"] = "1"
                else:
                    os.environ.pop("WAVE_LSP_THREADS", None)
                wall, cpu = time.perf_counter(), time.process_time()
                report = run(program, launch, options)
                walls[who].append(time.perf_counter() - wall)
                cpus[who].append(time.process_time() - cpu)
                results[who] = bytes(report.device)
                threads[who] = report.threads
                lanes = report.stats.total * WAVE_WIDTH
        os.environ.pop("WAVE_LSP_THREADS", None)
        wall = {who: statistics.median(v) for who, v in walls.items()}
        best = {who: min(v) for who, v in walls.items()}
        cpu = {who: statistics.median(v) for who, v in cpus.items()}
        print(f"in-process gemm_blocked N={n}: {lanes:,} lane-instructions"
              + ("" if results["1"] == results["all"] else "  MEMORY DIFFERS"))
        for who in walls:
            print(f"  {threads[who]} thread(s) {wall[who]:7.3f} s wall (best {best[who]:.3f} s) "
                  f"{cpu[who]:7.3f} s CPU  {lanes / best[who] / 1e6:8.0f} M lane-instructions/s")
        print(f"  all cores / 1 thread: {wall['1'] / wall['all']:.2f}x faster "
              f"(bests: {best['1'] / best['all']:.2f}x)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", help="run the workloads whose name contains this")
    args = parser.parse_args()
    if not (UPSTREAM / "wave-emu").is_file():
        raise SystemExit(f"upstream wave-emu not found in {UPSTREAM}")
    compileall.compile_dir(str(ROOT / "wave_lsp"), quiet=1)
    ours = [sys.executable, "-m", "wave_lsp.cli.main", "run"]
    base = {k: v for k, v in os.environ.items() if k != "WAVE_LSP_THREADS"}
    base["PYTHONPATH"] = str(ROOT)
    envs = {"1 thread": dict(base, WAVE_LSP_THREADS="1"), "all cores": base, "upstream": base}
    load = os.getloadavg()
    print(f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{args.repeat} rounds each; medians (wall / CPU)")
    in_process(args.repeat)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for name, (wbin, flags) in workloads(tmp).items():
            if wbin is None or (args.only and args.only not in name):
                continue
            commands = {"1 thread": ours + [str(wbin)] + flags,
                        "all cores": ours + [str(wbin)] + flags,
                        "upstream": [str(UPSTREAM / "wave-emu"), str(wbin)] + flags}
            probe = subprocess.run(commands["all cores"] + ["--stats"],
                                   env=dict(base, WAVE_LSP_SHOW_ENGINE="1"),
                                   capture_output=True, text=True, cwd=tmp)
            engine = next((line[len("engine: "):] for line in probe.stderr.splitlines()
                           if line.startswith("engine: ")), "-")
            found = re.search(r"Instructions executed: (\d+)", probe.stdout)
            lanes = int(found.group(1)) * WAVE_WIDTH if found else 0
            walls: dict[str, list[float]] = {who: [] for who in commands}
            cpus: dict[str, list[float]] = {who: [] for who in commands}
            outputs: dict[str, str] = {}
            for _ in range(args.repeat):
                for who, argv in commands.items():
                    wall, cpu, out = run_once(argv, envs[who], tmp)
                    walls[who].append(wall)
                    cpus[who].append(cpu)
                    outputs[who] = out
            same = len(set(outputs.values())) == 1
            wall = {who: statistics.median(v) for who, v in walls.items()}
            best = {who: min(v) for who, v in walls.items()}
            cpu = {who: statistics.median(v) for who, v in cpus.items()}
            print(f"{name}: {lanes:,} lane-instructions; engine: {engine}"
                  + ("" if same else "  OUTPUTS DIFFER"))
            for who in commands:
                print(f"  {who:10} {wall[who]:7.3f} s wall (best {best[who]:.3f} s) "
                      f"{cpu[who]:7.3f} s CPU  {lanes / best[who] / 1e6:8.0f} M lane-instructions/s")
            print(f"  all cores / 1 thread: {wall['1 thread'] / wall['all cores']:.2f}x faster "
                  f"(bests: {best['1 thread'] / best['all cores']:.2f}x); upstream / all cores: "
                  f"{wall['upstream'] / wall['all cores']:.2f}x", flush=True)


if __name__ == "__main__":
    main()
