"""What bursts of editor jobs cost the server, through a real `wave-lsp serve`:

    python benchmarks/bench_jobs.py [--runs 1000] [--windows 40] [--open 200] [--cycles 5] [--cycle-lines 1900]

- RUNS `wave-lsp.run` requests of one kernel sent at once: how long a hover on another document
  waits meanwhile, how long until every run is answered, and how many distinct runs are behind
  the answers (their `elapsedMs`);
- WINDOWS `wave-lsp.dump` windows of a slow kernel's dump, then a Run of another file: how long
  that Run waits;
- OPEN documents of 1,900 lines opened at once: how long a hover on one of them waits;
- CYCLES times: 100 documents (CYCLE_LINES lines) opened, each run, hovered and shown (lenses, hints, tokens), then
  closed: the server's resident memory (VmRSS) after each cycle.
Prints one line per figure.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_session import RawSession  # noqa: E402

SMALL = ".kernel s\n.registers 4\n    mov_imm r1, 5\n    halt\n.end\n"
KERNEL = (".kernel k\n; wave-lsp run: --grid 4,1,1 --workgroup 64,1,1 --dump-u32 0:64\n"
          ".registers 8\n    mov_sr r0, sr_thread_id_x\n    mov_imm r1, 4\n"
          "    imul r2, r0, r1\n    mov_imm r3, 1\n    iadd r4, r0, r3\n"
          "    device_store_u32 r2, r4\n    halt\n.end\n")
SLOW = (".kernel slow\n; wave-lsp run: --workgroup 64,1,1 --dump-u32 0:100000\n"
        ".registers 8\n    mov_sr r0, sr_thread_id_x\n    mov_imm r1, 0\n    mov_imm r2, 1\n"
        "    mov_imm r3, 20000\n    loop\n        iadd r1, r1, r2\n"
        "        icmp_eq p1, r1, r3\n        break p1\n    endloop\n"
        "    device_store_u32 r0, r1\n    halt\n.end\n")


def rss_mb(session: RawSession, field: str = "VmRSS:") -> float:
    for line in Path(f"/proc/{session.proc.pid}/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return 0.0


def open_doc(session: RawSession, uri: str, text: str) -> None:
    session.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "wave", "version": 1, "text": text}})


def run_params(uri: str, kernel: str, line=None) -> dict:
    return {"command": "wave-lsp.run", "arguments": [uri, kernel, line]}


async def hover(session: RawSession, uri: str, line: int = 2) -> float:
    started = time.perf_counter()
    await session.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": {"line": line, "character": 5}})
    return time.perf_counter() - started


async def concurrent_runs(session: RawSession, folder: Path, count: int) -> None:
    uri, small = (folder / "many.wave").as_uri(), (folder / "small-a.wave").as_uri()
    open_doc(session, uri, KERNEL)
    open_doc(session, small, SMALL)
    await hover(session, small)
    started = time.perf_counter()
    runs = [asyncio.ensure_future(session.request("workspace/executeCommand",
                                                  run_params(uri, "k")))
            for _ in range(count)]
    await asyncio.sleep(0.01)
    waited = await hover(session, small)
    results = await asyncio.gather(*runs)
    total = time.perf_counter() - started
    statuses: dict[str, int] = {}
    for r in results:
        key = (r or {}).get("status", "none")
        statuses[key] = statuses.get(key, 0) + 1
    # answers that share one run carry the same figures: distinct (status, elapsedMs) pairs
    executed = len({(r.get("status"), r.get("elapsedMs")) for r in results
                    if r and r.get("status") != "cancelled"})
    print(f"{count:,} concurrent runs: hover meanwhile {waited * 1000:.0f} ms, all answered in "
          f"{total:.2f} s, answers {statuses}, distinct runs behind the answers {executed}")


async def dump_windows(session: RawSession, folder: Path, count: int) -> None:
    uri, other = (folder / "slow.wave").as_uri(), (folder / "other.wave").as_uri()
    open_doc(session, uri, SLOW)
    open_doc(session, other, SMALL)
    await session.request("workspace/executeCommand", run_params(other, "s"))
    first = time.perf_counter()
    result = await session.request("workspace/executeCommand", run_params(uri, "slow", 1))
    alone = time.perf_counter() - first
    assert result["status"] == "ok", result
    windows = [asyncio.ensure_future(session.request("workspace/executeCommand", {
        "command": "wave-lsp.dump", "arguments": [uri, "slow", 1, 0, 1000 * i, 100]}))
        for i in range(count)]
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    await session.request("workspace/executeCommand", run_params(other, "s"))
    waited = time.perf_counter() - started
    answers = await asyncio.gather(*windows)
    shown = sum(1 for a in answers if a and "values" in a)
    print(f"{count} dump windows (one run of the kernel {alone:.2f} s): another file's Run "
          f"answered in {waited:.2f} s; windows answered with values {shown}/{count}")


def long_text(index: int, lines: int = 1_900) -> str:
    """A kernel of `lines` lines, distinct from every other `index`'s (as real files are)."""
    body = "".join(f"    mov_imm r{1 + i % 6}, {index * 100_000 + i}\n" if i % 2 else
                   f"    iadd r{1 + i % 6}, r{1 + (i + index) % 6}, r7\n" for i in range(lines))
    return f".kernel k{index}\n.registers 8\n    mov_sr r7, sr_lane_id\n{body}    halt\n.end\n"


async def many_open(session: RawSession, folder: Path, count: int) -> None:
    small = (folder / "small-b.wave").as_uri()
    open_doc(session, small, SMALL)
    await hover(session, small)
    uris = [(folder / f"open-{i}.wave").as_uri() for i in range(count)]
    texts = [long_text(i) for i in range(count)]
    for uri, text in zip(uris, texts):
        open_doc(session, uri, text)
    other = await hover(session, small)
    last = await hover(session, uris[-1])
    print(f"{count} documents of 1,900 lines opened at once: a hover on another document "
          f"answered after {other:.2f} s, then one on the last opened after {last:.2f} s")
    for uri in uris:
        session.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


async def cycles(session: RawSession, folder: Path, count: int, args_lines: int) -> None:
    await hover(session, (folder / "small-a.wave").as_uri())
    figures = [f"start {rss_mb(session):.0f}"]
    for cycle in range(count):
        uris = [(folder / f"c{cycle}-{i}.wave").as_uri() for i in range(100)]
        for i, uri in enumerate(uris):
            open_doc(session, uri, KERNEL.replace("mov_imm r3, 1", f"mov_imm r3, {i + 1}")
                     + long_text(i, args_lines))
        for uri in uris:
            await session.request("workspace/executeCommand", run_params(uri, "k"))
            await session.request("textDocument/hover", {
                "textDocument": {"uri": uri}, "position": {"line": 3, "character": 12}})
            await session.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
            await session.request("textDocument/inlayHint", {
                "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0},
                                                        "end": {"line": 3000, "character": 0}}})
            await session.request("textDocument/semanticTokens/full",
                                  {"textDocument": {"uri": uri}})
        for uri in uris:
            session.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        await asyncio.sleep(3.0)     # the server gives memory back a second after the closes
        await hover(session, (folder / "small-a.wave").as_uri())
        figures.append(f"{rss_mb(session):.0f}")
    print(f"{count} cycles of 100 documents opened, run, shown, closed: RSS MB "
          + " → ".join(figures))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--windows", type=int, default=40)
    parser.add_argument("--open", type=int, default=200)
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--cycle-lines", type=int, default=1_900)
    parser.add_argument("--only", default="runs,windows,open,cycles")
    args = parser.parse_args()
    parts = args.only.split(",")
    with tempfile.TemporaryDirectory(prefix="wave-bench-") as tmp:
        folder = Path(tmp)
        session = RawSession()
        await session.start({"run": {"live": False}})
        if "cycles" in parts:        # first: the other parts' documents stay out of its figures
            open_doc(session, (folder / "small-a.wave").as_uri(), SMALL)
            await cycles(session, folder, args.cycles, args.cycle_lines)
        if "runs" in parts:
            await concurrent_runs(session, folder, args.runs)
        if "windows" in parts:
            await dump_windows(session, folder, args.windows)
        if "open" in parts:
            await many_open(session, folder, args.open)
        await session.stop()


if __name__ == "__main__":
    asyncio.run(main())
