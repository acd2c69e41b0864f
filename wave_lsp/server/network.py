"""The TCP (`wave-lsp serve --tcp HOST:PORT`) and WebSocket (`--ws HOST:PORT`) transports, with
the stdio transport's robustness: the same framing (`wave_lsp.framing`, through
`transport.Framer`) and the same lifecycle and error answers (`transport.Session`).

One client per server: while a client is connected, another connection is refused with a
clear message (a `window/showMessage` error, then the connection is closed; on a WebSocket the
close frame says it too, code 1013 "try again later"), so no other local process can take the
session over or end it. The server ends when its client's session ends: with status 0 after
`shutdown` and `exit` or when the client just goes away, 1 for `exit` without `shutdown`. A
connection that closes without having sent `initialize` (a port probe) ends nothing: the server
goes on listening for its client.

Sizes: on TCP, a message body may be up to `framing.MAX_MESSAGE_BYTES` (64 MiB), as on stdio; on
a WebSocket, one message may be up to the same 64 MiB (a longer one makes the WebSocket library
close the connection with code 1009, "message too big", which ends the session).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading

from ..framing import CHUNK, MAX_MESSAGE_BYTES, frame
from .protocol import set_stop_event, stop_event
from .transport import Framer, Session

logger = logging.getLogger("wave_lsp.server")

BUSY = ("wave-lsp: this language server already has a client; each server serves one client. "
        "Start another server (another port) for this one.")
TRY_AGAIN_LATER = 1013     # the WebSocket close code for a refused connection
LINGER = 5                 # seconds a refused TCP connection is drained before it is closed


def _refusal() -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "window/showMessage",
                       "params": {"type": 1, "message": BUSY}}).encode("utf-8")


class StreamChunks:
    """The bytes of an asyncio stream, in the shape `transport.Framer` reads (`buffer`,
    `more()`)."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream
        self.buffer = bytearray()
        self.eof = False

    async def more(self) -> bool:
        if self.eof:
            return False
        try:
            chunk = await self._stream.read(CHUNK)
        except (ConnectionError, OSError):
            chunk = b""
        if not chunk:
            self.eof = True
            return False
        self.buffer += chunk
        return True


class StreamWriter:
    """pygls' writer interface over an asyncio stream writer."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, data: bytes) -> None:
        if not self._writer.is_closing():
            self._writer.write(data)

    def close(self) -> None:
        self._writer.close()


class WebSocketWriter:
    """pygls' writer interface over a WebSocket: one message per frame; a send after the
    connection has closed is dropped."""

    def __init__(self, websocket) -> None:
        self._ws = websocket

    async def write(self, data: bytes) -> None:
        from websockets.exceptions import ConnectionClosed
        try:
            await self._ws.send(data.decode("utf-8"))
        except ConnectionClosed:
            pass

    def close(self):
        return self._ws.close()


class OneClient:
    """Hands the server to the first connection, refuses the others while it lasts, and holds
    the exit status of its session."""

    def __init__(self) -> None:
        self.busy = False
        self.finished: asyncio.Future = asyncio.get_running_loop().create_future()

    def take(self) -> bool:
        if self.busy:
            logger.warning("a second connection was refused: the server has a client")
            return False
        self.busy = True
        return True

    def end(self, session: Session) -> None:
        """The connection of the client has ended: so has the server, unless it never sent
        `initialize` (a port probe), in which case the next connection is served."""
        if not session.initialized and session.exit_code is None:
            self.busy = False
            return
        if not self.finished.done():
            self.finished.set_result(session.exit_code or 0)


async def _drop_input(reader: asyncio.StreamReader) -> None:
    while await reader.read(CHUNK):
        pass


async def _refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Send the refusal and close gracefully: what the peer already sent is read and dropped
    for up to `LINGER` seconds first, so that the close does not reset the connection and
    discard the refusal before the peer has read it."""
    writer.write(frame(_refusal()))
    try:
        await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
        await asyncio.wait_for(_drop_input(reader), LINGER)
    except (ConnectionError, OSError, asyncio.TimeoutError):
        pass
    writer.close()


async def serve_tcp(server, host: str, port: int) -> int:
    """Serve one client on a TCP socket; its session's exit status."""
    stop = stop_event(server)

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not client.take():
            await _refuse(reader, writer)
            return
        server.protocol.set_writer(StreamWriter(writer))
        session = Session(server.protocol, server.report_server_error)
        framer = Framer(StreamChunks(reader), session.parse_error)
        try:
            while not stop.is_set() and session.exit_code is None:
                body = await framer.next_body()
                if body is None:
                    break
                session.handle_body(body)
        finally:
            client.end(session)
            writer.close()

    client = OneClient()
    listener = await asyncio.start_server(connection, host, port)
    logger.info("listening on %s", ", ".join(str(s.getsockname()) for s in listener.sockets))
    async with listener:
        return await client.finished


async def serve_ws(server, host: str, port: int) -> int:
    """Serve one client on a WebSocket (one JSON message per frame); its exit status."""
    from websockets.asyncio.server import serve as websocket_server
    from websockets.exceptions import ConnectionClosed

    stop = stop_event(server)

    async def connection(websocket) -> None:
        if not client.take():
            try:
                await websocket.send(_refusal().decode("utf-8"))
                await websocket.close(TRY_AGAIN_LATER, BUSY[:120])
            except ConnectionClosed:
                pass
            return
        server.protocol.set_writer(WebSocketWriter(websocket), include_headers=False)
        session = Session(server.protocol, server.report_server_error)
        try:
            while not stop.is_set() and session.exit_code is None:
                try:
                    data = await websocket.recv(decode=False)
                except ConnectionClosed as closed:
                    if closed.rcvd is None and closed.sent is not None \
                            and closed.sent.code == 1009:
                        logger.error("the client sent a message over %d bytes; the WebSocket "
                                     "was closed", MAX_MESSAGE_BYTES)
                    break
                session.handle_body(data)
        finally:
            client.end(session)

    client = OneClient()
    async with websocket_server(connection, host, port, max_size=MAX_MESSAGE_BYTES) as listener:
        logger.info("listening on %s",
                    ", ".join(str(s.getsockname()) for s in listener.sockets))
        return await client.finished


def run_network(server, transport: str, host: str, port: int) -> int:
    """Run `serve_tcp` or `serve_ws` to the end of the session; its exit status."""
    set_stop_event(server, threading.Event())
    serve_one = serve_tcp if transport == "tcp" else serve_ws
    status = 0
    try:
        status = asyncio.run(serve_one(server, host, port))
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.documents.shutdown()
        server.shutdown()
    return status
