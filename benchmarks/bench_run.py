"""Benchmark inline runs through the real server subprocess (DESIGN.md §5).

    python benchmarks/bench_run.py [--repeat 30] [--threads 1048576]

Measures, with the Neovim capability set (it declares `workspace/inlayHint/refresh`):
- edit -> refreshed inlay hints: a live kernel of about 40 distinct instructions over
  4 workgroups x 64 threads; each repetition changes a constant (`didChange`), waits for the
  server's inlay-hint refresh request and asks for the hints, until they show the new constant.
  Median, debounce included (the default 30 ms diagnostics delay);
- Run command -> hints: `wave-lsp.run` on vector add over --threads threads, to the inlay hints
  response (median of 5).
Prints one line per figure.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time

from lsprotocol import types as t
from pytest_lsp import client_capabilities, make_test_lsp_client

SERVER = (sys.executable, "-m", "wave_lsp", "serve")
OPS = ("iadd", "isub", "imul", "xor", "or", "and", "imax", "imin", "shl", "shr")


def small_kernel() -> tuple[str, int]:
    """About 40 distinct instructions; returns the text and the line of the edited constant."""
    body = ["    mov_sr  r0, sr_thread_id_x", "    mov_sr  r1, sr_workgroup_id_x",
            "    mov_sr  r2, sr_workgroup_size_x", "    imad    r3, r1, r2, r0",
            "    mov_imm r4, 7"]
    for i in range(31):
        dst, a, b = 5 + i % 23, 3 + (i * 5) % 20, 4 if i % 2 else 3
        body.append(f"    {OPS[i % len(OPS)]:7} r{dst}, r{a}, r{b}")
    body += ["    mov_imm r29, 4", "    imul    r28, r3, r29", "    device_store_u32 r28, r24",
             "    halt"]
    head = [".kernel chain", "; wave-lsp run: --grid 4,1,1 --workgroup 64,1,1 --wave-width 64",
            ".registers 32"]
    assert len(set(body)) == len(body), "benchmark lines must be distinct"
    lines = head + body + [".end"]
    return "\n".join(lines) + "\n", len(head) + 4


def vector_add(threads: int) -> str:
    groups = threads // 256
    return f"""; wave-lsp run: --grid {groups},1,1 --workgroup 256,1,1 --device-memory {12 * threads + 16} --set-reg 0:0 --set-reg 1:{4 * threads} --set-reg 2:{8 * threads} --fill-iota 0:f32:{threads}:1 --fill-iota {4 * threads}:f32:{threads}:2 --dump-f32 {8 * threads}:8
.kernel vector_add
.registers 12
.workgroup_size 256, 1, 1
    mov_sr  r3, sr_workgroup_id_x
    mov_sr  r4, sr_workgroup_size_x
    mov_sr  r5, sr_thread_id_x
    imad    r6, r3, r4, r5
    mov_imm r7, 4
    imul    r6, r6, r7
    iadd    r8, r0, r6
    device_load_u32 r9, r8
    iadd    r8, r1, r6
    device_load_u32 r10, r8
    fadd    r11, r9, r10
    iadd    r8, r2, r6
    device_store_u32 r8, r11
    halt
.end
"""


async def start():
    client = make_test_lsp_client()
    refreshed = asyncio.Event()

    @client.feature(t.WORKSPACE_INLAY_HINT_REFRESH)
    def inlay_refresh(params):
        refreshed.set()

    await client.start_io(*SERVER)
    await client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities("neovim"),
        initialization_options={"inlayHints": {"offsets": False, "encoding": False}}))
    return client, refreshed


def open_doc(client, uri: str, text: str) -> None:
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="wave", version=1, text=text)))


async def labels(client, uri: str) -> dict[int, str]:
    got = await client.text_document_inlay_hint_async(t.InlayHintParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        range=t.Range(start=t.Position(line=0, character=0),
                      end=t.Position(line=1000, character=0))))
    return {h.position.line: h.label for h in got or []}


async def edit_to_hints(repeat: int) -> list[float]:
    client, refreshed = await start()
    text, line = small_kernel()
    uri = "file:///tmp/bench-run/chain.wave"
    open_doc(client, uri, text)
    await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="wave-lsp.run", arguments=[uri, "chain", 1]))
    current = text.split("\n")[line]
    times = []
    for i in range(repeat):
        value = 100 + i
        new = f"    mov_imm r4, {value}"
        refreshed.clear()
        began = time.perf_counter()
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=i + 2),
            content_changes=[t.TextDocumentContentChangePartial(
                range=t.Range(start=t.Position(line=line, character=0),
                              end=t.Position(line=line, character=len(current))), text=new)]))
        current = new
        while True:
            await asyncio.wait_for(refreshed.wait(), 10)
            refreshed.clear()
            shown = await labels(client, uri)
            if shown.get(line) == f"r4 = {value} (all lanes)":
                break
        times.append(time.perf_counter() - began)
    await client.shutdown_session()
    await client.stop()
    return times


async def run_to_hints(threads: int, repeat: int = 5) -> list[float]:
    client, _ = await start()
    uri = "file:///tmp/bench-run/vector_add.wave"
    text = vector_add(threads)
    fadd = next(i for i, line in enumerate(text.split("\n")) if "fadd" in line)
    open_doc(client, uri, text)
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        result = await client.workspace_execute_command_async(t.ExecuteCommandParams(
            command="wave-lsp.run", arguments=[uri, "vector_add", 0]))
        shown = await labels(client, uri)
        times.append(time.perf_counter() - began)
        assert result["ok"], result
        assert shown.get(fadd) == "r11 = 0.0, 3.0, 6.0 … 93.0", shown.get(fadd)
        assert result["dumps"][0]["values"][:3] == ["0.0", "3.0", "6.0"]
    await client.shutdown_session()
    await client.stop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1 << 20)
    args = parser.parse_args()
    edits = asyncio.run(edit_to_hints(args.repeat))
    print(f"edit -> refreshed inlay hints (40 instr, 4x64 threads, debounce 30 ms): "
          f"median {1000 * statistics.median(edits):.1f} ms, "
          f"min {1000 * min(edits):.1f} ms, max {1000 * max(edits):.1f} ms, n={len(edits)}")
    runs = asyncio.run(run_to_hints(args.threads))
    print(f"Run command -> hints, vector add over {args.threads:,} threads: "
          f"median {1000 * statistics.median(runs):.0f} ms, min {1000 * min(runs):.0f} ms, n={len(runs)}")


if __name__ == "__main__":
    main()
