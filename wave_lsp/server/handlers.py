"""Handler isolation: every request and notification handler runs behind a guard.

A language server must outlive its own bugs: an exception inside a feature becomes a
`window/logMessage` (one line; the traceback goes to the server's own log) and an empty result, never a dead server or a JSON-RPC
error the editor shows as a crash. Request handlers are coroutines that yield once before
computing, so a `$/cancelRequest` that arrived with (or right after) the request cancels the task
before any work is done, and pygls answers it with `RequestCancelled`.

A request about one document (its params have a `text_document`) waits until the document is
parsed, then runs as a job of that document (`AnalysisHost.run`): on the event loop for a small
document, in a worker thread for a large one, so the loop keeps answering other requests; a
request that uses the diagnostics runs as a writer (after the running analysis), any other as
a reader (at once, even while the document is analysed). An
edit that arrives meanwhile cancels the job, which is then run again on the new text (after
`RETRIES` tries the answer is `ContentModified`); a `$/cancelRequest` cancels it too. The
handler receives the document's state, resolved here once (`request`), never looks it up itself.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any, Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException

from ..cancellation import Cancelled
from ..ide.state import DocumentState
from .extensions import KernelArgs
from .server import WaveLanguageServer, report_failure

logger = logging.getLogger("wave_lsp.server")


def request(server: WaveLanguageServer, method: str, options: Any = None,
            default: Callable[[], Any] = lambda: None, analysis: bool = False,
            binary: bool = False):
    """Register a request handler; failures give `default()`. `analysis`: it uses the
    document's diagnostics (`server.analysis`), so it runs as a writer job.

    A request about one document (its params have a `text_document`) is answered by
    `fn(doc, params)`, `doc` the document's resolved state: open, parsed, and WAVE text (with
    `binary`, a binary document too); without such a document the answer is `default()` and
    `fn` is not called. Any other request is answered by `fn(params)`."""

    def decorator(fn: Callable[..., Any]):
        async def handler(params):
            await asyncio.sleep(0)  # a queued $/cancelRequest takes effect here
            try:
                return await _answer(server, method, fn, params, analysis, binary, default)
            except JsonRpcException:
                raise  # a deliberate protocol error (e.g. an invalid new name for rename)
            except Exception as exc:
                report_failure(server, method, exc)
                return default()

        server.feature(method, options)(handler)
        return fn

    return decorator


RETRIES = 3


async def _answer(server: WaveLanguageServer, method: str, fn: Callable[..., Any], params,
                  analysis: bool, binary: bool, default: Callable[[], Any]):
    """`fn(doc, params)` as a job of the document the request is about: a reader, or a writer
    when it uses the analysis; `fn(params)` for a request about no document."""
    ident = getattr(params, "text_document", None)
    if ident is None:
        return fn(params)
    uri = getattr(ident, "uri", None)
    state = await server.documents.ready(uri) if isinstance(uri, str) else None
    if state is None or (state.binary and not binary):
        return default()
    for _ in range(RETRIES):
        try:
            answer = await server.documents.run(state, lambda doc: fn(doc, params), name=method,
                                                reader=not analysis)
            # a feature may finish off the event loop (e.g. the kernel hover's vendor figures)
            return await answer if inspect.isawaitable(answer) else answer
        except Cancelled:
            state = await server.documents.ready(uri)
            if state is None:
                break
            if state.binary and not binary:
                return default()
    raise JsonRpcContentModified(f"{method}: the document kept changing")


def notification(server: WaveLanguageServer, method: str, options: Any = None):
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


def command(server: WaveLanguageServer, name: str):
    """Register `fn(*arguments)` for `workspace/executeCommand`; failures give None. A command
    whose first argument is the URI of a document still being parsed (opened just before:
    `AnalysisHost.open`) runs once it is parsed, on the text it was sent after."""

    def decorator(fn: Callable[..., Any]):
        async def handler(*args):
            await asyncio.sleep(0)
            if args and isinstance(args[0], str):
                await server.documents.ready(args[0])
            try:
                result = fn(*args)
                return await result if inspect.isawaitable(result) else result
            except Exception as exc:
                report_failure(server, f"command {name}", exc)
                return None

        server.command(name)(handler)
        return fn

    return decorator


async def command_document(server: WaveLanguageServer, args: tuple, action: str):
    """The open WAVE document whose URI is a command's first argument, once the host has it;
    None, with a warning that says what could not be done (`action`), when there is none."""
    uri = args[0] if args else None
    doc = None
    if isinstance(uri, str):
        await server.documents.ready(uri)
        doc = server.text_document(uri)
    if doc is None:
        server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message=f"wave-lsp: cannot {action} {uri!r}: not an open WAVE document"))
    return doc


def command_kernel(server: WaveLanguageServer, args: tuple
                   ) -> tuple[DocumentState | None, Any, str]:
    """The open document and the kernel named by a command's `[uri, kernel, ...]` arguments,
    and the message to answer when either is missing (the kernel is None then)."""
    a = KernelArgs.parse(args)
    uri, name = a.uri, a.kernel
    doc = server.text_document(uri)
    kernel = doc.program.kernel_named(name) if doc is not None and isinstance(name, str) else None
    return doc, kernel, f"no kernel {name!r} in {uri!r}"
