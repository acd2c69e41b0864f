"""The user cache folder of wave-lsp and cheap fingerprints of installed packages.

Used to keep start-up work (the server's initialize answer, as JSON) between runs. Nothing in
it is ever executed or unpickled.
Imports nothing heavy: it runs before the big libraries are loaded.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/wave-lsp`, or `~/.cache/wave-lsp`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "wave-lsp"


def package_stamp(name: str) -> str:
    """Where an installed package lives and when it was written: changes when it is upgraded.
    (Much cheaper than importlib.metadata, which costs tens of milliseconds at start-up.)"""
    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec and spec.origin else ""
    try:
        return f"{origin}:{os.stat(origin).st_mtime_ns}"
    except OSError:
        return origin


def write_atomically(path: Path, data: bytes) -> None:
    """Write a cache file so that a concurrent reader never sees half of it (through a
    temporary file with an unpredictable name); errors are the caller's to ignore (a cache that
    cannot be written only makes the next start slower)."""
    from .files import write_atomically as write

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write(path, data)


def keep_newest(pattern: str, count: int) -> None:
    """Delete all but the `count` most recently used files of the cache folder whose names match
    `pattern`, so that the folder stays small however many workspaces, clients and versions have
    started a server. Errors are ignored: another server may be pruning at the same time."""
    found = []
    for path in cache_dir().glob(pattern):
        try:
            found.append((path.stat().st_mtime_ns, path))
        except OSError:
            continue
    found.sort(reverse=True)
    for _used, path in found[count:]:
        try:
            path.unlink()
        except OSError:
            pass
