"""Reverse execution of a debug session: `stepBack`, `reverseContinue`, `gotoTargets`/`goto`,
data breakpoints (both directions) and the launch attribute `stopAt` (a finding's moment).

Every request here moves the run to an earlier position through the session's `Timeline`
(checkpoints plus re-execution, see timeline.py) after scanning the history for the position
to stop at. The whole workgroup moves together, as it does forward; barriers and divergence
need nothing special, since re-execution repeats them exactly.

- `stepBack` on a wave goes to the latest earlier step at which that wave had an active lane
  (at the call depth of the stop or shallower, as `next` steps over a `call`); at a
  workgroup's first instruction it goes to the last instruction of the previous workgroup.
- `reverseContinue` goes to the latest earlier moment a breakpoint (line or instruction, its
  condition holding in some active lane of a wave; hit counts and logpoints do not apply
  backward) was reached or a data breakpoint's target was written, across workgroups, else to
  the start of the history with a reason saying so.
- `gotoTargets` lists the earlier executions of a line, latest first, "line 12, iteration 5"
  (iterations count the line's executions within its workgroup); `goto` returns to one.
"""

from __future__ import annotations

from .timeline import Timeline, TimelineError
from .watch import first_hit

MAX_TARGETS = 500


class Reverse:
    """The reverse-execution side of a `Session`."""

    def __init__(self, session):
        self.session = session
        self.timeline = Timeline()
        self.watches: list = []

    def attach(self, budget_mib: float) -> None:
        """A fresh run was loaded: its history starts now."""
        session = self.session
        self.timeline = Timeline(budget_mib, notify=lambda text: session._output(text, "console"),
                                 on_restore=self._restore_kinds, on_step=session._after_step)
        self.timeline.restart_here(session.run, session.kinds)

    def _restore_kinds(self, kinds: dict) -> None:
        self.session.kinds = kinds

    def recorded(self) -> None:
        """After each forward step."""
        self.timeline.record(self.session.run, self.session.kinds)

    def edited(self) -> None:
        """The user changed registers or memory: the history before now no longer leads here
        (a step back to its start says so)."""
        self.timeline.restart_here(self.session.run, self.session.kinds)
        self.timeline.edited = True

    # ---- scanning ----------------------------------------------------------------------------
    def _latest(self, visit_of) -> int | None:
        """The latest position before the current one that `visit_of(hits)` records, scanning
        the history window by window, latest first (the run is left anywhere)."""
        run = self.session.run
        now = run.position
        for begin, end in list(self.timeline.segments_before(now)):
            hits: list[int] = []
            self.timeline.restore(run, begin)
            self.timeline.replay(run, end, visit_of(hits), self.session.cancelled)
            hits = [h for h in hits if h < now]
            if hits:
                return max(hits)
        return None

    def _travel(self, position: int, wave: int, reason: str, description: str,
                hit_ids=()) -> None:
        session = self.session
        run = session.run
        workgroup = run.workgroup
        self.timeline.seek(run, position, session.cancelled)
        if run.workgroup != workgroup:
            session.announce_workgroup(workgroup)
        session._stopped(reason, min(wave, run.waves - 1), hit_ids, description=description)

    # ---- requests (on the session's worker thread) -------------------------------------------
    def step_back(self, wave: int) -> None:
        session = self.session
        run = session.run
        now, start = run.position, self.timeline.start
        if now <= start:
            self.timeline.check()
            self._travel(now, wave, "step", _at_start(start, self.timeline.edited))
            return
        workgroup, depth, first = run.workgroup, run.call_depth, now - run.steps
        if run.steps == 0:
            target = now - 1
        else:
            def visit_of(hits):
                def visit(r):
                    if r.workgroup == workgroup and r.has_active(wave) \
                            and r.call_depth <= depth:
                        hits.append(r.position)
                return visit
            found = self._latest(visit_of)
            target = found if found is not None else max(first, start)
        self._travel(target, wave, "step", f"Stepped back to step {target}")

    def reverse_continue(self, wave: int) -> None:
        session = self.session
        by_index = session.breakpoints.by_index
        writes, watches = session.written_regs, self.watches
        found: dict[int, tuple[str, int, list[int]]] = {}

        def visit_of(hits):
            def visit(r):
                bps = by_index.get(r.index)
                if bps:
                    hit = [(bp, w) for bp in bps if bp.log_message is None
                           for w in session.condition_waves(bp)]
                    if hit:
                        hits.append(r.position)
                        kind = "instruction breakpoint" if all(
                            bp.instruction for bp, _ in hit) else "breakpoint"
                        found[r.position] = (kind, hit[0][1], sorted({bp.id for bp, _ in hit}))
                check = first_hit(watches, r, writes) if watches else None
                if check is None:
                    return None

                def after(r2):
                    written = check(r2)
                    if written:
                        hits.append(r2.position)
                        found[r2.position] = ("data breakpoint", wave, [w.id for w in written])
                return after
            return visit
        target = self._latest(visit_of)
        if target is None:
            start = self.timeline.start
            self._travel(start, wave, "entry", "Reached the start of the recorded history "
                         f"(step {start}) with no earlier breakpoint")
            return
        reason, stop_wave, ids = found[target]
        self._travel(target, stop_wave, reason, f"Paused on {reason} (reverse, step {target})",
                     ids)

    def goto_targets(self, line: int) -> list[dict]:
        """The earlier executions of source line `line` (0-based), the latest first (what an
        editor's "jump to cursor" takes)."""
        session = self.session
        run = session.run
        now = run.position
        indices = {i for i, ins in enumerate(run.instructions) if ins.line == line}
        if not indices:
            return []
        self.timeline.check()
        starts = {i for i in indices if i == 0 or run.instructions[i - 1].line != line}
        targets: list[dict] = []
        iterations: dict[int, int] = {}
        many = run.geo.workgroup_count > 1

        def visit(r):
            if r.index in starts and any(r.has_active(w) for w in range(r.waves)):
                n = iterations[r.workgroup] = iterations.get(r.workgroup, 0) + 1
                where = f" (workgroup {r.geo.workgroup_id(r.workgroup)})" if many else ""
                targets.append({"id": r.position + 1, "label": f"line {line + session.line_base}"
                                f", iteration {n}{where}", "line": line + session.line_base})
        self.timeline.restore(run, self.timeline.start)
        self.timeline.replay(run, now, visit, session.cancelled)
        self.timeline.seek(run, now, session.cancelled)
        return targets[-MAX_TARGETS:][::-1]

    def check_goto(self, target_id: int) -> None:
        self.timeline.check()
        if not self.timeline.start <= target_id - 1 < self.session.run.position:
            raise TimelineError(f"goto target {target_id} is not an earlier moment of this run")

    def goto(self, target_id: int, wave: int) -> None:
        self.check_goto(target_id)
        self._travel(target_id - 1, wave, "goto", f"Went back to step {target_id - 1}")


def _at_start(start: int, edited: bool) -> str:
    why = " (registers or memory were edited here; the run before no longer leads here)" \
        if edited else ""
    return (f"At the start of the recorded history (step {start}{why}): there is nothing "
            "earlier to step back to")
