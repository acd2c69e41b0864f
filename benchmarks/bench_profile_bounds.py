"""What a profile of a kernel with ever-new access patterns, and a kernel test with a huge
dump, cost (both are bounded: the profile's access patterns, the test's output window):

    python benchmarks/bench_profile_bounds.py [--iterations 5000] [--values 1000000]

- `STRIDED`: a ~700-byte kernel whose device and local load stride changes every iteration (16
  workgroups of 256 threads), so every iteration of every workgroup records a new distinct
  access pattern. `wave-lsp run FILE FLAGS` against the same with `--profile`: wall time and
  peak RSS of each process (`os.wait4`);
- the editor (a real `wave-lsp serve`, default limits: `run.timeLimitMs` 2 s): `wave-lsp.profile`
  of that kernel until its last `wave-lsp/profileChanged` (every preset and the bank advice),
  the slowest hover on a small document while it runs (after a first hover, which loads the
  hover's modules), what the answer says and the server's peak RSS (VmHWM);
- a kernel test dumping `--values` u32 values with one `expect:` line: `wave-lsp.test`, then the
  completion on the expect line and the code actions there (answer sizes in bytes of JSON,
  times), each with the slowest hover meanwhile, and the peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hostile import (SMALL, command, hover_delay, open_doc, peak_mb, timed,  # noqa: E402
                           while_running)
from raw_session import RawSession  # noqa: E402
from corpus import STRIDE_WALK as STRIDED  # noqa: E402

FLAGS = ["--grid", "16,1,1", "--fill-zero", "0:u32:16384"]

DUMPING = """\
.kernel dumping
.registers 4
    halt
; wave-lsp run: --device-memory {memory} --dump-u32 0:{values}
; wave-lsp expect: 1
.end
"""
EXPECT_LINE = 4


def process(argv: list[str]) -> str:
    """Wall time and peak RSS of one command."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    err = proc.stderr.read().decode(errors="replace").strip().splitlines()
    tail = f" ({err[-1][:100]})" if err else ""
    return f"{seconds:.2f} s, peak {usage.ru_maxrss / 1024:.0f} MB, exit {status >> 8}{tail}"


async def editor_profile(folder: Path, text: str) -> None:
    session = RawSession()
    await session.start({"run": {"live": False}})
    small = (folder / "small.wave").as_uri()
    open_doc(session, small, SMALL)
    await hover_delay(session, small)            # warm: the first hover loads its modules
    uri = (folder / "strided.wave").as_uri()
    open_doc(session, uri, text)
    last = session.notification("wave-lsp/profileChanged",
                                lambda p: all(q["complete"] for q in p["profiles"]))
    figures = await while_running(session, small, "workspace/executeCommand",
                                  command("wave-lsp.profile", uri, "stride_walk", None))
    started = time.perf_counter()
    try:
        note = await asyncio.wait_for(last, 600)
        answer = note["profiles"][0]
        said = f"status {answer['status']}: {answer['message'][:160]!r}"
    except asyncio.TimeoutError:
        said = "no complete profile in 600 s"
    rest = time.perf_counter() - started
    seconds, hover = await timed(session, "textDocument/hover", {
        "textDocument": {"uri": uri}, "position": {"line": 24, "character": 10}})
    estimate = "estimated" in json.dumps(hover).lower()
    print(f"editor profile: command {figures}; all presets {rest:.2f} s later; {said}; "
          f"hover on the load {seconds * 1000:.0f} ms (says estimated: {estimate}); "
          f"peak {peak_mb(session):.0f} MB")
    await session.stop()


async def editor_test(folder: Path, values: int) -> None:
    session = RawSession()
    await session.start({"run": {"live": False}})
    small = (folder / "small.wave").as_uri()
    open_doc(session, small, SMALL)
    await hover_delay(session, small)            # warm: the first hover loads its modules
    uri = (folder / "dumping.wave").as_uri()
    open_doc(session, uri, DUMPING.format(memory=4 * values, values=values))
    figures = await while_running(session, small, "workspace/executeCommand",
                                  command("wave-lsp.test", uri, "dumping", 3))
    print(f"test dumping {values:,} values: wave-lsp.test {figures}, "
          f"peak {peak_mb(session):.0f} MB")
    where = {"textDocument": {"uri": uri}}
    for name, method, params in (
            ("completion", "textDocument/completion",
             {**where, "position": {"line": EXPECT_LINE, "character": 20}}),
            ("code actions", "textDocument/codeAction",
             {**where, "range": {"start": {"line": EXPECT_LINE, "character": 0},
                                 "end": {"line": EXPECT_LINE, "character": 20}},
              "context": {"diagnostics": []}})):
        sizes = []

        async def measured(method=method, params=params):
            seconds, answer = await timed(session, method, params)
            sizes.append(len(json.dumps(answer)))
            return seconds, answer
        task_text = await _with_hovers(session, small, measured)
        print(f"test dumping {values:,} values: {name} {task_text}, answer "
              f"{sizes[0]:,} bytes, peak {peak_mb(session):.0f} MB")
    await session.stop()


async def _with_hovers(session, small: str, job) -> str:
    task = asyncio.ensure_future(job())
    delays = []
    await asyncio.sleep(0.02)
    while not task.done():
        delays.append(await hover_delay(session, small))
        await asyncio.sleep(0.05)
    seconds, _ = await task
    return f"{seconds:.2f} s (hover meanwhile: slowest {max(delays, default=0) * 1000:.0f} ms)"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5000)
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--skip", default="", help="comma-separated: cli, editor, test")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    text = STRIDED.format(iterations=args.iterations)
    with tempfile.TemporaryDirectory(prefix="wave-bench-") as tmp:
        folder = Path(tmp)
        source = folder / "strided.wave"
        source.write_text(text)
        base = [sys.executable, "-m", "wave_lsp", "run", str(source), *FLAGS]
        if "cli" not in skip:
            print(f"{len(text)}-byte kernel, {args.iterations} iterations")
            print(f"run:           {process(base)}")
            print(f"run --profile: {process(base + ['--profile'])}")
            print(f"run --profile --json: {process(base + ['--profile', '--json'])}")
        if "editor" not in skip:
            await editor_profile(folder, text)
        if "test" not in skip:
            await editor_test(folder, args.values)


if __name__ == "__main__":
    asyncio.run(main())
