"""What each instruction means to the uniformity analysis, and the structured form of a kernel.

`step_of(line, instruction)` reads the ISA table to find which registers and predicates an
instruction writes and reads, the least varying level of its result (a special register, a load,
an atomic, a wave operation) and its control role. `structure(kernel)` nests the steps into
`IfNode`s and `LoopNode`s following `if`/`else`/`endif` and `loop`/`endloop`; stray or missing
block ends are skipped or closed implicitly, never raised.

Keys: register rN is the integer N, predicate pN is -1-N, `HALT` marks a partial halt.
"""

from __future__ import annotations


from ..isa import INSTRUCTIONS, SPECIAL_BY_NAME, Field, InstructionClass, OperandKind
from ..syntax.ast import Instruction, OperandSyntax
from ..syntax.blocks import Matching, match_blocks
from .uniformity_model import Uniformity
from ..syntax.memo import value_memo

HALT = -100
# Blocks nested deeper than this are not analysed (the kernel gets no uniformity, and K309 says
# so): the passes follow the nesting, and the specification guarantees only 32 levels.
MAX_ANALYSED_DEPTH = 128

# Control roles.
NORMAL, IF, ELSE, ENDIF, LOOP, BREAK, CONTINUE, ENDLOOP, HALT_OP, BARRIER, OTHER = range(11)
_CONTROL = {"if": IF, "else": ELSE, "endif": ENDIF, "loop": LOOP, "break": BREAK,
            "continue": CONTINUE, "endloop": ENDLOOP, "halt": HALT_OP, "barrier": BARRIER,
            "call": OTHER, "return": OTHER}

# Wave-operation roles: 0 none, 1 wave op, 2 shuffle (source lane may be another lane).
WAVE_OP, SHUFFLE = 1, 2

_D, _WG, _WV, _T = (Uniformity.DISPATCH, Uniformity.WORKGROUP, Uniformity.WAVE,
                    Uniformity.THREAD)


def key_name(key: int) -> str:
    """`r7`, `p1` or `halt` for a key."""
    if key >= 0:
        return f"r{key}"
    if key == HALT:
        return "halt"
    return f"p{-1 - key}"


class Step:
    """One instruction as the analysis sees it."""

    __slots__ = ("instr", "mnemonic", "op", "dests", "srcs", "fixed", "cap", "note",
                 "guard", "wave", "_text")

    def __init__(self, instr: Instruction, mnemonic: str, op: int) -> None:
        self.instr = instr
        self.mnemonic = mnemonic
        self.op = op
        self.dests: tuple[int, ...] = ()
        self.srcs: tuple[int, ...] = ()
        self.fixed = 0          # least level of the result (special register, load, wave op...)
        self.cap: int | None = None  # greatest level of the result (wave_any, wave_broadcast...)
        self.note = ""          # why the result varies by itself (when `fixed` dominates)
        self.guard: int | None = None
        self.wave = 0
        self._text: str | None = None

    @property
    def start(self) -> int:
        return self.instr.start

    @property
    def end(self) -> int:
        return self.instr.end

    @property
    def text(self) -> str:
        """`p1 ← icmp_lt r4, r7` for an instruction with a destination, else its source text."""
        if self._text is None:
            self._text = _describe(self)
        return self._text

    @property
    def written(self) -> str:
        """The instruction as written (guard included), for construct messages: `if p1`."""
        ins = self.instr
        guard = ""
        if ins.guard is not None:
            guard = ("@!" if ins.guard.negated else "@") + ins.guard.register.text + " "
        ops = ", ".join(o.text for o in ins.operands)
        return f"{guard}{ins.head} {ops}".rstrip()


def _describe(step: Step) -> str:
    ins = step.instr
    spec = INSTRUCTIONS.get(step.mnemonic)
    if not step.dests or spec is None:
        return step.written
    ops = list(ins.operands)
    specs = list(spec.operands)
    if len(ops) == len(specs) - 1 and specs and specs[0].optional:
        specs = specs[1:]
    dest_text = None
    rest = []
    for opspec, op in zip(specs, ops):
        if opspec.field is Field.RD and dest_text is None and opspec.is_destination:
            dest_text = op.text
        else:
            rest.append(op.text)
    rest.extend(o.text for o in ops[len(specs):])
    guard = ""
    if ins.guard is not None:
        guard = " (@" + ("!" if ins.guard.negated else "") + ins.guard.register.text + ")"
    body = f"{step.mnemonic} {', '.join(rest)}".rstrip()
    return f"{dest_text or key_name(step.dests[0])} ← {body}{guard}"


@value_memo
def step_of(instr: Instruction) -> Step | None:
    """The analysis step of an instruction, or None when its mnemonic is unknown.

    A pure function of the instruction, memoised by its value (equal instructions, wherever
    they are, share one step), so a step holds no line."""
    return _decode(instr)


def _decode(instr: Instruction) -> Step | None:
    name = instr.mnemonic.text
    spec = INSTRUCTIONS.get(name)
    if spec is None:
        return None
    step = Step(instr, name, _CONTROL.get(name, NORMAL))
    guard = instr.guard
    if guard is not None and guard.index is not None:
        # `@p0` encodes as "no predicate" (reference §2.5): it runs unconditionally.
        if guard.index != 0 or guard.negated:
            step.guard = -1 - guard.index
    ops = instr.operands
    specs = spec.operands
    if len(ops) == len(specs) - 1 and specs and specs[0].optional:
        specs = specs[1:]
    dests: list[int] = []
    srcs: list[int] = []
    fixed = _D
    width = getattr(spec, "register_width", None)
    for opspec, op in zip(specs, ops):
        kind = opspec.kind
        index: int | None = None
        if kind is OperandKind.REGISTER:
            if op.syntax is OperandSyntax.REGISTER and isinstance(op.value, int):
                index = op.value
            elif op.syntax is OperandSyntax.SPECIAL:
                if opspec.also_special:      # `mov rd, sr_*` is mov_sr
                    level = Uniformity.of_special(op.text)
                    if level > fixed:
                        fixed = level
                        step.note = f"{op.text} {level.phrase}"
                    continue
                special = SPECIAL_BY_NAME.get(op.text)  # wave-asm encodes its index (ref §2.4)
                index = special.index if special else None
            if index is None:
                continue
            count = width(opspec) if width else 1
            keys = range(index, index + max(1, count))
            (dests if opspec.field is Field.RD else srcs).extend(keys)
        elif kind is OperandKind.PREDICATE:
            if op.syntax in (OperandSyntax.PREDICATE, OperandSyntax.NEGATED_PREDICATE) \
                    and isinstance(op.value, int):
                (dests if opspec.field is Field.RD else srcs).append(-1 - op.value)
        elif kind is OperandKind.SPECIAL:
            level = Uniformity.of_special(op.text)
            if level > fixed:
                fixed = level
                step.note = f"{op.text} {level.phrase}"
    iclass = spec.iclass
    if iclass is InstructionClass.MMA:
        dests = []                       # fragments live outside the register file
    elif iclass is InstructionClass.ATOMIC:
        dests = [d for d in dests if d != 0]   # rd = r0 means "non-returning"
        fixed = _T
        step.note = "an atomic returns a different old value to each thread"
    elif iclass is InstructionClass.LOCAL_MEMORY and dests:
        fixed = max(fixed, _WG)
        if fixed == _WG:
            step.note = "local memory is separate for each workgroup"
    elif iclass is InstructionClass.WAVE:
        role = spec.wave_role
        step.wave = SHUFFLE if role == "shuffle" else WAVE_OP
        if role in ("shuffle", "prefix"):
            fixed, srcs = _T, []
            step.note = ("a shuffle reads another lane's value" if step.wave == SHUFFLE
                         else "a prefix sum differs per lane")
        elif role in ("reduce", "ballot"):
            fixed, srcs = _WV, []
            step.note = "one value per wave (over its active lanes)"
        else:   # broadcast, any, all: as varying as the source, at most per wave
            step.cap = _WV
    step.dests = tuple(dests)
    step.srcs = tuple(srcs)
    step.fixed = int(fixed)
    return step


class IfNode:
    """`if` ... [`else` ...] `endif`; `then`/`else_` hold (line, Step) pairs and nested nodes."""

    __slots__ = ("line", "step", "then", "else_", "else_line", "end_line", "writes")

    def __init__(self, line: int, step: Step) -> None:
        self.line = line
        self.step = step
        self.then: list = []
        self.else_: list | None = None
        self.else_line: int | None = None
        self.end_line: int | None = None
        self.writes: frozenset[int] = frozenset()


class LoopNode:
    """`loop` ... `endloop`; `flat` lists (line, keys written) of every step inside, in order."""

    __slots__ = ("line", "step", "body", "end_line", "writes", "flat")

    def __init__(self, line: int, step: Step) -> None:
        self.line = line
        self.step = step
        self.body: list = []
        self.end_line: int | None = None
        self.writes: frozenset[int] = frozenset()
        self.flat: list[tuple[int, tuple[int, ...]]] = []

    def writes_after(self, line: int) -> set[int]:
        """Keys written inside the loop on lines after `line` (skipped by a `continue` there)."""
        out: set[int] = set()
        for at, keys in self.flat:
            if at > line:
                out.update(keys)
        return out


def deepest(matching: Matching) -> int:
    """How many blocks deep a kernel's block matching nests (0: no block)."""
    return max((b.depth + 1 for b in matching.blocks), default=0)


def structure(instructions: list[tuple[int, Instruction]]) -> list | None:
    """Nest a kernel's instructions into (line, Step) pairs, `IfNode`s and `LoopNode`s, as
    `syntax.blocks.match_blocks` matches them.

    Unknown mnemonics are left out; a stray `else`/`endif`/`endloop` is skipped; an end that
    closes an outer block closes the blocks left open inside it; blocks still open at the end of
    the kernel are closed there. None when the blocks nest deeper than MAX_ANALYSED_DEPTH.
    Never raises."""
    steps = [(line, step) for line, instr in instructions
             if (step := step_of(instr)) is not None]
    matching = match_blocks((i, step.mnemonic) for i, (_line, step) in enumerate(steps))
    if deepest(matching) > MAX_ANALYSED_DEPTH:
        return None
    opens = {b.open: b for b in matching.blocks}
    elses = {b.else_: b for b in matching.blocks if b.else_ is not None}
    delimiters = set(opens) | set(elses) | {p.at for p in matching.problems
                                            if p.why != "unclosed"}
    closes: dict[int, int] = {}       # position of an end -> how many blocks it closes
    for b in matching.blocks:
        if b.close is not None:
            closes[b.close] = closes.get(b.close, 0) + 1
    top: list = []
    stack: list[tuple[IfNode | LoopNode, list]] = []   # open node and the list it was added to
    current = top
    for i, (line, step) in enumerate(steps):
        if i in opens:
            node = IfNode(line, step) if opens[i].kind == "if" else LoopNode(line, step)
            current.append(node)
            stack.append((node, current))
            current = node.then if type(node) is IfNode else node.body
        elif i in elses:
            node = stack[-1][0]
            node.else_line = line
            node.else_ = []
            current = node.else_
        elif i in closes:
            for n in range(closes[i]):
                node, current = stack.pop()
                _finish(node)
                if n == closes[i] - 1:
                    node.end_line = line
        elif i not in delimiters:
            current.append((line, step))
    while stack:
        node, _ = stack.pop()
        _finish(node)
    return top


def _finish(node: IfNode | LoopNode) -> None:
    flat: list[tuple[int, tuple[int, ...]]] = []
    _collect(node.then + (node.else_ or []) if isinstance(node, IfNode) else node.body, flat)
    node.writes = frozenset(k for _, keys in flat for k in keys)
    if isinstance(node, LoopNode):
        node.flat = flat


def _collect(items: list, out: list) -> None:
    for item in items:
        if type(item) is tuple:
            if item[1].dests:
                out.append((item[0], item[1].dests))
        elif isinstance(item, IfNode):
            _collect(item.then, out)
            if item.else_:
                _collect(item.else_, out)
        else:
            _collect(item.body, out)
