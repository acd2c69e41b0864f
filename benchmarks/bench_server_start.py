"""What one start of the language server costs, and one short `wave-lsp` command.

The test suite starts several hundred `wave-lsp serve` processes and many more short commands, so
their start-up is most of its CPU time. Each start here is the real process, as the tests start
it (`python -m wave_lsp serve` on stdio, the environment without `PYTHONMALLOC`, so the server
re-runs itself on the C allocator as it does for users): `initialize` sent at once, its answer
read, then `initialized`, `shutdown` and `exit`, and the process waited for. "fresh cache" gives
every start its own empty `XDG_CACHE_HOME` (pygls answers `initialize`: a test with its own cache
folder, or an editor's first start); "warm cache" reuses one (the answer comes from the stored
handshake, `server/handshake.py`). Also timed: `wave-lsp --help` and the 4-thread kernel of
`bench_emu.SMALL` through `wave-lsp run`.

Reports per workload the median wall time of the whole process, the median time to the
`initialize` answer (servers), and the median CPU time (user + system of the child and what it
ran, from the children's rusage) of --repeat starts. With `--before REV` the package of git
revision REV runs too, the two alternating so that load on the machine hits them alike; each
package is a copy with its bytecode compiled, as installed (`bench_startup.checkout`, `copy_of`),
and with `--cold` also one without any (every module compiled at each start: what a checkout
costs where `PYTHONDONTWRITEBYTECODE=1` is set and no `__pycache__` exists).

Usage: python benchmarks/bench_server_start.py [--before main] [--repeat 15] [--cold]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_emu import SMALL  # noqa: E402
from bench_startup import ROOT, TINY_FLAGS, packages_to_time  # noqa: E402

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"processId": None, "rootUri": None, "capabilities": {}}}


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream) -> dict:
    length = None
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    if length is None:
        raise SystemExit("the server ended before it answered initialize")
    return json.loads(stream.read(length))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def serve_once(env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds to the `initialize` answer and to the process's end, and its CPU seconds."""
    cpu, start = children_cpu(), time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "wave_lsp", "serve"], cwd=cwd, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdin.write(frame(INITIALIZE))
    proc.stdin.flush()
    answer = read_message(proc.stdout)
    answered = time.perf_counter() - start
    if "capabilities" not in answer.get("result", {}):
        raise SystemExit(f"initialize failed: {answer}")
    for message in ({"jsonrpc": "2.0", "method": "initialized", "params": {}},
                    {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
                    {"jsonrpc": "2.0", "method": "exit"}):
        proc.stdin.write(frame(message))
    proc.stdin.close()
    proc.stdout.read()
    stderr = proc.stderr.read()
    if proc.wait():
        raise SystemExit(f"the server exited with {proc.returncode}: {stderr.decode()}")
    return answered, time.perf_counter() - start, children_cpu() - cpu


def command_once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "wave_lsp", *argv], cwd=cwd, env=env,
                          capture_output=True)
    if done.returncode:
        raise SystemExit(f"{argv} failed: {done.stderr.decode()}")
    return float("nan"), time.perf_counter() - start, children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--before", metavar="REV", help="also time this git revision")
    parser.add_argument("--cold", action="store_true", help="also time them without bytecode")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        packages = packages_to_time(args.before, args.cold, tmp)
        (tmp / "tiny.wave").write_text(SMALL)
        base = {key: value for key, value in os.environ.items()
                if key not in ("PYTHONPATH", "PYTHONMALLOC", "XDG_CACHE_HOME")}
        base["PYTHONDONTWRITEBYTECODE"] = "1"
        envs = {who: dict(base, PYTHONPATH=str(package)) for who, package in packages.items()}
        fresh = iter(range(10 ** 9))

        def fresh_cache(env):
            return dict(env, XDG_CACHE_HOME=str(tmp / f"cache-{next(fresh)}"))

        warm = {who: dict(env, XDG_CACHE_HOME=str(tmp / f"warm-{who}"))
                for who, env in envs.items()}
        workloads = {
            "serve, fresh cache": lambda who: serve_once(fresh_cache(envs[who]), tmp),
            "serve, warm cache": lambda who: serve_once(warm[who], tmp),
            "--help": lambda who: command_once(["--help"], envs[who], tmp),
            "run tiny kernel": lambda who: command_once(["run", "tiny.wave", *TINY_FLAGS],
                                                         envs[who], tmp),
        }
        for who in packages:                  # the warm caches hold their answer first
            serve_once(warm[who], tmp)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load "
              f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; medians of {args.repeat} "
              f"alternating starts; seconds: to initialize answer / whole process / CPU")
        print(f"{'workload':22}" + "".join(f"{who:>26}" for who in packages))
        for name, once in workloads.items():
            figures: dict[str, list[tuple[float, float, float]]] = {who: [] for who in packages}
            for _ in range(args.repeat):
                for who in packages:
                    figures[who].append(once(who))
            cells = []
            for who in packages:
                answered, wall, cpu = (statistics.median(f[i] for f in figures[who])
                                       for i in range(3))
                first = "-" if answered != answered else f"{answered:.3f}"
                cells.append(f"{first} / {wall:.3f} / {cpu:.3f}")
            print(f"{name:22}" + "".join(f"{cell:>26}" for cell in cells), flush=True)


if __name__ == "__main__":
    main()
