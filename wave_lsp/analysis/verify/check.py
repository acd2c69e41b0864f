"""The two-thread checks: thread `a`'s symbolic run renamed into thread `b`, then one solver
query per barrier (divergence), per summarised loop holding a barrier (its exits uniform), and
per pair of access sites (race), as docs/dev/verify.md describes; a model of a satisfiable query
becomes the witness."""

from __future__ import annotations

import time

import z3
from z3.z3 import _to_expr_ref

from .execute import ThreadRun, free_symbols
from .model import DIVERGENCE, RACE, Thread, Witness

QUERY_TIMEOUT_MS = 4000
PREFERENCE_TIMEOUT_MS = 300     # per preferred (small) form of a witness, tried first


class Undecided(Exception):
    """The solver gave up on a query; the message is the verdict's reason."""


class Pair:
    """Threads a and b of one kernel: renaming, base constraints, the solver."""

    def __init__(self, a: ThreadRun, deadline: float):
        self.a = a
        self.deadline = deadline
        self.cancel = None                   # polled before each query
        self.g = a.g
        self.ren = [(v, z3.Const(str(v)[:-2] + "_b", v.sort())) for v in a.own]
        self._arrays = None
        self._renamed: dict = {}
        self._instances: dict = {}
        self._preferred = None
        self.approx = set(a.approx) | {n[:-2] + "_b" for n in a.approx if n.endswith("_a")}
        self.tid_b = [self.b(v) for v in a.tid]
        self.wg_b = [self.b(v) for v in a.wg]
        self.wave_b = self.b(a.wave)
        self.solver = z3.Solver()
        self.solver.set("timeout", QUERY_TIMEOUT_MS)
        self.solver.add(*a.constraints, *[self.b(c) for c in a.constraints])
        self.solver.add(z3.Or(*[x != y for x, y in zip(a.tid + a.wg, self.tid_b + self.wg_b)]))
        for d, (wa, wb) in enumerate(zip(a.wg, self.wg_b)):    # an unbounded grid's size
            size = a.args.get(("special", f"sr_grid_size_{'xyz'[d]}"))
            if size is not None:
                self.solver.add(z3.ULT(wa, size), z3.ULT(wb, size))
        self.same_wg = z3.And(*[x == y for x, y in zip(a.wg, self.wg_b)])
        self.same_wave = z3.And(self.same_wg, a.wave == self.wave_b)

    def b(self, expr):
        """`expr` of thread a as thread b's (z3's substitution with its arrays made once: a
        kernel has thousands of per-thread unknowns, and `z3.substitute` checks every pair on
        every call); kept by expression, the expression held so that its id stays its own."""
        found = self._renamed.get(expr.get_id())
        if found is not None:
            return found[1]
        if not self.ren:
            return expr
        if self._arrays is None:
            n = len(self.ren)
            sources, targets = (z3.Ast * n)(), (z3.Ast * n)()
            for i, (x, y) in enumerate(self.ren):
                sources[i], targets[i] = x.as_ast(), y.as_ast()
            self._arrays = (n, sources, targets)
        n, sources, targets = self._arrays
        ctx = expr.ctx
        out = _to_expr_ref(z3.Z3_substitute(ctx.ref(), expr.as_ast(), n, sources, targets), ctx)
        self._renamed[expr.get_id()] = (expr, out)
        return out

    def ties(self, ties) -> z3.BoolRef:
        return z3.And(*[k == self.b(k) for k in ties]) if ties else z3.BoolVal(True)

    def solve(self, *formulas, preferences=(), what: str = ""):
        """A model of the base constraints and `formulas` (the `preferences` kept where they
        can be: a witness with small numbers), or None when there is none."""
        if self.cancel is not None and self.cancel():
            raise Undecided("cancelled")
        left = self.deadline - time.perf_counter()
        if left <= 0:
            raise Undecided(f"the time limit ran out before {what}")
        s = self.solver
        s.push()
        try:
            s.add(*formulas)
            for wanted in preferences:      # a small witness first, each looked for briefly
                left = self.deadline - time.perf_counter()
                if left <= 0:
                    break
                s.set("timeout", max(1, int(min(PREFERENCE_TIMEOUT_MS, left * 1000))))
                s.push()
                s.add(*wanted)
                found = s.check() == z3.sat
                model = s.model() if found else None
                s.pop()
                if found:
                    return model
            left = self.deadline - time.perf_counter()
            if left <= 0:
                raise Undecided(f"the time limit ran out before {what}")
            s.set("timeout", max(1, int(min(QUERY_TIMEOUT_MS, left * 1000))))
            result = s.check()
            if result == z3.unknown:
                raise Undecided(f"the solver gave up on {what} ({s.reason_unknown()})")
            return s.model() if result == z3.sat else None
        finally:
            s.pop()

    def preferences(self, *extra) -> list[list]:
        """Sets of constraints a witness should meet if it can, the most wanted first: one
        dimension of workgroups, few of them, small kernel arguments, no device load from the
        first word (a replay cannot set it, `model.memory_flags`)."""
        if self._preferred is None:
            args = [v for v in self.a.args.values() if z3.is_bv(v)]
            wgs = self.a.wg + self.wg_b
            small = [z3.ULT(w, 4) for w in wgs] + [z3.ULT(v, 1 << 16) for v in args]
            tiny = [z3.ULT(w, 2) for w in wgs] + [z3.ULT(v, 64) for v in args]
            flat = [w == 0 for w in self.a.wg[1:] + self.wg_b[1:]]
            loads = [at for _line, space, at in self.a.loaded.values() if space == "device"]
            flat += [z3.UGE(at, 4) for at in loads] + [z3.UGE(self.b(at), 4) for at in loads]
            self._preferred = (flat + tiny, flat + small, small)
        first, second, small = self._preferred
        extra = list(extra)
        return [first + extra, second + extra, small + extra, small]

    def exact(self, *formulas) -> bool:
        names = set()
        for f in formulas:
            names |= free_symbols(f, self.a.symbols)
        return not (names & self.approx)

    # ---- witnesses --------------------------------------------------------------------------
    def thread(self, m, tid, wg, grid) -> Thread:
        ev = lambda e: m.eval(e, model_completion=True).as_long()
        t = tuple(ev(x) for x in tid)
        w = tuple(ev(x) for x in wg)
        X, Y, Z = self.g.workgroup
        linear = t[0] + t[1] * X + t[2] * X * Y
        group = w[0] + w[1] * grid[0] + w[2] * grid[0] * grid[1]
        W = self.g.wave_width
        return Thread(w, t, group * X * Y * Z + linear, linear // W, linear % W)

    def memory(self, m, formulas) -> dict[int, int]:
        """The device words whose loaded values (fresh unknowns, one per load and thread) the
        witness's `formulas` depend on: address -> the value the model gives (the first thread's
        where two disagree), as `ThreadRun.loaded` records them."""
        ev = lambda e: m.eval(e, model_completion=True).as_long()
        names = set()
        for f in formulas:
            names |= free_symbols(f, self.a.symbols)
        out: dict[int, int] = {}
        for name in sorted(names):
            own = name[:-2] + "_a" if name.endswith("_b") else name
            found = self.a.loaded.get(own)
            if found is None or found[1] != "device":
                continue
            address = found[2] if own == name else self.b(found[2])
            value = z3.Const(name, found[2].sort())
            out.setdefault(ev(address) & ~3, ev(value))
        return dict(sorted(out.items()))

    def witness(self, m, kind, lines, accesses=(), space=None, address=None, exact=True,
                depends=()):
        ev = lambda e: m.eval(e, model_completion=True).as_long()
        grid = self.g.grid or tuple(max(ev(x), ev(y)) + 1 for x, y in zip(self.a.wg, self.wg_b))
        inputs = {k: ev(v) for k, v in self.a.args.items() if isinstance(k, int)}
        inputs = {k: v for k, v in inputs.items() if v}
        ta = self.thread(m, self.a.tid, self.a.wg, grid)
        tb = self.thread(m, self.tid_b, self.wg_b, grid)
        return Witness(kind, (ta, tb), lines, tuple(accesses), space, address, inputs, exact,
                       tuple(grid), self.memory(m, depends))


def divergence(pair: Pair) -> Witness | None:
    """A barrier one thread of a workgroup reaches and another does not (at the same
    iterations of the loops around it)."""
    for line, instances in sorted(pair.a.barriers.items()):
        options = [z3.And(i.pc, z3.Not(pair.b(i.pc)), pair.ties(i.ties)) for i in instances]
        if not options:
            continue
        either = z3.Or(*options)
        m = pair.solve(pair.same_wg, either, preferences=pair.preferences(pair.same_wave),
                       what=f"the barrier at line {line + 1}")
        if m is not None:
            return pair.witness(m, DIVERGENCE, (line, line), exact=pair.exact(either),
                                depends=(either,))
    return None


def loop_exits(pair: Pair) -> str | None:
    """Why a summarised loop holding a barrier may be left at different iterations by two
    threads of a workgroup, or None when each exit is uniform."""
    for line, exits, ties in pair.a.loop_exits:
        for pc in exits:
            differ = z3.Xor(pc, pair.b(pc))
            if pair.solve(pair.same_wg, pair.ties(ties), differ,
                          what=f"the loop at line {line + 1}") is not None:
                return (f"the loop at line {line + 1} holds a barrier and its trip count is not "
                        f"a launch constant: could not show all threads of a workgroup leave it "
                        f"at the same iteration")
    return None


def _any_instance(pair: Pair, site, tag: str, rename: bool):
    """(address, barrier count, formula): the site reached with that address and count (made
    once per site and thread)."""
    key = (site.line, tag)
    if key not in pair._instances:
        pair._instances[key] = _instance_formula(pair, site, tag, rename)
    return pair._instances[key]


def _instance_formula(pair: Pair, site, tag: str, rename: bool):
    addr = z3.BitVec(f"addr{site.line}_{tag}", 32)
    bar = z3.BitVec(f"bar{site.line}_{tag}", 32)
    f = pair.b if rename else (lambda e: e)
    options = [z3.And(f(i.pc), addr == f(i.addr), bar == f(i.bar)) for i in site.instances]
    return addr, bar, z3.Or(*options) if options else z3.BoolVal(False)


def races(pair: Pair) -> Witness | None:
    """Two accesses of different threads to one byte, at least one a write, not both atomic,
    unordered: device memory across workgroups; any memory between the waves of a workgroup in
    one barrier interval (lanes of one wave run in lock-step, as the emulator has them)."""
    sites = sorted(pair.a.sites.values(), key=lambda s: s.line)
    found, undecided = [], None
    for i, s1 in enumerate(sites):
        if found and time.perf_counter() > pair.deadline:
            break                          # a witness to replay is enough
        for s2 in sites[i:]:
            if s1.space != s2.space or s1.kind == s2.kind and s1.kind in ("read", "atomic"):
                continue
            try:
                w = _race(pair, s1, s2)
            except Undecided as err:      # a witness found elsewhere still counts
                undecided = undecided or err
                continue
            if w is not None:
                if w.exact:
                    return w
                found.append(w)
    if found:
        return found[0]
    if undecided is not None:
        raise undecided
    return None


def _race(pair: Pair, s1, s2) -> Witness | None:
    a1, n1, f1 = _any_instance(pair, s1, "a", False)
    a2, n2, f2 = _any_instance(pair, s2, "b", True)
    x1, x2 = z3.ZeroExt(8, a1), z3.ZeroExt(8, a2)
    overlap = z3.And(z3.ULT(x1, x2 + s2.width), z3.ULT(x2, x1 + s1.width))
    waves = z3.And(pair.same_wg, pair.a.wave != pair.wave_b, n1 == n2)
    if s1.space == "local":
        order = waves
        size = pair.g.local_memory
        bounds = z3.And(z3.ULE(x1 + s1.width, size), z3.ULE(x2 + s2.width, size))
    else:
        order = z3.Or(z3.Not(pair.same_wg), waves)
        bounds = z3.BoolVal(True)
    small = [z3.ULT(a1, 1 << 20), z3.ULT(a2, 1 << 20)]
    m = pair.solve(f1, f2, overlap, order, bounds,
                   preferences=pair.preferences(*small),
                   what=f"the accesses at lines {s1.line + 1} and {s2.line + 1}")
    if m is None:
        return None
    v1 = m.eval(a1, model_completion=True).as_long()
    v2 = m.eval(a2, model_completion=True).as_long()
    taken = (_taken(m, pair, s1, a1, n1, False), _taken(m, pair, s2, a2, n2, True))
    return pair.witness(m, RACE, (s1.line, s2.line), (s1.kind, s2.kind), s1.space,
                        max(v1, v2), pair.exact(*taken), depends=taken)


def _taken(m, pair: Pair, site, addr, bar, rename: bool):
    """The formulas of the instance the model takes (what the witness depends on); all of
    them when none can be told apart."""
    f = pair.b if rename else (lambda e: e)
    formulas = [z3.And(f(i.pc), addr == f(i.addr), bar == f(i.bar)) for i in site.instances]
    for formula in formulas:
        if z3.is_true(m.eval(formula, model_completion=True)):
            return formula
    return z3.And(*formulas) if formulas else z3.BoolVal(True)
