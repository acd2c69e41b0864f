"""Synthetic WAVE sources made of distinct lines, as real files are: varied mnemonics, registers,
immediates, comments and structure (kernels, if/else, loops, labels and calls, barriers).

Benchmarks and the tests of the analysis host build their inputs here, so that per-line caches
do not hide the real cost of parsing and checking (a file of one kernel repeated hits them on
almost every line). `distinct_source(lines, seed)` is deterministic for a seed.

Two styles: by default every instruction of the ISA appears anywhere, so about one line in ten
gets a diagnostic (f64 instructions that some targets lack, float immediates, wave operations
under divergent control flow: the "many diagnostics" case). `clean=True` writes what a kernel
author would: no f64 (the default targets include Metal, which has none), integer or bit-pattern
immediates, wave operations only in uniform code, every register stated as an argument (random
code reads registers before writing them), so the file is mostly clean, as real files are.
"""

from __future__ import annotations

import random

from wave_lsp.isa.backends import F64_CONVERSIONS
from wave_lsp.isa import INSTRUCTIONS, SCOPES, SPECIAL_REGISTERS, InstructionClass, OperandKind

REGISTERS = 64
_WORDS = ("load", "tile", "row", "column", "sum", "partial", "index", "offset", "stride",
          "lane", "wave", "block", "accumulate", "scale", "bias", "mask", "carry", "pivot",
          "stage", "prefetch", "result", "store", "bound", "check", "swap", "merge")
_PLAIN = tuple(spec for spec in INSTRUCTIONS.values()
               if spec.iclass not in (InstructionClass.CONTROL, InstructionClass.SYNC,
                                      InstructionClass.MMA)
               and all(op.kind is not OperandKind.LABEL for op in spec.operands)
               and spec.mnemonic not in ("atomic_cas", "local_atomic_cas", "mov_imm"))
# clean style: no f64 anywhere, wave operations only where every lane of the wave is active
_CLEAN = tuple(spec for spec in _PLAIN
               if spec.iclass not in (InstructionClass.F64, InstructionClass.WAVE)
               and spec.mnemonic not in F64_CONVERSIONS)
_WAVE = tuple(spec for spec in _PLAIN if spec.iclass is InstructionClass.WAVE
              and spec.mnemonic != "wave_shuffle_xor")


def _operand(rng: random.Random, kind: OperandKind) -> str:
    if kind is OperandKind.REGISTER:
        return f"r{rng.randrange(REGISTERS - 4)}"
    if kind is OperandKind.PREDICATE:
        return f"p{rng.randrange(1, 4)}"
    if kind is OperandKind.SPECIAL:
        return rng.choice(SPECIAL_REGISTERS).name
    if kind is OperandKind.SCOPE:
        return "." + rng.choice(SCOPES).name
    return str(rng.randrange(1 << 20))


def _comment(rng: random.Random, serial: int) -> str:
    return f"; {' '.join(rng.sample(_WORDS, rng.randrange(1, 4)))} {serial}"


def _instruction(rng: random.Random, serial: int, clean: bool = False,
                 uniform: bool = True) -> str:
    roll = rng.random()
    if roll < 0.12:
        if clean:   # an integer, or a float's bit pattern
            value = (f"0x{rng.randrange(1 << 32):08x}" if rng.random() < 0.3
                     else str(rng.randrange(-(1 << 20), 1 << 24)))
        else:
            value = (f"{rng.uniform(-1e4, 1e4):.{rng.randrange(1, 6)}f}" if rng.random() < 0.3
                     else str(rng.randrange(-(1 << 20), 1 << 24)))
        text = f"mov_imm r{rng.randrange(REGISTERS - 4)}, {value}"
    else:
        if not clean:
            spec = rng.choice(_PLAIN)
        elif uniform and rng.random() < 0.03:
            spec = rng.choice(_WAVE)
        else:
            spec = rng.choice(_CLEAN)
        text = spec.mnemonic
        if spec.operands:
            text += " " + ", ".join(_operand(rng, op.kind) for op in spec.operands)
    if rng.random() < 0.08 and not (clean and spec_is_wave(text)):
        text = f"@{'!' if rng.random() < 0.3 else ''}p{rng.randrange(1, 4)} {text}"
    if rng.random() < 0.35:
        text += "  " + _comment(rng, serial)
    return "    " + text


def spec_is_wave(text: str) -> bool:
    return text.startswith("wave_")


def _kernel(rng: random.Random, number: int, body_lines: int, serial: list[int],
            clean: bool = False) -> list[str]:
    out = [f".kernel kernel_{number}_{rng.randrange(1 << 30):x}", f".registers {REGISTERS}",
           f".workgroup_size {rng.choice((32, 64, 128))}, 1, 1",
           "    mov_sr r0, sr_thread_id_x"]
    if clean:   # its registers are its arguments: random code reads them before any write
        out.insert(1, "    ; wave-lsp args: " + " ".join(f"r{r}" for r in range(1, REGISTERS)))
    depth: list[str] = []
    function = None
    while len(out) < body_lines:
        serial[0] += 1
        roll = rng.random()
        if roll < 0.04 and len(depth) < 4:
            p = rng.randrange(1, 4)
            out.append(f"    icmp_lt p{p}, r{rng.randrange(REGISTERS - 4)}, "
                       f"r{rng.randrange(REGISTERS - 4)}")
            out.append(f"    if p{p}")
            depth.append("if")
        elif roll < 0.06 and len(depth) < 4:
            out.append("    loop")
            depth.append("loop")
        elif roll < 0.08 and depth:
            kind = depth.pop()
            if kind == "loop":
                p = rng.randrange(1, 4)
                out.append(f"    icmp_ge p{p}, r{rng.randrange(REGISTERS - 4)}, r1")
                out.append(f"    break p{p}")
                out.append("    endloop")
            else:
                if rng.random() < 0.4:
                    out.append("    else")
                    out.append(_instruction(rng, serial[0], clean, False))
                out.append("    endif")
        elif roll < 0.09 and not depth and function is None:
            function = f"helper_{number}_{serial[0]}"
            out.append(f"    call {function}")
        elif roll < 0.10 and not depth:
            out.append("    barrier")
        elif roll < 0.16:
            out.append(_comment(rng, serial[0]))
        elif roll < 0.20:
            out.append("")
        else:
            out.append(_instruction(rng, serial[0], clean, not depth))
    while depth:
        out.append("    endloop" if depth.pop() == "loop" else "    endif")
    out.append("    halt")
    if function is not None:
        out += [f"{function}:", _instruction(rng, serial[0] + 1, clean), "    return"]
    out.append(".end")
    out.append("")
    return out


def distinct_source(lines: int, seed: int = 1, kernel_lines: int = 300,
                    clean: bool = False) -> str:
    """About `lines` lines of valid WAVE (every kernel closed and halting), nearly all
    distinct; `clean`: mostly without diagnostics, as real files are (see above)."""
    rng = random.Random(seed)
    out: list[str] = [f"; synthetic WAVE source, {lines} lines, seed {seed}"]
    serial = [0]
    number = 0
    while len(out) < lines:
        size = min(max(20, lines - len(out) - 8), rng.randrange(kernel_lines // 2,
                                                                kernel_lines * 3 // 2))
        out += _kernel(rng, number, size, serial, clean)
        number += 1
    return "\n".join(out) + "\n"


def repeated_source(source: str, lines: int) -> str:
    """`source` repeated to about `lines` lines (the cache-friendly case)."""
    out, n = [], 0
    while n < lines:
        out.append(source)
        n += source.count("\n")
    return "".join(out)


# A kernel whose device and local load stride changes every iteration, so every iteration is a
# new access pattern for the profile to record (what the profile's bounded record is for).
STRIDE_WALK = """\
; each iteration a new stride: every device and local load a new access pattern
; wave-lsp run: --grid 16,1,1 --fill-zero 0:u32:16384
.kernel stride_walk
.registers 16
.workgroup_size 256, 1, 1
.local_memory 1024
    mov_sr  r0, sr_thread_id_x
    mov_sr  r11, sr_workgroup_id_x
    mov_imm r7, 4
    imul r12, r0, r7
    local_store_u32 r12, r0
    barrier
    mov_imm r1, 0
    mov_imm r2, 1
    mov_imm r3, {iterations}
    mov_imm r6, 65532
    mov_imm r9, 1020
    imul r11, r11, r7
    loop
        icmp_ge p1, r1, r3
        break p1
        imul r4, r12, r1
        iadd r4, r4, r11
        and  r5, r4, r6
        device_load_u32 r8, r5
        and  r10, r4, r9
        local_load_u32 r13, r10
        iadd r1, r1, r2
    endloop
    halt
.end
"""


def vector_add(name: str = "vector_add", workgroup: int = 256) -> str:
    """A vector add, c = a + b (f32): the base addresses of a, b and c in r0, r1 and r2 (`--set-reg`
    or a launch's preset registers), a thread per element."""
    return f""".kernel {name}
.registers 16
.workgroup_size {workgroup}, 1, 1
    mov_sr r4, sr_thread_id_x
    mov_sr r5, sr_workgroup_id_x
    mov_sr r6, sr_workgroup_size_x
    imul r7, r5, r6
    iadd r7, r7, r4
    mov_imm r8, 4
    imul r9, r7, r8
    iadd r10, r9, r0
    device_load_u32 r11, r10
    iadd r10, r9, r1
    device_load_u32 r12, r10
    fadd r13, r11, r12
    iadd r10, r9, r2
    device_store_u32 r10, r13
    halt
.end
"""
