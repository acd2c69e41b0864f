"""Benchmark: the editor's runs of the shared `gemm_blocked.wave` at N = 128 (4.6 M
lane-instructions) through the real `wave-lsp serve` subprocess (issue targets: ▶ Run ≤ 250 ms,
edit → refreshed values ≤ 300 ms).

    python benchmarks/bench_editor_gemm.py [--repeat 7]

The document is the shared kernel with a launch line (N = 128: one 16x16 workgroup, A and B
filled in place, the dims in registers). `raw_session.RawSession` (plain `json`, as an editor
parses; a client without refresh capabilities, so the server says `wave-lsp/runsChanged`):
- ▶ Run: `wave-lsp.run` to its answer, then the inlay hints (the values) answered;
- edit → values: a one-character edit of a comment (a new revision: the kernel runs again) to
  the inlay hints that show the new revision's values (the default 30 ms debounce included);
- edit → values and profile: the same with the kernel profiled too (`wave-lsp.profile`), to
  both the values and the profile's first `wave-lsp/profileChanged` of the revision.
Medians of --repeat after one warm-up; the engine is whatever the server picks (run it with
`PYTHONPATH` of another checkout for a before/after pair). Needs ../shared/wave-examples.
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

EXAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "wave-examples"
URI = "file:///bench/gemm_blocked.wave"
N = 128
WORDS = N * N
LAUNCH = (f"; wave-lsp run: --grid 1,1,1 --workgroup 16,16,1 --device-memory {12 * WORDS} "
          f"--fill-iota 0:f32:{WORDS}:0.001 --fill-iota {4 * WORDS}:f32:{WORDS}:0.002 "
          f"--set-reg 0:0 --set-reg 1:{4 * WORDS} --set-reg 2:{8 * WORDS} --set-reg 3:{N} "
          f"--set-reg 4:{N} --set-reg 5:{N} --dump-f32 {8 * WORDS}:16")
SETTINGS = {"diagnostics": {"mode": "push"}, "inlayHints": {"offsets": False, "encoding": False},
            "run": {"timeLimitMs": 60_000}}


def document() -> tuple[str, str, int, int]:
    """(text, kernel name, a comment line to edit, a line the run shows a value on)."""
    lines = (EXAMPLES / "gemm_blocked.wave").read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(".kernel"))
    lines.insert(at, LAUNCH)
    kernel = lines[at + 1].split()[1]
    comment = next(i for i, line in enumerate(lines) if line.startswith("; Computes"))
    shown = next(i for i, line in enumerate(lines) if line.strip().startswith("mov_sr"))
    return "\n".join(lines), kernel, comment, shown


async def hints(session: RawSession) -> set[int]:
    """The lines showing a run's value (`r3 = ...`; the profile's hints are figures, and the
    last run's values kept while a new run is due are marked stale, `⟳ `)."""
    got = await session.request("textDocument/inlayHint", {
        "textDocument": {"uri": URI},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 10_000, "character": 0}}})
    return {h["position"]["line"] for h in got or []
            if " = " in (label := h["label"] if isinstance(h["label"], str)
                         else "".join(part["value"] for part in h["label"]))
            and not label.startswith("⟳")}


async def open_session(text: str) -> RawSession:
    session = RawSession()
    await session.start(SETTINGS, {})
    session.notify("textDocument/didOpen", {"textDocument": {
        "uri": URI, "languageId": "wave", "version": 1, "text": text}})
    return session


async def run_clicks(text: str, kernel: str, shown: int, repeat: int) -> tuple[list[float], str]:
    session = await open_session(text)
    times, engine = [], ""
    for i in range(repeat + 1):
        began = time.perf_counter()
        result = await session.request("workspace/executeCommand", {
            "command": "wave-lsp.run", "arguments": [URI, kernel, None]})
        assert result.get("ok"), result
        assert shown in await hints(session)
        if i:
            times.append((time.perf_counter() - began) * 1000)
        engine = result.get("summary", "")
    await session.stop()
    return times, engine


async def edits(text: str, kernel: str, comment: str, shown: int, repeat: int,
                profiled: bool) -> list[float]:
    session = await open_session(text)
    result = await session.request("workspace/executeCommand", {
        "command": "wave-lsp.run", "arguments": [URI, kernel, None]})
    assert result.get("ok"), result
    if profiled:
        result = await session.request("workspace/executeCommand", {
            "command": "wave-lsp.profile", "arguments": [URI, kernel, None]})
        assert result.get("ok"), result
        await asyncio.sleep(1.0)          # the first profile's presets
    times = []
    for version in range(2, repeat + 3):
        profile = session.notification("wave-lsp/profileChanged",
                                       lambda p, v=version: p["version"] == v)
        began = time.perf_counter()
        session.notify("textDocument/didChange", {
            "textDocument": {"uri": URI, "version": version},
            "contentChanges": [{"range": {"start": {"line": comment, "character": 2},
                                          "end": {"line": comment, "character": 3}},
                                "text": "cC"[version % 2]}]})
        while True:        # the values of this revision (none shown until its run is stored)
            await asyncio.wait_for(session.notification("wave-lsp/runsChanged"), 120)
            if shown in await hints(session):
                break
        if profiled:
            await asyncio.wait_for(profile, 120)
        if version > 2:
            times.append((time.perf_counter() - began) * 1000)
        await asyncio.sleep(0.3 if not profiled else 1.0)     # the presets' job settles
    await session.stop()
    return times


def figures(times: list[float]) -> str:
    return (f"median {statistics.median(times):.0f} ms (min {min(times):.0f}, "
            f"max {max(times):.0f})")


async def main_async(repeat: int) -> None:
    text, kernel, comment, shown = document()
    times, summary = await run_clicks(text, kernel, shown, repeat)
    print(f"▶ Run gemm_blocked N=128 -> values: {figures(times)}; lens {summary!r}")
    times = await edits(text, kernel, comment, shown, repeat, profiled=False)
    print(f"edit -> refreshed values: {figures(times)}")
    times = await edits(text, kernel, comment, shown, repeat, profiled=True)
    print(f"edit -> values and profile (kernel profiled): {figures(times)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    if not (EXAMPLES / "gemm_blocked.wave").is_file():
        raise SystemExit(f"{EXAMPLES / 'gemm_blocked.wave'} not found")
    asyncio.run(main_async(args.repeat))


if __name__ == "__main__":
    main()
