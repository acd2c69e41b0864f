"""`wave-lsp serve` on Linux with glibc runs on the C allocator unless the user chose one
(`PYTHONMALLOC`): memory freed when documents close then goes back to the system
(tests/server/test_editor_jobs.py measures it), where Python's own allocator keeps every arena
a few survivors live in."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from .rawclient import RawClient

pytestmark = [pytest.mark.skipif(
    sys.platform != "linux" or os.confstr("CS_GNU_LIBC_VERSION") is None,
    reason="the re-start on the C allocator is for Linux with glibc"), pytest.mark.real_server]


def allocator_of(tmp_path: Path, env: dict[str, str]) -> str | None:
    """The server's PYTHONMALLOC, as the environment of the process answering shows it."""
    raw = RawClient(tmp_path / "cache", env=env)
    try:
        raw.initialize()
        environ = Path(f"/proc/{raw.proc.pid}/environ").read_bytes().split(b"\0")
        found = [e.split(b"=", 1)[1].decode() for e in environ if e.startswith(b"PYTHONMALLOC=")]
        return found[0] if found else None
    finally:
        raw.close()


def test_the_server_runs_on_the_c_allocator(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTHONMALLOC", raising=False)
    assert allocator_of(tmp_path, {}) == "malloc"


def test_an_allocator_the_user_chose_is_kept(tmp_path):
    assert allocator_of(tmp_path, {"PYTHONMALLOC": "pymalloc"}) == "pymalloc"
