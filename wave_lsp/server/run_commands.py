"""The run commands, through `workspace/executeCommand` so any client can use and script them:

- `wave-lsp.run [uri, kernel, launchLine|null]` runs `kernel` with the launch comment on
  0-based line `launchLine` (null: its first launch line, or the default launch), off the event
  loop, and returns the result as JSON (`KernelRun.to_json` plus `uri`). The kernel then stays
  live: every edit re-runs it (debounced) until it is cleared or the document closes.
- `wave-lsp.clear [uri, kernel|null]` forgets one kernel's results (null: all of the document's)
  and stops re-running it; returns `{"uri", "cleared": [kernels]}`.
- the notification `wave-lsp/workspaceTrusted` (no params) tells a server started in an
  untrusted workspace that the user has trusted it since: the next Run runs.
- `wave-lsp.dump [uri, kernel, launchLine|null, dumpIndex, start, count, version?]` answers
  lines `start .. start+count-1` (count ≤ 4,096) of the launch line's `--dump-*` region
  `dumpIndex` (0-based, in print order) of the kernel's latest run of the current revision,
  re-run on the worker (`wave_lsp.ide.run_dump`) after every waiting run, and shows them in the
  next hover; a request for another revision (`version`, or an edit while it runs) is refused,
  never answered, and so is one superseded by a newer window of the same dump before it ran.

Cancelling a command's request (`$/cancelRequest`) stops its run; the answer is then the
`RequestCancelled` error. Runs of the same kernel and revision asked for while one runs or
waits share it (one run, the same answer for each).
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from lsprotocol import types

from .extensions import Cleared, ClearArgs, DumpArgs, DumpWindow, KernelRun, LaunchArgs, wire
from .handlers import command, notification
from .protocol import Serialised
from .run_display import CLEAR, DUMP, RUN
from .run_documents import arg_root
from .runs import TRUST_GRANTED, RunService, open_for_runs, refuse as _refuse, start_live
from .server import WaveLanguageServer


def _show(server: WaveLanguageServer, message: str, kind: types.MessageType) -> None:
    server.window_show_message(types.ShowMessageParams(type=kind, message=message))


async def run_command(server: WaveLanguageServer, uri: Any = None, kernel: Any = None,
                      launch_line: Any = None, *_: Any) -> dict:
    started = await start_live(server, server.get_feature(RunService), "run", uri, kernel,
                               launch_line)
    if isinstance(started, dict):
        return started
    doc, result = started
    if result.status in ("error", "invalid", "failed"):
        _show(server, f"wave-lsp: {result.kernel}: {result.summary()}",
              types.MessageType.Warning)
    # a long kernel's result is megabytes of JSON: written in a thread, not on the event loop
    return Serialised(await asyncio.to_thread(
        lambda: json.dumps(KernelRun.answer(uri=doc.uri, body=result.to_json()))))


async def dump_command(server: WaveLanguageServer, uri: Any = None, kernel: Any = None,
                       launch_line: Any = None, index: Any = None, start: Any = None,
                       count: Any = None, version: Any = None, *_: Any) -> dict:
    from ..ide.run_dump import DumpWindowError, WindowNotRead, check_window
    from ..ide.run_session import plan_runs
    opened = open_for_runs(server, uri, kernel, "cannot read a dump of")
    if isinstance(opened, dict):
        return opened
    doc, runs = opened
    if version is not None and version != doc.version:
        return _refuse(server, uri, kernel, f"the document changed since this dump was shown "
                                            f"(version {version}, now {doc.version}): hover again")
    result = next((r for r in runs.current(doc) if r.kernel == kernel), None)
    if result is None or (launch_line is not None and result.launch_line != launch_line):
        return _refuse(server, uri, kernel, f"no current run of kernel {kernel!r} with the "
                                            f"launch line {launch_line!r}: run it first")
    ll = next((ll for ll in runs.launch_lines(doc).get(kernel, [])
               if ll.line == result.launch_line), None)
    if ll is not None and ll.problem is not None:
        return _refuse(server, uri, kernel, f"launch line: {ll.problem.message}")
    dumps = ll.dumps if ll is not None else ()
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(dumps):
        return _refuse(server, uri, kernel, f"dump {index!r} does not exist: the launch line "
                                            f"has {len(dumps)} dump(s)")
    try:
        start, count = check_window(dumps[index], start, count)
    except DumpWindowError as err:
        return _refuse(server, uri, kernel, str(err))
    state = runs.state(doc)
    snapshot = plan_runs(doc, {kernel: ll.ordinal}, runs.launch_lines(doc),
                         arg_root(server, doc.uri))
    cancel = threading.Event()
    state.window_cancels.add(cancel)
    try:
        window = await asyncio.wrap_future(runs.worker.submit_dump(
            snapshot, runs.limits(), cancel, index, start, count,
            key=(doc.uri, "window", kernel, ll.line, index)))
    except WindowNotRead as err:        # superseded while it waited: routine, no warning
        return _refuse(server, uri, kernel, str(err), warn=False)
    except DumpWindowError as err:
        return _refuse(server, uri, kernel, str(err))
    except asyncio.CancelledError:      # `$/cancelRequest`: the re-run stops too
        cancel.set()
        raise
    finally:
        state.window_cancels.discard(cancel)
    if server.document(doc.uri) is not doc or doc.revision != snapshot.revision:
        return _refuse(server, uri, kernel, "the document changed while the dump was read: "
                                            "hover again")
    state.window = window
    runs.refresh(doc)
    return DumpWindow.answer(uri=doc.uri, version=doc.version, body=window.to_json())


def clear_command(server: WaveLanguageServer, uri: Any = None, kernel: Any = None,
                  *_: Any) -> dict:
    doc = server.text_document(uri)
    if doc is None:
        return wire(Cleared(uri, []))
    runs = server.get_feature(RunService)
    return wire(Cleared(doc.uri, runs.forget(doc, kernel if isinstance(kernel, str) else None)))


def setup(server: WaveLanguageServer) -> None:
    runs = server.add_feature(RunService(server))

    @notification(server, TRUST_GRANTED)
    def trust_granted(params: Any = None) -> None:
        runs.grant_trust()

    @command(server, RUN)
    async def run(*args):
        a = LaunchArgs.parse(args)
        return await run_command(server, a.uri, a.kernel, a.launch_line)

    @command(server, DUMP)
    async def dump(*args):
        a = DumpArgs.parse(args)
        return await dump_command(server, a.uri, a.kernel, a.launch_line, a.dump_index, a.start,
                                  a.count, a.version)

    @command(server, CLEAR)
    def clear(*args):
        a = ClearArgs.parse(args)
        return clear_command(server, a.uri, a.kernel)

