"""Pre-decoding: every non-control instruction becomes a Python closure over constant register
numbers that runs on a whole `Batch` at once (`op(batch) -> None`).

Masks: an unguarded instruction runs on `batch.active` (with a fast path when every lane is
active); a guarded one on `active & pN` (or `& !pN`). Inactive lanes are never written.
"""

from __future__ import annotations

import numpy as np

from ..asm.ir import DecodedInstruction
from ..isa import PREDICATE_COUNT, OperandKind
from .alu import FUNCTIONS, f32_binary_into, f64_to_pair, fma_f32, pair_to_f64, signature
from .nan_results import mma_step
from . import messages
from .context import RunContext
from .memory import addresses, atomic, atomic_operation, device_space, gather, local_space, \
    mma_tile_addresses, scatter
from .report import Stats
from .state import Batch, Fault
from .waveops import any_all, ballot, prefix_sum, reduce, shuffle

# Ufuncs that can write straight into the destination row when every lane is active.
_OUT_UFUNCS = {"iadd": (np.add, False), "isub": (np.subtract, False),
               "imul": (np.multiply, False), "and": (np.bitwise_and, False),
               "or": (np.bitwise_or, False), "xor": (np.bitwise_xor, False),
               "fadd": (np.add, True), "fsub": (np.subtract, True),
               "fmul": (np.multiply, True), "fdiv": (np.divide, True)}


def exec_mask(guard):
    """A function giving the lanes that execute: (batch) -> bool array."""
    if guard is None:
        return lambda b: b.active
    pred, neg = guard
    return lambda b: b.guard_mask(pred, neg)


def register_error(ins: DecodedInstruction, regs: list[int], count: int, guard):
    """An op that fails with `register_out_of_range` when any lane executes it."""
    bad = sorted({r for r in regs if r >= count})
    mask = exec_mask(guard)
    message = messages.register_out_of_range(bad, count)

    def op(b: Batch):
        m = mask(b)
        if m.any():
            raise Fault("register_out_of_range", message, np.flatnonzero(m), registers=bad)
    return op


def build_unit(ins: DecodedInstruction, count: int):
    """ALU, compare, convert and move instructions (`alu.FUNCTIONS`; operand kinds and widths
    from the instruction table)."""
    mnemonic = ins.spec.mnemonic
    fn = FUNCTIONS[mnemonic]
    sources, dest = signature(ins.spec)
    fields = (ins.rs1, ins.rs2, ins.rs3, ins.rs4)[:len(sources)]
    guard = (ins.pred_reg, ins.pred_neg) if ins.guarded else None
    used = []
    for kind, reg in zip(sources, fields):
        if kind == "u":
            used.append(reg)
        elif kind == "d":
            used += [reg, reg + 1]
        elif reg >= 4:
            return invalid(ins, f"predicate p{reg} does not exist")
    rd = ins.rd
    if dest == "u":
        used.append(rd)
    elif dest == "d":
        used += [rd, rd + 1]
    elif rd >= 4:
        return invalid(ins, f"predicate p{rd} does not exist")
    if any(r >= count for r in used):
        return register_error(ins, used, count, guard)

    if sources == "uu" and dest == "u" and guard is None:
        a, c = fields
        if mnemonic in _OUT_UFUNCS:
            ufunc, is_float = _OUT_UFUNCS[mnemonic]

            def op(b: Batch):
                if b.full and is_float:                    # with upstream's NaN bits
                    f32_binary_into(ufunc, b.R, b.F, a, c, rd)
                elif b.full:
                    ufunc(b.R[a], b.R[c], out=b.R[rd])
                elif b.any_active:
                    R = b.R
                    np.copyto(R[rd], fn(R[a], R[c]), where=b.active)
            return op

        def op(b: Batch):
            R = b.R
            if b.full:
                R[rd] = fn(R[a], R[c])
            elif b.any_active:
                np.copyto(R[rd], fn(R[a], R[c]), where=b.active)
        return op

    if mnemonic == "fma" and guard is None:
        return _fma_op(fn, *fields, rd)
    if dest == "u" and guard is None and sources in ("u", "uuu", "uuuu"):
        return _unit_op(fn, fields, rd)

    readers = []
    for kind, reg in zip(sources, fields):
        if kind == "u":
            readers.append(lambda b, r=reg: b.R[r])
        elif kind == "d":
            readers.append(lambda b, r=reg: pair_to_f64(b.R[r], b.R[r + 1]))
        else:
            readers.append(lambda b, r=reg: b.P[r])
    mask = exec_mask(guard)

    def op(b: Batch):
        m = mask(b)
        full = b.full and guard is None
        if not full and not m.any():
            return
        value = fn(*[read(b) for read in readers])
        if dest == "u":
            targets = ((b.R[rd], value),)
        elif dest == "p":
            targets = ((b.P[rd], value),)
        else:
            lo, hi = f64_to_pair(value)
            targets = ((b.R[rd], lo), (b.R[rd + 1], hi))
        for row, v in targets:
            if full:
                row[...] = v
            else:
                np.copyto(row, v, where=m)
    return op


def _fma_op(fn, a, c, d, rd):
    """fma without a guard: one rounding (see alu.fma_f32)."""
    def op(b: Batch):
        if b.full:
            F = b.F
            fma_f32(F[a], F[c], F[d], b.fma_scratch(), out=F[rd])
        elif b.any_active:
            R = b.R
            np.copyto(R[rd], fn(R[a], R[c], R[d]), where=b.active)
    return op


def _unit_op(fn, fields, rd):
    """Unguarded 1-, 3- or 4-source register instruction."""
    def op(b: Batch):
        R = b.R
        if b.full:
            R[rd] = fn(*[R[r] for r in fields])
        elif b.any_active:
            np.copyto(R[rd], fn(*[R[r] for r in fields]), where=b.active)
    if len(fields) == 1:
        (a,) = fields

        def op(b: Batch):  # noqa: F811 - the common one-source case without a list
            R = b.R
            if b.full:
                R[rd] = fn(R[a])
            elif b.any_active:
                np.copyto(R[rd], fn(R[a]), where=b.active)
    return op


def build_mov_imm(ins: DecodedInstruction, count: int):
    rd, value = ins.rd, np.uint32(ins.imm & 0xFFFFFFFF)
    guard = (ins.pred_reg, ins.pred_neg) if ins.guarded else None
    if rd >= count:
        return register_error(ins, [rd], count, guard)
    mask = exec_mask(guard)

    def op(b: Batch):
        if b.full and guard is None:
            b.R[rd].fill(value)
        else:
            m = mask(b)
            b.R[rd][m] = value
    return op


def build_mov_sr(ins: DecodedInstruction, count: int):
    rd, index = ins.rd, ins.rs1
    guard = (ins.pred_reg, ins.pred_neg) if ins.guarded else None
    if rd >= count:
        return register_error(ins, [rd], count, guard)
    mask = exec_mask(guard)

    def op(b: Batch):
        if b.full and guard is None:
            b.R[rd] = b.special(index)
        else:
            m = mask(b)
            np.copyto(b.R[rd], b.special(index), where=m)
    return op


def invalid(ins: DecodedInstruction, message: str):
    def op(b: Batch):
        if b.any_active:
            raise Fault("invalid_instruction", message, np.flatnonzero(b.active))
    return op


def _lanes(b: Batch, mask, guard):
    """(lanes or None for all lanes, count) of the executing lanes."""
    if guard is None and b.full:
        return None, b.n
    m = mask(b)
    lanes = np.flatnonzero(m)
    return lanes, lanes.size


def _aligned_words(b: Batch, ra: int, is_local: bool):
    """The fast path of full-batch 32-bit accesses: (u32 view, word index per lane) when every
    address in register `ra` is aligned and in bounds, else None (the general path checks and
    reports)."""
    a = b.R[ra]
    size, mem32, base = b.word_view(is_local)
    if int(a.max()) + 4 > size or int(np.bitwise_or.reduce(a)) & 3:
        return None
    words = a >> 2                 # a new array: access logs keep it
    return mem32, (words if base is None else base + words)


def build_memory(ins: DecodedInstruction, count: int, ctx: RunContext, index: int):
    """Loads, stores and atomics on local or device memory (`spec.memory` says which)."""
    spec = ins.spec
    access = spec.memory
    atomics = access.kind not in ("load", "store")
    operation = atomic_operation(spec) if atomics else None  # which read-modify-write (§2.8)
    is_local = access.space == "local"
    space_of = local_space if is_local else device_space
    guard = (ins.pred_reg, ins.pred_neg) if ins.guarded else None
    mask = exec_mask(guard)
    warn = ctx.warner(index)
    stats = ctx.stats
    rd, ra, rv, r3 = ins.rd, ins.rs1, ins.rs2, ins.rs3
    if access.kind in ("load", "store"):
        load = access.kind == "load"
        data = rd if load else rv                 # the register(s) loaded into or stored from
        width, nwords = access.width, access.words
        used = [ra] + list(range(data, data + nwords))
        if any(r >= count for r in used):
            return register_error(ins, used, count, guard)

        count = Stats.counter(access.space, access.kind, width)

        def op(b: Batch):
            if width == 4 and guard is None and b.full:
                fast = _aligned_words(b, ra, is_local)
                if fast is not None:
                    mem32, w = fast
                    if b.log is not None and not is_local:
                        b.log.record_words(index, w, None, not load)
                    if b.epochs:
                        b.epochs[access.space].record_words(
                            index, w, None, not load, None if load else b.R[data])
                    if load:
                        b.R[data] = mem32[w]
                    else:
                        mem32[w] = b.R[data]
                    count(stats, b.n)
                    return
            lanes, n = _lanes(b, mask, guard)
            if not n:
                return
            space = space_of(b)
            a = addresses(space, b.R[ra], lanes, width, warn)
            if b.log is not None and not is_local:
                b.log.record(index, a, width, lanes, not load)
            if b.epochs:
                if width == 4 and not load and not (a & 3).any():
                    b.epochs[access.space].record_words(
                        index, a >> 2, lanes, True,
                        b.R[data] if lanes is None else b.R[data][lanes])
                else:
                    b.epochs[access.space].record(index, a, width, lanes, not load)
            if load:
                for i, w in enumerate(gather(space, a, width)):
                    if lanes is None:
                        b.R[data + i] = w
                    else:
                        b.R[data + i][lanes] = w
            else:
                scatter(space, a, [b.R[data + i] if lanes is None else b.R[data + i][lanes]
                                   for i in range(nwords)], width)
            count(stats, n)
        return op
    # atomics (32-bit)
    cas = operation == "cas"
    used = [ra, rv] + ([r3] if cas else []) + ([rd] if rd else [])
    if any(r >= count for r in used):
        return register_error(ins, used, count, guard)

    def op(b: Batch):
        m = mask(b)
        lanes = np.flatnonzero(m)
        if not lanes.size:
            return
        space = space_of(b)
        a = addresses(space, b.R[ra], lanes, 4, warn)
        if b.log is not None and not is_local:
            b.log.record(index, a, 4, lanes, True, atomic=True)
        if b.epochs and b.epochs[access.space].strict:      # racecheck: strict mode only
            b.epochs[access.space].record(index, a, 4, lanes, True, atomic=True)
        old = atomic(space, a, operation, b.R[rv][lanes], b.R[r3][lanes] if cas else None)
        stats.atomic += lanes.size        # upstream also counts one atomic op per lane
        if rd:
            b.R[rd][lanes] = old
    return op


def build_wave(ins: DecodedInstruction, count: int, ctx: RunContext, index: int):
    """Wave operations: which registers and predicates they use comes from their operands."""
    spec = ins.spec
    name = spec.mnemonic
    rd, r1, r2 = ins.rd, ins.rs1, ins.rs2
    guard = (ins.pred_reg, ins.pred_neg) if ins.guarded else None
    mask = exec_mask(guard)
    warn = ctx.warner(index)
    fields = [(o.kind, getattr(ins, o.field.value)) for o in spec.operands]
    used = [v for kind, v in fields if kind is OperandKind.REGISTER]
    if any(r >= count for r in used):
        return register_error(ins, used, count, guard)
    if any(v >= PREDICATE_COUNT for kind, v in fields if kind is OperandKind.PREDICATE):
        return invalid(ins, "predicate index out of range")
    shuffles = len(spec.operands) == 3   # rd, source, lane/delta/mask: shuffles and broadcast

    def op(b: Batch):
        m = mask(b)
        if not m.any():
            return
        W = b.W
        if shuffles:
            values, inactive, out_of_range = shuffle(name, b.R[r1], b.R[r2], m, W)
            if inactive.any():
                warn("inactive_shuffle_source", messages.inactive_shuffle(name), inactive)
            if out_of_range.any():
                warn("out_of_range_shuffle_source", messages.out_of_range_shuffle(name),
                     out_of_range)
            np.copyto(b.R[rd], values, where=m)
        elif name == "wave_ballot":
            np.copyto(b.R[rd], ballot(b.P[r1], m, W), where=m)
        elif name in ("wave_any", "wave_all"):
            np.copyto(b.P[rd], any_all(name, b.P[r1], m, W), where=m)
        elif name == "wave_prefix_sum":
            np.copyto(b.R[rd], prefix_sum(b.R[r1], m, W), where=m)
        else:
            np.copyto(b.R[rd], reduce(name, b.R[r1], m, W), where=m)
    return op


def build_mma(ins: DecodedInstruction, count: int, ctx: RunContext, index: int):
    """mma_load_a / mma_load_b / mma_store_c / mma_compute on per-lane 4x4 f32 fragments."""
    name = ins.spec.mnemonic
    rd, r1, r2 = ins.rd, ins.rs1, ins.rs2
    guard = (ins.pred_reg, ins.pred_neg) if ins.guarded else None
    mask = exec_mask(guard)
    warn = ctx.warner(index)
    loads = {"mma_load_a": "A", "mma_load_b": "B"}
    # registers read: the tile address and stride (fragments are numbered, not registers)
    used = {"mma_store_c": [rd, r1], "mma_compute": []}.get(name, [r1, r2])
    if any(r >= count for r in used):
        return register_error(ins, used, count, guard)

    def fragment(b: Batch, kind: str, number: int) -> np.ndarray:
        key = (kind, number)
        if key not in b.fragments:
            b.fragments[key] = np.zeros((b.n, 4, 4), dtype=np.float32)
        return b.fragments[key]

    def op(b: Batch):
        lanes = np.flatnonzero(mask(b))
        if not lanes.size:
            return
        space = local_space(b)
        if name in loads:
            tile = mma_tile_addresses(space, b.R[r1], b.R[r2], lanes, warn)
            values = gather(space, tile.reshape(-1), 4)[0].view(np.float32)
            fragment(b, loads[name], rd)[lanes] = values.reshape(-1, 4, 4)
        elif name == "mma_store_c":
            tile = mma_tile_addresses(space, b.R[rd], b.R[r1], lanes, warn)
            c = fragment(b, "C", r2)[lanes].reshape(-1).view(np.uint32)
            scatter(space, tile.reshape(-1), [c], 4)
        else:
            c = fragment(b, "C", r2)
            a, bb = fragment(b, "A", rd)[lanes], fragment(b, "B", r1)[lanes]
            acc = c[lanes]
            for k in range(4):            # C[i][j] += A[i][k] * B[k][j], k in order, in f32
                acc = mma_step(acc, a[:, :, k, None], bb[:, None, k, :])
            c[lanes] = acc
    return op
