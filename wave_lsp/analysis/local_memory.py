"""U510: a kernel that uses local memory without declaring `.local_memory`.

wave-asm accepts it and stores 0 bytes; the emulator then quietly lends the kernel its default
(16 KiB, `isa.launch_defaults.DEFAULT_LOCAL_MEMORY`), and `wave-lsp emit` declares the same
for the GPU backends, while upstream's backends declare none. The first local access is
reported, with a quick fix that declares what the accesses need when the code bounds it: each
register's possible values are followed as an interval through the kernel (constants, thread
and lane ids bounded by the declared workgroup size, and integer arithmetic on them), merged
where control flow joins.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..isa import INSTRUCTIONS, InstructionClass
from ..isa.launch_defaults import DEFAULT_LOCAL_MEMORY
from ..syntax.ast import Instruction, OperandSyntax as Syn
from ..syntax.blocks import loop_writes
from ..syntax.program import Kernel
from .codes import diagnostic
from .diagnostic import Diagnostic, Fix, Range, TextEdit

LARGEST = 1 << 31              # beyond this an address wraps: no bound
Interval = tuple[int, int] | None     # (lowest, highest) value of a register; None: unknown


@dataclass(frozen=True)
class LocalNeed:
    """A kernel's local memory use: where it first touches local memory, and the bytes its
    accesses reach (None when the code does not bound them)."""

    line: int
    start: int
    end: int
    bytes: int | None


def _special(name: str, kernel: Kernel) -> Interval:
    x, y, z = kernel.workgroup_size
    threads = x * y * z
    size = {"x": x, "y": y, "z": z}
    if name.startswith("sr_thread_id_") and size.get(name[-1]):
        return 0, size[name[-1]] - 1
    if name.startswith("sr_workgroup_size_") and size.get(name[-1]):
        return size[name[-1]], size[name[-1]]
    if name in ("sr_lane_id", "sr_wave_id") and threads:
        return 0, min(threads, 64 if name == "sr_lane_id" else threads) - 1
    if name == "sr_wave_width":
        return 8, 64
    return None


def _arith(m: str, a: Interval, b: Interval, c: Interval = (0, 0)) -> Interval:
    if a is None or b is None or c is None:
        return None
    if m == "iadd":
        return a[0] + b[0], a[1] + b[1]
    if m == "isub":
        return a[0] - b[1], a[1] - b[0]
    if m in ("imul", "imad") and a[0] >= 0 and b[0] >= 0:
        return a[0] * b[0] + c[0], a[1] * b[1] + c[1]
    if m == "shl" and a[0] >= 0 and 0 <= b[0] and b[1] < 31:
        return a[0] << b[0], a[1] << b[1]
    if m == "shr" and a[0] >= 0 and b[0] >= 0:
        return a[0] >> min(b[1], 31), a[1] >> min(b[0], 31)
    if m == "and" and a[0] >= 0 and b[0] >= 0:
        return 0, min(a[1], b[1])
    if m == "imin":
        return min(a[0], b[0]), min(a[1], b[1])
    if m == "imax":
        return max(a[0], b[0]), max(a[1], b[1])
    return None


def _join(a: Interval, b: Interval) -> Interval:
    if a is None or b is None:
        return None
    return min(a[0], b[0]), max(a[1], b[1])


class _Registers:
    """Register intervals along the kernel, with the states saved at open `if`s. A write under
    a guard `@pN` joins the old value for everyone, but is exact for later instructions under
    the same guard (`@p3 mov_imm r2, 0` then `@p3 local_load_u32 r3, r2`) until pN changes."""

    def __init__(self) -> None:
        self.values: dict[int, Interval] = {}
        self.ifs: list[tuple[dict, dict | None]] = []    # (state at `if`, state after `then`)
        self.under: dict[tuple[int, bool], dict[int, Interval]] = {}  # guard -> exact writes
        self.guard: tuple[int, bool] | None = None       # the current instruction's guard

    def get(self, op) -> Interval:
        if op.syntax is Syn.REGISTER and isinstance(op.value, int) and op.suffix is None:
            exact = self.under.get(self.guard, {}) if self.guard is not None else {}
            return exact[op.value] if op.value in exact else self.values.get(op.value)
        return None

    def set(self, reg: int, value: Interval) -> None:
        if value is not None and not (0 <= value[0] and value[1] < LARGEST):
            value = None
        for exact in self.under.values():
            exact.pop(reg, None)
        if self.guard is None:
            self.values[reg] = value
        else:
            self.values[reg] = _join(self.values.get(reg), value)
            self.under.setdefault(self.guard, {})[reg] = value

    def predicate_written(self, index: int) -> None:
        self.under.pop((index, False), None)
        self.under.pop((index, True), None)

    def forget(self, registers) -> None:
        for reg in registers:
            self.values[reg] = None
        self.under.clear()

    def control(self, m: str) -> None:
        self.under.clear()
        if m == "if":
            self.ifs.append((dict(self.values), None))
        elif m == "else" and self.ifs:
            entry, _ = self.ifs.pop()
            self.ifs.append((entry, self.values))
            self.values = dict(entry)
        elif m == "endif" and self.ifs:
            entry, then = self.ifs.pop()
            other = then if then is not None else entry
            self.values = {r: _join(self.values.get(r), other.get(r))
                           for r in set(self.values) | set(other)}


def _written(ins: Instruction) -> list[int]:
    """The registers an instruction may write (its destination operand, pairs included)."""
    spec = INSTRUCTIONS.get(ins.mnemonic.text)
    if spec is None or not spec.operands or not ins.operands:
        return []
    first, op = spec.operands[0], ins.operands[0]
    if not first.is_destination or op.syntax is not Syn.REGISTER or not isinstance(op.value, int):
        return []
    return list(range(op.value, op.value + spec.register_width(first)))


def _written_predicate(ins: Instruction) -> int | None:
    spec = INSTRUCTIONS.get(ins.mnemonic.text)
    if spec is None or not spec.operands or not ins.operands:
        return None
    op = ins.operands[0]
    if spec.operands[0].is_destination and op.syntax is Syn.PREDICATE \
            and isinstance(op.value, int):
        return op.value
    return None


def _reach(ins: Instruction, regs: _Registers) -> tuple[bool, int | None]:
    """Whether `ins` touches local memory, and the bytes it reaches (None: unknown)."""
    spec = INSTRUCTIONS[ins.mnemonic.text]
    ops = ins.operands
    names = [o.name for o in spec.operands]
    if len(ops) == len(names) - 1 and spec.operands[0].optional:
        names = names[1:]
    if len(ops) != len(names):
        return True, None
    by_name = dict(zip(names, ops))
    addr = regs.get(by_name["raddr"])
    if addr is None:
        return True, None
    if spec.iclass is InstructionClass.MMA:
        stride = regs.get(by_name["rstride"])
        return True, None if stride is None else addr[1] + 3 * stride[1] + 16
    return True, addr[1] + spec.memory.width


def _touches_local(m: str) -> bool:
    spec = INSTRUCTIONS.get(m)
    if spec is None:
        return False
    return (spec.memory is not None and spec.memory.space == "local") or \
        m in ("mma_load_a", "mma_load_b", "mma_store_c")


def local_need(kernel: Kernel) -> LocalNeed | None:
    """How much local memory the kernel's accesses reach (None when it makes none)."""
    regs = _Registers()
    label_lines = {line for line, _ in kernel.labels}
    items = kernel.instructions
    first: tuple[int, Instruction] | None = None
    need: int | None = 0
    loops: list[list[int]] = []
    written_in_loop = loop_writes(items, _written)
    for index, (line, ins) in enumerate(items):
        m = ins.mnemonic.text
        guard = ins.guard
        regs.guard = None if guard is None or (guard.index == 0 and not guard.negated) \
            else (guard.index, guard.negated)
        if line in label_lines or m == "call":   # entered from elsewhere, or a callee ran
            regs.values.clear()
            regs.under.clear()
        if m == "loop":
            written = written_in_loop[index]
            regs.forget(written)
            loops.append(sorted(written))
        elif m == "endloop" and loops:
            regs.forget(loops.pop())
        elif m in ("if", "else", "endif"):
            regs.control(m)
        if _touches_local(m):
            if first is None:
                first = (line, ins)
            _, reach = _reach(ins, regs)
            need = None if need is None or reach is None else max(need, reach)
        _step(ins, regs, kernel)
    if first is None:
        return None
    line, ins = first
    return LocalNeed(line, ins.start, ins.end, need)


def _step(ins: Instruction, regs: _Registers, kernel: Kernel) -> None:
    """The register intervals after `ins`."""
    predicate = _written_predicate(ins)
    if predicate is not None:
        regs.predicate_written(predicate)
    written = _written(ins)
    if not written:
        return
    m = ins.mnemonic.text
    ops = ins.operands
    value: Interval = None
    if m == "mov_imm" and len(ops) == 2 and isinstance(ops[1].value, int) \
            and ops[1].syntax is not Syn.REGISTER:
        value = (ops[1].value, ops[1].value)
    elif m == "mov_sr" and len(ops) == 2:
        value = _special(ops[1].text, kernel)
    elif m == "mov" and len(ops) == 2:
        value = regs.get(ops[1])
    elif len(ops) == 3:
        value = _arith(m, regs.get(ops[1]), regs.get(ops[2]))
    elif m == "imad" and len(ops) == 4:
        value = _arith(m, regs.get(ops[1]), regs.get(ops[2]), regs.get(ops[3]))
    regs.set(written[0], value)
    for reg in written[1:]:
        regs.set(reg, None)


def check_local_memory(kernel: Kernel) -> list[Diagnostic]:
    """U510 when the kernel touches local memory and declares no `.local_memory`."""
    if kernel.setting("local_memory") is not None:
        return []
    need = local_need(kernel)
    if need is None:
        return []
    if need.bytes is None:
        reach = ("how many bytes its accesses reach cannot be told from the code: declare "
                 "`.local_memory N` with the size it needs")
    else:
        reach = f"its accesses reach {need.bytes} bytes"
    message = (f"kernel '{kernel.name}' uses local memory but declares no .local_memory: "
               f"wave-asm records 0 bytes, the emulator and `wave-lsp emit` lend "
               f"{DEFAULT_LOCAL_MEMORY} and upstream's backends none; {reach}")
    found = diagnostic("U510", need.line, need.start, need.end, message)
    if need.bytes is None:
        return [found]
    after = kernel.setting("registers")
    line, directive = after if after is not None and after[0] > kernel.line else \
        (kernel.line, kernel.directive)
    edit = TextEdit(Range(line + 1, 0, line + 1, 0),
                    " " * directive.start + f".local_memory {need.bytes}\n")
    fix = Fix(f"Declare .local_memory {need.bytes}", (edit,))
    return [Diagnostic(found.code, found.severity, found.range, found.message, fixes=(fix,))]
