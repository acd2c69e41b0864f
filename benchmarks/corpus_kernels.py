"""Independent generators of WAVE kernels, each writing distinct lines in its own style, so that
the analysis benchmarks measure more than one kind of input (`corpus.distinct_source` is one
style; a host tuned on it alone was found to be two to three times slower on others).

- `structured`: kernels as people write them — arguments, thread ids, address arithmetic, nested
  counted loops and ifs on thread ids, local memory staged through barriers (in uniform code
  only), device loads and stores, atomics; every register written before it is read;
- `math`: long straight-line kernels using every instruction class of `wave_lsp.isa` with the
  operands each class takes (f64 on even register pairs, scopes on atomics and fences, MMA...);
- `calls`: many small kernels, each with labelled functions it calls (nested calls included);
- `annotated`: kernels under long comment blocks, launch lines, expected outputs, `# ` comments,
  blank lines and directives in every spelling;
- `mixed` and `mixed-many`: `corpus.distinct_source`, clean and with many diagnostics.

`GENERATORS[name](lines, seed)` gives about `lines` lines; deterministic for a seed; every file
assembles with `wave_lsp.asm.assemble` and has no error-severity diagnostic (except
`mixed-many`, whose point is its findings).
"""

from __future__ import annotations

import random
from typing import Callable

from corpus import _WORDS, distinct_source

from wave_lsp.isa import INSTRUCTIONS, SCOPES, InstructionClass as C, OperandKind as K

ARGS = (0, 1, 2, 3)        # device offsets of the kernels' buffers, and a count
TEMPS = tuple(range(8, 52))  # what the body computes in
_BY_CLASS = {c: tuple(s for s in INSTRUCTIONS.values() if s.iclass is c) for c in C}
# the arithmetic a structured kernel computes with (memory, wave, control apart)
_ARITH = tuple(s for c in (C.INTEGER, C.FLOAT, C.BITWISE, C.CONVERT, C.F16, C.BF16)
               for s in _BY_CLASS[c]
               if s.mnemonic not in ("cvt_f32_f64", "cvt_f64_f32"))
_COMPARE = tuple(s for s in _BY_CLASS[C.COMPARE] if s.mnemonic != "select")


class _Kernel:
    """One kernel being written: its lines, the registers written so far, a serial number
    that makes comments distinct."""

    def __init__(self, rng: random.Random, serial: list[int]) -> None:
        self.rng = rng
        self.serial = serial
        self.lines: list[str] = []
        self.written: list[int] = list(ARGS)

    def note(self) -> str:
        self.serial[0] += 1
        return f"{' '.join(self.rng.sample(_WORDS, self.rng.randrange(1, 4)))} {self.serial[0]}"

    def emit(self, text: str, indent: int = 1, comment: float = 0.3) -> None:
        line = "    " * indent + text
        if self.rng.random() < comment:
            line += f"  ; {self.note()}"
        self.lines.append(line)

    def source(self) -> str:
        return f"r{self.rng.choice(self.written)}"

    def dest(self) -> str:
        reg = self.rng.choice(TEMPS)
        if reg not in self.written:
            self.written.append(reg)
        return f"r{reg}"

    def arith(self, indent: int, specs=_ARITH) -> None:
        spec = self.rng.choice(specs)
        ops = [self.source() for _ in spec.operands[1:]]
        dest = (f"p{self.rng.randrange(1, 4)}" if spec.operands[0].kind is K.PREDICATE
                else self.dest())
        self.emit(f"{spec.mnemonic} {dest}, {', '.join(ops)}", indent)


def _header(k: _Kernel, name: str, local: int | None, args: bool = True) -> None:
    rng = k.rng
    k.lines.append(f".kernel {name}")
    k.lines.append(".registers 64")
    k.lines.append(f".workgroup_size {rng.choice((32, 64, 128, 256))}, 1, 1")
    if local:
        k.lines.append(f".local_memory {local}")
    if args:
        k.lines.append("    ; wave-lsp args: " + " ".join(f"r{r}" for r in ARGS))


def _structured_kernel(rng: random.Random, number: int, size: int, serial: list[int]) -> list[str]:
    k = _Kernel(rng, serial)
    local = rng.choice((1024, 2048, 4096, 8192))
    k.lines.append(f"; {k.note()}: kernel {number}")
    _header(k, f"tile_{number}_{rng.randrange(1 << 24):x}", local)
    k.emit("mov_sr r4, sr_thread_id_x", comment=0)
    k.emit("mov_sr r5, sr_workgroup_id_x", comment=0)
    k.emit(f"mov_imm r6, {rng.randrange(2, 64)}")
    k.emit(f"mov_imm r7, {local - 4}")
    k.written += [4, 5, 6, 7]
    divergent = 0          # ifs on thread ids open around the current line
    stack: list[tuple[str, int, int]] = []   # (kind, loop counter, registers written before)
    counters = [52, 54, 56, 58]
    while len(k.lines) < size - 4:
        depth = len(stack) + 1
        roll = rng.random()
        if roll < 0.06 and len(stack) < 4:
            counter = counters[sum(1 for s in stack if s[0] == "loop")]
            k.emit(f"mov_imm r{counter}, 0", depth)
            k.emit(f"mov_imm r{counter + 1}, {rng.randrange(2, 300)}", depth)
            k.emit("loop", depth, comment=0.5)
            p = rng.randrange(1, 4)
            k.emit(f"icmp_ge p{p}, r{counter}, r{counter + 1}", depth + 1)
            k.emit(f"break p{p}", depth + 1, comment=0)
            stack.append(("loop", counter, len(k.written)))
        elif roll < 0.11 and len(stack) < 4:
            p = rng.randrange(1, 4)
            cmp = rng.choice(_COMPARE).mnemonic if rng.random() < 0.3 else "icmp_lt"
            k.emit(f"{cmp} p{p}, r4, {k.source()}", depth)
            k.emit(f"if p{p}", depth, comment=0.5)
            stack.append(("if", 0, len(k.written)))
            divergent += 1
        elif roll < 0.16 and stack:
            kind, counter, known = stack.pop()
            del k.written[known:]     # what a block first wrote may be unwritten after it
            if kind == "loop":
                k.emit(f"iadd r{counter}, r{counter}, r6", depth, comment=0)
                k.emit("endloop", depth - 1, comment=0.2)
            else:
                if rng.random() < 0.4:
                    k.emit("else", depth - 1, comment=0)
                    k.arith(depth)
                    del k.written[known:]
                k.emit("endif", depth - 1, comment=0.2)
                divergent -= 1
        elif roll < 0.26:   # stage a value through local memory
            address = k.dest()
            k.emit(f"imul {address}, r4, r6", depth)
            k.emit(f"and {address}, {address}, r7", depth)
            width = rng.choice(("u32", "u32", "u16", "u8"))
            k.emit(f"local_store_{width} {address}, {k.source()}", depth)
            if not divergent:
                k.emit("barrier", depth, comment=0.5)
            k.emit(f"local_load_{width} {k.dest()}, {address}", depth)
        elif roll < 0.33:   # device memory at base + index * 4
            address = k.dest()
            k.emit(f"imul {address}, r5, r6", depth)
            k.emit(f"iadd {address}, {address}, r{rng.choice(ARGS[:3])}", depth)
            if rng.random() < 0.5:
                k.emit(f"device_load_u32 {k.dest()}, {address}", depth)
            else:
                k.emit(f"device_store_u32 {address}, {k.source()}", depth)
        elif roll < 0.35:
            scope = rng.choice(SCOPES).name
            k.emit(f"atomic_add {k.dest()}, r{rng.choice(ARGS[:3])}, {k.source()}, .{scope}", depth)
        elif roll < 0.37 and not divergent:
            spec = rng.choice(("wave_reduce_add", "wave_prefix_sum", "wave_reduce_max"))
            k.emit(f"{spec} {k.dest()}, {k.source()}", depth)
        elif roll < 0.42:
            k.lines.append("    " * depth + f"; {k.note()}")
        elif roll < 0.45:
            k.lines.append("")
        else:
            k.arith(depth, _COMPARE if roll > 0.97 else _ARITH)
    while stack:
        kind, counter, known = stack.pop()
        del k.written[known:]
        if kind == "loop":
            k.emit(f"iadd r{counter}, r{counter}, r6", len(stack) + 2, comment=0)
        k.emit("endloop" if kind == "loop" else "endif", len(stack) + 1, comment=0)
    k.emit(f"device_store_u32 r2, {k.source()}")
    k.emit("halt", comment=0)
    k.lines += [".end", ""]
    return k.lines


def _math_operand(k: _Kernel, kind: K, pair: bool) -> str:
    if kind is K.REGISTER:
        reg = k.rng.randrange(8, 60, 2 if pair else 1)
        return f"r{reg}"
    if kind is K.PREDICATE:
        return f"p{k.rng.randrange(0, 4)}"
    if kind is K.SCOPE:
        return "." + k.rng.choice(SCOPES).name
    raise ValueError(kind)


def _math_kernel(rng: random.Random, number: int, size: int, serial: list[int]) -> list[str]:
    k = _Kernel(rng, serial)
    _header(k, f"math_{number}_{rng.randrange(1 << 24):x}", 4096, args=False)
    # straight-line code reads its registers from the dispatch
    k.lines.append("    ; wave-lsp args: " + " ".join(f"r{r}" for r in range(64)))
    classes = [c for c in C if c is not C.CONTROL]
    while len(k.lines) < size - 3:
        cls = rng.choice(classes)
        if cls is C.MISC and rng.random() < 0.5:
            value = (f"{rng.uniform(-1e3, 1e3):.{rng.randrange(1, 5)}f}" if rng.random() < 0.3
                     else str(rng.randrange(-(1 << 20), 1 << 24)))
            k.emit(f"mov_imm r{rng.randrange(8, 60)}, {value}")
            continue
        spec = rng.choice(_BY_CLASS[cls])
        if spec.mnemonic == "mov_imm":
            continue
        if spec.mnemonic == "mov_sr":
            k.emit(f"mov_sr r{rng.randrange(8, 60)}, sr_thread_id_{rng.choice('xyz')}")
            continue
        pair = cls is C.F64 or spec.mnemonic.endswith(("u64", "u128", "f64"))
        if spec.mnemonic.endswith("u128"):
            ops = [f"r{rng.randrange(8, 56, 4)}", f"r{rng.randrange(8, 60)}"]
            if "store" in spec.mnemonic:
                ops.reverse()
        else:
            ops = [_math_operand(k, op.kind, pair) for op in spec.operands]
        k.emit(f"{spec.mnemonic} {', '.join(ops)}".rstrip(), comment=0.25)
    k.emit("halt", comment=0)
    k.lines += [".end", ""]
    return k.lines


def _calls_kernel(rng: random.Random, number: int, size: int, serial: list[int]) -> list[str]:
    k = _Kernel(rng, serial)
    _header(k, f"calls_{number}_{rng.randrange(1 << 24):x}", None)
    k.emit("mov_sr r4, sr_thread_id_x", comment=0)
    k.written.append(4)
    functions = [f"fn_{number}_{i}_{rng.randrange(1 << 16):x}" for i in range(rng.randrange(2, 7))]
    body_end = max(8, size // 3)
    while len(k.lines) < body_end:
        if rng.random() < 0.15:
            k.emit(f"call {rng.choice(functions)}")
        else:
            k.arith(1)
    k.emit("halt", comment=0)
    per = max(4, (size - body_end) // len(functions))
    for i, name in enumerate(functions):
        k.lines.append(f"{name}:" + (f"  ; {k.note()}" if rng.random() < 0.3 else ""))
        k.written = list(ARGS) + [4]     # a function reads what every caller has written
        for _ in range(per):
            roll = rng.random()
            if roll < 0.1 and i + 1 < len(functions):   # a call only to a later function
                k.emit(f"call {rng.choice(functions[i + 1:])}")
            elif roll < 0.14:
                inner = f"{name}_at_{k.serial[0]}"
                k.serial[0] += 1
                k.lines.append(f"{inner}:")
            else:
                k.arith(1)
        k.emit("return", comment=0.2)
    k.lines += [".end", ""]
    return k.lines


def _annotated_kernel(rng: random.Random, number: int, size: int,
                      serial: list[int]) -> list[str]:
    k = _Kernel(rng, serial)
    for _ in range(rng.randrange(3, 12)):
        k.lines.append(rng.choice((";", "#", ";;")) + f" {k.note()}")
    name = f"doc_{number}_{rng.randrange(1 << 24):x}"
    grid = rng.choice((1, 2, 4, 16))
    k.lines.append(f"; wave-lsp run: --grid {grid},1,1 --fill-zero 0:u32:{rng.randrange(64, 4096)}"
                   f" --set-reg r1={rng.randrange(1 << 16)}")
    for _ in range(rng.randrange(0, 3)):
        k.lines.append(f"; wave-lsp expect: {k.note()}")
    k.lines.append("")
    _header(k, name, rng.choice((None, 256, 512)))
    k.emit("mov_sr r4, sr_thread_id_x", comment=0)
    k.written.append(4)
    while len(k.lines) < size - 3:
        roll = rng.random()
        if roll < 0.25:
            k.lines.append(rng.choice(("    ; ", "    # ", "; ", "    ;; ")) + k.note())
        elif roll < 0.35:
            k.lines.append("")
        else:
            k.arith(1)
            if rng.random() < 0.5:
                k.lines[-1] += f"  # {k.note()}"
    k.emit("halt", comment=0)
    k.lines += [".end", ""]
    return k.lines


def _kernels(make: Callable, kernel_lines: int) -> Callable[[int, int], str]:
    def generate(lines: int, seed: int = 1) -> str:
        rng = random.Random(seed)
        out = [f"; generated WAVE source ({make.__name__.strip('_')}), {lines} lines, seed {seed}"]
        serial = [0]
        number = 0
        while len(out) < lines:
            size = min(max(24, lines - len(out)),
                       rng.randrange(kernel_lines // 2, kernel_lines * 3 // 2))
            out += make(rng, number, size, serial)
            number += 1
        return "\n".join(out) + "\n"
    return generate


GENERATORS: dict[str, Callable[[int, int], str]] = {
    "mixed": lambda lines, seed=1: distinct_source(lines, seed, clean=True),
    "mixed-many": lambda lines, seed=1: distinct_source(lines, seed),
    "structured": _kernels(_structured_kernel, 400),
    "math": _kernels(_math_kernel, 400),
    "calls": _kernels(_calls_kernel, 150),
    "annotated": _kernels(_annotated_kernel, 200),
}
# the generators whose files have no error-severity diagnostic
CLEAN = tuple(name for name in GENERATORS if name != "mixed-many")
