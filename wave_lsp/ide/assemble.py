"""Assembling an open document: a JSON-able report of size, SHA-256 and kernels (or the error
and its line), optionally writing the `.wbin`, and where that `.wbin` may go (`wbin_target`:
beside a real `.wave` file, never over the document, never through a link, with the reason
when nowhere). The code lens command and any other client of the IDE layer (a debugger, a
script) share it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..asm.assembler import AssemblyError, assemble
from ..files import write_atomically
from .state import DocumentState


def assemble_report(state: DocumentState, compat: bool, path: Path | None = None) -> dict:
    """Assemble the document; write the bytes to `path` when given and the source assembles."""
    try:
        assembly = assemble(state.document, compat=compat)
    except AssemblyError as err:
        return {"uri": state.uri, "error": err.message, "line": err.line}
    data = assembly.wbin()
    report = {"uri": state.uri, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
              "compat": compat, "kernels": [k.name for k in assembly.kernels], "path": None}
    if path is not None:
        try:
            write_atomically(path, data)
        except OSError as err:
            report["not_written"] = f"cannot write {path}: {err.strerror or err}"
            return report
        report["path"] = str(path)
    return report


def assemble_to_file(state: DocumentState, compat: bool) -> dict:
    """Assemble the document, writing its `.wbin` where `wbin_target` allows; the report says
    why nothing was written (`not_written`) when the source assembles but has no place."""
    target, why = wbin_target(state.uri)
    report = assemble_report(state, compat, target)
    if "error" not in report and target is None:
        report["not_written"] = why
    return report


_DRIVE = re.compile(r"^/[a-zA-Z]:")


def local_path(uri: str) -> str:
    """The path of a local `file:` URI: its path, percent-decoded (`/C:/x` as `c:/x`)."""
    path = unquote(urlsplit(uri).path)
    return path[1].lower() + path[2:] if _DRIVE.match(path) else path


def wbin_target(uri: str) -> tuple[Path | None, str]:
    """Where the `.wbin` of the document at `uri` goes: the sibling `NAME.wbin` of a real
    `NAME.wave` file named by an absolute `file:` URI. Otherwise None and why not: nothing is
    written for other schemes, relative or `..` paths, a non-`.wave` document (a `.wbin` would
    overwrite itself), a source that is not a regular file on disk, or a target that is a link
    or not a regular file."""
    parsed = urlsplit(uri)
    if parsed.scheme != "file":
        return None, "the document is not a file on disk"
    if parsed.netloc not in ("", "localhost"):
        return None, f"the file is on another host ({parsed.netloc})"
    raw_path = unquote(parsed.path)
    if "\0" in raw_path:
        return None, "the file URI's path is invalid (it holds a NUL byte)"
    if not raw_path.startswith("/"):
        return None, "the file URI has no absolute path"
    if any(part in (".", "..") for part in raw_path.split("/")):
        return None, "the file URI has '.' or '..' segments"
    source = Path(local_path(uri))
    if source.suffix != ".wave":
        return None, f"only a .wave file is assembled to a file ({source.name} is not one)"
    if not source.is_absolute() or not source.is_file():
        return None, f"{source} is not a file on disk (save it first)"
    target = source.with_suffix(".wbin")
    if target.is_symlink():
        return None, f"{target} is a symbolic link; not written through it"
    if target.exists() and not target.is_file():
        return None, f"{target} exists and is not a regular file"
    return target, ""
