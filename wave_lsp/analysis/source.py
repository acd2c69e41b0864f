"""Turning file bytes into source text, or into the one diagnostic that says why not."""

from __future__ import annotations

from .codes import severity_of
from .diagnostic import Diagnostic, Range

_CONTROL = set(range(0, 9)) | {11, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                                29, 30, 31, 127}


_CONTROL_TEXT = "".join(map(chr, sorted(_CONTROL)))


def looks_binary(data: bytes | str) -> bool:
    """NUL, or many control characters, in the first 8 KiB: the one test of "is this a binary
    file" for files read from disk (bytes) and documents an editor opened (text)."""
    head = data[:8192]
    if not head:
        return False
    if isinstance(head, str):
        if "\x00" in head:
            return True
        control = sum(head.count(c) for c in _CONTROL_TEXT)
    else:
        if b"\x00" in head:
            return True
        control = sum(1 for b in head if b in _CONTROL)
    return control / len(head) > 0.10


def decode_source(data: bytes) -> tuple[str | None, Diagnostic | None]:
    """(text, None) for UTF-8 text; (None, diagnostic) for a binary or non-UTF-8 file."""
    if looks_binary(data):
        kind = "a WAVE binary (.wbin)" if data[:4] == b"WAVE" else "binary data"
        return None, Diagnostic("X900", severity_of("X900"), Range(0, 0, 0, 0),
                                f"this is {kind}, not WAVE assembly text")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start)
        col_bytes = data[data.rfind(b"\n", 0, err.start) + 1:err.start]
        col = len(col_bytes.decode("utf-8", errors="replace"))
        return None, Diagnostic("X901", severity_of("X901"), Range(line, col, line, col + 1),
                                f"file is not UTF-8: byte 0x{data[err.start]:02x} at line "
                                f"{line + 1}, column {col + 1} cannot be decoded")
