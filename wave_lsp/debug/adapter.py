"""The Debug Adapter Protocol server: reads requests from the client, answers them and sends
events, driving a `Session`.

Start-up order: `initialize` (capabilities) → `launch` (the program is assembled and the launch
checked; an invalid launch fails this request with the reason) → the `initialized` event →
breakpoints and exception filters → `configurationDone`, after which the kernel starts.
A request that fails for any reason gets an error response; the adapter itself never dies.
Every argument is read through `arguments.Arguments`, which checks its type and range, and what
one request may cost is bounded (`arguments.MAX_INSTRUCTIONS`, `MAX_TEXT`, and 64-bit
expression arithmetic in `expressions`).
"""

from __future__ import annotations

import re
import sys
import traceback

from ..launch.formats import describe_error
from .arguments import MAX_INSTRUCTIONS, MAX_TEXT, Arguments, breakpoint_options
from .expressions import Expression, ExpressionError
from .protocol import Channel, read_messages
from .session import EXCEPTION_FILTERS, Session
from .target import TargetError, resolve
from .reverse_requests import ReverseRequests, RequestError, norm as _norm
from .timeline import TimelineError
from ..isa.value_format import lanes_summary as summary, mask_text

CAPABILITIES = {
    "supportsConfigurationDoneRequest": True,
    "supportsConditionalBreakpoints": True,
    "supportsHitConditionalBreakpoints": True,
    "supportsLogPoints": True,
    "supportsInstructionBreakpoints": True,
    "supportsDisassembleRequest": True,
    "supportsReadMemoryRequest": True,
    "supportsWriteMemoryRequest": True,
    "supportsSetVariable": True,
    "supportsRestartRequest": True,
    "supportsTerminateRequest": True,
    "supportsEvaluateForHovers": True,
    "supportsExceptionInfoRequest": True,
    "supportsSteppingGranularity": True,
    "supportsValueFormattingOptions": True,
    "supportsDelayedStackTraceLoading": False,
    "supportsStepBack": True,
    "supportsGotoTargetsRequest": True,
    "supportsDataBreakpoints": True,
    "exceptionBreakpointFilters": [
        {"filter": name, "label": label, "default": on}
        for name, (label, _, on) in EXCEPTION_FILTERS.items()],
}
_REGISTER = re.compile(r"^\s*r(\d+)\s*$")


class Adapter(ReverseRequests):
    def __init__(self, channel: Channel):
        self.channel = channel
        self.session = Session(channel)
        self.launch_arguments: dict | None = None
        self.configured = False
        self.started = False
        self.done = False

    # ---- dispatch ----------------------------------------------------------------------------
    def handle(self, message: dict) -> None:
        if message.get("type") != "request":
            return
        command = message.get("command")
        if not isinstance(command, str) or not command.isidentifier():
            self.channel.fail(message, f"a request's 'command' must be a request name, not "
                                       f"{_short(command)}", show_user=False)
            return
        handler = getattr(self, "on_" + command, None)
        if handler is None:
            self.channel.fail(message, f"unsupported request '{command}'", show_user=False)
            return
        arguments = message.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            self.channel.fail(message, f"the arguments of '{command}' must be an object, not "
                                       f"{_short(arguments)}")
            return
        try:
            body = handler(Arguments(arguments, command))
        except (RequestError, TargetError, ExpressionError, KeyError, ValueError,
                TimelineError) as err:
            text = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
            self.channel.fail(message, str(text))
            return
        except Exception as err:  # noqa: BLE001 - report, never die
            traceback.print_exc(file=sys.stderr)
            self.channel.fail(message, f"internal error: {err!r}")
            return
        self.channel.respond(message, body)
        after = getattr(self, "after_" + command, None)
        if after is not None:
            after()

    def _stopped_session(self) -> Session:
        session = self.session
        if session.run is None:
            raise RequestError("no kernel is launched")
        if session.running:
            raise RequestError("the kernel is running")
        return session

    # ---- start-up ----------------------------------------------------------------------------
    def on_initialize(self, args: Arguments):
        self.session.line_base = 1 if args.boolean("linesStartAt1", True) else 0
        return CAPABILITIES

    def on_launch(self, args: Arguments):
        target = resolve(args.data)
        self.session.load(target)
        self.launch_arguments = args.data
        return None

    def after_launch(self):
        self.channel.event("initialized")
        self._maybe_start()

    def on_attach(self, args):
        raise RequestError("the WAVE debugger launches kernels; use a 'launch' configuration")

    def on_setBreakpoints(self, args: Arguments):
        session = self.session
        given = args.objects("breakpoints", None)
        if given is None:
            requested = [{"line": n} for n in args.integers("lines")]
        else:
            requested = [{"line": raw.integer("line"), **breakpoint_options(raw)}
                         for raw in given]
        path = args.object("source").string("path", "")
        if session.run is None:
            return {"breakpoints": [{"verified": False, "message": "no kernel is launched"}
                                    for _ in requested]}
        with session.lock:
            bps = session.breakpoints.set_lines(
                _norm(path), requested, session.run.instructions, session.run.kernel.name,
                _norm(str(session.target.path)), session.line_base)
        return {"breakpoints": [self._breakpoint_body(bp) for bp in bps]}

    def on_setInstructionBreakpoints(self, args: Arguments):
        session = self.session
        requested = [{"instructionReference": raw.string("instructionReference"),
                      "offset": raw.integer("offset", 0), **breakpoint_options(raw)}
                     for raw in args.objects("breakpoints")]
        if session.run is None:
            raise RequestError("no kernel is launched")
        with session.lock:
            bps = session.breakpoints.set_instructions(requested, session.run.instructions)
        return {"breakpoints": [self._breakpoint_body(bp) for bp in bps]}

    def _breakpoint_body(self, bp) -> dict:
        body = {"id": bp.id, "verified": bp.index is not None}
        if bp.message:
            body["message"] = bp.message
        if bp.line is not None and bp.index is not None:
            body["line"] = bp.line + self.session.line_base
            if self.session.views.source():
                body["source"] = self.session.views.source()
        if bp.pc is not None and bp.index is not None:
            body["instructionReference"] = f"0x{bp.pc:x}"
        return body

    def on_setExceptionBreakpoints(self, args: Arguments):
        filters = set(args.strings("filters"))
        unknown = filters - set(EXCEPTION_FILTERS)
        if unknown:
            raise RequestError(f"unknown exception filter(s): {', '.join(sorted(unknown))}")
        self.session.filters = filters
        return {"breakpoints": [{"verified": True} for _ in filters]}

    def on_configurationDone(self, args):
        self.configured = True
        return None

    def after_configurationDone(self):
        self._maybe_start()

    def _maybe_start(self):
        if self.configured and self.session.run is not None and not self.started:
            self.started = True
            self.session.begin()

    # ---- run control -------------------------------------------------------------------------
    def _wave(self, args: Arguments) -> int:
        """The wave of the request's `threadId` (wave 0 when it names none)."""
        session = self._stopped_session()
        thread = args.integer("threadId", None)
        try:
            return 0 if thread is None else session.views.wave_of(thread)
        except KeyError:        # a wave of a workgroup that has ended: the client's view is old
            return 0

    def on_continue(self, args):
        self._resume = ("continue", self._wave(args))
        return {"allThreadsContinued": True}

    def after_continue(self):
        self.session.resume(*self._resume)

    def _step(self, mode, args):
        self._resume = (mode, self._wave(args))
        return None

    def on_next(self, args):
        return self._step("next", args)

    def on_stepIn(self, args):
        return self._step("stepIn", args)

    def on_stepOut(self, args):
        return self._step("stepOut", args)

    def after_next(self):
        self.session.resume(*self._resume)

    after_stepIn = after_stepOut = after_next

    def on_pause(self, args):
        if self.session.running:
            self.session.pause_requested.set()
        return None

    def on_restart(self, args: Arguments):
        given = args.object("arguments").data
        arguments = given or self.launch_arguments
        if arguments is None:
            raise RequestError("nothing to restart: no kernel was launched")
        target = resolve(arguments)
        session = self.session
        session.cancel()
        old_threads = session.views.threads() if session.run is not None else []
        session.load(target)
        self.launch_arguments = arguments
        for thread in old_threads:
            self.channel.event("thread", {"reason": "exited", "threadId": thread["id"]})
        with session.lock:
            session.breakpoints.reapply(session.run.instructions, session.run.kernel.name,
                                        _norm(str(target.path)), session.line_base)
        return None

    def after_restart(self):
        self.session.begin()

    def on_terminate(self, args):
        self.session.cancel()
        return None

    def after_terminate(self):
        if not self.session.ended:
            self.session.ended = True
            self.channel.event("terminated")

    def on_disconnect(self, args):
        self.session.cancel()
        self.done = True
        return None

    # ---- inspection --------------------------------------------------------------------------
    def on_threads(self, args):
        session = self.session
        if session.run is None:
            return {"threads": []}
        with session.lock:
            return {"threads": session.views.threads()}

    def on_stackTrace(self, args: Arguments):
        session = self._stopped_session()
        frames = session.views.stack(args.integer("threadId"))
        start = args.integer("startFrame", 0, minimum=0)
        levels = args.integer("levels", 0, minimum=0)
        shown = frames[start:start + levels] if levels else frames[start:]
        return {"stackFrames": shown, "totalFrames": len(frames)}

    def on_scopes(self, args: Arguments):
        return {"scopes": self._stopped_session().views.scopes(args.integer("frameId"))}

    def on_variables(self, args: Arguments):
        session = self._stopped_session()
        hex_format = args.object("format").boolean("hex")
        reference = args.integer("variablesReference")
        start = args.integer("start", 0, minimum=0)
        count = args.integer("count", 0, minimum=0)
        variables = session.views.variables(reference, hex_format)
        if start or count:
            variables = variables[start:start + count] if count else variables[start:]
        return {"variables": variables}

    def on_setVariable(self, args: Arguments):
        session = self._stopped_session()
        hex_format = args.object("format").boolean("hex")
        body = session.views.set_variable(args.integer("variablesReference"),
                                          args.string("name", limit=MAX_TEXT),
                                          args.string("value", limit=MAX_TEXT), hex_format)
        session.reverse.edited()
        return body

    def on_evaluate(self, args: Arguments):
        session = self._stopped_session()
        views = session.views
        text = args.string("expression", limit=MAX_TEXT)
        hex_format = args.object("format").boolean("hex")
        frame = args.integer("frameId", None)
        wave = 0 if frame is None else views.frame(frame)[0]
        run = session.run
        n = run.lane_count(wave)
        m = _REGISTER.match(text)
        if m and len(m.group(1)) < 4 and int(m.group(1)) < run.geo.registers:
            reg = int(m.group(1))
            return {"result": summary(views._lane_values(wave, reg, hex_format)),
                    "variablesReference": views.handles.add(("lanes_of", wave, reg)),
                    "indexedVariables": n}
        values = Expression(text).evaluate(run, wave)[:n]
        if values.dtype == bool:
            return {"result": mask_text(values), "variablesReference": 0}
        return {"result": summary([repr(float(v)) if values.dtype.kind == "f" else str(int(v))
                                   for v in values.tolist()]), "variablesReference": 0}

    def on_exceptionInfo(self, args):
        error = self._stopped_session().run.error
        if error is None:
            raise RequestError("the run is not stopped on an error")
        return {"exceptionId": error.kind, "description": error.message, "breakMode": "always",
                "details": {"message": error.message, "typeName": error.kind,
                            "stackTrace": describe_error(error)}}

    def on_readMemory(self, args: Arguments):
        session = self._stopped_session()
        return session.views.read_memory(args.string("memoryReference"),
                                         args.integer("offset", 0),
                                         args.integer("count", minimum=0))

    def on_writeMemory(self, args: Arguments):
        session = self._stopped_session()
        body = session.views.write_memory(args.string("memoryReference"),
                                          args.integer("offset", 0), args.string("data"))
        session.reverse.edited()
        return body

    def on_disassemble(self, args: Arguments):
        session = self._stopped_session()
        return {"instructions": session.views.disassemble(
            args.string("memoryReference"), args.integer("offset", 0),
            args.integer("instructionOffset", 0),
            args.integer("instructionCount", minimum=0, maximum=MAX_INSTRUCTIONS))}


def _short(value) -> str:
    text = "null" if value is None else repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def serve(stdin, stdout) -> int:
    """Serve one debug session over binary streams until `disconnect` or end of input. A
    malformed frame or body is reported in an `output` event and skipped; reading goes on."""
    channel = Channel(stdout)
    adapter = Adapter(channel)

    def report(reason: str) -> None:
        channel.event("output", {"category": "stderr",
                                 "output": f"wave-lsp debug: protocol error: {reason}\n"})

    for message in read_messages(stdin, report):
        adapter.handle(message)
        if adapter.done:
            break
    adapter.session.cancel()
    return 0
