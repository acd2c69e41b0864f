"""`--arg OFFSET:FILE` files of launch lines in the editor.

A launch line is part of a document that may come from anyone, so the editor and `wave-lsp test`
(which CI and pre-commit run on pull requests) treat its files differently from `wave-lsp run`
(which reads what its user names):
- a name is relative to the document's folder and must stay inside the *root*: the workspace
  folder that holds the document, else the document's folder (`wave-lsp test`: the repository
  that holds the file, else its folder, `file_root`). An absolute path, or a `..` that leaves the
  root, is a launch-line problem (R004 on the flag), found without touching the disk;
- opening or editing a document never touches the files: they are read only when a kernel
  runs, and a file whose real path (symbolic links followed) leaves the root is refused then;
- each file is read once per run however often the line names it, and kept between runs by
  (path, modification time, size), so typing with `run.live` reads nothing again;
- the files of one run may hold at most `MAX_RUN_BYTES` in total, and the cache keeps at most
  as much (least recently used first out).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path, PurePath

from ..launch.flags import LaunchFlagError
from ..files import read_regular

MAX_RUN_BYTES = 256 << 20      # the --arg files of one run, in total; also the cache's bound


def confined_path(name: str, folder: Path, root: Path) -> Path:
    """The path `name` stands for (relative to `folder`), or LaunchFlagError when it is
    absolute or leaves `root`. Purely lexical: the disk is not touched."""
    pure = PurePath(name)
    if pure.is_absolute() or name.startswith("~"):
        raise LaunchFlagError(f"--arg: '{name}' is an absolute path; a launch line reads "
                              f"files inside {root} only", "--arg")
    path = Path(os.path.normpath(folder / pure))
    if not path.is_relative_to(root):
        raise LaunchFlagError(f"--arg: '{name}' leaves {root}; a launch line reads files "
                              f"inside it only", "--arg")
    return path


def real_inside(path: Path, real_root: Path) -> Path:
    """`path` with its links followed, or LaunchFlagError when that leaves `real_root` (a
    resolved root)."""
    real = path.resolve()
    if not real.is_relative_to(real_root):
        raise LaunchFlagError(f"--arg: '{path.name}' is a link to {real}, outside "
                              f"{real_root}; a launch line reads files inside it only", "--arg")
    return real


def file_root(path: Path) -> Path:
    """Where the launch lines of the file at `path` may read files outside an editor: the git
    repository that holds it, else its own folder."""
    folder = Path(os.path.abspath(path)).parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


class ArgFiles:
    """The files runs read, by (path, mtime, size), at most `limit` bytes kept."""

    def __init__(self, limit: int = MAX_RUN_BYTES) -> None:
        self.limit = limit
        self._kept: OrderedDict[tuple, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.reads = 0                 # files read from disk (for tests and benchmarks)

    def load(self, files: tuple[tuple[int, Path], ...], root: Path) -> list[tuple[int, bytes]]:
        """(offset, bytes) for each (offset, path) of one run; OSError or LaunchFlagError
        (naming the file) when one cannot be used."""
        real_root = root.resolve()
        by_path: dict[Path, bytes] = {}
        total = 0
        out = []
        for offset, path in files:
            if path not in by_path:
                data = self._read(path, real_root)
                total += len(data)
                if total > self.limit:
                    raise LaunchFlagError(f"--arg: the files of this launch line hold more "
                                          f"than {self.limit >> 20} MiB; the editor reads at "
                                          f"most that much per run", "--arg")
                by_path[path] = data
            out.append((offset, by_path[path]))
        return out

    def clear(self) -> None:
        """Forget every file kept (a document closed: the files may be its own)."""
        with self._lock:
            self._kept.clear()
            self._size = 0

    def _read(self, path: Path, real_root: Path) -> bytes:
        real = real_inside(path, real_root)
        info = os.stat(real)
        key = (real, info.st_mtime_ns, info.st_size)
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        data = read_regular(real, self.limit)
        self.reads += 1
        with self._lock:
            self._kept[key] = data
            self._size += len(data)
            while self._size > self.limit and self._kept:
                _, old = self._kept.popitem(last=False)
                self._size -= len(old)
        return data
