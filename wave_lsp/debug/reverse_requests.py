"""The Debug Adapter Protocol requests of reverse execution (`stepBack`, `reverseContinue`,
`gotoTargets`, `goto`) and of data breakpoints (`dataBreakpointInfo`, `setDataBreakpoints`),
as a part of `adapter.Adapter`; the work is `reverse.Reverse`'s, on the session's worker thread.
"""

from __future__ import annotations

import re
from pathlib import Path

from .arguments import MAX_TEXT, Arguments
from .watch import address_info, watch_of

_LANE = re.compile(r"^lane (\d{1,4})\b")


class RequestError(Exception):
    """A request that cannot be served; the message goes back to the client."""


class ReverseRequests:
    """Request handlers mixed into `Adapter` (which provides `session`, `_wave`,
    `_stopped_session` and `after_next`)."""

    def on_stepBack(self, args):
        self._resume = ("stepBack", self._wave(args))
        self.session.reverse.timeline.check()
        return None

    def on_reverseContinue(self, args):
        self._resume = ("reverseContinue", self._wave(args))
        self.session.reverse.timeline.check()
        return None

    def after_stepBack(self):
        self.session.resume(*self._resume)

    after_reverseContinue = after_stepBack

    def on_gotoTargets(self, args: Arguments):
        session = self._stopped_session()
        line = args.integer("line") - session.line_base
        path = args.object("source").string("path", "")
        if path and session.target is not None and norm(path) != norm(str(session.target.path)):
            return {"targets": []}
        with session.lock:
            return {"targets": session.reverse.goto_targets(line)}

    def on_goto(self, args: Arguments):
        wave = self._wave(args)
        target = args.integer("targetId", minimum=1)
        self.session.reverse.check_goto(target)
        self._resume = ("goto", wave, False, target)
        return None

    def after_goto(self):
        self.session.resume(*self._resume)

    def on_dataBreakpointInfo(self, args: Arguments):
        session = self._stopped_session()
        name = args.string("name", limit=MAX_TEXT)
        ref = args.integer("variablesReference", None)
        run = session.run
        if ref:
            item = session.views.container(ref)
            lane = _LANE.match(name)
            if item[0] == "lanes_of" and lane:
                thread = run.workgroup * run.geo.threads_per_wg + \
                    item[1] * run.geo.wave_width + int(lane.group(1))
                watch = watch_of(f"reg:r{item[2]}:thread:{thread}", run)
                return {"dataId": watch.data_id, "description": f"writes to {watch.describe()}",
                        "accessTypes": ["write"], "canPersist": False}
            if item[0] == "registers":
                return {"dataId": None, "description": f"expand {name} and watch one of its "
                                                       f"lanes (one thread's register)"}
        return address_info(name, run)

    def on_setDataBreakpoints(self, args: Arguments):
        session = self._stopped_session()
        watches, bodies = [], []
        for raw in args.objects("breakpoints"):
            try:
                watch = watch_of(raw.string("dataId", limit=MAX_TEXT), session.run)
            except ValueError as err:
                bodies.append({"verified": False, "message": str(err)})
                continue
            watch.id = session.breakpoints.new_id()
            watches.append(watch)
            bodies.append({"id": watch.id, "verified": True,
                           "message": f"stops where {watch.describe()} is written"})
        session.reverse.watches = watches
        return {"breakpoints": bodies}



def norm(path: str) -> str:
    """A path made absolute and resolved (as given when it cannot be)."""
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return path
