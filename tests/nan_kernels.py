"""NaN operands of every float instruction family, for tests against upstream and between engines.

A family (`FAMILIES`) is one kernel: each lane loads six words (r2..r7: the operands, in the
family's format), runs every instruction of the family on them into its own destination and stores
the destinations after all the inputs. `rows(family)` gives operand rows that meet every pair of
the family's bit patterns (quiet and signalling NaNs of both signs with payloads, infinities,
zeros, numbers) in both orders, with NaN, invalid and ordinary third operands. `expected` is the
rule, written here independently of the emulator: the first NaN operand in the instruction's
order of precedence made quiet, else the default NaN of an invalid operation (None: an ordinary
result, not checked by the rule).

f32 divisors are never ±0: there DESIGN.md follows IEEE-754 where upstream gives +inf.
"""

from __future__ import annotations

import itertools
import math
import os
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wave_lsp.asm import assemble
from wave_lsp.emu import Launch
from wave_lsp.emu.kernel_launch import DataFill

WORDS_IN = 6


@dataclass(frozen=True)
class Format:
    bits: int
    infinity: int
    quiet: int
    default: int

    def is_nan(self, x: int) -> bool:
        return x & ((1 << (self.bits - 1)) - 1) > self.infinity


F32 = Format(32, 0x7F800000, 0x00400000, 0xFFC00000)
F16 = Format(16, 0x7C00, 0x0200, 0xFE00)
BF16 = Format(16, 0x7F80, 0x0040, 0xFFC0)
F64 = Format(64, 0x7FF0000000000000, 1 << 51, 0xFFF8000000000000)

NANS = {
    "f32": [0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFD00001, 0x7F800001, 0xFF800ABC,
            0x7FBFFFFF, 0x7F802000],
    "f16": [0x7E00, 0xFE00, 0x7C01, 0xFC02, 0x7E03, 0xFE04, 0x7DFF, 0x7FFF],
    "bf16": [0x7FC0, 0xFFC0, 0x7F81, 0xFF82, 0x7FC3, 0x7FFF, 0xFFBF],
    "f64": [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0000000000002,
            0x7FF8000012345678, 0x7FF7FFFFFFFFFFFF, 0xFFF0000100000000],
}
OTHERS = {
    "f32": [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x3F800000, 0xBF800000, 0x40490FDB],
    "f16": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x3C00, 0xBC00, 0x4248],
    "bf16": [0x0000, 0x8000, 0x7F80, 0xFF80, 0x3F80, 0xBF80, 0x4049],
    "f64": [0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x3FF0000000000000,
            0xBFF0000000000000, 0x400921FB54442D18],
}

# (text with D for the destination, precedence order of the operands, destination words)
FAMILIES = {
    "f32": [("fadd D, r2, r3", (0, 1)), ("fsub D, r2, r3", (0, 1)), ("fmul D, r2, r3", (0, 1)),
            ("fdiv D, r2, r3", (0, 1)), ("fma D, r2, r3, r4", (1, 0, 2)),
            ("fsqrt D, r2", (0,)), ("frsqrt D, r2", (0,)), ("frcp D, r2", (0,)),
            ("ffloor D, r2", "keep"), ("fceil D, r2", "keep"), ("ftrunc D, r2", "keep"),
            ("fround D, r2", (0,)), ("ffract D, r2", (0,)),
            ("cvt_f16_f32 D, r2", "to_f16"), ("cvt_bf16_f32 D, r2", "shift"),
            ("cvt_f64_f32 D, r2", "to_f64")],
    "f16": [("hadd D, r2, r3", (1, 0)), ("hsub D, r2, r3", (0, 1)), ("hmul D, r2, r3", (1, 0)),
            ("hma D, r2, r3, r4", (1, 0, 2)), ("hadd2 D, r2, r3", (1, 0)),
            ("hmul2 D, r2, r3", (1, 0)), ("hma2 D, r2, r3, r4", (1, 0, 2)),
            ("cvt_f32_f16 D, r2", "from_f16")],
    "bf16": [("badd D, r2, r3", (0, 1)), ("bsub D, r2, r3", (0, 1)), ("bmul D, r2, r3", (0, 1)),
             ("bma D, r2, r3, r4", (1, 0, 2)), ("badd2 D, r2, r3", (0, 1)),
             ("bmul2 D, r2, r3", (0, 1)), ("bma2 D, r2, r3, r4", (1, 0, 2)),
             ("cvt_f32_bf16 D, r2", "shift")],
    "f64": [("dadd D, r2, r4", (0, 1)), ("dsub D, r2, r4", (0, 1)), ("dmul D, r2, r4", (0, 1)),
            ("ddiv D, r2, r4", (0, 1)), ("dma D, r2, r4, r6", (1, 0, 2)), ("dsqrt D, r2", (0,)),
            ("cvt_f32_f64 D, r2", "from_f64")],
}
LANE_COUNTS = [1, 7, 32, 100]


def _wide(text: str) -> bool:
    """Whether the instruction writes a register pair."""
    name = text.split()[0]
    return name.startswith("d") or name == "cvt_f64_f32"


def destinations(family: str) -> list[int]:
    """The first destination register of each instruction (pairs take two)."""
    regs, reg = [], 8
    for text, _ in FAMILIES[family]:
        regs.append(reg)
        reg += 2 if _wide(text) else 1
    return regs


def words_out(family: str) -> int:
    return destinations(family)[-1] + (2 if _wide(FAMILIES[family][-1][0]) else 1) - 8


def kernel(family: str, lanes: int) -> str:
    """The family's kernel for `lanes` lanes in all (workgroup id * size + thread id)."""
    out = words_out(family)
    assert 8 + out <= 30, "r30 and r31 are the kernel's own"
    lines = [f".kernel nan_{family}", ".registers 32",
             "    mov_sr r0, sr_workgroup_id_x", "    mov_sr r1, sr_workgroup_size_x",
             "    imul r0, r0, r1", "    mov_sr r1, sr_thread_id_x", "    iadd r0, r0, r1",
             "    mov_imm r30, 4", f"    mov_imm r31, {4 * WORDS_IN}", "    imul r31, r0, r31"]
    for i in range(WORDS_IN):
        lines += [f"    device_load_u32 r{2 + i}, r31", "    iadd r31, r31, r30"]
    for (text, _), reg in zip(FAMILIES[family], destinations(family)):
        lines.append("    " + text.replace("D", f"r{reg}", 1))
    lines += [f"    mov_imm r31, {4 * out}", "    imul r31, r0, r31",
              f"    mov_imm r1, {4 * WORDS_IN * lanes}", "    iadd r31, r31, r1"]
    for i in range(out):
        lines += [f"    device_store_u32 r31, r{8 + i}", "    iadd r31, r31, r30"]
    return "\n".join(lines + ["    halt", ".end", ""])


def operand_words(family: str, operands: tuple[int, ...], high: tuple[int, ...]) -> list[int]:
    """The six input words of one lane: f32 words, f16/bf16 halves (low `operands`, high
    `high`), or f64 pairs."""
    if family == "f64":
        return [w for x in operands for w in (x & 0xFFFFFFFF, x >> 32)]
    if family == "f32":
        return list(operands) + [0x3F800000] * (WORDS_IN - len(operands))
    return [lo | (hi << 16) for lo, hi in zip(operands, high)] + [0] * (WORDS_IN - 3)


def rows(family: str) -> list[tuple[int, ...]]:
    """Operand triples meeting every pair of patterns in both orders (f32 divisors not ±0),
    every triple of four NaNs, and NaN, invalid-making and ordinary third operands."""
    values = NANS[family] + OTHERS[family]
    second = [v for v in values if family != "f32" or v & 0x7FFFFFFF]
    out = [(a, b, values[(3 * i + 5 * j) % len(values)])
           for i, a in enumerate(values) for j, b in enumerate(second)]
    out += list(itertools.product(NANS[family][:4], NANS[family][2:6], NANS[family][1:5]))
    zero, inf = OTHERS[family][0], OTHERS[family][2]
    out += [(zero, inf, c) for c in values] + [(inf, inf, c) for c in NANS[family]]
    return out


def lane_words(family: str, triples: list[tuple[int, ...]]) -> list[int]:
    """The input words of lanes of `triples` (a 16-bit family's high halves: the triple of
    the lane reversed, so packed instructions meet other pairs there)."""
    words = []
    for t in triples:
        words += operand_words(family, t, tuple(reversed(t)))
    return words


def make_launch(family: str, words: list[int], group: int, width: int) -> Launch:
    """All the lanes of `words` in workgroups of `group` lanes (the last padded)."""
    lanes = len(words) // WORDS_IN
    groups = -(-lanes // group)
    total = groups * group
    data = struct.pack(f"<{len(words)}I", *words)
    return Launch(grid=(groups, 1, 1), workgroup=(group, 1, 1), wave_width=width,
                  device_memory=4 * (WORDS_IN + words_out(family)) * total,
                  memory_init=(DataFill(0, data),))


def outputs(family: str, memory: bytes, lanes: int) -> np.ndarray:
    """(lanes, words out) of the results in device memory."""
    start = 4 * WORDS_IN * lanes
    out = np.frombuffer(memory, dtype="<u4")[start // 4:start // 4 + words_out(family) * lanes]
    return out.reshape(lanes, words_out(family))


def upstream_outputs(binary: Path, family: str, words: list[int], group: int, width: int,
                     work: Path) -> np.ndarray:
    """The results of upstream's wave-emu on the same launch, as `outputs`."""
    lanes = len(words) // WORDS_IN
    total = -(-lanes // group) * group
    (work / "nan.wbin").write_bytes(assemble(kernel(family, total)).wbin())
    (work / "nan.bin").write_bytes(struct.pack(f"<{len(words)}I", *words))
    out = words_out(family)
    done = subprocess.run(
        [str(binary), "nan.wbin", "--grid", f"{total // group},1,1", "--workgroup",
         f"{group},1,1", "--wave-width", str(width), "--device-memory",
         str(4 * (WORDS_IN + out) * total), "--arg", "0:nan.bin", "--dump-u32",
         f"{4 * WORDS_IN * total}:{out * total}"],
        capture_output=True, text=True, cwd=work, timeout=120, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    return np.array([int(v) for v in done.stdout.split()], dtype=np.uint32).reshape(total, out)


# ---- the rule ------------------------------------------------------------------------------
def _f32(x: int) -> float:
    return struct.unpack("<f", struct.pack("<I", x & 0xFFFFFFFF))[0]


def _f64(x: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", x))[0]


def _half(x: int) -> float:
    return float(np.array([x], dtype=np.uint16).view(np.float16)[0])


def _value(family: str, x: int) -> float:
    return {"f32": _f32, "f64": _f64, "f16": _half, "bf16": lambda h: _f32(h << 16)}[family](x)


def _arith(name: str, xs: list[float]) -> float:
    """The operation on Python floats (NaN where it is invalid)."""
    a, b = xs[0], xs[1] if len(xs) > 1 else 0.0
    try:
        if name.endswith(("add", "add2")):
            return a + b
        if name.endswith("sub"):
            return a - b
        if name.endswith(("mul", "mul2")):
            return a * b
        if name.endswith("div"):
            return a / b if b else math.copysign(math.inf, a) if a == a and a else math.nan
        if name.endswith(("ma", "ma2")):
            return a * b + xs[2]
        if name.endswith("sqrt"):
            return math.sqrt(a) if a >= 0 or a != a else math.nan
        if name == "frsqrt":
            return 1 / math.sqrt(a) if a > 0 else math.inf if a == 0 else math.nan
        if name == "frcp":
            return 1 / a if a else math.inf
        if name == "fround":
            return a if math.isinf(a) else float(math.trunc(a + math.copysign(0.5, a)))
        if name == "ffract":
            return a - math.trunc(a) if not math.isinf(a) else math.nan
    except (OverflowError, ValueError):
        return math.inf
    raise AssertionError(name)


FORMATS = {"f32": F32, "f16": F16, "bf16": BF16, "f64": F64}

def expected(family: str, text: str, rule, operands: tuple[int, ...]) -> int | None:
    """The instruction's result on `operands` (in the family's format) where a NaN decides it;
    None where the result is an ordinary number (not the rule's business)."""
    fmt, name = FORMATS[family], text.split()[0]
    a = operands[0]
    if rule == "keep":
        return a if fmt.is_nan(a) else None
    if rule == "shift":                              # bf16 <-> f32: the bits as they are
        return a >> 16 if family == "f32" else a << 16
    if rule == "to_f16":
        return ((a >> 16) & 0x8000) | 0x7E00 | ((a >> 13) & 0x3FF) if F32.is_nan(a) else None
    if rule == "from_f16":
        return ((a & 0x8000) << 16) | 0x7FC00000 | ((a & 0x3FF) << 13) if F16.is_nan(a) \
            else None
    if rule == "to_f64":
        return ((a >> 31) << 63) | 0x7FF8000000000000 | ((a & 0x7FFFFF) << 29) \
            if F32.is_nan(a) else None
    if rule == "from_f64":
        return ((a >> 32) & 0x80000000) | 0x7FC00000 | ((a >> 29) & 0x7FFFFF) \
            if F64.is_nan(a) else None
    for i in rule:
        if fmt.is_nan(operands[i]):
            return operands[i] | fmt.quiet
    arity = max(rule) + 1
    result = _arith(name, [_value(family, x) for x in operands[:arity]])
    return fmt.default if result != result else None


def results(family: str, out_row, text: str) -> list[int]:
    """One lane's results of instruction `text` from its destination words: [value] or, for a
    packed instruction, [low half, high half]."""
    index = [t for t, _ in FAMILIES[family]].index(text)
    at = destinations(family)[index] - 8
    if _wide(text):
        return [int(out_row[at]) | (int(out_row[at + 1]) << 32)]
    word = int(out_row[at])
    name = text.split()[0]
    if name[0] in "hb" and name.endswith("2"):          # packed: two 16-bit results
        return [word & 0xFFFF, word >> 16]
    return [word]


def rule_mismatches(family: str, triples: list[tuple[int, ...]], out: np.ndarray) -> list[str]:
    """Where the results `out` (lanes, words) break the rule (`expected`), as readable lines."""
    bad = []
    for lane, operands in enumerate(triples):
        for text, rule in FAMILIES[family]:
            got = results(family, out[lane], text)
            halves = [operands, tuple(reversed(operands))][:len(got)]
            for half, (ops, value) in enumerate(zip(halves, got)):
                want = expected(family, text, rule, ops)
                if want is not None and want != value:
                    bad.append(f"{text.split()[0]} {[hex(x) for x in ops]} half {half}: "
                               f"{value:#x}, the rule {want:#x}")
    return bad
