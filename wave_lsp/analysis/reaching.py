"""Reaching definitions of general registers in one kernel's source: which writes (or the
kernel's start, `ENTRY`) may give each register read its value. Go to definition, find
references and rename of registers (`ide.navigation`) and the uninitialised-read lint
(`uninitialised.py`) work from it.

Every register operand is an `Access`: its registers (an f64/u64 pair or u128 quad covers two
or four, from `isa.values.register_uses`, so `r3` overlaps the pair `r2`), and whether the
instruction reads or writes it. A forward pass over the structured control flow keeps, per
register, the set of writes that may reach the current point:

- an unguarded write replaces the set; a guarded one (`@p1 ...`) adds to it (it may not
  happen), except for later reads under the same guard, until the predicate is written or a
  block delimiter is reached (as `live_ins.py` does);
- `if` ... `else` ... `endif`: after the block, the union of both sides (without `else`, of the
  `then` side and what came before);
- `loop` ... `endloop`: the loop head joins what came before with what reaches `endloop` and
  every `continue` (passes repeat until nothing changes); after the loop, the union of what
  reached each `break` (nothing, when no `break` leaves it);
- an unguarded `halt` or `return` ends the path; a guarded delimiter delimits nothing (as in
  the emulator);
- `call`: a subroutine (a label the kernel calls) starts from what reaches its calls, and after
  a `call` comes what reaches a `return`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from ..cancellation import checkpoint
from ..isa import DELIMITERS, INSTRUCTIONS, OperandKind
from ..isa import InstructionClass as IC
from ..isa.values import register_uses
from ..syntax.ast import Instruction, OperandSyntax
from ..syntax.memo import value_memo

ENTRY = -1                      # the value a register has when the kernel starts
_START = frozenset((ENTRY,))
MAX_PASSES = 64

State = dict  # register -> frozenset of access numbers (ENTRY included); absent: {ENTRY}


class Access(NamedTuple):
    """One register operand of an instruction: where it is written and what it touches."""

    line: int
    start: int
    end: int
    registers: tuple[int, ...]    # every register it covers (two for a pair, four for a quad)
    write: bool
    guarded: bool                 # the instruction has a guard that applies at run time
    instruction: int              # index in the kernel's instructions


class _Operands(NamedTuple):
    """The operand fields of a source instruction, as `register_uses` reads them."""

    spec: object
    rd: int = 0
    rs1: int = 0
    rs2: int = 0
    rs3: int = 0
    rs4: int = 0


_FIELDS = ("rd", "rs1", "rs2", "rs3", "rs4")
_REGISTER, _WRITTEN_REGISTER = OperandKind.REGISTER, OperandSyntax.REGISTER


@value_memo
def operand_accesses(ins: Instruction) -> tuple[tuple[int, tuple[int, ...], bool], ...]:
    """(operand index, registers, written?) of every general-register operand of `ins` that the
    instruction reads or writes (memoised by value). Empty for an unknown mnemonic or a wrong
    operand count."""
    spec = INSTRUCTIONS.get(ins.mnemonic.text)
    ops = ins.operands
    specs = spec.written_operands(len(ops)) if spec else None
    if specs is None:
        return ()
    values = tuple(op.value if o.kind is _REGISTER and op.syntax is _WRITTEN_REGISTER
                   and isinstance(op.value, int) else None for o, op in zip(specs, ops))
    return _accesses(spec.mnemonic, len(ops), values)


@value_memo
def _accesses(mnemonic: str, count: int, values: tuple
              ) -> tuple[tuple[int, tuple[int, ...], bool], ...]:
    """`operand_accesses`, memoised by the mnemonic, the operand count and the register numbers
    (hashing those is much cheaper than hashing the instruction)."""
    spec = INSTRUCTIONS[mnemonic]
    specs = spec.written_operands(count)
    fields = {o.field.value: v for o, v in zip(specs, values)
              if v is not None and o.field.value in _FIELDS}
    reads, writes = register_uses(_Operands(spec, **fields))
    out = []
    for i, (o, value) in enumerate(zip(specs, values)):
        name = o.field.value
        if value is None or name not in fields:
            continue
        covered = tuple(range(value, value + spec.register_width(o)))
        if value in writes and name == "rd":
            written = True
        elif value in reads:
            written = False
        else:
            # names no register value: mma_compute's fragments, or an atomic's destination
            # written as r0, which encodes "no destination" (the old value is not kept)
            continue
        out.append((i, covered, written))
    return tuple(out)


def _applies(ins: Instruction) -> bool:
    g = ins.guard
    return g is not None and not (g.index == 0 and not g.negated)


def _join(a: State | None, b: State | None) -> State | None:
    if a is None:
        return None if b is None else dict(b)
    if b is None:
        return dict(a)
    out = dict(a)
    for r, y in b.items():
        x = a.get(r)
        if x is None:
            out[r] = y | _START
        elif x is not y:
            out[r] = x | y
    for r, x in a.items():
        if r not in b:
            out[r] = x | _START
    return out


@dataclass
class RegisterFlow:
    """A kernel's register accesses and, per read, the definitions that may reach it."""

    accesses: tuple[Access, ...]
    # read access number -> register -> access numbers of the writes (and ENTRY) reaching it
    reaching: dict[int, dict[int, frozenset[int]]] = field(default_factory=dict)
    by_line: dict[int, list[int]] = field(default_factory=dict)   # line -> access numbers

    def at(self, line: int, col: int) -> int | None:
        """The access number of the register operand at a position (its end included)."""
        for n in self.by_line.get(line, ()):
            a = self.accesses[n]
            if a.start <= col <= a.end:
                return n
        return None

    def of_register(self, register: int) -> list[int]:
        """Every access that touches `register`, in order."""
        return [n for n, a in enumerate(self.accesses) if register in a.registers]


class _Pass:
    """One walk over the kernel; repeated until the loop heads and subroutines settle."""

    def __init__(self, flow_in: dict) -> None:
        self.back: dict[int, State | None] = {}     # loop index -> what reaches its end/continues
        self.calls: State | None = None             # what reaches any `call`
        self.returns: State | None = None           # what reaches any unguarded `return`
        self.prior = flow_in

    def settled(self) -> bool:
        p = self.prior
        return (self.back == p.get("back", {}) and self.calls == p.get("calls")
                and self.returns == p.get("returns"))


_CONTROL = frozenset(("if", "else", "endif", "loop", "break", "continue", "endloop", "halt",
                      "return"))


class _Step(NamedTuple):
    """What the walk needs of one instruction, computed once for every pass."""

    enters_label: bool            # a label precedes it (a subroutine's entry)
    mnemonic: str
    applies: bool                 # its guard applies at run time
    control: bool                 # it changes the flow (`_control`)
    clears_before: bool           # control flow or a block delimiter: guards forget
    key: tuple | None             # its guard
    reads: tuple[tuple[int, tuple[int, ...]], ...]   # (access number, registers)
    writes: tuple[tuple[int, tuple[int, ...], frozenset], ...]  # ... and {access number}
    clears_after: bool            # it writes a predicate


@value_memo
def _shape(ins: Instruction) -> tuple:
    """What the walk needs of an instruction whatever its place (memoised by value):
    (mnemonic, guard applies, control, clears before, guard key, clears after, accesses)."""
    applies = _applies(ins)
    m = ins.mnemonic.text
    spec = INSTRUCTIONS.get(m)
    return (m, applies, m in _CONTROL and not (m in DELIMITERS and applies),
            spec is not None and (spec.iclass is IC.CONTROL or m in DELIMITERS),
            (ins.guard.index, ins.guard.negated) if applies else None,
            spec is not None and _writes_predicate(spec), operand_accesses(ins))


def register_flow(kernel) -> RegisterFlow:
    """The reaching definitions of every register read in `kernel` (a `syntax.program.Kernel`)."""
    accesses: list[Access] = []
    steps: list[_Step] = []
    labels = sorted(line for line, _label in kernel.labels)
    next_label = 0
    for index, (line, ins) in enumerate(kernel.instructions):
        m, applies, control, clears_before, key, clears_after, found = _shape(ins)
        reads, writes = [], []
        operands = ins.operands
        for i, covered, written in found:
            op = operands[i]
            n = len(accesses)
            if written:
                writes.append((n, covered, frozenset((n,))))
            else:
                reads.append((n, covered))
            accesses.append(Access(line, op.start, op.end, covered, written, applies, index))
        enters = False
        while next_label < len(labels) and labels[next_label] <= line:
            enters, next_label = True, next_label + 1
        steps.append(_Step(enters, m, applies, control, clears_before, key, tuple(reads),
                           tuple(writes), clears_after))
    flow = RegisterFlow(tuple(accesses))
    for n, a in enumerate(accesses):
        flow.by_line.setdefault(a.line, []).append(n)
    prior: dict = {}
    for _ in range(MAX_PASSES):
        checkpoint()
        walk = _Pass(prior)
        flow.reaching = _walk(steps, walk)
        if walk.settled():
            break
        prior = {"back": walk.back, "calls": walk.calls, "returns": walk.returns}
    return flow


@lru_cache(maxsize=None)
def _writes_predicate(spec) -> bool:
    return any(o.kind is OperandKind.PREDICATE and o.field.value == "rd" for o in spec.operands)


def _walk(steps: list[_Step], walk: _Pass) -> dict:
    state: State | None = {}
    guarded: dict[tuple, dict[int, frozenset[int]]] = {}  # guard -> register -> exact writes
    blocks: list[dict] = []
    reaching: dict[int, dict[int, frozenset[int]]] = {}
    prior = walk.prior
    calls_in, returns_in = prior.get("calls"), prior.get("returns")
    for index, step in enumerate(steps):
        if step.enters_label and calls_in is not None:
            state = _join(state, calls_in)
        if step.clears_before and guarded:
            guarded.clear()
        if step.control:
            state = _control(step.mnemonic, index, step.applies, state, blocks, walk)
        if state is None:
            continue
        key = step.key
        if key is None and not guarded:
            get = state.get
            for n, registers in step.reads:
                reaching[n] = {r: get(r, _START) for r in registers}
            for _n, registers, single in step.writes:
                for r in registers:
                    state[r] = single
        else:
            exact = guarded.get(key, {}) if key else {}
            for n, registers in step.reads:
                reaching[n] = {r: exact.get(r, state.get(r, _START)) for r in registers}
            for n, registers, single in step.writes:
                for r in registers:
                    if key is None:
                        state[r] = single
                        for g in guarded.values():
                            g.pop(r, None)
                    else:
                        state[r] = state.get(r, _START) | single
                        for other, g in guarded.items():
                            if other != key and r in g:
                                g[r] = g[r] | single
                        guarded.setdefault(key, {})[r] = single
        if step.clears_after and guarded:
            guarded.clear()
        if step.mnemonic == "call":
            walk.calls = _join(walk.calls, state)
            if returns_in is not None:
                state = dict(returns_in)
    return reaching


def innermost_block(blocks: list[dict], kind: str) -> dict | None:
    """The innermost open block of `kind` (`blocks` from the outermost in), or None."""
    return next((b for b in reversed(blocks) if b["kind"] == kind), None)


def close_block(blocks: list[dict], block: dict) -> None:
    """Remove `block`, looked for from the innermost end (where it nearly always is: a search
    from the outermost end made 10,000 nested blocks quadratic)."""
    del blocks[next(i for i in range(len(blocks) - 1, -1, -1) if blocks[i] is block)]


def _control(m: str, index: int, applies: bool, state: State | None, blocks: list[dict],
             walk: _Pass) -> State | None:
    """The state after the control-flow effect of mnemonic `m` (before its own accesses)."""
    copy = None if state is None else dict(state)
    if m == "if":
        blocks.append({"kind": "if", "before": copy, "then": None, "closed": False})
    elif m == "else":
        block = innermost_block(blocks, "if")
        if block is not None:
            block["then"], state = copy, (None if block["before"] is None
                                          else dict(block["before"]))
            block["closed"] = True
    elif m == "endif":
        block = innermost_block(blocks, "if")
        if block is not None:
            close_block(blocks, block)
            other = block["then"] if block["closed"] else block["before"]
            state = _join(state, other)
    elif m == "loop":
        back = walk.prior.get("back", {}).get(index)
        state = _join(copy, back)
        blocks.append({"kind": "loop", "at": index, "exits": None, "back": None})
    elif m in ("break", "continue"):
        block = innermost_block(blocks, "loop")
        if block is not None and state is not None:
            key = "exits" if m == "break" else "back"
            block[key] = _join(block[key], state)
    elif m == "endloop":
        block = innermost_block(blocks, "loop")
        if block is not None:
            close_block(blocks, block)
            walk.back[block["at"]] = _join(block["back"], state)
            state = None if block["exits"] is None else dict(block["exits"])
    elif m in ("halt", "return") and not applies:
        if m == "return" and state is not None:
            walk.returns = _join(walk.returns, state)
        state = None
    return state
