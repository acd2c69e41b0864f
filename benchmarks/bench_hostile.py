"""What hostile documents cost the server, through a real `wave-lsp serve`:

    python benchmarks/bench_hostile.py [--mib 60] [--lines 100000]

- a launch line naming one `--arg` file of MIB MiB ten times: open (no file is read), then
  `wave-lsp.run` twice (read once, then from the cache) and a hover meanwhile;
- a launch line dumping 64 MiB: the run command and the hover over the launch line;
- a LINES-line kernel: `wave-lsp.run`, `wave-lsp.emit` (hip) and the whole-file inlay hints,
  each with the time a hover on a small document waits while it runs (the event loop's delay).
Prints one line per figure, with the server's peak resident memory (VmHWM) after each part.
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


def peak_mb(session: RawSession) -> float:
    for line in Path(f"/proc/{session.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_doc(session: RawSession, uri: str, text: str) -> None:
    session.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "wave", "version": 1, "text": text}})


async def timed(session: RawSession, method: str, params) -> tuple[float, object]:
    started = time.perf_counter()
    result = await session.request(method, params)
    return time.perf_counter() - started, result


async def hover_delay(session: RawSession, uri: str) -> float:
    seconds, _ = await timed(session, "textDocument/hover", {
        "textDocument": {"uri": uri}, "position": {"line": 2, "character": 5}})
    return seconds


async def while_running(session: RawSession, small: str, method: str, params) -> str:
    """`method` timed, and the slowest of the hovers on `small` sent while it runs."""
    task = asyncio.ensure_future(timed(session, method, params))
    delays = []
    await asyncio.sleep(0.05)
    while not task.done():
        delays.append(await hover_delay(session, small))
        await asyncio.sleep(0.05)
    seconds, _ = await task
    return f"{seconds:.2f} s (hover meanwhile: slowest {max(delays, default=0) * 1000:.0f} ms)"


def command(name: str, *arguments) -> dict:
    return {"command": name, "arguments": list(arguments)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=60)
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wave-bench-") as tmp:
        folder = Path(tmp)
        (folder / "big.bin").write_bytes(bytes(args.mib << 20))
        session = RawSession()
        await session.start({"run": {"live": False}})
        small = (folder / "small.wave").as_uri()
        open_doc(session, small, SMALL)

        uri = (folder / "args.wave").as_uri()
        flags = " ".join(["--arg 0:big.bin"] * 10)
        started = time.perf_counter()
        open_doc(session, uri, f".kernel k\n; wave-lsp run: --device-memory {args.mib << 21} "
                               f"{flags}\n.registers 4\n    halt\n.end\n")
        await hover_delay(session, uri)
        print(f"--arg {args.mib} MiB x10: open {time.perf_counter() - started:.2f} s, "
              f"peak {peak_mb(session):.0f} MB")
        for attempt in ("first", "second"):
            text = await while_running(session, small, "workspace/executeCommand",
                                       command("wave-lsp.run", uri, "k", None))
            print(f"--arg {args.mib} MiB x10: {attempt} run {text}, peak {peak_mb(session):.0f} MB")

        uri = (folder / "dump.wave").as_uri()
        open_doc(session, uri, ".kernel k\n; wave-lsp run: --device-memory 67108864 "
                               "--dump-u32 0:16777216\n.registers 4\n    halt\n.end\n")
        text = await while_running(session, small, "workspace/executeCommand",
                                   command("wave-lsp.run", uri, "k", None))
        seconds, _ = await timed(session, "textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 1, "character": 4}})
        print(f"dump of 64 MiB: run {text}, hover {seconds * 1000:.0f} ms, "
              f"peak {peak_mb(session):.0f} MB")

        body = "".join(f"    iadd r{1 + i % 6}, r{1 + (i + 1) % 6}, r7\n"
                       for i in range(args.lines))
        uri = (folder / "long.wave").as_uri()
        open_doc(session, uri, ".kernel k\n.registers 8\n    mov_sr r7, sr_lane_id\n" + body
                 + "    halt\n.end\n")
        await hover_delay(session, uri)
        for name, method, params in (
                ("run", "workspace/executeCommand", command("wave-lsp.run", uri, "k", None)),
                ("emit hip", "workspace/executeCommand", command("wave-lsp.emit", uri, "hip")),
                ("inlay hints, whole file", "textDocument/inlayHint", {
                    "textDocument": {"uri": uri}, "range": {
                        "start": {"line": 0, "character": 0},
                        "end": {"line": args.lines + 5, "character": 0}}})):
            text = await while_running(session, small, method, params)
            print(f"{args.lines:,}-line kernel: {name} {text}, peak {peak_mb(session):.0f} MB")
        await session.stop()


if __name__ == "__main__":
    asyncio.run(main())
