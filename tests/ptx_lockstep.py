"""Interpreters for the PTX that `wave-lsp emit` writes (ptxas is not available here), so tests can
compare the emitted code's results with the emulator's: `Warp` runs straight-line code in lockstep
over one warp of 32 lanes; `Threads` gives each lane its own program counter (branches, loops,
`ret`) and lets lanes meet only at shfl.sync / vote.sync, which complete once every non-exited
lane of the member mask waits there (a mask naming a lane that never arrives is undefined PTX and
raises DeadlockError). Both follow the PTX ISA for what they support (shfl modes with clamps,
vote.sync, predicated execution, clamped shifts, .rn f32 arithmetic) and raise on anything else,
so an unexpected instruction fails the test rather than being skipped."""

from __future__ import annotations

import re

import numpy as np

LANES = 32
_GUARD = re.compile(r"^@(!?)(%\w+)\s+")
_ADDRESS = re.compile(r"^\[(%\w+)(?:\+(\d+))?\]$")


class Warp:
    def __init__(self, shared_bytes: int):
        self.regs: dict[str, np.ndarray] = {}
        self.shared = np.zeros(shared_bytes, dtype=np.uint8)
        self.lane = np.arange(LANES, dtype=np.uint32)
        self.specials = {"%tid.x": 0, "%tid.y": 0, "%tid.z": 0, "%ntid.x": LANES, "%ntid.y": 1,
                         "%ntid.z": 1}

    # ---- operands --------------------------------------------------------------------------
    def value(self, text: str) -> np.ndarray:
        negate = text.startswith("!")
        text = text.lstrip("!")
        if text == "%laneid":
            out = self.lane.copy()
        elif text in self.specials:
            out = np.full(LANES, self.specials[text], dtype=np.uint32)
            if text == "%tid.x":
                out = self.lane.copy()
        elif text == "_shared_mem":
            out = np.zeros(LANES, dtype=np.uint32)
        elif text.startswith("%"):
            out = self.regs.get(text, np.zeros(LANES, dtype=np.uint32))
        elif text.startswith("0f"):
            out = np.full(LANES, int(text[2:], 16), dtype=np.uint32)
        else:
            out = np.full(LANES, int(text, 0) & 0xFFFFFFFF, dtype=np.uint32)
        return (out == 0).astype(np.uint32) if negate else out

    def write(self, name: str, values, where: np.ndarray) -> None:
        old = self.regs.get(name, np.zeros(LANES, dtype=np.uint32))
        self.regs[name] = np.where(where, np.asarray(values).astype(np.uint32), old)

    def address(self, text: str) -> np.ndarray:
        found = _ADDRESS.match(text)
        if not found:
            raise ValueError(f"unsupported address {text}")
        return self.value(found.group(1)) + np.uint32(int(found.group(2) or 0))

    # ---- execution -------------------------------------------------------------------------
    def run(self, text: str) -> None:
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith((".", "ld.param", "}", ")", "ret;")) or line == "{":
                continue
            self.step(line)

    def step(self, line: str, within: np.ndarray | None = None) -> None:
        where = np.ones(LANES, dtype=bool) if within is None else within.copy()
        guard = _GUARD.match(line)
        if guard:
            where &= (self.value(guard.group(2)) != 0) ^ (guard.group(1) == "!")
            line = line[guard.end():]
        op, _, rest = line.rstrip(";").partition(" ")
        args = [a.strip() for a in rest.split(",")]
        parts = op.split(".")
        f32 = lambda a: self.value(a).view(np.float32)      # noqa: E731
        signed = lambda a: self.value(a).view(np.int32)     # noqa: E731
        if parts[0] == "mov":
            self.write(args[0], self.value(args[1]), where)
        elif op in ("add.u32", "add.s32"):
            self.write(args[0], self.value(args[1]) + self.value(args[2]), where)
        elif op in ("sub.u32", "sub.s32"):
            self.write(args[0], self.value(args[1]) - self.value(args[2]), where)
        elif op == "xor.b32":
            self.write(args[0], self.value(args[1]) ^ self.value(args[2]), where)
        elif op == "not.b32":
            self.write(args[0], ~self.value(args[1]), where)
        elif op == "shr.b32":      # shift amounts beyond 32 are clamped to 32
            amount = self.value(args[2]).astype(np.int64)
            shifted = self.value(args[1]).astype(np.int64) >> np.minimum(amount, 32)
            self.write(args[0], shifted.astype(np.uint32), where)
        elif op == "mul.lo.u32":
            self.write(args[0], self.value(args[1]) * self.value(args[2]), where)
        elif op == "mad.lo.u32":
            self.write(args[0], self.value(args[1]) * self.value(args[2]) + self.value(args[3]),
                       where)
        elif op == "shl.b32":      # shift amounts beyond 32 are clamped to 32
            amount = np.minimum(self.value(args[2]).astype(np.int64), 32)
            shifted = (self.value(args[1]).astype(np.int64) << amount) & 0xFFFFFFFF
            self.write(args[0], shifted.astype(np.uint32), where)
        elif op == "mul.lo.s32":
            self.write(args[0], self.value(args[1]) * self.value(args[2]), where)
        elif op == "neg.s32":
            self.write(args[0], np.uint32(0) - self.value(args[1]), where)
        elif op == "and.b32":
            self.write(args[0], self.value(args[1]) & self.value(args[2]), where)
        elif parts[0] in ("min", "max") and len(parts) == 2:
            get = signed if parts[1] == "s32" else self.value
            pick = np.minimum if parts[0] == "min" else np.maximum
            self.write(args[0], pick(get(args[1]), get(args[2])).view(np.uint32), where)
        elif op in ("add.rn.f32", "mul.rn.f32"):
            a, b = f32(args[1]), f32(args[2])
            self.write(args[0], ((a + b) if parts[0] == "add" else (a * b)).view(np.uint32),
                       where)
        elif op == "selp.b32":
            pick = self.value(args[3]) != 0
            self.write(args[0], np.where(pick, self.value(args[1]), self.value(args[2])), where)
        elif parts[0] == "setp":
            get = signed if parts[-1] == "s32" else self.value
            compare = {"ne": np.not_equal, "eq": np.equal, "lt": np.less, "le": np.less_equal}
            result = compare[parts[1]](get(args[1]), get(args[2]))
            if len(parts) == 4:        # setp.CMP.and.TYPE p, a, b, c
                assert parts[2] == "and", line
                result = result & (self.value(args[3]) != 0)
            self.write(args[0], result, where)
        elif op == "bfind.u32":
            v = self.value(args[1]).astype(np.int64)
            top = np.where(v == 0, 0xFFFFFFFF, np.floor(np.log2(np.maximum(v, 1))).astype(np.int64))
            self.write(args[0], top, where)
        elif op.startswith("shfl.sync."):
            self.shuffle(parts[2], args, where)
        elif op.startswith("vote.sync."):
            self.vote(parts[2], args, where)
        elif op in ("ld.shared.f32", "ld.shared.u32"):
            at = self.address(args[1]).astype(np.int64)
            words = [self.shared[a:a + 4].view(np.uint32)[0] if w else 0 for a, w in zip(at, where)]
            self.write(args[0], np.array(words, dtype=np.uint32), where)
        elif op in ("st.shared.f32", "st.shared.u32"):
            at, values = self.address(args[0]).astype(np.int64), self.value(args[1])
            for lane in np.flatnonzero(where):
                self.shared[at[lane]:at[lane] + 4] = values[lane:lane + 1].view(np.uint8)
        else:
            raise ValueError(f"the lockstep interpreter does not support: {line}")

    def shuffle(self, mode: str, args: list[str], where: np.ndarray) -> None:
        if args[4] != "0xFFFFFFFF" or not where.all():
            raise ValueError("shfl.sync with a partial member mask or a guard is undefined here")
        dest, _, flag = args[0].partition("|")
        a, b = self.value(args[1]), self.value(args[2]).astype(np.int64)
        lane = self.lane.astype(np.int64)
        j = {"idx": b & 31, "up": lane - b, "down": lane + b, "bfly": lane ^ b}[mode]
        valid = (j >= 0) if mode == "up" else (j <= 31)
        j = np.where(valid, j, lane)
        self.write(dest, a[j], where)
        if flag:
            self.write(flag, valid, where)

    def vote(self, mode: str, args: list[str], where: np.ndarray) -> None:
        if args[2] != "0xFFFFFFFF" or not where.all():
            raise ValueError("vote.sync with a partial member mask or a guard is undefined here")
        p = self.value(args[1]) != 0
        if mode == "ballot":
            word = int(sum(1 << i for i in np.flatnonzero(p)))
            self.write(args[0], np.full(LANES, word, dtype=np.uint32), where)
        else:
            self.write(args[0], np.full(LANES, p.any() if mode == "any" else p.all()), where)


# ---- threads with their own program counters ---------------------------------------------------
POISON = 0xBAD0BAD0      # what an unpredictable value reads as
_SYNC = ("shfl.sync.", "vote.sync.")


class DeadlockError(AssertionError):
    """The PTX is undefined: a sync's member mask names lanes that never reach it."""


class Threads(Warp):
    """One warp whose lanes run independently (as under independent thread scheduling) and meet
    only at `shfl.sync` / `vote.sync`, which run once every non-exited lane named in the member
    mask waits at the same instruction with the same mask; anything else (a lane that never
    arrives, a lane outside its own mask) raises DeadlockError. Lanes at or beyond `threads`
    do not exist. Reading the register of a lane that is not taking part gives POISON."""

    def __init__(self, shared_bytes: int = 0, threads: int = LANES):
        super().__init__(shared_bytes)
        self.specials["%ntid.x"] = threads
        self.exited = self.lane >= threads

    def run(self, text: str, limit: int = 200_000) -> None:
        lines, labels = [], {}
        for raw in text.split("ld.param.u64", 1)[-1].splitlines()[1:]:
            line = raw.strip()
            if line.endswith(":") and line.startswith("$"):
                labels[line[:-1]] = len(lines)
            elif line.startswith("ld.param"):    # kernel arguments: 0, as the emulator's
                continue                         # registers start
            elif line and line != "}":
                lines.append(line)
        pc = np.zeros(LANES, dtype=np.int64)
        waiting = np.zeros(LANES, dtype=bool)
        steps = 0
        while not self.exited.all():
            for lane in range(LANES):
                while not self.exited[lane] and not waiting[lane]:
                    steps += 1
                    if steps > limit:
                        raise DeadlockError("too many steps")
                    if pc[lane] >= len(lines):
                        self.exited[lane] = True
                        break
                    line = lines[pc[lane]]
                    only = self.lane == lane
                    guard = _GUARD.match(line)
                    body = line[guard.end():] if guard else line
                    taken = True
                    if guard:
                        taken = bool(((self.value(guard.group(2)) != 0) ^ (guard.group(1) == "!"))[lane])
                    if body.startswith(_SYNC) and taken:
                        waiting[lane] = True
                    elif body.startswith("bra"):
                        pc[lane] = labels[body.split()[1].rstrip(";")] if taken else pc[lane] + 1
                    elif body == "ret;":
                        if taken:
                            self.exited[lane] = True
                        pc[lane] += 1
                    else:
                        self.step(line, only)
                        pc[lane] += 1
            if self.exited.all():
                break
            self.resolve(lines, pc, waiting)

    def resolve(self, lines, pc, waiting) -> None:
        live = ~self.exited
        for where in sorted({int(pc[l]) for l in np.flatnonzero(waiting)}):
            here = waiting & (pc == where)
            line = lines[where]
            guard = _GUARD.match(line)
            body = line[guard.end():] if guard else line
            op, _, rest = body.rstrip(";").partition(" ")
            args = [a.strip() for a in rest.split(",")]
            masks = self.value(args[-1])
            for mask in sorted({int(masks[l]) for l in np.flatnonzero(here)}):
                group = here & (masks == mask)
                named = ((mask >> self.lane.astype(np.int64)) & 1).astype(bool)
                if (group & ~named).any():
                    raise DeadlockError(f"lane outside its member mask at: {line}")
                if (named & live & ~group).any():
                    continue            # someone named has not arrived (yet)
                if op.startswith("shfl.sync."):
                    self.collective_shuffle(op.split(".")[2], args, group)
                else:
                    self.collective_vote(op.split(".")[2], args, group)
                waiting[group] = False
                pc[group] += 1
                return
        raise DeadlockError("no sync can complete: " + "; ".join(
            lines[int(pc[l])] for l in np.flatnonzero(waiting)[:3]))

    def collective_shuffle(self, mode: str, args, group) -> None:
        dest, _, flag = args[0].partition("|")
        a, b = self.value(args[1]), self.value(args[2]).astype(np.int64) & 31
        c = int(self.value(args[3])[0]) & 31
        lane = self.lane.astype(np.int64)
        j = {"idx": b, "up": lane - b, "down": lane + b, "bfly": lane ^ b}[mode]
        valid = (j >= c) if mode == "up" else (j <= c)
        j = np.where(valid, j, lane)
        got = np.where(group[j], a[j], np.uint32(POISON))
        self.write(dest, got, group)
        if flag:
            self.write(flag, valid, group)

    def collective_vote(self, mode: str, args, group) -> None:
        p = (self.value(args[1]) != 0) & group
        if mode == "ballot":
            word = int(sum(1 << int(i) for i in np.flatnonzero(p)))
            self.write(args[0], np.full(LANES, word, dtype=np.uint32), group)
        else:
            result = p.any() if mode == "any" else (p | ~group).all()
            self.write(args[0], np.full(LANES, result), group)
