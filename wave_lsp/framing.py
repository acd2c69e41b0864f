"""The base-protocol framing shared by the language server (stdio and TCP) and the debug adapter:
header lines `Name: value` ended by an empty line, then `Content-Length` bytes of JSON.

`Deframer` is fed bytes as they arrive and hands back whole bodies; it holds no stream, so the
server's asyncio transports and the adapter's blocking reader use the same code. Headers are
read the way HTTP headers are: names in any case, optional space after the colon. A bad message
never deafens the reader: a header block without a valid length, a length that is negative, not
a number or over `MAX_MESSAGE_BYTES`, a length that runs into the next message's header, or a
header block over `MAX_HEADER_BYTES` is reported (with the reason) and reading resumes at the
next `Content-Length` header. (No JSON body can contain one: a JSON string cannot hold a raw
line break.) `decode_json` turns a body into a JSON object or a `FramingError` saying why not
(invalid UTF-8 or JSON, nesting too deep for the decoder, not an object).

Sizes, documented in docs/user/limits-and-security.md: a message body may be up to 64 MiB (a
WAVE document of about two million lines; a debug adapter's `writeMemory` of 48 MiB), a header
block up to 64 KiB.
"""

from __future__ import annotations

import json
import logging
import os
import re
import select
import threading
from typing import Any, Callable

CHUNK = 1 << 16                # bytes read from a stream at a time
MAX_MESSAGE_BYTES = 64 << 20   # the largest body one message may announce
MAX_HEADER_BYTES = 1 << 16     # a header block longer than this is junk
HEADER_END = b"\r\n\r\n"
# A Content-Length header line: where a message starts. It cannot occur inside a JSON body.
_LENGTH_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*([+-]?\d+)[ \t]*\r\n", re.IGNORECASE)
_HEADER_LINE = re.compile(rb"([!-9;-~]+)[ \t]*:[ \t]*(.*)")
_CUT_HEADER = 64               # bytes kept when a header may be cut by the end of a read


class FramingError(ValueError):
    """A message that cannot be used; the text says why."""


def frame(body: bytes, content_type: str | None = None) -> bytes:
    """`body` with its base-protocol header."""
    header = b"Content-Length: %d\r\n" % len(body)
    if content_type:
        header += f"Content-Type: {content_type}\r\n".encode("ascii")
    return header + b"\r\n" + body


def decode_json(body: bytes | str) -> dict[str, Any]:
    """The JSON object in a message body, or a `FramingError` naming what is wrong with it."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as err:     # UnicodeDecodeError is a ValueError
        raise FramingError(f"the message body is not JSON ({err.__class__.__name__}: "
                           f"{str(err)[:120]})") from None
    if not isinstance(data, dict):
        raise FramingError("a batch (the protocol has none)" if isinstance(data, list)
                           else f"the message is a JSON {type(data).__name__}, not an object")
    return data


class Deframer:
    """Cuts message bodies out of the bytes fed to it, recovering from any malformed message.

    `report` is called with the reason for every piece of input that is dropped."""

    def __init__(self, report: Callable[[str], None],
                 max_body: int = MAX_MESSAGE_BYTES) -> None:
        self.buffer = bytearray()
        self._report = report
        self._max_body = max_body
        self._length: int | None = None   # the body being waited for, its header consumed
        self._scanned = 0

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next_body(self) -> bytes | None:
        """The next whole message body, or None until more bytes are fed."""
        buf = self.buffer
        while True:
            if self._length is None:
                end = buf.find(HEADER_END)
                if end < 0:
                    if len(buf) > MAX_HEADER_BYTES:
                        self._skip(len(buf) - _CUT_HEADER, "no message header in the input")
                    return None
                length = self._content_length(end)
                if length is None:
                    continue
                self._length, self._scanned = length, 0
            body = self._body(self._length)
            if body is not False:
                return body

    def finish(self) -> None:
        """The input has ended: report what is left of an unfinished message."""
        if self._length is not None:
            self._report(f"the input ends inside a message body "
                         f"({len(self.buffer)} of {self._length} bytes)")
        elif self.buffer.strip():
            self._report(f"the input ends inside a message header "
                         f"({len(self.buffer)} bytes dropped)")
        self.buffer.clear()
        self._length = None

    def _content_length(self, end: int) -> int | None:
        """The length announced by the header block ending at `end` (consumed), or None when it
        has none that is valid (the block is then dropped and reported)."""
        buf = self.buffer
        block = bytes(buf[:end])
        found = list(_LENGTH_HEADER.finditer(block + b"\r\n"))
        if not found:
            del buf[:end + len(HEADER_END)]
            self._report(f"message header without a valid Content-Length: {show(block)}")
            self._resync()
            return None
        match = found[-1]
        if match.start():  # bytes before the header: junk, or headers of a broken message
            junk = block[:match.start()]
            lines = junk.split(b"\r\n")
            if lines[-1] or any(not _HEADER_LINE.fullmatch(line) for line in lines[:-1]):
                self._report(f"{len(junk)} bytes before a message header dropped: {show(junk)}")
        tail = block[match.end():]
        if tail and any(not _HEADER_LINE.fullmatch(line) for line in tail.split(b"\r\n")):
            self._report(f"malformed header line in {show(block)}")
        del buf[:end + len(HEADER_END)]
        text = match.group(1)
        length = int(text)
        if text[:1] in b"+-" or not 0 < length <= self._max_body:
            why = f" (the limit is {self._max_body} bytes)" if length > self._max_body else ""
            self._report(f"invalid Content-Length {text.decode()}{why}")
            self._resync()
            return None
        return length

    def _body(self, length: int) -> bytes | None | bool:
        """The body of `length` bytes when it is all there; None when more is needed; False when
        another message's header turns up inside it (the bytes before it are dropped)."""
        buf = self.buffer
        limit = min(len(buf), length + _CUT_HEADER)  # a header may start inside, end past it
        header = _LENGTH_HEADER.search(buf, max(0, self._scanned - _CUT_HEADER), limit)
        if header is not None and header.start() < length:
            del buf[:header.start()]
            self._report(f"Content-Length {length} runs into the next message; "
                         f"{header.start()} bytes dropped")
            self._length = None
            return False
        self._scanned = limit
        if len(buf) < length:
            return None
        body = bytes(buf[:length])
        del buf[:length]
        self._length = None
        return body

    def _resync(self) -> None:
        """Drop what follows a broken header up to the next Content-Length header."""
        buf = self.buffer
        match = _LENGTH_HEADER.search(buf)
        if match is not None:
            if match.start():
                del buf[:match.start()]
        else:  # keep a tail that may be the start of a header cut by the read
            self._skip(len(buf) - _CUT_HEADER, None)

    def _skip(self, count: int, reason: str | None) -> None:
        if count <= 0:
            return
        del self.buffer[:count]
        if reason:
            self._report(f"{reason}: {count} bytes dropped")


def show(data: bytes, limit: int = 60) -> str:
    """A short printable excerpt of bytes for a report."""
    text = data[:limit].decode("utf-8", "replace")
    return repr(text) + ("…" if len(data) > limit else "")


class WholeWriter:
    """A byte stream's writer that writes every message whole, or fails loudly.

    A buffered stream loses the rest of a message when its file descriptor is non-blocking and
    the reader is slower than the writer (the pipe fills, `write` raises `BlockingIOError`
    after part of the message): the client then waits forever for bytes that never come. The
    descriptor's non-blocking flag belongs to the open pipe, shared by every process that holds
    it, so no process can be sure it stays off. This writer writes to the descriptor itself and
    waits (with `select`) for room whenever the pipe is full; a partial write is continued.
    `nonblocking_seen` counts the writes that found the pipe full and non-blocking."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._fd = stream.fileno()
        self.nonblocking_seen = 0
        self._lock = threading.Lock()   # one message at a time, whole, whichever thread writes
        stream.flush()                  # what the stream already holds goes first

    def write(self, data: bytes) -> int:
        with self._lock:
            self._write(data)
        return len(data)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                if not self.nonblocking_seen:
                    logging.getLogger("wave_lsp").warning(
                        "the output pipe is non-blocking (set by a process sharing it) and "
                        "full: waiting for the client to read")
                self.nonblocking_seen += 1
                select.select([], [self._fd], [])
                continue
            view = view[written:]

    def flush(self) -> None:
        """Nothing is held: every `write` reached the descriptor."""

    def fileno(self) -> int:
        return self._fd

    def close(self) -> None:
        self._stream.close()


def whole_writer(stream: Any) -> Any:
    """`WholeWriter(stream)` where the stream has a descriptor, else the stream itself (a test's
    in-memory stream)."""
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return stream
    return WholeWriter(stream)
