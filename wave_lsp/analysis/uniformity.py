"""Uniformity analysis of a kernel: for every register and predicate at every instruction, over
which threads its value is the same (`Uniformity`), and the chain of causes when it varies.

A forward data-flow pass over the structured control flow (`uniformity_steps.structure`):
- sources of variation: `sr_thread_id_*`/`sr_lane_id` (per thread), `sr_wave_id` (per wave),
  `sr_workgroup_id_*` (per workgroup), loads from varying addresses (local memory is also per
  workgroup), atomics' returned values, shuffles and prefix sums (per thread); reductions and
  ballots give one value per wave; registers start uniform (launch arguments, zero);
- results are as varying as their most varying operand; a write under a guard joins the guard,
  the old and the new value; a register written inside an `if`, or inside a loop whose exit (or a
  `continue`) may differ, varies after the join at least as much as the condition; an
  unconditional write replaces the value and its variation;
- loops are iterated until the state at their head no longer changes.

A `call` inside an `if` or loop is followed: the function body (from its label to `return`) is
analysed in the caller's state and context, so its barriers see the call site's divergence.

Approximations (documented): memory is not tracked (a load from a uniform address is as uniform
as the address, ignoring races); a function body is otherwise analysed where it stands in the
text; recursion is not followed; a value equal in all threads by arithmetic accident (`isub r1,
r0, r0`, or loops with per-thread bounds but equal trip counts) still varies.

The pass also records the events the divergence lints need (barriers, wave operations, with the
enclosing constructs) — see `divergence.py`.
"""

from __future__ import annotations

from ..cancellation import checkpoint
from ..syntax.program import Kernel, Program
from .anchors import LineMention, Text
from .uniformity_model import Cause, Uniformity
from .uniformity_reuse import TopLevelRun, changed_lines, has_call, run_top_level
from .uniformity_state import CallFrame, Event, IfFrame, LoopFrame, State
from .uniformity_steps import (BARRIER, BREAK, CONTINUE, HALT, HALT_OP, NORMAL, OTHER, IfNode,
                               LoopNode, Step, key_name, structure)

MAX_PASSES = 64
MAX_CALL_DEPTH = 8


class KernelUniformity:
    """The analysis of one kernel: recorded states and the lint events."""

    def __init__(self, kernel: Kernel, record: bool = False,
                 previous: "KernelUniformity | None" = None) -> None:
        self.kernel = kernel
        self.record = record
        self.events: list[Event] = []
        self.before: dict[int, State] = {}
        self.after: dict[int, State] = {}
        self._exit_seed: dict[int, tuple[int, Cause | None]] = {}
        tree = structure(kernel.instructions)
        self.too_deep = tree is None     # nested past MAX_ANALYSED_DEPTH: nothing is analysed
        self.tree = tree or []
        self.run: TopLevelRun | None = None
        if record or has_call(self.tree):
            self.final = self._block(self.tree, State(), ())
        else:   # item by item, reusing the previous analysis of this kernel where it holds
            self.final, self.run = run_top_level(
                self, self.tree, kernel.instructions,
                previous.run if previous is not None else None)

    # ---- queries ---------------------------------------------------------------------------
    def level(self, line: int, name: str,
              after: bool = False) -> tuple[Uniformity, Cause | None] | None:
        """Level and cause of `rN`/`pN` just before (or after) the instruction on `line`;
        None when there is no instruction there or the name is not a register/predicate.
        Needs `record=True`."""
        key = _key_of(name)
        state = (self.after if after else self.before).get(line)
        if key is None or state is None:
            return None
        return Uniformity(state.lv.get(key, 0)), state.why.get(key)

    def varying(self, line: int, after: bool = False) -> dict[str, Uniformity]:
        """Every register/predicate that is not dispatch-uniform at `line`."""
        state = (self.after if after else self.before).get(line)
        if state is None:
            return {}
        return {key_name(k): Uniformity(v) for k, v in state.lv.items() if k != HALT}

    # ---- calls -----------------------------------------------------------------------------
    def _function(self, label: str) -> list | None:
        """The top-level items from `label:` to the first `return` (or unguarded `halt`)."""
        lines = [line for line, lab in self.kernel.labels if lab.name.text == label]
        if len(lines) != 1:
            return None
        items = []
        for item in self.tree:
            first = item[0] if type(item) is tuple else item.line
            if first <= lines[0]:
                continue
            items.append(item)
            if type(item) is tuple and (item[1].mnemonic == "return" or
                                        (item[1].op == HALT_OP and item[1].guard is None)):
                break
        return items

    def _call(self, line: int, step: Step, st: State, frames: tuple) -> None:
        """A `call` inside an `if` or loop: analyse the function body in the caller's context,
        so its barriers and wave operations see the divergence of the call site."""
        ops = step.instr.operands
        if not ops:
            return
        label = ops[0].text
        calls = [f for f in frames if type(f) is CallFrame]
        if len(calls) >= MAX_CALL_DEPTH or any(f.label == label for f in calls):
            return                           # recursion (optional in the spec): not followed
        items = self._function(label)
        if not items:
            return
        record, self.record = self.record, False   # hover shows the body as written
        saved, self._exits = self._exits, None       # `break` does not leave a caller's loop
        try:
            result = self._block(items, st, frames + (CallFrame(line, step, label),))
        finally:
            self.record, self._exits = record, saved
        st.lv, st.why = result.lv, result.why

    # ---- the pass --------------------------------------------------------------------------
    def _block(self, items: list, st: State, frames: tuple) -> State:
        for count, item in enumerate(items):
            if not count & 1023:
                checkpoint()          # a huge kernel is long to analyse: stay cancellable
            if type(item) is tuple:
                line, step = item
                if self.record:
                    self.before[line] = st.copy()
                op = step.op
                if op == NORMAL:
                    if step.dests:
                        self._write(line, step, st)
                    if step.wave:
                        self.events.append(Event(line, step, frames, self._guard(step, st),
                                                 (0, None)))
                elif op == BARRIER:
                    self.events.append(Event(line, step, frames, self._guard(step, st),
                                             (st.lv.get(HALT, 0), st.why.get(HALT))))
                elif op == BREAK or op == CONTINUE:
                    self._leave(line, step, st, frames)
                elif op == HALT_OP:
                    self._halt(line, step, st, frames)
                elif op == OTHER and step.mnemonic == "call" and frames:
                    self._call(line, step, st, frames)
                if self.record:
                    self.after[line] = st.copy()
            elif type(item) is IfNode:
                st = self._if(item, st, frames)
            else:
                st = self._loop(item, st, frames)
        return st

    def _write(self, line: int, step: Step, st: State) -> None:
        lv, why = st.lv, st.why
        level = step.fixed
        src = None
        for s in step.srcs:
            got = lv.get(s, 0)
            if got > level:
                level, src = got, s
        if step.cap is not None and level > step.cap:
            level = step.cap
        cause = None
        if level:
            parent = why.get(src) if src is not None else None
            text = step.text if src is not None or not step.note else f"{step.text}: {step.note}"
            cause = Cause(line, step.instr.start, step.instr.end, text, parent)
        guard = step.guard
        if guard is not None:
            glevel = lv.get(guard, 0)
            for d in step.dests:
                old = lv.get(d, 0)
                if glevel > level and glevel >= old:
                    lv[d] = glevel
                    why[d] = Cause(line, step.instr.start, step.instr.end,
                                   f"{step.text}: written only where the guard holds",
                                   why.get(guard))
                elif old > level:
                    pass                     # lanes that skip it keep their (more varying) value
                elif level:
                    lv[d], why[d] = level, cause
                else:
                    lv.pop(d, None)
                    why.pop(d, None)
            return
        for d in step.dests:
            if level:
                lv[d] = level
                why[d] = cause
            else:
                lv.pop(d, None)
                why.pop(d, None)

    @staticmethod
    def _guard(step: Step, st: State) -> tuple[int, Cause | None]:
        g = step.guard
        if g is None:
            return (0, None)
        return (st.lv.get(g, 0), st.why.get(g))

    @staticmethod
    def _operand(step: Step, st: State) -> tuple[int, Cause | None]:
        """Level of the predicate a control instruction tests, guard included."""
        level, cause = 0, None
        for s in step.srcs:
            got = st.lv.get(s, 0)
            if got > level:
                level, cause = got, st.why.get(s)
        g = step.guard
        if g is not None and st.lv.get(g, 0) > level:
            level, cause = st.lv[g], st.why.get(g)
        return level, cause

    def _mark(self, line: int | None, before: State | None, after: State | None) -> None:
        """Record the states around a block statement (`if`, `else`, `endif`, `loop`...)."""
        if self.record and line is not None:
            if before is not None:
                self.before[line] = before.copy()
            if after is not None:
                self.after[line] = after.copy()

    def _if(self, node: IfNode, st: State, frames: tuple) -> State:
        self._mark(node.line, st, st)
        self._mark(node.else_line, st, st)
        level, cause = self._operand(node.step, st)
        frame = IfFrame(node, level, cause)
        then_state = st.copy()
        then_state = self._block(node.then, then_state, frames + (frame,))
        if node.else_ is not None:
            else_frame = IfFrame(node, level, cause, True)
            st = self._block(node.else_, st, frames + (else_frame,))
        st.join(then_state)
        if level:
            step = node.step
            text = step.written
            st.raise_to(node.writes, level, lambda k: Cause(
                node.line, step.instr.start, step.instr.end,
                f"{key_name(k)} ← written inside `{text}`, whose condition "
                f"{Uniformity(level).phrase}", cause))
        self._mark(node.end_line, None, st)
        if self.record and node.end_line is not None:
            self.before[node.end_line] = self.after[node.end_line]
        return st

    def _loop(self, node: LoopNode, st: State, frames: tuple) -> State:
        entry = st
        head = entry.copy()
        seed = self._exit_seed.get(id(node), (0, None))
        mark = len(self.events)
        for _ in range(MAX_PASSES):
            del self.events[mark:]
            frame = LoopFrame(node, seed[0], seed[1])
            breaks: list[State] = []
            conts: list[State] = []
            body = self._body(node, head.copy(), frames + (frame,), breaks, conts)
            new_head = entry.copy()
            new_head.join(body)
            for c in conts:
                new_head.join(c)
            for at, level, cause in frame.continues:
                if level:
                    new_head.raise_to(node.writes_after(at), level, _control_cause(
                        node, at, level, cause, "skipped by a `continue` that"))
            done = new_head.lv == head.lv and frame.exit_level == seed[0]
            seed = (frame.exit_level, frame.exit_cause)
            head = new_head
            if done:
                break
        self._exit_seed[id(node)] = seed
        self._mark(node.line, entry, head)
        if breaks:
            out = breaks[0]
            for b in breaks[1:]:
                out.join(b)
        else:
            out = body
        level, cause = seed
        if level:
            out.raise_to(node.writes, level, _control_cause(
                node, node.line, level, cause, "changed inside a `loop` whose exit"))
        self._mark(node.end_line, body, out)
        return out

    def _body(self, node: LoopNode, st: State, frames: tuple, breaks: list, conts: list) -> State:
        saved = self._exits
        self._exits = (breaks, conts)
        try:
            return self._block(node.body, st, frames)
        finally:
            self._exits = saved

    _exits: tuple[list, list] | None = None

    def _leave(self, line: int, step: Step, st: State, frames: tuple) -> None:
        """`break`/`continue`: note how much the threads leaving may differ."""
        loop_at = None
        for i in range(len(frames) - 1, -1, -1):
            if type(frames[i]) is LoopFrame:
                loop_at = i
                break
        if loop_at is None or self._exits is None:
            return                           # outside any loop: nothing leaves
        level, cause = self._operand(step, st)
        for frame in frames[loop_at + 1:]:   # ifs between the loop and this instruction
            if frame.level > level:
                level, cause = frame.level, Cause(
                    frame.node.line, frame.node.step.instr.start, frame.node.step.instr.end,
                    Text(f"`{step.written}` (", LineMention(line),
                         f") is inside `{frame.node.step.written}`"),
                    frame.cause)
        if level and (cause is None or cause.line != line):
            cause = Cause(line, step.instr.start, step.instr.end,
                          f"`{step.written}`: taken by threads where it holds", cause)
        loop = frames[loop_at]
        breaks, conts = self._exits
        if step.op == BREAK:
            breaks.append(st.copy())
            if level > loop.exit_level:
                loop.exit_level, loop.exit_cause = level, cause
        else:
            conts.append(st.copy())
            loop.continues.append((line, level, cause))

    def _halt(self, line: int, step: Step, st: State, frames: tuple) -> None:
        """`halt` taken by only some threads (of a wave, or some waves) marks the state."""
        level, cause = self._guard(step, st)
        where = ""
        for frame in frames:
            if type(frame) is IfFrame:
                fl, fc = frame.level, frame.cause
                place = Text(f" inside `{frame.node.step.written}` (",
                             LineMention(frame.node.line), ")")
            elif type(frame) is LoopFrame:
                fl, fc = frame.exit_level, frame.exit_cause
                place = Text(" inside the `loop` at ", LineMention(frame.node.line))
            else:   # a call: its divergence is that of the frames around it
                continue
            if fl > level:
                level, cause, where = fl, fc, place
        if level >= Uniformity.WAVE and level > st.lv.get(HALT, 0):
            st.lv[HALT] = level
            st.why[HALT] = Cause(line, step.instr.start, step.instr.end,
                                 Text(f"`{step.written}`", where, " may end only some threads"),
                                 cause)


def _control_cause(node: LoopNode, line: int, level: int, cause: Cause | None, what: str):
    """A cause factory for keys that vary because of how threads leave or skip a loop."""
    step = node.step
    text = Text(f"{what} {Uniformity(level).phrase}")
    if line != node.line:
        text = text.replace("`continue`", Text("`continue` (", LineMention(line), ")"))

    def make(key: int) -> Cause:
        return Cause(node.line, step.instr.start, step.instr.end,
                     Text(f"{key_name(key)} ← ", text), cause)
    return make


def _key_of(name: str) -> int | None:
    name = name.strip()
    if len(name) < 2 or not name[1:].isdigit():
        return None
    if name[0] == "r":
        return int(name[1:])
    if name[0] == "p":
        return -1 - int(name[1:])
    return None


def analyse_kernel(kernel: Kernel, record: bool = False,
                   previous: KernelUniformity | None = None) -> KernelUniformity:
    """The uniformity analysis of a kernel. `previous`, an earlier analysis of the same kernel
    object, is returned when none of its instructions changed and is the starting point of the
    new one otherwise (see uniformity_reuse.py). `record` keeps the state at every line (hover).
    Nothing is cached here: the per-document `AnalysisState` keeps what is worth keeping."""
    if not record and previous is not None and previous.kernel is kernel and \
            previous.run is not None and \
            changed_lines(previous.run.instructions, kernel.instructions) is None:
        return previous
    if previous is not None and previous.kernel is not kernel:
        previous = None
    return KernelUniformity(kernel, record, None if record else previous)


def uniformity_of(program: Program, kernel: Kernel | str,
                  analysis=None) -> KernelUniformity | None:
    """The uniformity of every register and predicate in `kernel` (a Kernel or its name), with
    states recorded per line: `result.level(line, "r4")` answers "is r4 uniform at line L, and
    per what?" as `(Uniformity, Cause | None)`. `analysis` (an `AnalysisState`) caches it."""
    if isinstance(kernel, str):
        found = program.kernel_named(kernel)
        if found is None:
            return None
        kernel = found
    if analysis is not None:
        return analysis.recorded_uniformity(kernel)
    return analyse_kernel(kernel, record=True)
