"""Benchmark the language server through its real subprocess (DESIGN.md §5 targets).

    python benchmarks/bench_server.py [--lines 20000] [--repeat 50] [--huge 100000]

Measures, on documents of --lines distinct lines (`corpus.distinct_source`, in its clean style,
as real files are, and with many diagnostics: about 2,000 in 20,000 lines) and on one made of
`gemm_blocked.wave` repeated (the cache-friendly case):
- process start to the `initialize` response (median of 5 starts),
- open to the first `publishDiagnostics`,
- hover and completion latency (median over --repeat requests),
- a one-line `didChange` to its `publishDiagnostics` (median, debounce included): an
  instruction replacing a blank line, a comment appended to a line, a line inserted and removed;
then, with a --huge-line document of distinct lines: while it is opened and analysed, the
latency of hovers in another (small) document, and the time of semantic tokens, formatting,
inlay hints and code actions on the huge document itself. Prints one line per figure.

Apart from the start-up, the client is `raw_session.RawSession` (plain `json`, as editors
parse), so that the figures are the server's: pytest-lsp's client turns every message into
lsprotocol objects, which for 2,000 diagnostics costs it more than the server spends.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as t
from lsprotocol.converters import get_converter
from pytest_lsp import client_capabilities, make_test_lsp_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import distinct_source  # noqa: E402
from raw_session import RawSession  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "wave-examples"
SERVER = (sys.executable, "-m", "wave_lsp", "serve")


def repeated_document(lines: int) -> tuple[str, int, int]:
    """`gemm_blocked.wave` repeated: the text, and the line of an instruction and of a blank
    line in its last copy."""
    src = (EXAMPLES / "gemm_blocked.wave").read_text().splitlines()
    out: list[str] = []
    copy = 0
    while len(out) + len(src) <= lines:
        out += [line.replace("gemm_register_blocked_8x8", f"gemm_{copy}") for line in src]
        copy += 1
    base = len(out) - len(src)
    instr = base + next(i for i, l in enumerate(src) if l.strip().startswith("imul"))
    blank = base + next(i for i, l in enumerate(src) if i > 50 and not l.strip())
    return "\n".join(out) + "\n", instr, blank


def distinct_document(lines: int, clean: bool) -> tuple[str, int, int]:
    """Distinct lines: the text, and the line of an instruction and of a blank line inside a
    kernel near its end."""
    text = distinct_source(lines, seed=21, clean=clean)
    src = text.splitlines()
    instr = next(i for i in range(len(src) - 200, 0, -1) if src[i].startswith("    iadd"))
    blank = next(i for i in range(len(src) - 100, 0, -1) if not src[i].strip()
                 and src[i - 1].startswith("    ") and src[i + 1].startswith("    "))
    return text, instr, blank


async def start(preset: str):
    client = make_test_lsp_client()
    began = time.perf_counter()
    await client.start_io(*SERVER)
    await client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(preset),
        initialization_options={"diagnostics": {"mode": "push"}}))
    return client, time.perf_counter() - began


async def stop(client) -> None:
    await client.shutdown_session()
    await client.stop()


async def bench(lines: int, repeat: int, preset: str, huge: int) -> None:
    starts = []
    for _ in range(5):
        client, elapsed = await start(preset)
        starts.append(elapsed)
        await stop(client)
    print(f"start -> initialize response: median {statistics.median(starts) * 1000:.0f} ms "
          f"(min {min(starts) * 1000:.0f})")
    await bench_document("distinct lines, clean", *distinct_document(lines, True), repeat,
                         preset)
    await bench_document("distinct lines, many diagnostics", *distinct_document(lines, False),
                         repeat, preset)
    if (EXAMPLES / "gemm_blocked.wave").exists():
        await bench_document("repeated gemm_blocked", *repeated_document(lines), repeat, preset)
    if huge:
        await bench_huge(huge, repeat, preset)


def capabilities(preset: str) -> dict:
    return get_converter().unstructure(client_capabilities(preset))


async def raw_start(preset: str) -> RawSession:
    session = RawSession()
    await session.start({"diagnostics": {"mode": "push"}}, capabilities(preset))
    return session


def published(session: RawSession, uri: str, version: int | None = None) -> asyncio.Future:
    """The next publishDiagnostics of `uri` (for `version`, if given)."""
    return session.notification(
        "textDocument/publishDiagnostics",
        lambda p: p["uri"] == uri and (version is None or p.get("version") == version))


def open_document(session: RawSession, uri: str, text: str) -> asyncio.Future:
    done = published(session, uri)
    session.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "wave", "version": 1, "text": text}})
    return done


def position(line: int, character: int) -> dict:
    return {"line": line, "character": character}


async def bench_document(name: str, text: str, instr: int, blank: int, repeat: int,
                         preset: str) -> None:
    session = await raw_start(preset)
    uri = "file:///bench/big.wave"
    began = time.perf_counter()
    diagnostics = await open_document(session, uri, text)
    print(f"[{name}] open + analyse {text.count(chr(10))} lines: "
          f"{(time.perf_counter() - began) * 1000:.0f} ms "
          f"({len(diagnostics['diagnostics'])} diagnostics)")
    ident = {"uri": uri}

    async def timed(method: str, params: dict) -> float:
        began = time.perf_counter()
        await session.request(method, params)
        return time.perf_counter() - began

    hovers = [await timed("textDocument/hover", {"textDocument": ident,
                                                 "position": position(instr, 6)})
              for _ in range(repeat)]
    completions = [await timed("textDocument/completion", {"textDocument": ident,
                                                           "position": position(blank, 0)})
                   for _ in range(repeat)]
    print(f"[{name}] hover: median {statistics.median(hovers) * 1000:.1f} ms")
    print(f"[{name}] completion: median {statistics.median(completions) * 1000:.1f} ms")

    version = [1]

    async def change(line: int, start: int, end_line: int, end: int, new: str) -> float:
        version[0] += 1
        done = published(session, uri, version[0])
        began = time.perf_counter()
        session.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version[0]},
            "contentChanges": [{"range": {"start": position(line, start),
                                          "end": position(end_line, end)}, "text": new}]})
        await done
        return time.perf_counter() - began

    lines = text.splitlines()
    edits: dict[str, list[float]] = {"instruction": [], "comment": [], "insert + delete": []}
    for i in range(repeat // 2 or 1):
        edit = f"    iadd r1, r2, r{i % 30}"
        edits["instruction"].append(await change(blank, 0, blank, len(lines[blank]), edit))
        lines[blank] = edit
        note = f" ; note {i}"
        edits["comment"].append(await change(instr, len(lines[instr]), instr,
                                             len(lines[instr]), note))
        lines[instr] += note
        edits["insert + delete"].append(await change(blank, 0, blank, 0,
                                                     f"    iadd r{i % 30}, r2, r3\n"))
        edits["insert + delete"].append(await change(blank, 0, blank + 1, 0, ""))
    for kind, latencies in edits.items():
        print(f"[{name}] didChange ({kind}) -> publishDiagnostics: median "
              f"{statistics.median(latencies) * 1000:.0f} ms (debounce included)")
    await session.stop()


async def bench_huge(lines: int, repeat: int, preset: str) -> None:
    """A huge document does not block the server: hovers elsewhere while it is analysed, and
    how long each heavy request on it takes."""
    session = await raw_start(preset)
    small = "file:///bench/small.wave"
    await open_document(session, small, ".kernel k\n    iadd r1, r2, r3\n    halt\n.end\n")
    text = distinct_source(lines, seed=22)
    uri = "file:///bench/huge.wave"
    began = time.perf_counter()
    analysed = open_document(session, uri, text)
    hovers = []
    while not analysed.done():
        t0 = time.perf_counter()
        await session.request("textDocument/hover", {"textDocument": {"uri": small},
                                                     "position": position(1, 5)})
        hovers.append(time.perf_counter() - t0)
        await asyncio.sleep(0.02)
    await analysed
    print(f"[huge] open + analyse {lines} distinct lines: "
          f"{(time.perf_counter() - began) * 1000:.0f} ms; meanwhile {len(hovers)} hovers in "
          f"another document: median {statistics.median(hovers) * 1000:.1f} ms, "
          f"max {max(hovers) * 1000:.1f} ms")
    ident = {"uri": uri}
    end = len(text.splitlines()) - 1

    def whole(first: int, last: int) -> dict:
        return {"textDocument": ident, "range": {"start": position(first, 0),
                                                 "end": position(last, 0)}}

    requests = {
        "semantic tokens": ("textDocument/semanticTokens/full", {"textDocument": ident}),
        "formatting": ("textDocument/formatting", {"textDocument": ident, "options": {
            "tabSize": 4, "insertSpaces": True}}),
        "inlay hints (200 visible lines)": ("textDocument/inlayHint",
                                            whole(end - 300, end - 100)),
        "inlay hints (whole file)": ("textDocument/inlayHint", whole(0, end)),
        "code actions": ("textDocument/codeAction", dict(whole(5, 5), context={
            "diagnostics": []})),
        "hover": ("textDocument/hover", {"textDocument": ident,
                                         "position": position(end - 3, 5)}),
    }
    for label, (method, params) in requests.items():
        t0 = time.perf_counter()
        await session.request(method, params)
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        await session.request(method, params)
        print(f"[huge] {label} on {lines} lines: {first * 1000:.0f} ms "
              f"(again: {(time.perf_counter() - t0) * 1000:.0f} ms)")
    await session.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--huge", type=int, default=100_000,
                        help="lines of the document that must not block (0: skip)")
    parser.add_argument("--client", default="visual-studio-code",
                        choices=("visual-studio-code", "neovim"))
    args = parser.parse_args()
    asyncio.run(bench(args.lines, args.repeat, args.client, args.huge))
    return 0


if __name__ == "__main__":
    sys.exit(main())
