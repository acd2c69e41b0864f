"""The host's start-up and first-answer figures, each through the real command or server
subprocess, on inputs of distinct lines from every generator of `corpus_kernels.GENERATORS`
(structured kernels, straight-line math of every instruction class, calls, comment-heavy files,
the mixed corpus), one figure per generator:

- `lint`: a whole `wave-lsp lint FILE` command on --lint-lines lines (target <= 1.0 s);
- `tokens`: `textDocument/semanticTokens/full` sent right after `didOpen` of a --tokens-lines
  file, timed from the `didOpen`, a second after the server started (target <= 1 s: any
  request on a 100,000-line file);
- `edit`: a one-line `didChange` (an instruction's operand changed) to its
  `publishDiagnostics` parsed by the client (`json.loads`) on an --edit-lines file, the 30 ms
  debounce included (target <= 50 ms); and to its last byte received, before that parse
  (`--insert`: each edit inserts a line instead, which moves every line below it);
- `first`: process start to the answer of the first hover, on a --first-lines file (the
  initialize handshake and didOpen included; the mixed corpus only).

    python benchmarks/bench_host.py [--runs 5] [--only lint|tokens|edit|first]
                                    [--generators structured,math] [--insert]

Each figure is run --runs times (edits: --runs x 8 edits); the median and the minimum are
printed, and the CPU time the command or the server spent (user + system, all threads; for
edits, per edit): on a shared, loaded machine the wall time mostly measures the load, the CPU
time what the host does (compare figures taken in the same conditions, alternating
before/after).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import distinct_source  # noqa: E402
from corpus_kernels import GENERATORS  # noqa: E402
from raw_session import RawSession  # noqa: E402


def report(label: str, times: list[float], cpu: list[float] | None = None) -> None:
    used = f", CPU median {statistics.median(cpu) * 1000:.0f} ms" if cpu else ""
    print(f"{label}: median {statistics.median(times) * 1000:.0f} ms, "
          f"min {min(times) * 1000:.0f} ms{used} ({len(times)} runs)", flush=True)


def process_cpu(pid: int) -> float | None:
    """User + system seconds of process `pid` so far, all its threads (None off Linux)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_lint(name: str, text: str, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lint.wave"
        path.write_text(text, encoding="utf-8")
        times, cpu = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "wave_lsp", "lint", str(path)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    report(f"[{name}] wave-lsp lint, {text.count(chr(10))} distinct lines (whole command)", times,
           cpu)


def _open(session: RawSession, uri: str, text: str) -> None:
    session.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "wave", "version": 1, "text": text}})


def _published(session: RawSession, uri: str, version: int) -> asyncio.Future:
    return session.notification("textDocument/publishDiagnostics",
                                lambda p: p["uri"] == uri and p.get("version") == version)


async def tokens_once(text: str) -> tuple[float, float | None]:
    """Wall and server CPU seconds from `didOpen` to the semantic tokens."""
    session = RawSession()
    await session.start({"diagnostics": {"mode": "push"}})
    await asyncio.sleep(1)      # the end of the server's start-up is not the request's work
    uri = "file:///bench/huge.wave"
    cpu = process_cpu(session.proc.pid)
    t0 = time.perf_counter()
    _open(session, uri, text)
    data = await session.request("textDocument/semanticTokens/full",
                                 {"textDocument": {"uri": uri}})
    elapsed = time.perf_counter() - t0
    used = process_cpu(session.proc.pid)
    assert data and len(data["data"]) > len(text.splitlines()), "no tokens"
    await session.stop()
    return elapsed, (used - cpu if used is not None and cpu is not None else None)


def edit_rows(lines: list[str], count: int) -> list[int]:
    """Rows of instructions with a register operand after a comma, spread over the file."""
    rows = [i for i, line in enumerate(lines)
            if line.startswith("    ") and ", r" in line and not line.lstrip().startswith(";")]
    step = max(1, len(rows) // count)
    return rows[::step][:count]


def edit_change(lines: list[str], row: int, insert: bool) -> tuple[dict, list[str]]:
    """The change of one edit at `row` (the last register operand of its instruction changed,
    or with `insert` a line inserted above it), and the lines after it."""
    if insert:
        added = "    iadd r1, r2, r3"
        return ({"range": {"start": {"line": row, "character": 0},
                           "end": {"line": row, "character": 0}}, "text": added + "\n"},
                lines[:row] + [added] + lines[row:])
    line = lines[row]
    col = line.rindex(", r") + 3
    end = col
    while end < len(line) and line[end].isdigit():
        end += 1
    new = str((int(line[col:end]) + 1) % 40 + 8)
    return ({"range": {"start": {"line": row, "character": col},
                       "end": {"line": row, "character": end}}, "text": new},
            lines[:row] + [line[:col] + new + line[end:]] + lines[row + 1:])


async def edits_once(text: str, edits: int, insert: bool = False
                     ) -> tuple[list[float], float | None, list[float]]:
    """Open `text`, wait for its diagnostics, then time `edits` one-line edits (the last
    register operand of an instruction changed; with `insert`, a line inserted, which moves
    every line below) to their publishDiagnostics parsed by the client; the server's CPU
    seconds per edit; and the times to the publication's last byte received (before the
    client parses it)."""
    session = RawSession()
    await session.start({"diagnostics": {"mode": "push"}})
    uri = "file:///bench/edit.wave"
    opened = _published(session, uri, 1)
    _open(session, uri, text)
    await opened
    await asyncio.sleep(1)      # what follows the first analysis is not an edit's work
    lines = text.splitlines()
    times, received = [], []
    cpu = process_cpu(session.proc.pid)
    for version, row in enumerate(edit_rows(lines, edits), start=2):
        change, lines = edit_change(lines, row, insert)
        done = _published(session, uri, version)
        t0 = time.perf_counter()
        session.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
        await done
        times.append(time.perf_counter() - t0)
        received.append(session.received(done) - t0)
    used = process_cpu(session.proc.pid)
    await session.stop()
    return (times, (used - cpu) / len(times) if used is not None and cpu is not None else None,
            received)


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
    parser.add_argument("--only", choices=("lint", "tokens", "edit", "first"), action="append")
    parser.add_argument("--generators", default=",".join(GENERATORS),
                        help=f"comma-separated, of: {', '.join(GENERATORS)}")
    parser.add_argument("--lint-lines", type=int, default=10_000)
    parser.add_argument("--tokens-lines", type=int, default=100_000)
    parser.add_argument("--edit-lines", type=int, default=20_000)
    parser.add_argument("--insert", action="store_true",
                        help="edits insert a line (every line below moves) instead of changing "
                             "a register")
    parser.add_argument("--first-lines", type=int, default=600)
    args = parser.parse_args()
    only = set(args.only or ("lint", "tokens", "edit", "first"))
    names = [n.strip() for n in args.generators.split(",") if n.strip()]
    unknown = [n for n in names if n not in GENERATORS]
    if unknown:
        parser.error(f"unknown generator(s) {', '.join(unknown)}")
    for name in names:
        make = GENERATORS[name]
        if "lint" in only:
            bench_lint(name, make(args.lint_lines, 31), args.runs)
        if "tokens" in only:
            text = make(args.tokens_lines, 32)
            found = [asyncio.run(tokens_once(text)) for _ in range(args.runs)]
            report(f"[{name}] semantic tokens of a just-opened {args.tokens_lines}-line file",
                   [t for t, _ in found], [c for _, c in found if c is not None])
        if "edit" in only:
            text = make(args.edit_lines, 34)
            sessions = [asyncio.run(edits_once(text, 8, args.insert)) for _ in range(args.runs)]
            what = "line inserted" if args.insert else "one-line edit"
            report(f"[{name}] {what} -> diagnostics, {args.edit_lines}-line file "
                   f"(debounce included)", [t for times, _, _ in sessions for t in times],
                   [c for _, c, _ in sessions if c is not None])
            report(f"[{name}]   of which to the last byte received (before the client's "
                   f"json.loads)", [t for _, _, got in sessions for t in got])
    if "first" in only:
        text = distinct_source(args.first_lines, seed=33, clean=True)
        report(f"server start -> first hover answer, {args.first_lines}-line file",
               [asyncio.run(first_once(text)) for _ in range(args.runs)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
