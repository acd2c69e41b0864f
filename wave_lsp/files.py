"""Reading and writing the user's files without losing data or hanging.

Writes go to a temporary file with an unpredictable name in the target's folder, which is then
renamed over the target: a failed write (full disk, `ulimit -f`) leaves the original intact, and
a reader never sees half a file. Reads accept regular files only, up to a size limit, so a FIFO,
`/dev/zero` or a huge file gives a clear error instead of a hang or an exhausted memory.
Imports only the standard library's `os` and `stat` (it runs before the big libraries load).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_READ_BYTES = 64 << 20  # 64 MiB: far beyond any assembly source or .wbin


class FileWriteError(OSError):
    """Writing a file failed; the original (if any) is unchanged."""


def read_regular(path: Path | str, limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of a regular file; OSError for anything else (a directory, a FIFO, a device)
    or a file larger than `limit` bytes. Never blocks on a FIFO."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise OSError(errno.EINVAL, f"{kind}", str(path))
        if info.st_size > limit:
            raise OSError(errno.EFBIG, f"file too large ({info.st_size} bytes; the limit is "
                                       f"{limit} bytes)", str(path))
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # it grew while being read
                raise OSError(errno.EFBIG, f"file too large (more than {limit} bytes)",
                              str(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_atomically(path: Path | str, data: bytes, mode: int | None = None) -> None:
    """Replace `path` with `data` all at once. The temporary file is created exclusively with a
    random name beside `path` and renamed over it; on any failure it is removed, `path` is left
    as it was, and `FileWriteError` says why. The new file keeps the old one's permissions and
    owner (or gets `mode`, default 0o644 less the umask). A file the user could not write in
    place is refused, not replaced: one without write permission for the user (for root: one
    with no write bit at all, as `rm` and editors treat it), or one of another owner that
    the new file could not keep."""
    path = Path(path)
    owner = None
    try:
        old = os.stat(path)
    except OSError:
        old = None
    if old is not None and stat.S_ISREG(old.st_mode):
        if not os.access(path, os.W_OK) or not old.st_mode & 0o222:
            raise FileWriteError(errno.EACCES, "the file is read-only; it is left as it is",
                                 str(path))
        if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
            owner = (old.st_uid, old.st_gid)
        if mode is None:
            mode = stat.S_IMODE(old.st_mode)
    tmp = path.parent / f".{path.name}.{os.urandom(8).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(tmp, flags, 0o666 if mode is None else 0o600)
    except OSError as err:
        raise FileWriteError(err.errno, f"cannot create a file in {path.parent}: "
                                        f"{err.strerror}", str(path)) from err
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
            if owner is not None:    # before the mode: a chown may clear set-id bits
                try:
                    os.fchown(fd, *owner)
                except PermissionError:
                    raise FileWriteError(errno.EPERM, "the file belongs to another user, "
                                         "which the rewritten file could not keep; it is left "
                                         "as it is", str(path)) from None
            if mode is not None:
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FileWriteError(err.errno, err.strerror or str(err), str(path)) from err


def write_text_atomically(path: Path | str, text: str) -> None:
    """`write_atomically` for UTF-8 text, newlines untouched."""
    write_atomically(path, text.encode("utf-8"))


def rewrite_source(path: Path | str, read: bytes, data: bytes,
                   limit: int = MAX_READ_BYTES) -> None:
    """Replace a source file the tool read as `read` with `data` (`lint --fix`, `test
    --update`), losing nothing the user did meanwhile:
    - refused (`FileWriteError`, naming the file) when the file no longer holds `read`: it was
      saved while the tool worked, and the user's version wins;
    - refused when `data` is larger than `limit`, what the tool itself reads back;
    - a symbolic link stays a link (its target is rewritten), and a file with other hard links
      is rewritten in place, so every name still shows one file (a complete copy of `data` is
      written beside it first, so a full disk fails before the file is touched)."""
    path = Path(path)
    if len(data) > limit:
        raise FileWriteError(errno.EFBIG, f"the rewritten file would hold {len(data)} bytes, "
                             f"more than the {limit} bytes wave-lsp reads back; it is left as "
                             f"it is", str(path))
    try:
        now = read_regular(path, max(limit, len(read)))
    except OSError as err:
        raise FileWriteError(err.errno, f"cannot read it again: {err.strerror or err}",
                             str(path)) from err
    if now != read:
        raise FileWriteError(errno.EAGAIN, "the file changed while wave-lsp worked on it (it "
                             "was saved meanwhile); it is left as it is: run again", str(path))
    target = Path(os.path.realpath(path))
    if os.stat(target).st_nlink <= 1:
        write_atomically(target, data)
        return
    spare = target.parent / f".{target.name}.{os.urandom(8).hex()}.tmp"
    write_atomically(spare, data, 0o600)
    try:
        fd = os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as err:
        raise FileWriteError(err.errno, f"{err.strerror or err}; the complete new text is in "
                             f"{spare}", str(path)) from err
    os.unlink(spare)
