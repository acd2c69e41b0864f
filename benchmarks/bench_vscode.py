"""Benchmark the VS Code extension in a real VS Code (code-server, installed by
.ci/tools/vscode.sh): extension activation to first diagnostics on a 200-line kernel, and the
size of the `.vsix`.

    python benchmarks/bench_vscode.py [--lines 200] [--repeat 3]

Each repeat starts a fresh code-server and opens a kernel of distinct lines (each instruction has
its own registers and immediates; one line is broken so that there is a diagnostic to wait for).
The extension logs "First diagnostics N ms after activation." to its output channel, which the
workbench persists; the figure is the median N. The wall time from opening the file to the
squiggle in the page is printed too.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.vscode.workbench import (ARTIFACTS, EXTENSION, CodeServer, Workbench,  # noqa: E402
                                    missing_tools)

OPS = ("iadd", "isub", "imul", "and", "or", "xor", "imin", "imax")


def kernel(lines: int) -> str:
    """A kernel of `lines` distinct lines with one legacy (error) line near the top."""
    body = ["; benchmark kernel: distinct instructions", ".kernel bench", ".registers 64",
            "    mov_sr  r0, sr_thread_id_x"]
    n = 0
    while len(body) < lines - 2:
        if n == 5:  # in view, so the squiggle is drawn
            body.append("    add.s32 r1, r2, r3")
        elif n % 3 == 0:
            body.append(f"    mov_imm r{1 + n % 60}, {n * 7 + 1}")
        else:
            body.append(f"    {OPS[n % len(OPS)]}    r{1 + n % 60}, r{1 + (n * 5) % 60}, "
                        f"r{1 + (n * 11) % 60}    ; step {n}")
        n += 1
    body += ["    halt", ".end"]
    return "\n".join(body) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if missing := missing_tools():
        print(f"missing: {', '.join(missing)}; run bash .ci/tools/vscode.sh", file=sys.stderr)
        return 2
    subprocess.run(["npm", "--silent", "run", "package"], cwd=EXTENSION, check=True,
                   capture_output=True)
    vsix = EXTENSION / "wave-lsp-0.1.0.vsix"
    print(f".vsix size: {vsix.stat().st_size / 1024:.1f} KiB ({vsix.name})")

    first, walls, starts = [], [], []
    for _ in range(args.repeat):
        home = Path(tempfile.mkdtemp(prefix="bench-vscode-"))
        try:
            workspace = home / "kernels"
            workspace.mkdir()
            (workspace / "bench.wave").write_text(kernel(args.lines))
            (workspace / ".venv").symlink_to(ROOT / ".venv")
            server = CodeServer(home, vsix, settings={})
            wb = Workbench(server, workspace, ARTIFACTS / "bench")
            try:
                start = time.perf_counter()
                wb.openFile("bench.wave")
                wb.wait_until(lambda: wb.count(".monaco-editor .squiggly-error") > 0,
                              "the squiggle", timeout=60, interval=0.02)
                walls.append((time.perf_counter() - start) * 1000)
                log = wb.wait_until(lambda: re.search(
                    r"First diagnostics (\d+) ms after activation", server.output_channel()),
                    "the timing line")
                first.append(int(log.group(1)))
                started = re.search(r"Server started in (\d+) ms", server.output_channel())
                starts.append(int(started.group(1)) if started else 0)
            finally:
                wb.close()
                server.stop()
        finally:
            shutil.rmtree(home, ignore_errors=True)
    print(f"activation -> first diagnostics, {args.lines}-line kernel: "
          f"median {statistics.median(first):.0f} ms (runs: {', '.join(map(str, first))})")
    print(f"  of which the server process start to its initialize response: "
          f"median {statistics.median(starts):.0f} ms")
    print(f"open file -> squiggle visible (wall, includes activation): "
          f"median {statistics.median(walls):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
