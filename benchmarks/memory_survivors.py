"""What a real server keeps after documents close, and where it was allocated.

    python benchmarks/memory_survivors.py [--cycles 2] [--documents 100] [--lines 600] [--frames 10]

Starts `wave-lsp serve` with tracemalloc on (a `sitecustomize` in a temporary folder, put on the
server's PYTHONPATH, installs a SIGUSR1 handler), opens a small document and runs it (the
baseline), then --cycles times opens --documents kernels of --lines distinct lines, runs each
and closes them all, as tests/server/test_editor_jobs.py does. It prints the server's RSS after
each cycle, the surviving blocks allocated since the baseline grouped by traceback (most blocks
first: on CPython's allocator a few small survivors keep whole 1 MiB arenas). The server empties
its memos after closes only when they hold far more than the open documents' lines
(`ide.host.release_memory`): with few or short documents their entries show here as survivors.
tracemalloc makes the server several times slower: expect minutes.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from server.rawclient import INIT_PARAMS, RawClient  # noqa: E402
from server.test_editor_jobs import long_text as kernel, rss_mb  # noqa: E402  (the test's cycles)
from server.test_runaway_runs import SMALL  # noqa: E402

PROBE = textwrap.dedent('''
    import gc, os, signal, tracemalloc
    tracemalloc.start(int(os.environ["WAVE_SURVIVORS_FRAMES"]))
    _state = {"baseline": None}
    _out = os.environ["WAVE_SURVIVORS_OUT"]

    def _dump(*_):
        gc.collect()
        snap = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)])
        first = _state["baseline"] is None
        with open(_out + (".baseline" if first else ".after"), "w") as out:
            if first:
                _state["baseline"] = snap
                out.write(f"baseline: {len(snap.traces)} blocks\\n")
            else:
                stats = sorted(snap.compare_to(_state["baseline"], "traceback"),
                               key=lambda s: -s.count_diff)
                out.write(f"surviving new blocks: {sum(max(0, s.count_diff) for s in stats)}\\n")
                for stat in stats[:40]:
                    if stat.count_diff <= 0:
                        break
                    out.write(f"\\n{stat.count_diff} blocks, {stat.size_diff / 1024:.0f} KiB\\n")
                    out.writelines(f"    {line}\\n" for line in stat.traceback.format())

    signal.signal(signal.SIGUSR1, _dump)
''')

class Session:
    def __init__(self, folder: Path, frames: int) -> None:
        (folder / "sitecustomize.py").write_text(PROBE)
        self.out = folder / "survivors"
        env = {"PYTHONPATH": str(folder), "WAVE_SURVIVORS_FRAMES": str(frames),
               "WAVE_SURVIVORS_OUT": str(self.out)}
        self.client = RawClient(folder, env=env)
        self.client.seen = []
        self.ids = iter(range(1, 1 << 30))
        self.ask("initialize", {**INIT_PARAMS, "initializationOptions": {}})
        self.client.notify("initialized", {})

    def ask(self, method: str, params) -> dict:
        msg_id = next(self.ids)
        self.client.request(msg_id, method, params)
        return self.client.response(msg_id, 1800)

    def open(self, uri: str, text: str) -> None:
        self.client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "wave", "version": 1, "text": text}})

    def run(self, uri: str, name: str) -> None:
        self.ask("workspace/executeCommand", {"command": "wave-lsp.run",
                                              "arguments": [uri, name, None]})

    def hover(self, uri: str) -> None:
        self.ask("textDocument/hover", {"textDocument": {"uri": uri},
                                        "position": {"line": 2, "character": 6}})

    def dump(self, suffix: str) -> str:
        os.kill(self.client.proc.pid, signal.SIGUSR1)
        self.hover("file:///bench/small.wave")      # the handler runs between two requests
        path = Path(f"{self.out}.{suffix}")
        for _ in range(600):
            if path.exists() and path.stat().st_size:
                time.sleep(1)
                return path.read_text()
            time.sleep(0.5)
        return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=2)
    parser.add_argument("--documents", type=int, default=100)
    parser.add_argument("--lines", type=int, default=600)
    parser.add_argument("--frames", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wave-survivors-") as tmp:
        session = Session(Path(tmp), args.frames)
        try:
            small = "file:///bench/small.wave"
            session.open(small, SMALL)
            session.run(small, "s")
            session.hover(small)
            session.dump("baseline")
            pid = session.client.proc.pid
            print(f"baseline RSS {rss_mb(pid):.0f} MB", flush=True)
            for cycle in range(args.cycles):
                uris = [f"file:///bench/cycle/{cycle}-{i}.wave" for i in range(args.documents)]
                for i, uri in enumerate(uris):
                    session.open(uri, kernel(cycle * args.documents + i, args.lines))
                for i, uri in enumerate(uris):
                    session.run(uri, f"k{cycle * args.documents + i}")
                    session.client.seen.clear()
                for uri in uris:
                    session.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
                session.hover(small)
                time.sleep(3)           # the server gives memory back a second after closes
                session.hover(small)
                print(f"after cycle {cycle + 1}: RSS {rss_mb(pid):.0f} MB", flush=True)
            print(session.dump("after"))
        finally:
            session.client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
