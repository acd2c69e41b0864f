"""Symbolic execution of one thread of a kernel over its structured control flow
(`uniformity_steps.structure`): registers as z3 bit-vectors, predicates as booleans, a path
condition (`pc`: the thread is active here) and the count of barriers the thread has passed
(`BAR`, which names the barrier interval an access falls in). The result lists every memory
access and barrier as *instances*: (path condition, address, barrier count, loop iterations).

Loops (see docs/dev/verify.md): unrolled while whether a thread is still looping depends only
on launch constants (thread and workgroup ids) and at most MAX_UNROLL times; otherwise
summarised: registers the body changes by the same amount on every path become affine in a
fresh iteration count `k` (`init + k*stride`, counters assumed not to wrap past 2**32), halving
and doubling registers become `init >> k` / `init << k`, registers set to the same value on every
path keep it from the second iteration, the rest are havocked (a function of the workgroup and
`k` where the uniformity analysis shows the register uniform per workgroup, else a fresh value).
Fresh values, loop iterations and uninterpreted functions are recorded as *approximations*: a
witness that depends on one is confirmed by a replay before it is called a race."""

from __future__ import annotations

import time

import z3

from ...isa import InstructionClass
from ..uniformity_model import Uniformity
from ..uniformity_steps import BARRIER, BREAK, CONTINUE, HALT_OP, IfNode, LoopNode
from .model import Geometry
from .semantics import (BV, EXACT, Unsupported, bv, immediate, is_predicate, is_pure,
                        is_register, operands, register_index)

BAR = "bar"
MAX_UNROLL = 64


class OutOfTime(Exception):
    """The kernel's time limit ran out; the message is the verdict's reason."""


class Instance:
    """One way a thread reaches an access or a barrier."""

    __slots__ = ("pc", "addr", "bar", "ties")

    def __init__(self, pc, addr, bar, ties):
        self.pc, self.addr, self.bar, self.ties = pc, addr, bar, ties


class Site:
    """A memory access instruction (line) and its instances."""

    def __init__(self, line: int, kind: str, space: str, width: int):
        self.line, self.kind, self.space, self.width = line, kind, space, width
        self.instances: list[Instance] = []


class State:
    __slots__ = ("pc", "regs")

    def __init__(self, pc, regs):
        self.pc, self.regs = pc, regs

    def copy(self, pc=None) -> "State":
        return State(self.pc if pc is None else pc, dict(self.regs))


class _Frame:
    def __init__(self):
        self.breaks: list[State] = []
        self.conts: list[State] = []


class ThreadRun:
    """The symbolic run of thread `tag` ("a"); `ids` are its thread and workgroup ids."""

    def __init__(self, geometry: Geometry, uniformity, args: dict, deadline: float,
                 summarise, tag: str = "a"):
        self.g = geometry
        self.summarise = summarise           # `loops.summarise` (which builds on this module)
        self.cancel = None                   # polled: stops the work when it returns True
        self.deadline = deadline
        self.tag = tag
        self.uniformity = uniformity
        self.args = args                     # shared: register -> initial value (kernel args)
        self.tid = [z3.BitVec(f"tid{d}_{tag}", 32) for d in "xyz"]
        self.wg = [z3.BitVec(f"wg{d}_{tag}", 32) for d in "xyz"]
        self.own = list(self.tid) + list(self.wg)     # per-thread symbols (renamed for thread b)
        self.approx: set[str] = set()                 # names of over-approximating symbols
        self.sites: dict[int, Site] = {}
        self.loaded: dict[str, tuple] = {}   # a loaded value's name -> (line, space, address)
        self.barriers: dict[int, list[Instance]] = {}
        self.loop_exits: list[tuple[int, object, tuple]] = []   # summarised loops w/ barriers
        self.assumptions: list[int] = []    # loops whose compared counters are taken not to wrap
        self.ties: tuple = ()
        self.recording = True
        self.counter = 0
        self.symbols: dict = {}              # `free_symbols`' cache
        X, Y, _ = geometry.workgroup
        self.linear = self.tid[0] + self.tid[1] * X + self.tid[2] * (X * Y)
        self.wave = z3.UDiv(self.linear, bv(geometry.wave_width))
        self.lane = z3.URem(self.linear, bv(geometry.wave_width))
        self.constraints = [z3.ULT(t, s) for t, s in zip(self.tid, geometry.workgroup)]
        if geometry.grid is not None:
            self.constraints += [z3.ULT(w, s) for w, s in zip(self.wg, geometry.grid)]

    # ---- values -----------------------------------------------------------------------------
    def fresh(self, what: str, sort=BV, approx: bool = True):
        self.counter += 1
        v = z3.Const(f"{what}{self.counter}_{self.tag}", sort)
        self.own.append(v)
        if approx:
            self.approx.add(str(v))
        return v

    def special(self, name: str):
        g = self.g
        fixed = {"sr_workgroup_size_x": g.workgroup[0], "sr_workgroup_size_y": g.workgroup[1],
                 "sr_workgroup_size_z": g.workgroup[2], "sr_wave_width": g.wave_width,
                 "sr_num_waves": -(-g.threads // g.wave_width)}
        ids = {"sr_thread_id_x": self.tid[0], "sr_thread_id_y": self.tid[1],
               "sr_thread_id_z": self.tid[2], "sr_workgroup_id_x": self.wg[0],
               "sr_workgroup_id_y": self.wg[1], "sr_workgroup_id_z": self.wg[2],
               "sr_wave_id": self.wave, "sr_lane_id": self.lane}
        if name in ids:
            return ids[name]
        if name in fixed:
            return bv(fixed[name])
        if name.startswith("sr_grid_size_") and g.grid is not None:
            return bv(g.grid["xyz".index(name[-1])])
        # the same in every thread, not a launch constant here: a shared unknown
        key = ("special", name)
        if key not in self.args:
            self.args[key] = z3.BitVec(name, 32)
        return self.args[key]

    def read(self, st: State, key):
        if key in st.regs:
            return st.regs[key]
        if isinstance(key, int) and key < 0:
            return z3.BoolVal(False)                     # predicates start false
        if self.g.inputs is not None:                     # set by the launch, else zero
            return bv(self.g.inputs.get(key, 0))
        if key not in self.args:                          # a kernel argument
            self.args[key] = z3.BitVec(f"arg_r{key}", 32)
        return self.args[key]

    # ---- structure --------------------------------------------------------------------------
    def run(self, tree) -> State:
        st = State(z3.BoolVal(True), {BAR: bv(0)})
        return self.block(tree, st, None)

    def block(self, items, st: State, frame: _Frame | None) -> State:
        if time.perf_counter() > self.deadline:
            raise OutOfTime("the time limit ran out while executing the kernel symbolically")
        if self.cancel is not None and self.cancel():
            raise OutOfTime("cancelled")
        for item in items:
            if z3.is_false(st.pc):
                return st
            if type(item) is tuple:
                st = self.step(item[0], item[1], st, frame)
            elif isinstance(item, IfNode):
                st = self.if_(item, st, frame)
            else:
                st = self.loop(item, st)
        return st

    def if_(self, node: IfNode, st: State, frame) -> State:
        spec, ops = operands(node.step.instr)
        cond = self.value(st, ops[0][1], ops[0][0]) if ops else None
        if cond is None or node.step.instr.guard is not None:
            raise Unsupported(f"line {node.line + 1}: this `if` is not modelled")
        then = self.block(node.then, st.copy(z3.And(st.pc, cond)), frame)
        other = st.copy(z3.And(st.pc, z3.Not(cond)))
        if node.else_ is not None:
            other = self.block(node.else_, other, frame)
        return merge([then, other], self)

    def loop(self, node: LoopNode, st: State) -> State:
        mark = self._mark()
        cur, exits = st, []
        for _ in range(MAX_UNROLL):
            frame = _Frame()
            end = self.block(node.body, cur, frame)
            exits += frame.breaks
            back = merge([end] + frame.conts, self)
            if z3.is_false(back.pc):
                return merge(exits, self)
            if not self._launch_constant(back.pc):
                break
            s = z3.Solver()
            s.set("timeout", 2000)
            s.add(*self.constraints, back.pc)
            if s.check() == z3.unsat:
                return merge(exits, self)
            cur = back
        self._rollback(mark)
        return self.summarise(self, node, st)

    def _launch_constant(self, expr) -> bool:
        ids = {str(v) for v in self.tid + self.wg}
        return free_symbols(expr, self.symbols) <= ids

    def _mark(self):
        return ({line: len(s.instances) for line, s in self.sites.items()},
                {line: len(b) for line, b in self.barriers.items()})

    def _rollback(self, mark) -> None:
        sites, bars = mark
        for line, s in list(self.sites.items()):
            del s.instances[sites.get(line, 0):]
        for line, b in self.barriers.items():
            del b[bars.get(line, 0):]

    # ---- one instruction --------------------------------------------------------------------
    def value(self, st: State, op, opspec):
        from ...syntax.ast import OperandSyntax
        if is_predicate(opspec):
            if op.syntax in (OperandSyntax.PREDICATE, OperandSyntax.NEGATED_PREDICATE) \
                    and isinstance(op.value, int):
                v = self.read(st, -1 - op.value)
                return z3.Not(v) if op.syntax is OperandSyntax.NEGATED_PREDICATE else v
            raise Unsupported(f"operand '{op.text}' is not a predicate")
        if op.syntax is OperandSyntax.SPECIAL:
            return self.special(op.text)
        if is_register(opspec):
            index = register_index(op)
            if index is None or op.suffix is not None:
                return None                 # a half register or bad operand: not modelled
            return self.read(st, index)
        if opspec.kind.name == "IMMEDIATE":
            return immediate(op)
        return None

    def guard(self, instr, st: State):
        g = instr.guard
        if g is None or g.index is None or (g.index == 0 and not g.negated):
            return None           # `@p0` encodes as no predicate (DESIGN §1): unconditional
        v = self.read(st, -1 - g.index)
        return z3.Not(v) if g.negated else v

    def step(self, line: int, step, st: State, frame) -> State:
        instr = step.instr
        g = self.guard(instr, st)
        active = st.pc if g is None else z3.And(st.pc, g)
        op = step.op
        if op in (BREAK, CONTINUE):
            if frame is None:
                raise Unsupported(f"line {line + 1}: `{step.mnemonic}` outside a loop")
            spec, ops = operands(instr)
            cond = self.value(st, ops[0][1], ops[0][0]) if ops else z3.BoolVal(True)
            leave = z3.simplify(z3.And(active, cond))
            (frame.breaks if op == BREAK else frame.conts).append(st.copy(leave))
            return st.copy(z3.simplify(z3.And(st.pc, z3.Not(leave))))
        if op == HALT_OP:
            return st.copy(z3.simplify(z3.And(st.pc, z3.Not(active))))
        if op == BARRIER:
            if g is not None:
                raise Unsupported(f"line {line + 1}: a guarded barrier is not modelled")
            if self.recording:
                self.barriers.setdefault(line, []).append(
                    Instance(st.pc, None, st.regs[BAR], self.ties))
            out = st.copy()
            out.regs[BAR] = z3.simplify(st.regs[BAR] + 1)
            return out
        return self.compute(line, step, st, g, active)

    def compute(self, line: int, step, st: State, g, active) -> State:
        instr = step.instr
        spec, pairs = operands(instr)
        name = step.mnemonic
        iclass = spec.iclass
        if name in ("call", "return"):
            raise Unsupported(f"line {line + 1}: `{name}` (functions) is not modelled")
        if iclass is InstructionClass.MMA:
            raise Unsupported(f"line {line + 1}: `{name}` (matrix tiles in local memory) is "
                              f"not modelled")
        srcs = [(s, o) for s, o in pairs if (s, o) not in self._dest_pairs(pairs)]
        values = [self.value(st, o, s) for s, o in srcs if s.kind.name != "SCOPE"]
        memory = spec.memory
        results: list = []
        if memory is not None:
            addr = values[0]
            if addr is None:
                raise Unsupported(f"line {line + 1}: the address of `{name}` is not modelled")
            kind = {"load": "read", "store": "write", "atomic": "atomic"}[memory.kind]
            if self.recording:
                site = self.sites.get(line)
                if site is None:
                    site = self.sites[line] = Site(line, kind, memory.space, memory.width)
                site.instances.append(Instance(z3.simplify(active), addr, st.regs[BAR],
                                               self.ties))
            results = [self.fresh("ld") for _ in step.dests]
            for i, value in enumerate(results):       # what a witness's memory inputs are
                self.loaded[str(value)] = (line, memory.space, addr + 4 * i)
        elif name in EXACT and None not in values and len(step.dests) == 1:
            results = [z3.simplify(EXACT[name](*values))]
        elif is_pure(iclass) and None not in values and len(step.dests) == 1 and values:
            sorts = [v.sort() for v in values]
            out_sort = z3.BoolSort() if step.dests[0] < 0 else BV
            f = z3.Function(f"{name}_{'_'.join(str(s)[:2] for s in sorts)}", *sorts, out_sort)
            self.approx.add(f.name())
            results = [f(*values)]
        else:          # wave operations, half registers, pairs: any value
            results = [self.fresh("v", z3.BoolSort() if k < 0 else BV) for k in step.dests]
        if not step.dests:
            return st
        out = st.copy()
        for key, new in zip(step.dests, results):
            if isinstance(key, int) and key < 0 and not z3.is_bool(new):
                new = self.fresh("p", z3.BoolSort())
            if g is not None:
                new = z3.simplify(z3.If(g, new, self.read(st, key)))
            out.regs[key] = new
        return out

    @staticmethod
    def _dest_pairs(pairs):
        from ...isa import Field
        return [(s, o) for s, o in pairs if s.field is Field.RD and s.is_destination]

    def uniform_in_workgroup(self, line: int, key) -> bool:
        """The uniformity analysis shows register/predicate `key` the same in every thread of
        a workgroup before `line`."""
        if self.uniformity is None:
            return False
        from ..uniformity_steps import key_name
        found = self.uniformity.level(line, key_name(key))
        return found is not None and found[0] <= Uniformity.WORKGROUP


def merge(states: list[State], run: ThreadRun) -> State:
    """The state after paths meet: active where any is; each value that of the path taken."""
    live = [s for s in states if not z3.is_false(s.pc)]
    if not live:
        return State(z3.BoolVal(False), dict(states[0].regs) if states else {BAR: bv(0)})
    if len(live) == 1:
        return live[0]
    pc = z3.simplify(z3.Or(*[s.pc for s in live]))
    keys = set().union(*(s.regs for s in live))
    regs = {}
    for key in keys:
        vals = [run.read(s, key) for s in live]
        v = vals[-1]
        for s, other in zip(reversed(live[:-1]), reversed(vals[:-1])):
            if not other.eq(v):
                v = z3.If(s.pc, other, v)
        regs[key] = z3.simplify(v) if v is not vals[-1] else v
    return State(pc, regs)


def free_symbols(expr, cache: dict | None = None) -> set:
    """The names of the uninterpreted constants and functions in `expr`; `cache` (expression
    id -> (expression, names): the expression kept alive so that its id is not reused) shares
    the work between calls on expressions that share parts."""
    cache = {} if cache is None else cache
    found = cache.get(expr.get_id())
    if found is not None:
        return found[1]
    todo = [(expr, False)]
    while todo:                                  # post-order: children before their parent
        e, expanded = todo.pop()
        if e.get_id() in cache:
            continue
        children = e.children() if z3.is_app(e) else []
        if not expanded:
            todo.append((e, True))
            todo.extend((c, False) for c in children if c.get_id() not in cache)
            continue
        names: set = set()
        if z3.is_app(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            names.add(e.decl().name())
        for child in children:
            names |= cache[child.get_id()][1]
        cache[e.get_id()] = (e, frozenset(names))
    return cache[expr.get_id()][1]
