"""Loop summaries: one symbolic pass over a loop body that stands for every iteration.

A first pass runs the body with every register it writes replaced by a placeholder and reads,
at the back edge, how each changed: by a constant stride on every path (affine: `init +
k*stride` at iteration k; a counter the loop compares is assumed not to wrap around 2**32 inside
the loop, and a verdict that needs it says so — docs/dev/verify.md), halved or doubled (`init >> k`, `init << k`: tree reductions), set to the
same value on every path (that value from the second iteration on), or otherwise (havocked). The
barrier count is one of these registers, so a body with the same number of barriers on every
path gives each iteration its own barrier intervals. The second pass runs the body once more
with those values, recording its accesses and barriers, with `k` a fresh iteration count; the
states at its `break`s are the states after the loop.

A loop whose body holds a barrier is summarised only when every exit (a `break`, `continue` or
`halt` in it) is taken by all threads of a workgroup alike at each iteration (checked by the
solver; `loop_exits` keeps what the check needs): otherwise the kernel's verdict is unknown."""

from __future__ import annotations

import z3

from ...isa import INSTRUCTIONS, InstructionClass
from ..uniformity_steps import BARRIER, HALT_OP, IfNode, LoopNode
from .execute import BAR, State, ThreadRun, _Frame, free_symbols, merge
from .semantics import BV, Unsupported


def _has(items, op) -> bool:
    for item in items:
        if type(item) is tuple:
            if item[1].op == op:
                return True
        elif isinstance(item, IfNode):
            if _has(item.then, op) or _has(item.else_ or [], op):
                return True
        elif _has(item.body, op):
            return True
    return False


def _compared(items, out: set) -> set:
    """Registers the loop's compare instructions read (the counters that control it)."""
    for item in items:
        if type(item) is tuple:
            spec = INSTRUCTIONS.get(item[1].mnemonic)
            if spec is not None and spec.iclass is InstructionClass.COMPARE:
                out.update(item[1].srcs)
        elif isinstance(item, IfNode):
            _compared(item.then, out)
            _compared(item.else_ or [], out)
        else:
            _compared(item.body, out)
    return out


def summarise(run: ThreadRun, node: LoopNode, st: State) -> State:
    if _has(node.body, HALT_OP):
        raise Unsupported(f"line {node.line + 1}: a loop with `halt` inside whose trip count "
                          f"is not a launch constant")
    written = set(node.writes)
    has_barrier = _has(node.body, BARRIER)
    if has_barrier:
        written.add(BAR)
    # pass 1: how each written register changes from one iteration to the next
    placeholders = {}
    probe = st.copy()
    for key in written:
        sort = z3.BoolSort() if isinstance(key, int) and key < 0 else BV
        placeholders[key] = z3.Const(f"h{node.line}_{key}_{run.counter}_{run.tag}", sort)
        run.counter += 1
        probe.regs[key] = placeholders[key]
    recording, run.recording = run.recording, False
    first_fresh = len(run.own)
    try:
        frame = _Frame()
        end = run.block(node.body, probe, frame)
        back = merge([end] + frame.conts, run)
    finally:
        run.recording = recording
    held = {str(h) for h in placeholders.values()} | {str(v) for v in run.own[first_fresh:]}
    k = run.fresh(f"k{node.line}_")
    entry = st.copy()
    nowrap = []
    compared = _compared(node.body, set())
    for key, h in placeholders.items():
        init = run.read(st, key)
        after = run.read(back, key)
        entry.regs[key] = _summary(run, node, key, init, h, after, k, held,
                                   nowrap if key in compared else [])
    if nowrap:
        run.assumptions.append(node.line)
    ties = run.ties + (k,)
    entry.pc = z3.simplify(z3.And(st.pc, *nowrap))
    # pass 2: any iteration k
    outer, run.ties = run.ties, ties
    try:
        frame = _Frame()
        run.block(node.body, entry, frame)
    finally:
        run.ties = outer
    if has_barrier and run.recording:
        run.loop_exits.append((node.line, [s.pc for s in frame.breaks], ties))
    if not frame.breaks:
        return State(z3.BoolVal(False), entry.regs)
    after = merge(frame.breaks, run)
    # every thread active at the loop's entry leaves it (a kernel that terminates), and a
    # thread's values are those at the iteration it leaves
    return State(st.pc, after.regs)


def _summary(run, node, key, init, h, after, k, held, nowrap):
    """The value of `key` at iteration `k` (see the module's docstring)."""
    if isinstance(key, int) and key < 0:
        if not _uses(after, held, run):
            return z3.If(k == 0, init, after)
        return z3.If(k == 0, init, _havoc(run, node, key, k, z3.BoolSort()))
    if after.eq(h):
        return init
    delta = z3.simplify(after - h)
    if not _uses(delta, held, run):
        v = z3.simplify(init + k * delta)
        wide = z3.ZeroExt(32, init) + z3.ZeroExt(32, k) * z3.SignExt(32, delta)
        nowrap.append(z3.And(wide >= 0, wide < (1 << 32)))
        return v
    for form, stepped in ((lambda x: z3.LShR(x, 1), lambda: z3.LShR(init, k)),
                          (lambda x: x << 1, lambda: init << k)):
        if z3.simplify(form(h)).eq(after):     # simplified alike: no solver call
            return stepped()
    if not _uses(after, held, run):
        return z3.If(k == 0, init, after)
    return z3.If(k == 0, init, _havoc(run, node, key, k, BV))


def _havoc(run: ThreadRun, node, key, k, sort):
    """Any value; a function of the workgroup and the iteration where the register is uniform
    per workgroup at the loop's head (so two threads of a workgroup share it)."""
    head = next((item[0] for item in node.body if type(item) is tuple), None)
    if key != BAR and head is not None and run.uniform_in_workgroup(head, key):
        run.counter += 1
        f = z3.Function(f"u{node.line}_{key}_{run.counter}", BV, BV, BV, BV, sort)
        run.approx.add(f.name())
        return f(*run.wg, k)
    return run.fresh(f"hv{node.line}_", sort)


def _uses(expr, held: set, run: ThreadRun) -> bool:
    return not held.isdisjoint(free_symbols(expr, run.symbols))
