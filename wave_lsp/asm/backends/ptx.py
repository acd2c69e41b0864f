"""The PTX backend (NVIDIA, `wave-ptx`): PTX assembly for SM 75+ (seed 003).

Structured control flow becomes labels and branches (`$L_else_N`, `$L_endif_N`, `$L_loop_N`,
`$L_endloop_N`, one number per `if` or `loop`); a guard becomes a `@%pN` / `@!%pN` prefix on
every line its instruction emits. Upstream drops the guard of loads, stores, atomics and wave
operations (P812) and translates `mma_*` as 16x16x16 `wmma` fragments (P818): `compat` keeps
that, the default guards loads, stores and atomics, writes a guarded wave operation's result
under its guard, and emits WAVE's per-lane 4x4x4 f32 tiles (`ptx_fixes.py`).
"""

from __future__ import annotations

from ...isa import InstructionClass as IC
from ..ir import KernelCode
from .c_family import EmitError, Line, template_lines
from .corrections import corrected
from .ptx_fixes import fragment_declarations, fragment_zeroing, guarded_wave, is_mma, mma_lines
from .ptx_table import TEMPLATES

HEADER = (".version 7.5", ".target sm_75", ".address_size 64", "")
REGISTERS = (".reg .pred %p<4>;", ".reg .b64 %rd<4>;", ".reg .b32 %t<8>;", ".reg .f32 %ft<4>;",
             ".reg .pred %pt<2>;", ".reg .b32 %mA<8>;", ".reg .b32 %mB<8>;", ".reg .f32 %mC<8>;",
             ".reg .f32 %mD<8>;")
STRUCTURED = frozenset({"if", "else", "endif", "loop", "endloop", "break", "continue"})
UNGUARDED_UPSTREAM = frozenset({IC.LOCAL_MEMORY, IC.DEVICE_MEMORY, IC.ATOMIC, IC.WAVE})


def emit_ptx(kernels: list[KernelCode], compat: bool) -> list[Line]:
    out: list[Line] = [(line, None) for line in HEADER]
    table = corrected("ptx", TEMPLATES, compat)
    for kernel in kernels:
        out.extend((line, None) for line in _prologue(kernel, compat))
        out.extend(_body(kernel, table, compat))
        out.extend((line, None) for line in ("", "    ret;", "}", ""))
    return out


def _prologue(kernel: KernelCode, compat: bool) -> list[str]:
    n = kernel.register_count
    out = [f".visible .entry {kernel.name}(", "    .param .u64 _device_mem_ptr", ") {",
           f"    .reg .b32 %r<{n}>;", f"    .reg .f32 %f<{n}>;"]
    out.extend("    " + r for r in REGISTERS)
    if not compat:
        out.extend("    " + r for r in fragment_declarations(kernel))
    if kernel.local_memory > 0:
        out.append(f"    .shared .align 4 .b8 _shared_mem[{kernel.local_memory}];")
    out += ["", "    ld.param.u64 %rd0, [_device_mem_ptr];", ""]
    if not compat:
        fragments = fragment_zeroing(kernel)
        out.extend("    " + line for line in fragments)
        out.extend([""] if fragments else [])
    return out


def _body(kernel: KernelCode, table: dict, compat: bool) -> list[Line]:
    out: list[Line] = []
    blocks: list[list] = []     # [kind, number, has_else]
    counter = 0
    for ins in kernel.instructions:
        m = ins.spec.mnemonic
        where = ins.line

        def put(text: str, label: bool = False) -> None:
            out.append((text if label else "    " + text, where))

        if m in STRUCTURED and ins.guarded:
            raise EmitError("unsupported operation: predicated control flow instructions are "
                            "not supported in PTX backend")
        p = f"%p{ins.rs1}"
        if m == "if":
            blocks.append(["if", counter, False])
            put(f"@!{p} bra $L_else_{counter};")
            counter += 1
        elif m == "loop":
            blocks.append(["loop", counter, False])
            put(f"$L_loop_{counter}:", label=True)
            counter += 1
        elif m == "else":
            block = _innermost(blocks, "if", m)
            put(f"bra.uni $L_endif_{block[1]};")
            put(f"$L_else_{block[1]}:", label=True)
            block[2] = True
        elif m == "endif":
            block = _innermost(blocks, "if", m)
            blocks.remove(block)
            put(f"$L_{'endif' if block[2] else 'else'}_{block[1]}:", label=True)
        elif m == "endloop":
            block = _innermost(blocks, "loop", m)
            blocks.remove(block)
            put(f"bra.uni $L_loop_{block[1]};")
            put(f"$L_endloop_{block[1]}:", label=True)
        elif m in ("break", "continue"):
            block = _innermost(blocks, "loop", m)
            target = "endloop" if m == "break" else "loop"
            put(f"@{p} bra $L_{target}_{block[1]};")
        elif m == "call":
            raise EmitError("unsupported operation: call instructions are not supported in the "
                            "PTX backend")
        elif not compat and ins.guarded and ins.spec.iclass is IC.WAVE:
            for text in guarded_wave(ins, table[m]):
                put(text)
        else:
            if m in ("halt", "return"):
                lines = ["ret;"]
            elif not compat and is_mma(ins):
                lines = mma_lines(ins)
            else:
                lines = template_lines(table, ins, "PTX")
            prefix = ""
            if ins.guarded and not (compat and ins.spec.iclass in UNGUARDED_UPSTREAM):
                prefix = f"@{'!' if ins.pred_neg else ''}%p{ins.pred_reg} "
            for text in lines:
                put(prefix + text)
    return out


def _innermost(blocks: list[list], kind: str, mnemonic: str) -> list:
    for block in reversed(blocks):
        if block[0] == kind:
            return block
    raise EmitError(f"'{mnemonic}' without an open {kind}")
