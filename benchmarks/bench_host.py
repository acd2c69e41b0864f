"""The host's start-up and first-answer figures, each through the real
command or server subprocess, on inputs of distinct lines (`corpus.distinct_source`):

- `lint`: a whole `wave-lsp lint FILE` command on --lint-lines lines (target <= 1.0 s);
- `tokens`: `textDocument/semanticTokens/full` sent right after `didOpen` of a --tokens-lines
  file, timed from the `didOpen` (target <= 2 s: colouring needs the line parser only);
- `first`: process start to the answer of the first hover, on a --first-lines file (the
  initialize handshake and didOpen included).

    python benchmarks/bench_host.py [--runs 5] [--only lint|tokens|first]

Each figure is run --runs times; the median and the minimum are printed (the machine may be
shared: compare figures taken in the same conditions, alternating before/after).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import distinct_source  # noqa: E402
from raw_session import RawSession  # noqa: E402


def report(label: str, times: list[float]) -> None:
    print(f"{label}: median {statistics.median(times) * 1000:.0f} ms, "
          f"min {min(times) * 1000:.0f} ms ({len(times)} runs)", flush=True)


def bench_lint(lines: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lint.wave"
        path.write_text(distinct_source(lines, seed=31, clean=True), encoding="utf-8")
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "wave_lsp", "lint", str(path)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times.append(time.perf_counter() - t0)
    report(f"wave-lsp lint, {lines} distinct lines (whole command)", times)


def _open(session: RawSession, uri: str, text: str) -> None:
    session.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "wave", "version": 1, "text": text}})


async def tokens_once(text: str) -> float:
    session = RawSession()
    await session.start({"diagnostics": {"mode": "push"}})
    uri = "file:///bench/huge.wave"
    t0 = time.perf_counter()
    _open(session, uri, text)
    data = await session.request("textDocument/semanticTokens/full",
                                 {"textDocument": {"uri": uri}})
    elapsed = time.perf_counter() - t0
    assert data and len(data["data"]) > len(text.splitlines()), "no tokens"
    await session.stop()
    return elapsed


async def first_once(text: str) -> float:
    session = RawSession()
    t0 = time.perf_counter()
    await session.start({"diagnostics": {"mode": "push"}})
    uri = "file:///bench/first.wave"
    _open(session, uri, text)
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("    iadd"))
    answer = await session.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": {"line": row, "character": 5}})
    elapsed = time.perf_counter() - t0
    assert answer and "iadd" in str(answer), answer
    await session.stop()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=("lint", "tokens", "first"))
    parser.add_argument("--lint-lines", type=int, default=10_000)
    parser.add_argument("--tokens-lines", type=int, default=100_000)
    parser.add_argument("--first-lines", type=int, default=600)
    args = parser.parse_args()
    if args.only in (None, "lint"):
        bench_lint(args.lint_lines, args.runs)
    if args.only in (None, "tokens"):
        text = distinct_source(args.tokens_lines, seed=32)
        report(f"semantic tokens of a just-opened {args.tokens_lines}-line file",
               [asyncio.run(tokens_once(text)) for _ in range(args.runs)])
    if args.only in (None, "first"):
        text = distinct_source(args.first_lines, seed=33, clean=True)
        report(f"server start -> first hover answer, {args.first_lines}-line file",
               [asyncio.run(first_once(text)) for _ in range(args.runs)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
