"""Handler isolation: every request and notification handler runs behind a guard.

A language server must outlive its own bugs: an exception inside a feature becomes a
`window/logMessage` (with the traceback) and an empty result, never a dead server or a JSON-RPC
error the editor shows as a crash. Request handlers are coroutines that yield once before
computing, so a `$/cancelRequest` that arrived with (or right after) the request cancels the task
before any work is done, and pygls answers it with `RequestCancelled`.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from typing import TYPE_CHECKING, Any, Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcException

if TYPE_CHECKING:
    from .server import WaveLanguageServer

logger = logging.getLogger("wave_lsp.server")


def report_failure(server: "WaveLanguageServer", what: str, exc: BaseException) -> None:
    """Log a handler failure to the client and to stderr."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    logger.error("%s failed: %s", what, text)
    try:
        server.window_log_message(types.LogMessageParams(
            type=types.MessageType.Error, message=f"wave-lsp: {what} failed: {exc!r}\n{text}"))
    except Exception:  # the transport itself is gone; nothing more to do
        pass


def request(server: "WaveLanguageServer", method: str, options: Any = None,
            default: Callable[[], Any] = lambda: None):
    """Register `fn(params)` for a request; failures give `default()`."""

    def decorator(fn: Callable[[Any], Any]):
        async def handler(params):
            await asyncio.sleep(0)  # a queued $/cancelRequest takes effect here
            try:
                return fn(params)
            except JsonRpcException:
                raise  # a deliberate protocol error (e.g. an invalid new name for rename)
            except Exception as exc:
                report_failure(server, method, exc)
                return default()

        server.feature(method, options)(handler)
        return fn

    return decorator


def notification(server: "WaveLanguageServer", method: str, options: Any = None):
    """Register `fn(params)` for a notification; failures are logged."""

    def decorator(fn: Callable[[Any], Any]):
        def handler(params):
            try:
                fn(params)
            except Exception as exc:
                report_failure(server, method, exc)

        server.feature(method, options)(handler)
        return fn

    return decorator


def command(server: "WaveLanguageServer", name: str):
    """Register `fn(*arguments)` for `workspace/executeCommand`; failures give None."""

    def decorator(fn: Callable[..., Any]):
        async def handler(*args):
            await asyncio.sleep(0)
            try:
                return fn(*args)
            except Exception as exc:
                report_failure(server, f"command {name}", exc)
                return None

        server.command(name)(handler)
        return fn

    return decorator
