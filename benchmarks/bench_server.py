"""Benchmark the language server through its real subprocess (DESIGN.md §5 targets).

    python benchmarks/bench_server.py [--lines 20000] [--repeat 50]

Measures, on a document made of `gemm_blocked.wave` repeated to --lines lines:
- process start to the `initialize` response (median of 5 starts),
- hover and completion latency (median over --repeat requests),
- a one-line `didChange` to its `publishDiagnostics` (median, debounce included),
and prints one line per figure.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as t
from pytest_lsp import client_capabilities, make_test_lsp_client

EXAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "wave-examples"
SERVER = (sys.executable, "-m", "wave_lsp", "serve")


def big_document(lines: int) -> tuple[str, int, int]:
    """The text, and the line of an instruction and of a blank line in its last copy."""
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


async def bench(lines: int, repeat: int, preset: str) -> None:
    starts = []
    for _ in range(5):
        client, elapsed = await start(preset)
        starts.append(elapsed)
        await stop(client)
    print(f"start -> initialize response: median {statistics.median(starts) * 1000:.0f} ms "
          f"(min {min(starts) * 1000:.0f})")

    text, instr, blank = big_document(lines)
    client, _ = await start(preset)
    uri = "file:///bench/big.wave"
    began = time.perf_counter()
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=text)))
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    print(f"open + analyse {text.count(chr(10))} lines: {(time.perf_counter() - began) * 1000:.0f} ms")
    ident = t.TextDocumentIdentifier(uri=uri)

    async def timed(call) -> float:
        began = time.perf_counter()
        await call()
        return time.perf_counter() - began

    hovers = [await timed(lambda: client.text_document_hover_async(t.HoverParams(
        text_document=ident, position=t.Position(line=instr, character=6))))
        for _ in range(repeat)]
    completions = [await timed(lambda: client.text_document_completion_async(t.CompletionParams(
        text_document=ident, position=t.Position(line=blank, character=0))))
        for _ in range(repeat)]
    print(f"hover: median {statistics.median(hovers) * 1000:.1f} ms")
    print(f"completion: median {statistics.median(completions) * 1000:.1f} ms")

    latencies = []
    for i in range(repeat // 2 or 1):
        version = i + 2
        edit = f"    iadd r1, r2, r{i % 30}"
        began = time.perf_counter()
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[t.TextDocumentContentChangePartial(
                range=t.Range(start=t.Position(line=blank, character=0),
                              end=t.Position(line=blank, character=len(text.splitlines()[blank]))),
                text=edit)]))
        while True:
            published = await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if published.version == version:
                break
        latencies.append(time.perf_counter() - began)
        text = "\n".join(l if n != blank else edit for n, l in enumerate(text.splitlines()))
    print(f"didChange -> publishDiagnostics: median {statistics.median(latencies) * 1000:.0f} ms "
          f"(debounce included)")
    await stop(client)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--client", default="visual-studio-code",
                        choices=("visual-studio-code", "neovim"))
    args = parser.parse_args()
    if not (EXAMPLES / "gemm_blocked.wave").exists():
        print(f"benchmark needs {EXAMPLES}/gemm_blocked.wave", file=sys.stderr)
        return 2
    asyncio.run(bench(args.lines, args.repeat, args.client))
    return 0


if __name__ == "__main__":
    sys.exit(main())
