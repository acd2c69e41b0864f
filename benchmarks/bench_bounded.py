"""What a flood of launch flags and deeply nested blocks cost (both must stay linear):

    python benchmarks/bench_bounded.py [--flags 10000,20000] [--depths 3000,10000] [--wait 120]

- in process: parsing one launch line of N `--set-reg` flags (`ide.launch_lines`, what the
  server does for each revision of the document), and formatting a kernel nested D blocks deep
  (`ide.formatting`, time and size of the text);
- through a real `wave-lsp serve`: opening a document with that launch line and a keystroke
  beside it and on it (from the `didOpen` / `didChange` to its diagnostics; the first launch
  line of a session, one flag, loads the emulator's modules), and `textDocument/formatting` of the nested kernel (time,
  size of the answer), each with the slowest hover on a small document sent meanwhile.
An answer that takes longer than WAIT seconds is reported as such and the server restarted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_session import RawSession  # noqa: E402

SMALL = ".kernel s\n.registers 4\n    mov_sr r0, sr_lane_id\n    halt\n.end\n"


def flood(flags: int) -> str:
    words = " ".join(f"--set-reg r{i % 4}:{i}" for i in range(flags))
    return f".kernel k\n; wave-lsp run: {words}\n.registers 4\n    halt\n.end\n"


def nested(depth: int) -> str:
    out = [".kernel k", ".registers 4", "mov_sr r0, sr_lane_id", "icmp_lt p1, r1, r0"]
    out += ["if p1", "iadd r1, r1, r0"] * depth + ["endif"] * depth
    return "\n".join(out + ["halt", ".end", ""])


def in_process(flags: list[int], depths: list[int]) -> None:
    from wave_lsp.ide.formatting import format_lines
    from wave_lsp.ide.launch_lines import parse_launch_line
    for n in flags:
        line = flood(n).split("\n")[1]
        started = time.perf_counter()
        parsed = parse_launch_line(line, 1, "k", 0, None)
        seconds = time.perf_counter() - started
        problem = f" ({parsed.problem.message})" if parsed.problem else ""
        print(f"in process: launch line of {n:,} flags parsed in {seconds:.2f} s{problem}")
    for depth in depths:
        lines = nested(depth).split("\n")
        started = time.perf_counter()
        out = format_lines(lines)
        seconds = time.perf_counter() - started
        print(f"in process: {depth:,} nested blocks formatted in {seconds:.2f} s, "
              f"{sum(len(x) + 1 for x in out) / 1e6:.1f} MB of text")


class Probe:
    """A server with a small document, hovered on while something else is waited for."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        self.session: RawSession | None = None
        self.count = 0

    async def start(self) -> None:
        self.session = RawSession()
        await self.session.start({"diagnostics": {"debounceMs": 5}})
        self.small = self.open(SMALL)

    def open(self, text: str) -> str:
        self.count += 1
        uri = f"file:///tmp/wave-bench/doc{self.count}.wave"
        self.session.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "wave", "version": 1, "text": text}})
        return uri

    async def measure(self, waited) -> tuple[str, object]:
        """`waited` (an awaitable) timed, with the slowest hover on the small document meanwhile;
        the server is restarted when it does not answer within `wait`."""
        task = asyncio.ensure_future(waited)
        started = time.perf_counter()
        slowest = 0.0
        while not task.done() and time.perf_counter() - started < self.wait:
            t0 = time.perf_counter()
            left = max(0.01, self.wait - (t0 - started))
            try:
                await asyncio.wait_for(self.session.request("textDocument/hover", {
                    "textDocument": {"uri": self.small},
                    "position": {"line": 2, "character": 5}}), left)
            finally:
                slowest = max(slowest, time.perf_counter() - t0)
            await asyncio.sleep(0.05)
        if not task.done():
            await asyncio.wait([task], timeout=max(0.0, self.wait - (time.perf_counter() -
                                                                     started)))
        seconds = time.perf_counter() - started
        if not task.done():
            task.cancel()
            self.session.proc.kill()
            await self.start()
            return f"no answer in {self.wait:.0f} s (hover meanwhile: slowest " \
                   f"{slowest:.1f} s)", None
        return f"{seconds:.2f} s (hover meanwhile: slowest {slowest * 1000:.0f} ms)", task.result()


async def through_server(flags: list[int], depths: list[int], wait: float) -> None:
    probe = Probe(wait)
    await probe.start()
    for n in [1] + flags:      # the first launch line loads the emulator's modules
        opened = probe.session.notification(
            "textDocument/publishDiagnostics",
            lambda p, c=probe.count + 1: p["uri"].endswith(f"/doc{c}.wave"))
        uri = probe.open(flood(n))
        text, _ = await probe.measure(opened)
        print(f"server: opening a launch line of {n:,} flags: diagnostics in {text}")
        if n == 1:
            continue
        for version, (where, line, col) in enumerate((("beside", 3, 4), ("on", 1, 2)), 2):
            published = probe.session.notification(
                "textDocument/publishDiagnostics",
                lambda p, u=uri, v=version: p["uri"] == u and p.get("version") == v)
            probe.session.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [{
                    "range": {"start": {"line": line, "character": col},
                              "end": {"line": line, "character": col}}, "text": " "}]})
            text, _ = await probe.measure(published)
            print(f"server: a keystroke {where} a launch line of {n:,} flags: diagnostics in "
                  f"{text}")
    for depth in depths:
        uri = probe.open(nested(depth))
        text, edits = await probe.measure(probe.session.request("textDocument/formatting", {
            "textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}}))
        size = len(json.dumps(edits)) / 1e6 if edits is not None else 0
        print(f"server: formatting {depth:,} nested blocks: {text}, answer {size:.1f} MB")
    await probe.session.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", default="10000,20000")
    parser.add_argument("--depths", default="3000,10000")
    parser.add_argument("--wait", type=float, default=120)
    args = parser.parse_args()
    flags = [int(n) for n in args.flags.split(",") if n]
    depths = [int(n) for n in args.depths.split(",") if n]
    in_process(flags, depths)
    asyncio.run(through_server(flags, depths, args.wait))


if __name__ == "__main__":
    main()
