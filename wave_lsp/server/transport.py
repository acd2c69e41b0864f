"""Reading the client's byte stream: stdin is pumped by a thread into an asyncio stream.

pygls' default stdin reader hands every header line and body to the event loop one at a time,
so a request starts running before a `$/cancelRequest` sent right behind it is even read. Here a
thread reads whatever bytes are available and feeds them to an `asyncio.StreamReader`; the
message loop then handles every message already received before any request task takes its
first step, so a request cancelled while still queued is never computed.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import BinaryIO

CHUNK = 1 << 16


class ChunkReader:
    """An async reader (`readline`, `readexactly`) over a blocking binary stream."""

    def __init__(self, stream: BinaryIO, prefix: bytes = b"") -> None:
        self._stream = stream
        self._buffer = asyncio.StreamReader(limit=1 << 30)
        self._loop = asyncio.get_running_loop()
        if prefix:  # bytes already read from the stream (see handshake.py)
            self._buffer.feed_data(prefix)
        threading.Thread(target=self._pump, name="wave-lsp-stdin", daemon=True).start()

    def _pump(self) -> None:
        try:
            fd = self._stream.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None
        try:
            while True:
                chunk = os.read(fd, CHUNK) if fd is not None else self._stream.read1(CHUNK)
                if not chunk:
                    break
                self._loop.call_soon_threadsafe(self._buffer.feed_data, chunk)
        except (OSError, ValueError):
            pass
        finally:
            try:
                self._loop.call_soon_threadsafe(self._buffer.feed_eof)
            except RuntimeError:  # the loop is already closed
                pass

    async def readline(self) -> bytes:
        try:
            return await self._buffer.readline()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            return b""

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._buffer.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""
