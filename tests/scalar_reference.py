"""A small, obviously-correct scalar interpreter of a WAVE subset, used as the oracle for the
vectorised emulator in property tests.

One wave at a time, one lane at a time, plain Python integers and `struct` for floats. Supports
integer, bitwise, compare, select, moves, basic f32 arithmetic, 1-, 2- and 4-byte device and
local loads and stores, 32-bit device and local atomics, if/else/endif, loop/break/continue/
endloop, halt, and a few wave operations. Given a `log` list, every lane's memory access is
appended to it as `Access` (the fields `--mem-trace` prints, less the step), in the order this
interpreter runs them: wave after wave, instruction after instruction, lane after lane.
Semantics follow DESIGN.md §1: `continue` skips the rest of the iteration for its lanes, `halt`
ends only the executing lanes, inactive lanes are never written.
"""

from __future__ import annotations

import math
import struct
from typing import NamedTuple

M = 0xFFFFFFFF


def _s(v: int) -> int:
    return v - (1 << 32) if v & 0x80000000 else v


def _f(v: int) -> float:
    return struct.unpack("<f", struct.pack("<I", v & M))[0]


def _b(x: float) -> int:
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return struct.unpack("<I", struct.pack("<f", math.copysign(math.inf, x)))[0]


def _fop(fn):
    def run(a, b):
        return _b(fn(_f(a), _f(b)))
    return run


def _fdiv(x, y):
    if y == 0:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def _fmin(x, y):
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    return min(x, y)


def _fmax(x, y):
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    return max(x, y)


def _idiv(a, b):
    a, b = _s(a), _s(b)
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return (-q if (a < 0) != (b < 0) else q) & M


def _imod(a, b):
    a, b = _s(a), _s(b)
    if b == 0:
        return 0
    r = abs(a) % abs(b)
    return (-r if a < 0 else r) & M


BINARY = {
    "iadd": lambda a, b: (a + b) & M, "isub": lambda a, b: (a - b) & M,
    "imul": lambda a, b: (a * b) & M, "idiv": _idiv, "imod": _imod,
    "imul_hi": lambda a, b: ((_s(a) * _s(b)) >> 32) & M,
    "imin": lambda a, b: min(_s(a), _s(b)) & M, "imax": lambda a, b: max(_s(a), _s(b)) & M,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: (a << (b & 31)) & M, "shr": lambda a, b: a >> (b & 31),
    "sar": lambda a, b: (_s(a) >> (b & 31)) & M,
    "fadd": _fop(lambda x, y: x + y), "fsub": _fop(lambda x, y: x - y),
    "fmul": _fop(lambda x, y: x * y), "fdiv": _fop(_fdiv),
    "fmin": _fop(_fmin), "fmax": _fop(_fmax),
}
UNARY = {"ineg": lambda a: (-a) & M, "not": lambda a: a ^ M, "mov": lambda a: a,
         "iabs": lambda a: abs(_s(a)) & M, "bitcount": lambda a: bin(a).count("1")}
COMPARE = {
    "icmp_eq": lambda a, b: a == b, "icmp_ne": lambda a, b: a != b,
    "icmp_lt": lambda a, b: _s(a) < _s(b), "icmp_le": lambda a, b: _s(a) <= _s(b),
    "icmp_gt": lambda a, b: _s(a) > _s(b), "icmp_ge": lambda a, b: _s(a) >= _s(b),
    "ucmp_lt": lambda a, b: a < b, "ucmp_le": lambda a, b: a <= b,
    "fcmp_lt": lambda a, b: _f(a) < _f(b), "fcmp_eq": lambda a, b: _f(a) == _f(b),
    "fcmp_ne": lambda a, b: _f(a) != _f(b),
}


ATOMIC = {"add": lambda old, v, s: old + v, "sub": lambda old, v, s: old - v,
          "min": lambda old, v, s: min(old, v), "max": lambda old, v, s: max(old, v),
          "and": lambda old, v, s: old & v, "or": lambda old, v, s: old | v,
          "xor": lambda old, v, s: old ^ v, "exchange": lambda old, v, s: v,
          "cas": lambda old, v, s: s if old == v else old}


class Access(NamedTuple):
    """One lane's memory access, as `--mem-trace` records it (without the step)."""

    wave: int
    lane: int
    pc: int
    line: int | None            # 1-based
    space: str
    kind: str
    size: int
    address: int
    value: int                  # loaded, stored, or memory's value before an atomic
    operand: int | None = None
    swap: int | None = None


class StructuredControl:
    """The structured control flow of one wave (`active`, `alive` lane sets, `preds`), shared
    with the profile's reference model (tests/profile_reference.py)."""

    def control(self, stack, ins, m, lanes, pc):
        """Run if/else/endif/loop/break/continue/endloop/halt; the next pc, or None when `m`
        is none of them."""
        nxt = pc + 1
        if m == "if":
            then = {lane for lane in lanes if self.preds[lane][ins.rs1]}
            stack.append(["if", set(self.active), lanes - then])
            self.active = then
        elif m == "else":
            self.active = self._restore(stack, stack[-1][2])
        elif m == "endif":
            frame = stack.pop()
            self.active = self._restore(stack, frame[1])
        elif m == "loop":
            stack.append(["loop", set(self.active), set(), set(), pc + 1])
        elif m in ("break", "continue"):
            loop = next(f for f in reversed(stack) if f[0] == "loop")
            leaving = {lane for lane in lanes if self.preds[lane][ins.rs1]}
            if m == "break":
                loop[2] |= leaving
            loop[3] |= leaving
            self.active -= leaving
        elif m == "endloop":
            frame = stack[-1]
            remaining = (frame[1] & self.alive) - frame[2]
            if remaining:
                frame[3] = set(frame[2])
                self.active = remaining
                nxt = frame[4]
            else:
                stack.pop()
                self.active = self._restore(stack, frame[1])
        elif m == "halt":
            self.alive -= lanes
            self.active -= lanes
        else:
            return None
        return nxt

    def _restore(self, stack, mask):
        result = mask & self.alive
        for frame in reversed(stack):
            if frame[0] == "loop":
                return result - frame[3]
        return result


class ScalarWave(StructuredControl):
    """One wave of `width` lanes (`threads` of them in range) of one workgroup."""

    def __init__(self, instructions, width, threads, registers, wave_id, memory, set_regs,
                 local=None, log=None):
        self.ins = instructions
        self.local = local if local is not None else bytearray(16384)
        self.log = log
        self.width = width
        self.regs = [[0] * registers for _ in range(width)]
        for lane in range(width):
            for reg, value in set_regs.items():
                self.regs[lane][reg] = value & M
        self.preds = [[False] * 4 for _ in range(width)]
        self.alive = {lane for lane in range(width) if wave_id * width + lane < threads}
        self.active = set(self.alive)
        self.wave_id = wave_id
        self.memory = memory
        self.special = {4: lambda lane: lane, 3: lambda lane: wave_id,
                        0: lambda lane: wave_id * width + lane, 14: lambda lane: width}

    def _executing(self, ins):
        if not ins.guarded:
            return set(self.active)
        return {lane for lane in self.active
                if self.preds[lane][ins.pred_reg] != ins.pred_neg}

    def run(self, limit=100000):
        stack = []
        pc = 0
        steps = 0
        while pc < len(self.ins) and self.alive:
            steps += 1
            assert steps < limit, "scalar reference: step limit"
            ins = self.ins[pc]
            m = ins.spec.mnemonic
            lanes = self._executing(ins)
            nxt = self.control(stack, ins, m, lanes, pc)
            if nxt is None:
                nxt = pc + 1
                if m not in ("nop", "barrier"):
                    self._compute(ins, m, lanes)
            pc = nxt

    def _compute(self, ins, m, lanes):
        R, P = self.regs, self.preds
        if m in ("wave_reduce_add", "wave_prefix_sum", "wave_ballot", "wave_shuffle_xor"):
            order = sorted(lanes)
            if m == "wave_reduce_add":
                total = sum(R[lane][ins.rs1] for lane in order) & M
                for lane in order:
                    R[lane][ins.rd] = total
            elif m == "wave_prefix_sum":
                values = [R[lane][ins.rs1] for lane in order]
                for i, lane in enumerate(order):
                    R[lane][ins.rd] = sum(values[:i]) & M
            elif m == "wave_ballot":
                bits = sum(1 << lane for lane in order if P[lane][ins.rs1]) & M
                for lane in order:
                    R[lane][ins.rd] = bits
            else:
                results = {}
                for lane in order:
                    source = lane ^ R[lane][ins.rs2]
                    results[lane] = R[source][ins.rs1] if source in lanes else 0
                for lane, value in results.items():
                    R[lane][ins.rd] = value
            return
        for lane in sorted(lanes):
            r = R[lane]
            if m in BINARY:
                r[ins.rd] = BINARY[m](r[ins.rs1], r[ins.rs2])
            elif m in UNARY:
                r[ins.rd] = UNARY[m](r[ins.rs1])
            elif m in COMPARE:
                P[lane][ins.rd] = bool(COMPARE[m](r[ins.rs1], r[ins.rs2]))
            elif m == "select":
                r[ins.rd] = r[ins.rs2] if P[lane][ins.rs1] else r[ins.rs3]
            elif m == "mov_imm":
                r[ins.rd] = ins.imm & M
            elif m == "mov_sr":
                r[ins.rd] = self.special[ins.rs1](lane) & M
            elif ins.spec.memory is not None:
                self._access(ins, lane, r)
            else:
                raise NotImplementedError(m)

    def _access(self, ins, lane, r):
        access = ins.spec.memory
        memory = self.local if access.space == "local" else self.memory
        a, size = r[ins.rs1], access.width
        assert size <= 4, ins.spec.mnemonic
        operand = swap = None
        if access.kind == "load":
            value = r[ins.rd] = int.from_bytes(memory[a:a + size], "little")
            kind = "load"
        elif access.kind == "store":
            value = r[ins.rs2] & ((1 << (8 * size)) - 1)
            memory[a:a + size] = value.to_bytes(size, "little")
            kind = "store"
        else:
            operation = access.operation
            value = int.from_bytes(memory[a:a + 4], "little")
            operand = r[ins.rs2]
            swap = r[ins.rs3] if operation == "cas" else None
            memory[a:a + 4] = (ATOMIC[operation](value, operand, swap) & M).to_bytes(4, "little")
            if ins.rd:                      # r0 as destination: the old value is dropped
                r[ins.rd] = value
            kind = f"atomic_{operation}"
        if self.log is not None:
            line = ins.line + 1 if ins.line is not None else None
            self.log.append(Access(self.wave_id, lane, ins.offset, line, access.space, kind,
                                   size, a, value, operand, swap))


def run_reference(kernel, width, threads, memory_size, set_regs=None, log=None):
    """Run one workgroup of `threads` threads; returns (memory bytes, registers per thread).
    Memory accesses are appended to `log` when given (see `Access`)."""
    memory = bytearray(memory_size)
    local = bytearray(16384)
    waves = -(-threads // width)
    registers = {}
    for w in range(waves):
        wave = ScalarWave(kernel.instructions, width, threads, kernel.register_count, w,
                          memory, set_regs or {}, local, log)
        wave.run()
        for lane in range(width):
            if w * width + lane < threads:
                registers[w * width + lane] = list(wave.regs[lane])
    return bytes(memory), registers
