"""`wave-lsp.whoWrote [uri, kernel, launchLine|null, target]`: who wrote a value of a kernel's
run (`ide.who_wrote`). The answer comes from the kernel's current inline run when its recording
holds the target (the shown threads' workgroups), else the launch is recorded again on the job
service's worker for it; the search itself runs in a thread. Never on the event loop.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from .provenance_types import WhoWrote, WhoWroteArgs
from .handlers import command
from .run_documents import arg_root
from .runs import launched_kernel, open_for_runs, refuse
from .server import WaveLanguageServer
from ..ide.run_limits import WHO_WROTE_COMMAND


async def who_wrote_command(server: WaveLanguageServer, uri: Any = None, kernel: Any = None,
                            launch_line: Any = None, target: Any = None) -> dict:
    from ..ide.who_wrote import TargetError
    from ..ide.run_session import plan_runs
    from ..ide.who_wrote import answer, answer_json, covers, parse_target
    opened = open_for_runs(server, uri, kernel, "cannot answer for")
    if isinstance(opened, dict):
        return opened
    doc, runs = opened
    chosen = launched_kernel(server, runs, doc, uri, kernel, launch_line)
    if isinstance(chosen, dict):
        return chosen
    kernel, ordinal = chosen
    try:
        wanted = parse_target(target)
    except TargetError as err:
        return refuse(server, uri, kernel, str(err))
    current = next((r for r in runs.current(doc) if r.kernel == kernel and (
        launch_line is None or r.launch_line == launch_line)), None)
    provenance = current.provenance if current is not None else None
    if not covers(provenance, wanted):
        snapshot = plan_runs(doc, {kernel: ordinal}, runs.launch_lines(doc),
                             arg_root(server, doc.uri))
        cancel = threading.Event()
        try:
            provenance = await asyncio.wrap_future(runs.worker.submit_record(
                snapshot, runs.limits(), cancel, wanted,
                key=(doc.uri, "whoWrote", kernel, launch_line, wanted)))
        except TargetError as err:
            return refuse(server, uri, kernel, str(err))
        except asyncio.CancelledError:      # `$/cancelRequest`: the recording stops too
            cancel.set()
            raise
        if server.document(doc.uri) is not doc or doc.revision != snapshot.revision:
            return refuse(server, uri, kernel, "the document changed while the run was "
                                               "recorded: ask again")
    try:
        body = await asyncio.to_thread(lambda: answer_json(answer(provenance, wanted)))
    except TargetError as err:
        return refuse(server, uri, kernel, str(err))
    return WhoWrote.answer(uri=doc.uri, version=doc.version, body=body)


def setup(server: WaveLanguageServer) -> None:
    @command(server, WHO_WROTE_COMMAND)
    async def who_wrote(*args):
        a = WhoWroteArgs.parse(args)
        return await who_wrote_command(server, a.uri, a.kernel, a.launch_line, a.target)
