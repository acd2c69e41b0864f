"""Memory held for an open document is bounded, and given back when it closes.

Measured on the real server process through /proc (resident set size). The server runs with
`MALLOC_MMAP_THRESHOLD_` fixed at 128 KiB so that glibc maps every large string on its own and
unmaps it when freed: the resident size then follows what the server really holds, not the
allocator's high-water mark.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from .rawclient import RawClient

pytestmark = [pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                 reason="needs /proc to read the server's memory"),
              pytest.mark.real_server]    # the resident size of the server's own process

LINE_BYTES = 1 << 20
EDITS = 50
# Growth allowed over the edits: less than one copy of the line per 4 edits (12.5 MB), so that
# keeping a copy per edit, or per few edits, fails (the server keeps none: growth is ~0 MB).
EDIT_GROWTH_MB = 12
URI = "file:///tmp/wave-lsp-memory/big-line.wave"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def settle(raw: RawClient, msg_id: str) -> None:
    """Wait until the server has handled everything sent so far (and its debounced work)."""
    raw.request(msg_id, "textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    raw.response(msg_id, timeout=300)
    time.sleep(1.0)
    raw.request(msg_id + "+", "textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    raw.response(msg_id + "+", timeout=300)


def test_memory_is_bounded_over_edits_and_released_on_close(tmp_path):
    raw = RawClient(tmp_path / "cache", env={"MALLOC_MMAP_THRESHOLD_": str(128 * 1024)})
    try:
        raw.initialize()
        settle_doc = ".kernel k\n    halt\n.end\n"
        raw.notify("textDocument/didOpen", {"textDocument": {
            "uri": URI + ".warm", "languageId": "wave", "version": 1, "text": settle_doc}})
        baseline = rss_mb(raw.proc.pid)
        comment = "x" * LINE_BYTES
        text = f".kernel k\n    iadd r1, r2, r3 ; {comment}\n    halt\n.end\n"
        raw.notify("textDocument/didOpen", {"textDocument": {
            "uri": URI, "languageId": "wave", "version": 1, "text": text}})
        settle(raw, "open")
        opened = rss_mb(raw.proc.pid)
        for version in range(2, EDITS + 2):  # each edit makes the long line a new text
            column = 24 + (version * 7919) % (LINE_BYTES - 1)
            raw.notify("textDocument/didChange", {
                "textDocument": {"uri": URI, "version": version},
                "contentChanges": [{"range": {"start": {"line": 1, "character": column},
                                              "end": {"line": 1, "character": column + 1}},
                                    "text": "abcdefghijklmnopqrstuvwxyz"[version % 26]}]})
            if version % 25 == 0:
                settle(raw, f"edit-{version}")
        settle(raw, "edited")
        edited = rss_mb(raw.proc.pid)
        raw.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
        settle(raw, "closed")
        closed = rss_mb(raw.proc.pid)
        print(f"RSS MB: baseline {baseline:.0f}, open {opened:.0f}, after {EDITS} edits "
              f"{edited:.0f}, after close {closed:.0f}")
        # a handful of copies of a 1 MB line is fine; one per edit (or per 4 edits) is not
        assert edited - opened < EDIT_GROWTH_MB, (baseline, opened, edited, closed)
        assert closed - baseline < 20, (baseline, opened, edited, closed)
    finally:
        raw.close()
