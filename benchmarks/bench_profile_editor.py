"""Benchmark: an edit to the refreshed kernel profile in the editor (DESIGN.md §5: ≤ 250 ms for
kernels of up to 10^6 lane-instructions).

    python benchmarks/bench_profile_editor.py [--repeat 15] [--sizes 1e4,1e5,1e6]

Through the real `wave-lsp serve` subprocess (`raw_session.RawSession`: plain `json`, as an
editor parses): a document whose kernel is profiled with `wave-lsp.profile` (once, warm), then
`--repeat` one-character edits of a constant that changes neither the path nor the addresses;
each is timed from the `didChange` to the first `wave-lsp/profileChanged` notification of its
version (the heat view's and the hints' refresh: the profile run, the launch's own preset, JSON
written) and to the second (every vendor's preset too: the hover's table), the server's default
debounce (30 ms) included. Two shapes per size: "wide" (many threads, a few
instructions each: one step of the emulator serves many lanes) and "deep" (256 threads in a
loop: many steps, the per-step cost dominates). The same edits with the kernel only run
(`wave-lsp.run`, the inline values) give the baseline of an editor refresh without the profile.
Prints one line per figure: median, min and max in ms and the kernel's lane-instructions.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_session import RawSession  # noqa: E402

URI = "file:///bench/profile.wave"
BODY = """\
; wave-lsp run: --grid {grid},1,1 --workgroup 256,1,1 --device-memory {memory}
.kernel work
.registers 16
.workgroup_size 256, 1, 1
.local_memory 2048

    mov_sr  r0, sr_thread_id_x
    mov_sr  r1, sr_workgroup_id_x
    mov_imm r2, 4
    mov_imm r13, 256
    imad    r14, r1, r13, r0        ; global index
    imul    r3, r14, r2             ; this thread's word
    mov_imm r13, 1
    mov_imm r10, 8
    imul    r11, r0, r10            ; stride-2 words in local memory
    mov_imm r4, 0                   ; i
    mov_imm r5, {iterations}
    mov_imm r6, 0                   ; sum
    mov_imm r9, 7                   ; the constant the edits change
    loop
        icmp_ge p1, r4, r5
        break p1
        device_load_u32 r7, r3
        iadd    r6, r6, r7
        iadd    r6, r6, r9
        local_store_u32 r11, r6
        iadd    r4, r4, r13
        iadd    r8, r6, r2
        isub    r8, r8, r2
        iadd    r3, r3, r2
    endloop
    mov_imm r12, 16
    ucmp_lt p2, r0, r12
    if p2
        device_store_u32 r3, r6
    endif
    halt
.end
"""
EDIT_LINE = next(i for i, line in enumerate(BODY.split("\n")) if "mov_imm r9, 7" in line)
PER_ITERATION = 10         # instructions of one loop iteration (with the test and the break)
OUTSIDE = 21               # instructions outside the loop (about)


def shape(lane_instructions: float, deep: bool) -> tuple[int, int]:
    """(grid, iterations) for about `lane_instructions`: deep = one workgroup, long loop."""
    threads = 256 if deep else max(256, int(lane_instructions / (OUTSIDE + 2 * PER_ITERATION))
                                   // 256 * 256)
    iterations = max(1, round((lane_instructions / threads - OUTSIDE) / PER_ITERATION))
    return threads // 256, iterations


async def measure(command: str, text: str, repeat: int
                  ) -> tuple[list[float], list[float], int]:
    """Edit -> refreshed view times (ms): the heat (the launch's preset) and the complete profile
    (every preset; for a run both are the run), and the kernel's lane-instructions."""
    session = RawSession()
    await session.start({"diagnostics": {"mode": "push"}}, {})
    session.notify("textDocument/didOpen", {"textDocument": {
        "uri": URI, "languageId": "wave", "version": 1, "text": text}})
    first = await session.request("workspace/executeCommand",
                                  {"command": command, "arguments": [URI, "work", None]})
    assert first and first.get("status") == "ok", first
    lanes = sum(entry["active_lanes"] for entry in first["lines"]) if command.endswith(
        "profile") else 0
    times, complete = [], []
    for version in range(2, repeat + 2):
        value = "7" if version % 2 else "9"
        if command.endswith("profile"):
            done = session.notification("wave-lsp/profileChanged",
                                        lambda p, v=version: p["version"] == v)
            whole = session.notification(
                "wave-lsp/profileChanged",
                lambda p, v=version: p["version"] == v and p["profiles"][0]["complete"])
        else:       # a client without code lens refresh (as here) hears of each run so
            done = whole = session.notification("wave-lsp/runsChanged")
        began = time.perf_counter()
        session.notify("textDocument/didChange", {
            "textDocument": {"uri": URI, "version": version},
            "contentChanges": [{"range": {"start": {"line": EDIT_LINE, "character": 16},
                                          "end": {"line": EDIT_LINE, "character": 17}},
                                "text": value}]})
        await asyncio.wait_for(done, 60)
        times.append((time.perf_counter() - began) * 1000)
        await asyncio.wait_for(whole, 60)
        complete.append((time.perf_counter() - began) * 1000)
    await session.stop()
    return times, complete, lanes


async def main_async(sizes: list[float], repeat: int) -> None:
    for size in sizes:
        for deep in (False, True):
            grid, iterations = shape(size, deep)
            text = BODY.format(grid=grid, iterations=iterations,
                               memory=4 * 256 * grid * (iterations + 1) + 4096)
            name = f"{'deep' if deep else 'wide'} ~{size:.0e} (grid {grid}, {iterations} iter.)"
            times, complete, lanes = await measure("wave-lsp.profile", text, repeat)
            print(f"edit -> profile (heat, hints)  {name}: {figures(times)}; "
                  f"{lanes:,} lane-instructions")
            print(f"edit -> profile (all presets)  {name}: {figures(complete)}")
            times, _, _ = await measure("wave-lsp.run", text, repeat)
            print(f"edit -> run (inline values)    {name}: {figures(times)}")


def figures(times: list[float]) -> str:
    return (f"median {statistics.median(times):.0f} ms (min {min(times):.0f}, "
            f"max {max(times):.0f})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--sizes", default="1e4,1e5,1e6")
    args = parser.parse_args()
    asyncio.run(main_async([float(s) for s in args.sizes.split(",")], args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
