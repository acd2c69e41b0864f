"""The write log's cost and who-wrote's speed (targets: recording at most 1.3x the plain run of
the same engine; whoWrote p95 at most 50 ms on a recorded gemm_blocked N=128).

- recording, per engine: `run(asm, launch, RunOptions(engine=E))` against the same with
  `write_log=True`, paired and alternating, in process; the native core's plain run is shown
  both on one thread (as it records: the log follows one order) and on the threads it picks
  (`WAVE_LSP_THREADS`), and against a recording that keeps the values during the run
  (`record_values=True`; by default the core logs rows and masks and the first answer rebuilds
  the values by running again); the numpy engine records through its observed loop;
- whoWrote: on the native recording, `Provenance` built once, then `--queries` answers drawn
  at random (seeded): half register lanes at executed lines (register, thread, line), half
  device words of C; p50 and p95 of each answer's wall time (the index the first answers build,
  and the values the first one rebuilds, are counted in them; the first is also shown alone).
Wall time and the process's CPU time (steadier on a shared machine) are both shown.
- through the server (`--server`): `wave-lsp.whoWrote` on the editor's document of
  bench_editor_gemm.py (A and B filled in place) after its ▶ Run, whose inline run holds the
  recording: `--queries` / 4 requests, the same mix, each timed from request to answer.
The kernel and its launch are those of ../shared/wave-examples/INDEX.md (random A and B) at
N = 128 (one 16x16 workgroup). Usage: python benchmarks/bench_why.py [--repeat 5] [--n 128]
[--queries 400] [--server]. Needs ../shared/wave-examples.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_emu import EXAMPLES, gemm_launch  # noqa: E402

import numpy as np  # noqa: E402

from wave_lsp.asm import assemble  # noqa: E402
from wave_lsp.emu import RunOptions, prepare, run  # noqa: E402
from wave_lsp.emu.provenance import Provenance  # noqa: E402


def paired(plain, recorded, repeat: int, clock=time.perf_counter):
    a, b = [], []
    plain(), recorded()                                    # warm
    for _ in range(repeat):
        for fn, out in ((plain, a), (recorded, b)):
            start = clock()
            fn()
            out.append(clock() - start)
    return a, b


def show(what: str, a: list[float], b: list[float]) -> None:
    ratios = [y / x for x, y in zip(a, b)]
    print(f"{what:<40} plain median {statistics.median(a) * 1e3:.1f} ms | recorded median "
          f"{statistics.median(b) * 1e3:.1f} ms | ratio median {statistics.median(ratios):.2f}x "
          f"(best/best {min(b) / min(a):.2f}x)")


def both(what: str, plain, recorded, repeat: int) -> None:
    """Wall time, then the process's CPU time (steadier on a shared machine)."""
    show(what + ", wall", *paired(plain, recorded, repeat))
    show(what + ", CPU", *paired(plain, recorded, repeat, time.process_time))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--n", type=int, default=128)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--server", action="store_true", help="also through the real server")
    args = parser.parse_args()
    source = EXAMPLES / "gemm_blocked.wave"
    if not source.is_file():
        raise SystemExit(f"{source} not found (needs ../shared/wave-examples)")
    n = args.n
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (n, n)).astype("<f4")
    b = rng.uniform(-1, 1, (n, n)).astype("<f4")
    prepared = prepare(assemble(source.read_text()), gemm_launch(n, a, b))

    for engine, repeat in (("native", args.repeat), ("numpy", max(1, args.repeat // 2))):
        plain = RunOptions(engine=engine)
        recorded = RunOptions(engine=engine, write_log=True)
        if engine == "native":
            threads = os.environ.get("WAVE_LSP_THREADS")
            os.environ["WAVE_LSP_THREADS"] = "1"
            both("native, plain on 1 thread", lambda: run(prepared, options=plain),
                 lambda: run(prepared, options=recorded), repeat)
            kept = RunOptions(engine=engine, write_log=True, record_values=True)
            both("native, values kept (record_values)", lambda: run(prepared, options=plain),
                 lambda: run(prepared, options=kept), repeat)
            if threads is None:
                del os.environ["WAVE_LSP_THREADS"]
            else:
                os.environ["WAVE_LSP_THREADS"] = threads
        both(engine + (", plain on its threads" if engine == "native" else ""),
             lambda: run(prepared, options=plain), lambda: run(prepared, options=recorded),
             repeat)

    report = run(prepared, options=RunOptions(engine="native", write_log=True))
    log = report.write_log
    held = len(log.rows) + len(log.masks)
    print(f"log: {len(log.rows) // 32:,} steps, {log.used / (1 << 20):.1f} MiB with its values "
          f"({held / (1 << 20):.1f} MiB of rows and masks before the first answer)")
    provenance = Provenance(report, prepared)
    pick = random.Random(7)
    rows = np.frombuffer(log.rows, dtype=np.int64).reshape(-1, 4)
    lines = sorted({ins.line for ins in prepared.kernel.instructions if ins.line is not None
                    and (rows[:, 0] == prepared.kernel.instructions.index(ins)).any()})
    threads = prepared.geometry.threads_per_wg * prepared.geometry.workgroup_count
    c = 8 * n * n
    times = []
    for q in range(args.queries):
        start = time.perf_counter()
        if q % 2:
            provenance.register(f"r{pick.randrange(6, 96)}", pick.randrange(threads),
                                pick.choice(lines))
        else:
            provenance.address(c + 4 * pick.randrange(n * n))
        times.append(time.perf_counter() - start)
    first = times[0]
    times.sort()
    p50, p95 = times[len(times) // 2], times[int(len(times) * 0.95)]
    print(f"whoWrote over {args.queries} answers: p50 {p50 * 1e3:.1f} ms, p95 "
          f"{p95 * 1e3:.1f} ms, max {times[-1] * 1e3:.1f} ms; the first (values rebuilt) "
          f"{first * 1e3:.1f} ms")
    if args.server:
        import asyncio
        asyncio.run(through_server(max(20, args.queries // 4), lines))


async def through_server(count: int, lines: list[int]) -> None:
    """`wave-lsp.whoWrote` requests to a real server after a ▶ Run of the editor's document
    (the shared kernel with a launch line above `.kernel`: its lines one further down)."""
    from bench_editor_gemm import N as EDITOR_N, URI, document, open_session
    text, kernel, _, _ = document()
    session = await open_session(text)
    ran = await session.request("workspace/executeCommand", {
        "command": "wave-lsp.run", "arguments": [URI, kernel, None]})
    assert ran.get("ok"), ran
    pick, times = random.Random(11), []
    for q in range(count):
        target = {"register": f"r{pick.randrange(6, 96)}", "lane": pick.randrange(256),
                  "line": pick.choice(lines) + 1} if q % 2 else \
            {"address": 8 * EDITOR_N * EDITOR_N + 4 * pick.randrange(EDITOR_N * EDITOR_N)}
        start = time.perf_counter()
        got = await session.request("workspace/executeCommand", {
            "command": "wave-lsp.whoWrote", "arguments": [URI, kernel, None, target]})
        times.append(time.perf_counter() - start)
        assert "inputs" in got or got.get("ok") is False, got
    await session.stop()
    times.sort()
    print(f"whoWrote through the server, {count} requests: p50 "
          f"{times[len(times) // 2] * 1e3:.1f} ms, p95 {times[int(len(times) * 0.95)] * 1e3:.1f} "
          f"ms, max {times[-1] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
