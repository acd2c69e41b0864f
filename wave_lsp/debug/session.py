"""Run control of one debug session: continue, pause, next / step in / step out of `call`,
breakpoints and logpoints, exception stops on run-time errors, restart and disconnect.

The kernel runs on a worker thread, one instruction of the current workgroup at a time (see
`wave_lsp.emu.stepping`); the request thread reads the state only while the run is stopped.
All waves of the workgroup stop together (`allThreadsStopped`). Stepping a wave runs the
workgroup until that wave has executed one instruction and has an active lane again: `next`
treats a `call` as one instruction, `stepIn` enters it, `stepOut` runs until it returns.
When a workgroup ends the next one starts; a step then stops at its first instruction.
Going backward (stepBack, reverseContinue, goto, data breakpoints, a finding's moment) is
`reverse.Reverse`, also on the worker thread.
"""

from __future__ import annotations

import threading

import numpy as np

from ..launch.output import error_line, run_output
from ..emu import FAULTED, FINISHED, WORKGROUP_DONE, write_plan
from ..isa.value_format import display_kind, lane_list, lanes_summary as summary
from .breakpoints import BreakpointTable, log_text
from .watch import first_hit
from .expressions import Expression, ExpressionError
from .moment import run_to_moment
from .reverse import Reverse
from .timeline import DEFAULT_BUDGET_MIB, TimelineError
from .views import Views

# Exception breakpoint filters: id -> (label, error kinds, on by default)
EXCEPTION_FILTERS = {
    "memory": ("Out-of-bounds memory accesses", {"out_of_bounds"}, True),
    "barrier": ("Barrier in divergent control flow and deadlocks",
                {"divergent_barrier", "deadlock"}, True),
    "other": ("Other run-time errors (registers, stacks, invalid instructions, limits)",
              None, True),
}
STEP_MODES = ("next", "stepIn", "stepOut")
REVERSE_MODES = ("stepBack", "reverseContinue", "goto", "moment")


class Session:
    """The state of one debug session over a `Target` (see target.py)."""

    def __init__(self, channel):
        self.channel = channel
        self.target = None
        self.run = None
        self.line_base = 1
        self.breakpoints = BreakpointTable()
        self.filters = {name for name, (_, _, on) in EXCEPTION_FILTERS.items() if on}
        self.views = Views(self)
        self.reverse = Reverse(self)
        self.written_regs: list[set[int]] = []     # per instruction: the registers it writes
        self.focus: tuple[int, ...] = ()    # threads of a finding shown in "Finding lanes"
        # register -> display kind of its last writer (isa.value_format), f64lo/f64hi for pairs
        self.kinds: dict[int, str] = {}
        self._origins: dict[int, tuple[object, int]] = {}
        self._writes: list[list[tuple[int, str]]] = []
        self.lock = threading.Lock()
        self.worker: threading.Thread | None = None
        self.pause_requested = threading.Event()
        self.cancelled = threading.Event()
        self.running = False
        self.ended = False

    # ---- lifetime ----------------------------------------------------------------------------
    def load(self, target) -> None:
        """Prepare a fresh run of `target` (launch and restart)."""
        self.target = target
        self.run = target.start()
        self.focus = ()
        self.kinds = {}
        self._origins = {}
        self._writes = [[(item[1], _display_kind(ins, item[2])) for item in write_plan(ins)
                         if item[0] == "r"] for ins in self.run.instructions]
        self.written_regs = [{reg for reg, _ in writes} for writes in self._writes]
        self.ended = False
        self.views.handles.reset()
        self.reverse.attach(getattr(target, "checkpoint_budget_mib", DEFAULT_BUDGET_MIB))

    def begin(self) -> None:
        """Start executing (after configurationDone): stop on entry or run."""
        for wave in range(self.run.waves):
            self.channel.event("thread", {"reason": "started",
                                          "threadId": self.views.thread_id(wave)})
        if getattr(self.target, "stop_at", None) is not None:
            self.resume("moment", 0)
        elif self.target.stop_on_entry:
            self._stopped("entry", 0)
        else:
            self.resume("continue", 0, check_here=True)

    def resume(self, mode: str, wave: int, check_here: bool = False, target=None) -> None:
        self.wait()
        if self.ended:
            return
        self.views.handles.reset()
        self.pause_requested.clear()
        self.running = True
        self.worker = threading.Thread(target=self._execute,
                                       args=(mode, wave, check_here, target),
                                       daemon=True, name="wave-debug-run")
        self.worker.start()

    def wait(self) -> None:
        worker = self.worker
        if worker is not None and worker is not threading.current_thread():
            worker.join()

    def cancel(self) -> None:
        """Stop the worker for good (disconnect, terminate, restart)."""
        self.cancelled.set()
        self.wait()
        self.cancelled.clear()

    # ---- the execution loop ------------------------------------------------------------------
    def _execute(self, mode: str, wave: int, check_here: bool, target=None) -> None:
        try:
            if mode in REVERSE_MODES:
                self._travel(mode, wave, target)
            else:
                self._loop(mode, wave, check_here)
        except Exception as err:  # noqa: BLE001 - a bug must end the session, not hang it
            self._output(f"internal error in the debugger: {err!r}\n", "stderr")
            self._finish()
        finally:
            self.running = False

    def _travel(self, mode: str, wave: int, target) -> None:
        """A reverse request or a finding's moment; a problem stops where the run is."""
        reverse = self.reverse
        try:
            with self.lock:
                if mode == "stepBack":
                    reverse.step_back(wave)
                elif mode == "reverseContinue":
                    reverse.reverse_continue(wave)
                elif mode == "goto":
                    reverse.goto(target, wave)
                else:
                    run_to_moment(self, self.target.stop_at)
        except TimelineError as err:
            if self.cancelled.is_set():
                return
            self._output(f"{err}\n", "stderr")
            self._stopped("pause", min(wave, self.run.waves - 1), description=str(err))

    def _loop(self, mode: str, wave: int, check_here: bool) -> None:
        run = self.run
        if run.error is not None or run.finished:
            self._finish()
            return
        depth0 = run.call_depth
        executed = False
        check = check_here
        while True:
            if self.cancelled.is_set():
                return
            if self.pause_requested.is_set():
                self.pause_requested.clear()
                self._stopped("pause", wave)
                return
            if check:
                if mode in STEP_MODES and executed and run.has_active(wave) and (
                        mode == "stepIn" or (mode == "next" and run.call_depth <= depth0)
                        or (mode == "stepOut" and run.call_depth < depth0)):
                    self._stopped("step", wave)
                    return
                if self._breakpoint_stop():
                    return
            check = True
            with self.lock:
                was_active = mode in STEP_MODES and run.has_active(wave)
                index = run.index
                watched = first_hit(self.reverse.watches, run, self.written_regs) \
                    if self.reverse.watches else None
                result = run.step()
                self._after_step(index)
                self.reverse.recorded()
            executed = executed or was_active
            written = watched(run) if watched is not None and result != FAULTED else None
            if written and result != FINISHED:
                if result == WORKGROUP_DONE:
                    self._workgroup_changed()
                self._stopped("data breakpoint", wave, [w.id for w in written],
                              description=f"{written[0].describe()} written at step "
                                          f"{run.position - 1}")
                return
            if result == WORKGROUP_DONE:
                self._workgroup_changed()
                if mode in STEP_MODES:
                    self._stopped("step", min(wave, run.waves - 1))
                    return
                executed = False
            elif result == FAULTED:
                self._fault()
                return
            elif result == FINISHED:
                self._finish()
                return

    def _after_step(self, index: int) -> None:
        for reg, kind in self._writes[index]:
            self.kinds[reg] = kind
        ctrl = self.run.control_frames
        if ctrl:
            top = ctrl[-1]
            known = self._origins.get(id(top))
            if known is None or known[0] is not top:
                self._origins[id(top)] = (top, index)
                if len(self._origins) > 4 * len(ctrl) + 64:
                    alive = {id(f) for f in ctrl}
                    self._origins = {k: v for k, v in self._origins.items() if k in alive}

    def origin_of(self, frame) -> int | None:
        known = self._origins.get(id(frame))
        return known[1] if known is not None and known[0] is frame else None

    def _breakpoint_stop(self) -> bool:
        run = self.run
        bps = self.breakpoints.by_index.get(run.index)
        if not bps:
            return False
        hit, stop_wave = [], None
        for bp in bps:
            waves = self.condition_waves(bp)
            if not waves or not bp.counts_hit():
                continue
            if bp.log_message is not None:
                for w in waves:
                    text = log_text(bp.log_message, lambda e, w=w: self._log_value(e, w))
                    self._output(f"{self.views.thread_name(w)}: {text}\n", "console")
                continue
            hit.append(bp)
            stop_wave = waves[0] if stop_wave is None else stop_wave
        if not hit:
            return False
        reason = "instruction breakpoint" if all(bp.instruction for bp in hit) else "breakpoint"
        self._stopped(reason, stop_wave, [bp.id for bp in hit])
        return True

    def condition_waves(self, bp) -> list[int]:
        """The waves with an active lane where `bp`'s condition holds (all, without one)."""
        run = self.run
        waves = [w for w in range(run.waves) if run.has_active(w)]
        if bp.condition is not None:
            try:
                waves = [w for w in waves if bp.condition.holds(run, w, run.active(w)).any()]
            except ExpressionError as err:
                self._output(f"breakpoint condition '{bp.condition.text}': {err}\n", "stderr")
        return waves

    def _log_value(self, expression: str, wave: int) -> str:
        run = self.run
        values = Expression(expression).evaluate(run, wave)
        active = run.active(wave)
        return summary([_plain(v) for v, on in zip(values.tolist(), active.tolist()) if on])

    def _workgroup_changed(self) -> None:
        self.announce_workgroup(self.run.workgroup - 1)

    def announce_workgroup(self, old: int) -> None:
        """The running workgroup is no longer `old`: its waves exit, the current ones start."""
        run = self.run
        waves = run.waves
        for wave in range(waves):
            self.channel.event("thread", {"reason": "exited",
                                          "threadId": old * waves + wave + 1})
        for wave in range(waves):
            self.channel.event("thread", {"reason": "started",
                                          "threadId": self.views.thread_id(wave)})
        self._origins = {}

    def _fault(self) -> None:
        error = self.run.error
        if stops_on(self.filters, error.kind):
            wave = error.wave if error.wave is not None else 0
            self._stopped("exception", wave, text=error.message,
                          description=f"{error.kind}: {error.message}")
        else:
            self._finish()

    # ---- events ------------------------------------------------------------------------------
    def _stopped(self, reason: str, wave: int, hit_ids=(), text: str | None = None,
                 description: str | None = None) -> None:
        run = self.run
        self.running = False          # before the event: the client inspects right away
        active = run.executing(wave)[:run.lane_count(wave)]
        lanes = f"lanes {lane_list(active)} active" if active.any() else "no lane active"
        body = {"reason": reason, "threadId": self.views.thread_id(wave),
                "allThreadsStopped": True,
                "description": description or f"Paused on {reason} ({lanes})"}
        if hit_ids:
            body["hitBreakpointIds"] = list(hit_ids)
        if text:
            body["text"] = text
        self.channel.event("stopped", body)

    def _output(self, text: str, category: str = "console") -> None:
        self.channel.event("output", {"category": category, "output": text})

    def _finish(self) -> None:
        """The run is over: print its results as `wave-lsp run` would, then end the session."""
        if self.ended:
            return
        self.ended = True
        self.running = False
        report = self.run.report()
        error = error_line(report)
        if error is not None:
            self._output(error + "\n", "stderr")
        else:
            chunks: list[str] = []
            try:              # the text `wave-lsp run` prints (launch.output), dumps then stats
                chunks += run_output(report, self.target.dumps)
            except (ValueError, IndexError) as err:
                chunks.append(f"Error: {err}\n")
            if self.target.stats:
                chunks += run_output(report, (), stats=True)
            chunks.append(f"{report.kernel}: finished, {report.stats.total} wave-instructions\n")
            self._output("".join(chunks), "stdout")
        for warning in report.warnings:
            self._output(f"warning: {warning.message}\n", "console")
        self.channel.event("exited", {"exitCode": 1 if report.errors else 0})
        self.channel.event("terminated")


def stops_on(filters, kind: str) -> bool:
    """Whether the enabled exception filters stop on a run-time error of `kind`."""
    named = set().union(*(kinds for _, kinds, _ in EXCEPTION_FILTERS.values() if kinds))
    for name in filters:
        kinds = EXCEPTION_FILTERS[name][1]
        if kind in (kinds if kinds is not None else ()) or (kinds is None and kind not in named):
            return True
    return False


def _plain(value) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    return str(value)


def _display_kind(ins, kind: str) -> str:
    """How values `ins` writes read (as in the inline hints); f64 pair halves stay apart."""
    return kind if kind in ("f64lo", "f64hi") else display_kind(ins.spec.mnemonic, kind)
