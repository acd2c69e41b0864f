"""The kernel profile's reference model: a plain per-lane interpreter that runs every
wave of a workgroup on its own, at the wave width it is asked for, and counts each line's
executions, lanes, local-memory passes and device sectors by the issue's definitions, written
out one wave-instruction at a time. Independent of both engines: its own control flow (the
`scalar_reference` rules), masks, memory, wave operations, barriers (the waves of a workgroup
run in turn up to each barrier) and counting. Integer, compare and basic f32 values come from
`scalar_reference`'s tables; fused multiply-adds round through f64 (the last bit may differ
from the engine's; no address or branch of the tested kernels depends on it); any other
arithmetic takes its value from `emu.alu` for one lane (values only, never masks or counts).

A wave executes an instruction only when one of its lanes is active there (a wave
with no active lane takes a uniform branch around the region on a GPU; a guard failing in every
lane still issues the instruction). On `if`, `break`, `continue` and a guarded `call`, an
execution is a divergent branch when some active lanes take the branch and some do not.

`reference_profile(program, launch, width, banks, bank_bytes, sector_bytes)` returns
{line (or pc): [executions, active_lanes, lane_slots, local_wavefronts, local_ideal,
global_sectors, global_ideal, divergent_branches]} for lines that executed.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from scalar_reference import BINARY, COMPARE, UNARY, M, StructuredControl, _b, _f
from wave_lsp.emu.alu import FUNCTIONS, signature
from wave_lsp.emu.geometry import geometry, load_kernels, select_kernel
from wave_lsp.emu.kernel_launch import new_device_memory

WAVE_OPS = {"wave_reduce_add", "wave_reduce_min", "wave_reduce_max", "wave_prefix_sum",
            "wave_ballot", "wave_any", "wave_all", "wave_broadcast", "wave_shuffle",
            "wave_shuffle_up", "wave_shuffle_down", "wave_shuffle_xor"}


def _f32(x: float) -> float:
    return _f(_b(x))


class Counters:
    """Per line: the eight counters, added one wave-instruction at a time."""

    def __init__(self, width, banks, bank_bytes, sector_bytes):
        self.width, self.banks, self.bank_bytes, self.sector = width, banks, bank_bytes, \
            sector_bytes
        self.lines: dict[int, list[int]] = {}

    def execution(self, key, lanes: int) -> None:
        row = self.lines.setdefault(key, [0] * 8)
        row[0] += 1
        row[1] += lanes
        row[2] += self.width

    def branch(self, key, taken: set, active: set) -> None:
        """A branch-like instruction: divergent when `taken` holds some active lanes, not all."""
        if taken and active - taken:
            self.lines[key][7] += 1

    def access(self, key, space: str, addresses: list[int], size: int) -> None:
        if not addresses:
            return
        row = self.lines[key]
        if space == "local":
            words_in_bank: dict[int, set[int]] = {}
            for a in addresses:
                for byte in range(a, a + size):
                    unit = byte // self.bank_bytes
                    words_in_bank.setdefault(unit % self.banks, set()).add(unit)
            row[3] += max(len(words) for words in words_in_bank.values())
            row[4] += math.ceil(len(addresses) * size / (self.banks * self.bank_bytes))
        else:
            sectors = {byte // self.sector for a in addresses for byte in range(a, a + size)}
            row[5] += len(sectors)
            row[6] += math.ceil(len(addresses) * size / self.sector)


class Wave(StructuredControl):
    """One wave: per-lane registers, predicates and fragments; its own control stack."""

    def __init__(self, wg, wave_id):
        self.wg = wg
        self.wave_id = wave_id
        width, threads = wg.width, wg.threads
        self.threads = [wave_id * width + lane for lane in range(width)]
        self.regs = [[0] * wg.registers for _ in range(width)]
        for lane in range(width):
            for reg, value in wg.set_regs.items():
                if reg < wg.registers:
                    self.regs[lane][reg] = value & M
        self.preds = [[False] * 4 for _ in range(width)]
        self.frags: dict = {}
        self.alive = {lane for lane in range(width) if self.threads[lane] < threads}
        self.active = set(self.alive)

    def executing(self, ins):
        if not ins.guarded:
            return set(self.active)
        return {lane for lane in self.active if self.preds[lane][ins.pred_reg] != ins.pred_neg}

    def run(self):
        """A generator: yields at each barrier; returns when the wave ends."""
        code, counters = self.wg.code, self.wg.counters
        stack, calls, pc = [], [], 0
        while pc < len(code) and self.alive:
            ins = code[pc]
            m = ins.spec.mnemonic
            lanes = self.executing(ins)
            key = ins.line if ins.line is not None else ins.offset
            if self.active:
                counters.execution(key, len(lanes))
                if m in ("if", "break", "continue"):
                    counters.branch(key, {lane for lane in lanes
                                          if self.preds[lane][ins.rs1]}, self.active)
                elif m == "call" and ins.guarded:
                    counters.branch(key, lanes, self.active)
            nxt = self.control(stack, ins, m, lanes, pc)
            if nxt is None:
                nxt = self._step(ins, m, lanes, key, stack, calls, pc)
            if m == "barrier":
                yield
            pc = nxt

    def _step(self, ins, m, lanes, key, stack, calls, pc):
        """Everything but structured control flow: calls, returns, memory, wave operations,
        mma tiles and arithmetic; the next pc."""
        if m == "call" and (lanes or not ins.guarded):
            calls.append((pc + 1, set(self.active), len(stack)))
            self.active = lanes
            return self.wg.index_of[ins.imm]
        if m == "return" and (lanes or not ins.guarded):
            if calls:
                nxt, active, depth = calls.pop()
                del stack[depth:]
                self.active = self._restore(stack, active)
                return nxt
            self.alive -= lanes
            self.active -= lanes
        elif m in ("call", "return", "barrier"):
            pass
        elif ins.spec.memory is not None:
            self._memory(ins, sorted(lanes), key)
        elif m in WAVE_OPS:
            self._wave_op(ins, m, sorted(lanes))
        elif m.startswith("mma_"):
            self._mma(ins, m, sorted(lanes))
        else:
            for lane in sorted(lanes):
                self._compute(ins, m, lane)
        return pc + 1

    # ---- memory --------------------------------------------------------------------------------
    def _memory(self, ins, lanes, key):
        access = ins.spec.memory
        wg = self.wg
        memory = wg.local if access.space == "local" else wg.device
        R = self.regs
        addresses = [R[lane][ins.rs1] for lane in lanes]
        wg.counters.access(key, access.space, addresses, access.width)
        for lane, a in zip(lanes, addresses):
            if access.kind == "load":
                data = int.from_bytes(memory[a:a + access.width], "little")
                for w in range(access.words):
                    R[lane][ins.rd + w] = (data >> (32 * w)) & M
            elif access.kind == "store":
                data = sum(R[lane][ins.rs2 + w] << (32 * w) for w in range(access.words))
                memory[a:a + access.width] = (data & ((1 << (8 * access.width)) - 1)).to_bytes(
                    access.width, "little")
            else:
                old = int.from_bytes(memory[a:a + 4], "little")
                value, third = R[lane][ins.rs2], R[lane][ins.rs3]
                new = _atomic(ins.spec.mnemonic.split("atomic_", 1)[1], old, value, third)
                memory[a:a + 4] = new.to_bytes(4, "little")
                if ins.rd:
                    R[lane][ins.rd] = old

    def _mma(self, ins, m, lanes):
        local = self.wg.local
        for lane in lanes:
            r = self.regs[lane]
            if m in ("mma_load_a", "mma_load_b"):
                addr, stride = r[ins.rs1], r[ins.rs2]
                self.frags[(m[-1].upper(), ins.rd, lane)] = [
                    [_f(int.from_bytes(local[addr + i * stride + 4 * j:][:4], "little"))
                     for j in range(4)] for i in range(4)]
            elif m == "mma_store_c":
                addr, stride = r[ins.rd], r[ins.rs1]
                c = self.frags.get(("C", ins.rs2, lane), [[0.0] * 4 for _ in range(4)])
                for i in range(4):
                    for j in range(4):
                        at = addr + i * stride + 4 * j
                        local[at:at + 4] = _b(c[i][j]).to_bytes(4, "little")
            else:
                zero = [[0.0] * 4 for _ in range(4)]
                a = self.frags.get(("A", ins.rd, lane), zero)
                b = self.frags.get(("B", ins.rs1, lane), zero)
                c = [row[:] for row in self.frags.get(("C", ins.rs2, lane), zero)]
                for k in range(4):
                    for i in range(4):
                        for j in range(4):
                            c[i][j] = _f32(c[i][j] + _f32(a[i][k] * b[k][j]))
                self.frags[("C", ins.rs2, lane)] = c

    # ---- wave operations -----------------------------------------------------------------------
    def _wave_op(self, ins, m, lanes):
        R, P, width = self.regs, self.preds, self.wg.width
        results = {}
        if m in ("wave_reduce_add", "wave_reduce_min", "wave_reduce_max"):
            values = [R[lane][ins.rs1] for lane in lanes]
            total = {"wave_reduce_add": lambda v: sum(v) & M, "wave_reduce_min": min,
                     "wave_reduce_max": max}[m](values) if values else 0
            results = {lane: total for lane in lanes}
        elif m == "wave_prefix_sum":
            running = 0
            for lane in lanes:
                results[lane] = running & M
                running += R[lane][ins.rs1]
        elif m == "wave_ballot":
            bits = sum(1 << lane for lane in lanes if P[lane][ins.rs1]) & M
            results = {lane: bits for lane in lanes}
        elif m in ("wave_any", "wave_all"):
            votes = [P[lane][ins.rs1] for lane in lanes]
            answer = any(votes) if m == "wave_any" else all(votes)
            for lane in lanes:
                P[lane][ins.rd] = answer
            return
        else:
            first = lanes[0] if lanes else 0
            for lane in lanes:
                sel = R[lane][ins.rs2]
                source = {"wave_shuffle": sel, "wave_shuffle_up": lane - sel,
                          "wave_shuffle_down": lane + sel, "wave_shuffle_xor": lane ^ sel,
                          "wave_broadcast": R[first][ins.rs2]}[m]
                ok = 0 <= source < width and source in lanes
                results[lane] = R[source][ins.rs1] if ok else 0
        for lane, value in results.items():
            R[lane][ins.rd] = value

    # ---- arithmetic ------------------------------------------------------------------------------
    def _compute(self, ins, m, lane):
        r, p = self.regs[lane], self.preds[lane]
        if m in BINARY:
            r[ins.rd] = BINARY[m](r[ins.rs1], r[ins.rs2])
        elif m in UNARY:
            r[ins.rd] = UNARY[m](r[ins.rs1])
        elif m in COMPARE:
            p[ins.rd] = bool(COMPARE[m](r[ins.rs1], r[ins.rs2]))
        elif m == "select":
            r[ins.rd] = r[ins.rs2] if p[ins.rs1] else r[ins.rs3]
        elif m == "mov_imm":
            r[ins.rd] = ins.imm & M
        elif m == "mov_sr":
            r[ins.rd] = self.wg.special(ins.rs1, self.threads[lane]) & M
        elif m == "imad":
            r[ins.rd] = (r[ins.rs1] * r[ins.rs2] + r[ins.rs3]) & M
        elif m == "fma":
            r[ins.rd] = _b(_f(r[ins.rs1]) * _f(r[ins.rs2]) + _f(r[ins.rs3]))
        elif not ins.spec.operands:          # fences, wait, nop
            pass
        else:
            self._alu(ins, m, r, p)

    @staticmethod
    def _alu(ins, m, r, p):
        sources, dest = signature(ins.spec)
        fields = (ins.rs1, ins.rs2, ins.rs3, ins.rs4)
        args = []
        for kind, reg in zip(sources, fields):
            if kind == "p":
                args.append(np.array([p[reg]]))
            elif kind == "d":
                bits = r[reg] | (r[reg + 1] << 32)
                args.append(np.array([struct.unpack("<d", struct.pack("<Q", bits))[0]]))
            else:
                args.append(np.array([r[reg]], dtype=np.uint32))
        with np.errstate(all="ignore"):
            out = np.asarray(FUNCTIONS[m](*args)).reshape(-1)
        if dest == "p":
            p[ins.rd] = bool(out[0])
        elif dest == "d":
            bits = struct.unpack("<Q", struct.pack("<d", float(out[0])))[0]
            r[ins.rd], r[ins.rd + 1] = bits & M, bits >> 32
        else:
            r[ins.rd] = int(out.astype(np.uint32)[0])


def _atomic(operation, old, value, third):
    return {"add": (old + value) & M, "sub": (old - value) & M, "min": min(old, value),
            "max": max(old, value), "and": old & value, "or": old | value,
            "xor": old ^ value, "exchange": value,
            "cas": third if old == value else old}[operation]


class Workgroup:
    def __init__(self, code, geo, width, linear, device, set_regs, counters, index_of):
        self.code, self.width, self.device = code, width, device
        self.counters, self.index_of = counters, index_of
        self.threads = geo.threads_per_wg
        self.registers = geo.registers
        self.local = bytearray(geo.local_memory + 16)
        self.set_regs = set_regs
        self.geo, self.linear = geo, linear

    def special(self, index: int, t: int) -> int:
        (wx, wy, wz), (gx, gy, gz) = self.geo.workgroup, self.geo.grid
        g = self.linear
        return {0: t % wx, 1: (t // wx) % wy, 2: t // (wx * wy), 3: t // self.width,
                4: t % self.width, 5: g % gx, 6: (g // gx) % gy, 7: g // (gx * gy),
                8: wx, 9: wy, 10: wz, 11: gx, 12: gy, 13: gz, 14: self.width,
                15: -(-self.threads // self.width), 16: 1, 17: 4, 18: 4, 19: 4}.get(index, 0)

    def run(self):
        waves = [Wave(self, w).run() for w in range(-(-self.threads // self.width))]
        while waves:
            still = []
            for wave in waves:
                try:
                    next(wave)
                    still.append(wave)
                except StopIteration:
                    pass
            waves = still


def reference_profile(program, launch, width, banks=32, bank_bytes=4, sector_bytes=32):
    """{line: [the seven counters]} of `program` run as `launch`, waves of `width` lanes."""
    kernel = select_kernel(load_kernels(program), launch.kernel)
    geo = geometry(kernel, launch)
    device = bytearray(new_device_memory(launch).tobytes())
    counters = Counters(width, banks, bank_bytes, sector_bytes)
    index_of = {ins.offset: i for i, ins in enumerate(kernel.instructions)}
    set_regs = {int(k): int(v) for k, v in launch.set_regs.items()}
    for linear in range(geo.workgroup_count):
        Workgroup(kernel.instructions, geo, width, linear, device, set_regs, counters,
                  index_of).run()
    return {key: row for key, row in counters.lines.items()}
