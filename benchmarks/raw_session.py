"""A minimal JSON-RPC session with a real `wave-lsp serve` subprocess, for timing what the server
does: messages are framed and parsed with the standard `json` module only (as an editor does),
not turned into lsprotocol objects. The pytest-lsp client structures every message with cattrs,
which for a `publishDiagnostics` of 2,000 diagnostics or 175,000 inlay hints costs the client
more than the server spends, and would be measured as the server's latency.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from typing import Any

SERVER = (sys.executable, "-m", "wave_lsp", "serve")
_LENGTH = re.compile(rb"content-length:\s*(\d+)", re.IGNORECASE)


class RawSession:
    """Requests and notifications as plain dicts; `notification(method, test)` waits for one."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self._next = 0
        self._pending: dict[int, asyncio.Future] = {}
        self._notes: list[dict] = []
        self._waiters: list[tuple[str, Any, asyncio.Future]] = []
        self._reader: asyncio.Task | None = None
        # a notification's future -> when the last byte of its message was read (before it
        # was parsed: `received`)
        self._received: dict[asyncio.Future, float] = {}

    async def start(self, initialization_options: dict | None = None,
                    capabilities: dict | None = None) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, limit=1 << 30)
        self._reader = asyncio.ensure_future(self._read())
        await self.request("initialize", {"processId": None, "rootUri": None,
                                          "capabilities": capabilities or {},
                                          "initializationOptions": initialization_options or {}})
        self.notify("initialized", {})

    def _write(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def _read(self) -> None:
        stream = self.proc.stdout
        while True:
            try:
                header = await stream.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return
            length = int(_LENGTH.search(header).group(1))
            body = await stream.readexactly(length)
            received = time.perf_counter()
            message = json.loads(body)
            if "id" in message and "method" not in message:
                future = self._pending.pop(message["id"], None)
                if future is not None and not future.done():
                    future.set_result(message.get("result"))
            elif "id" in message:          # a request from the server: answer null
                self._write({"jsonrpc": "2.0", "id": message["id"], "result": None})
            else:
                for waiter in list(self._waiters):
                    method, test, future = waiter
                    if message["method"] == method and test(message["params"]) \
                            and not future.done():
                        self._received[future] = received
                        future.set_result(message["params"])
                        self._waiters.remove(waiter)

    async def request(self, method: str, params: Any) -> Any:
        self._next += 1
        future = asyncio.get_running_loop().create_future()
        self._pending[self._next] = future
        self._write({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        return await future

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def notification(self, method: str, test=lambda params: True) -> asyncio.Future:
        """A future for the next notification `method` whose params pass `test` (register it
        before sending what causes it)."""
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((method, test, future))
        return future

    def received(self, future: asyncio.Future) -> float:
        """When the last byte of the notification `future` waited for was read, before the
        client parsed its JSON (a `time.perf_counter()` reading)."""
        return self._received.pop(future)

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except asyncio.TimeoutError:
            self.proc.kill()
        if self._reader is not None:
            self._reader.cancel()
