"""The run commands, through `workspace/executeCommand` so any client can use and script them:

- `wave-lsp.run [uri, kernel, launchLine|null]` runs `kernel` with the launch comment on
  0-based line `launchLine` (null: its first launch line, or the default launch), off the event
  loop, and returns the result as JSON (`KernelRun.to_json` plus `uri`). The kernel then stays
  live: every edit re-runs it (debounced) until it is cleared or the document closes.
- `wave-lsp.clear [uri, kernel|null]` forgets one kernel's results (null: all of the document's)
  and stops re-running it; returns `{"uri", "cleared": [kernels]}`.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .handlers import command
from .run_view import CLEAR, RUN
from .runs import RunService
from .server import Serialised

if TYPE_CHECKING:
    from .server import WaveLanguageServer


def _show(server: "WaveLanguageServer", message: str, kind: types.MessageType) -> None:
    server.window_show_message(types.ShowMessageParams(type=kind, message=message))


def _refuse(server: "WaveLanguageServer", uri: Any, kernel: Any, message: str) -> dict:
    _show(server, f"wave-lsp: {message}", types.MessageType.Warning)
    return {"uri": uri, "kernel": kernel, "ok": False, "status": "invalid-request",
            "message": message}


async def run_command(server: "WaveLanguageServer", uri: Any = None, kernel: Any = None,
                      launch_line: Any = None, *_: Any) -> dict:
    doc = server.text_document(uri) if isinstance(uri, str) else None
    if doc is None:
        return _refuse(server, uri, kernel, f"cannot run {uri!r}: not an open WAVE document")
    runs: RunService = server.runs
    if not runs.trusted:
        return _refuse(server, uri, kernel, "kernels do not run in an untrusted workspace "
                                            "(trust the workspace to run them)")
    names = [k.name for k in doc.program.kernels]
    if kernel is None and names:
        kernel = names[0]
    if not isinstance(kernel, str) or kernel not in names:
        return _refuse(server, uri, kernel, f"no kernel {kernel!r} in {uri} "
                                            f"(kernels: {', '.join(names) or 'none'})")
    ordinal = None
    if launch_line is not None:
        lines = runs.launch_lines(doc).get(kernel, [])
        match = [ll for ll in lines if ll.line == launch_line]
        if not match:
            return _refuse(server, uri, kernel, f"line {launch_line!r} is not a launch line "
                                                f"of kernel '{kernel}'")
        ordinal = match[0].ordinal
    runs.state(doc).live[kernel] = ordinal
    results = await runs.run(doc, runs.wanted(doc))
    result = next((r for r in results if r.kernel == kernel), None)
    if result is None:
        return _refuse(server, uri, kernel, f"kernel '{kernel}' did not run")
    if result.status in ("error", "invalid", "failed"):
        _show(server, f"wave-lsp: {kernel}: {result.summary()}", types.MessageType.Warning)
    # a long kernel's result is megabytes of JSON: written in a thread, not on the event loop
    return Serialised(await asyncio.to_thread(
        lambda: json.dumps({"uri": doc.uri, **result.to_json()})))


def clear_command(server: "WaveLanguageServer", uri: Any = None, kernel: Any = None,
                  *_: Any) -> dict:
    doc = server.text_document(uri) if isinstance(uri, str) else None
    if doc is None:
        return {"uri": uri, "cleared": []}
    return {"uri": doc.uri, "cleared": server.runs.forget(doc, kernel if isinstance(kernel, str)
                                                            else None)}


def setup(server: "WaveLanguageServer") -> None:
    server.runs = RunService(server)

    @command(server, RUN)
    async def run(*args):
        return await run_command(server, *args)

    @command(server, CLEAR)
    def clear(*args):
        return clear_command(server, *args)

    @server.feature(types.SHUTDOWN)
    def shutdown(params: Any = None) -> None:
        server.runs.shutdown()
