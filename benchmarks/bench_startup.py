"""`wave-lsp run` start-up: `--help` and a tiny kernel, before and after a change, beside upstream.

Times whole commands through the `wave-lsp` console script (the entry point users run:
`wave_lsp.cli.main:main`, here the running venv's script with `PYTHONPATH` naming the copy of the
package it should import): `run --help`, `--version`, and the 4-thread, 30-instruction kernel of
`bench_emu.SMALL` run from its `.wave` source and from its `.wbin` (assembled by upstream
`wave-asm`), beside upstream `wave-emu --help` and `wave-emu` on that `.wbin` with the same flags
(stdout must be equal; for the source, `wave-asm` then `wave-emu`). With `--before REV` the
package of git revision REV (a `git archive`, with this checkout's native core, so REV must have
the same C sources) runs too; the commands alternate (before, after, upstream, before, ...) so
that load on the machine hits them alike. Reports the median wall time and the median CPU time
(user + system of the child) of `--repeat` runs each.

Each package is a copy in a temporary folder with its grammar inside (`wave_lsp/grammar`, as a
wheel has it), timed with its bytecode compiled, as an installed package has it, and with
`--cold` also without any (each module compiled at every start, as under
PYTHONDONTWRITEBYTECODE with no `__pycache__`).
Usage: python benchmarks/bench_startup.py [--before main] [--repeat 15] [--cold]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream" / "bin"
SCRIPT = Path(sys.executable).with_name("wave-lsp")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_emu import SMALL  # noqa: E402

TINY_FLAGS = ["--device-memory", "64", "--dump-u32", "0:4"]


def checkout(rev: str, into: Path) -> Path:
    """The package of git revision `rev` in `into`, with this checkout's native core."""
    native = "wave_lsp/emu/native"
    differs = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", rev, "--",
                              f"{native}/*.c", f"{native}/*.h"])
    if differs.returncode:
        raise SystemExit(f"{rev} has other C sources than this checkout: build its core first")
    into.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "wave_lsp", "grammar"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for core in (ROOT / native).glob("_wavecore*.so"):
        shutil.copy2(core, into / native)
    return into


def copy_of(tree: Path, into: Path, compiled: bool) -> Path:
    """A copy of `tree`'s package in `into` (the grammar inside), its bytecode compiled or none
    at all."""
    shutil.copytree(tree / "wave_lsp", into / "wave_lsp",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(tree / "grammar", into / "wave_lsp" / "grammar",
                    ignore=shutil.ignore_patterns("__pycache__"))
    if compiled:
        compileall.compile_dir(str(into / "wave_lsp"), quiet=1)
    return into


def packages_to_time(before: str | None, cold: bool, tmp: Path) -> dict[str, Path]:
    """The packages a start-up benchmark times, by name: this checkout's ("after"), git
    revision `before`'s ("before") when given, each also without bytecode ("… cold") when
    `cold`."""
    trees = {"after": ROOT}
    if before:
        trees = {"before": checkout(before, tmp / "rev"), "after": ROOT}
    packages = {}
    for who, tree in trees.items():
        packages[who] = copy_of(tree, tmp / who, compiled=True)
        if cold:
            packages[f"{who} cold"] = copy_of(tree, tmp / f"{who}-cold", compiled=False)
    return packages


def timed(argvs: list[list[str]], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of commands run one after another, and the last one's stdout (an
    error ends the benchmark)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for argv in argvs:
        done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"{argv} failed: {done.stderr}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--before", metavar="REV", help="also time this git revision")
    parser.add_argument("--cold", action="store_true",
                        help="also time both without bytecode")
    args = parser.parse_args()
    if not (UPSTREAM / "wave-emu").is_file():
        raise SystemExit(f"upstream wave-emu not found in {UPSTREAM}")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        ours = packages_to_time(args.before, args.cold, tmp)
        (tmp / "tiny.wave").write_text(SMALL)
        subprocess.run([str(UPSTREAM / "wave-asm"), str(tmp / "tiny.wave"), "-o",
                        str(tmp / "tiny.wbin")], check=True, capture_output=True)
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        env["PYTHONDONTWRITEBYTECODE"] = "1"   # the cold copies stay cold
        emu, asm = str(UPSTREAM / "wave-emu"), str(UPSTREAM / "wave-asm")
        # name: (our argv, upstream's commands, whether stdout must equal upstream's)
        workloads = {"run --help": (["run", "--help"], [[emu, "--help"]], False),
                     "--version": (["--version"], [[emu, "--version"]], False),
                     "tiny kernel .wave": (["run", "tiny.wave", *TINY_FLAGS],
                                           [[asm, "tiny.wave", "-o", "up.wbin"],
                                            [emu, "up.wbin", *TINY_FLAGS]], True),
                     "tiny kernel .wbin": (["run", "tiny.wbin", *TINY_FLAGS],
                                           [[emu, "tiny.wbin", *TINY_FLAGS]], True)}
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load "
              f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; through {SCRIPT}; "
              f"medians of {args.repeat} alternating runs, wall / CPU")
        print(f"{'workload':20}" + "".join(f"{who:>20}" for who in [*ours, "upstream"]))
        for name, (argv, upstream_argvs, compared) in workloads.items():
            commands = {who: ([[str(SCRIPT), *argv]], dict(env, PYTHONPATH=str(tree)))
                        for who, tree in ours.items()}
            commands["upstream"] = (upstream_argvs, env)
            walls: dict[str, list[float]] = {who: [] for who in commands}
            cpus: dict[str, list[float]] = {who: [] for who in commands}
            outputs = {}
            for _ in range(args.repeat):
                for who, (command, who_env) in commands.items():
                    wall, cpu, outputs[who] = timed(command, who_env, tmp)
                    walls[who].append(wall)
                    cpus[who].append(cpu)
            ours_out = {outputs[who] for who in ours}
            same = len(ours_out) == 1 and (not compared or ours_out == {outputs["upstream"]})
            cells = [f"{statistics.median(walls[who]):7.3f} / {statistics.median(cpus[who]):.3f}"
                     for who in [*ours, "upstream"]]
            print(f"{name:20}" + "".join(f"{cell:>20}" for cell in cells)
                  + ("" if same else "  OUTPUT DIFFERS"), flush=True)


if __name__ == "__main__":
    main()
