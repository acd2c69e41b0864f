"""Debugger speed, through the real `wave-lsp debug` subprocess and in-process.

Measures: launch to the first stop (stopOnEntry), one `next` (request to `stopped` event),
`continue` over a whole launch with no breakpoint and with a never-true conditional breakpoint
(wave-instructions per second), and the in-process `SteppingRun` against `run` on the same
launch. Workload: vector add (examples/vector_add.wave) over GRID workgroups of 256 threads.
Usage: python benchmarks/bench_debug.py [--repeat N] [--grid G]. One line per measurement.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "debug"))

from dap_client import DapClient  # noqa: E402
from wave_lsp.emu import RunOptions, run  # noqa: E402
from wave_lsp.launch.flags import build_launch, parse_launch_flags  # noqa: E402
from wave_lsp.emu.stepping import SteppingRun  # noqa: E402

PROGRAM = ROOT / "examples" / "vector_add.wave"


def flags(grid: int) -> list[str]:
    n = grid * 256
    return ["--grid", f"{grid},1,1", "--set-reg", "0:0", "--set-reg", f"1:{4 * n}",
            "--set-reg", f"2:{8 * n}", "--device-memory", str(12 * n),
            "--fill-iota", f"0:f32:{n}:1", "--fill-iota", f"{4 * n}:f32:{n}:2"]


def session(args, **start):
    client = DapClient(cwd=ROOT)
    began = time.perf_counter()
    client.start(PROGRAM, args=args, **start)
    return client, began


def first_stop(args) -> float:
    client, began = session(args, stop_on_entry=True)
    client.stopped()
    elapsed = time.perf_counter() - began
    client.close()
    return elapsed


def steps(args, count: int) -> list[float]:
    client, _ = session(args, stop_on_entry=True)
    thread = client.stopped()["threadId"]
    times = []
    for _ in range(count):
        began = time.perf_counter()
        client.request("next", {"threadId": thread})
        stop = client.stopped()
        times.append(time.perf_counter() - began)
        thread = stop["threadId"]
    client.close()
    return times


def whole_run(args, conditions=None) -> float:
    breakpoints = [23] if conditions else []
    client, _ = session(args, breakpoints=breakpoints,
                        conditions={23: conditions} if conditions else None)
    began = time.perf_counter()           # configurationDone was the last request
    client.wait_event("terminated", timeout=600)
    elapsed = time.perf_counter() - began
    client.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--grid", type=int, default=16)
    options = parser.parse_args()
    args = flags(options.grid)
    launch = build_launch(parse_launch_flags(args))
    report = run(PROGRAM.read_text(), launch, RunOptions(engine="numpy"))
    total = report.stats.total
    print(f"workload: vector add, {options.grid} workgroups x 256 threads, "
          f"{total} wave-instructions")
    times = [first_stop(args) for _ in range(options.repeat)]
    print(f"launch -> first stop (stopOnEntry), median: {statistics.median(times) * 1000:.0f} ms")
    times = steps(args, 50)
    print(f"next -> stopped, median of 50: {statistics.median(times) * 1000:.2f} ms")
    for name, conditions in (("no breakpoint", None),
                             ("never-true condition", {"condition": "r9 == 12345"})):
        times = [whole_run(args, conditions) for _ in range(options.repeat)]
        best = min(times)
        print(f"configurationDone to the end of the run, {name}: {best * 1000:.0f} ms "
              f"({total / best / 1e6:.2f} M wave-instructions/s)")
    source = PROGRAM.read_text()
    began = time.perf_counter()
    SteppingRun(source, launch).run_to_end()
    stepping = time.perf_counter() - began
    began = time.perf_counter()
    run(source, launch, RunOptions(engine="numpy"))
    batched = time.perf_counter() - began
    print(f"in-process: SteppingRun {stepping * 1000:.1f} ms, run {batched * 1000:.1f} ms "
          f"({stepping / batched:.1f}x)")


if __name__ == "__main__":
    main()
