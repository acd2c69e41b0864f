"""The PTX backend (NVIDIA, `wave-ptx`): PTX assembly for SM 75+ (seed 003).

Structured control flow becomes labels and branches (`$L_else_N`, `$L_endif_N`, `$L_loop_N`,
`$L_endloop_N`, one number per `if` or `loop`); a guard becomes a `@%pN` / `@!%pN` prefix on
every line its instruction emits. Upstream drops the guard of loads, stores, atomics and wave
operations (P812) and translates `mma_*` as 16x16x16 `wmma` fragments (P818): `compat` keeps
that, the default guards loads, stores and atomics, writes a guarded wave operation's result
under its guard, and emits WAVE's per-lane 4x4x4 f32 tiles (`ptx_fixes.py`). A kernel's
arguments are `.param .u32 arg_rN` after the device-memory pointer (`arguments.py`).
"""

from __future__ import annotations

from ...isa import InstructionClass as IC
from ..ir import KernelCode
from .arguments import argument_name, kernel_arguments
from .c_family import EmitError, Line, template_lines
from .corrections import corrected
from .ptx_fixes import fragment_declarations, fragment_zeroing, is_mma, mma_lines
from .ptx_table import TEMPLATES
from .ptx_waves import (MaskPlan, else_lines, exit_lines, if_lines, join_lines, launched_lanes,
                        loop_entry_lines, loop_head_lines, loop_tail_lines, uses_wave_operations,
                        wave_lines)

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
        plan = MaskPlan.of(kernel) if not compat and uses_wave_operations(kernel) else None
        out.extend((line, None) for line in _prologue(kernel, compat, plan))
        out.extend(_body(kernel, table, compat, plan))
        out.extend((line, None) for line in ("", "    ret;", "}", ""))
    return out


def _prologue(kernel: KernelCode, compat: bool, plan: MaskPlan | None) -> list[str]:
    n = kernel.register_count
    arguments = kernel_arguments(kernel, compat)
    parameters = ["    .param .u64 _device_mem_ptr",
                  *(f"    .param .u32 {argument_name(r)}" for r in arguments)]
    out = [f".visible .entry {kernel.name}(", *(p + "," for p in parameters[:-1]),
           parameters[-1], ") {", f"    .reg .b32 %r<{n}>;", f"    .reg .f32 %f<{n}>;"]
    out.extend("    " + r for r in REGISTERS)
    if not compat:
        out.extend("    " + r for r in fragment_declarations(kernel))
    if plan is not None:
        out.extend("    " + r for r in plan.declarations())
    if kernel.local_memory > 0:
        out.append(f"    .shared .align 4 .b8 _shared_mem[{kernel.local_memory}];")
    out += ["", "    ld.param.u64 %rd0, [_device_mem_ptr];"]
    out.extend(f"    ld.param.u32 %r{r}, [{argument_name(r)}];" for r in arguments)
    out.append("")
    if not compat:
        fragments = fragment_zeroing(kernel)
        out.extend("    " + line for line in fragments)
        out.extend([""] if fragments else [])
    if plan is not None:
        out.extend("    " + line if line else "" for line in launched_lanes())
    return out


def _body(kernel: KernelCode, table: dict, compat: bool, plan: MaskPlan | None) -> list[Line]:
    out: list[Line] = []
    blocks: list[list] = []     # [kind, number, has_else]
    counter = 0
    waves = 0                   # labels of reduction loops
    for ins in kernel.instructions:
        m = ins.spec.mnemonic
        where = ins.line

        def put(text: str, label: bool = False) -> None:
            out.append((text if label or text.startswith("$L_") and text.endswith(":")
                        else "    " + text, where))

        if m in STRUCTURED and ins.guarded:
            raise EmitError("unsupported operation: predicated control flow instructions are "
                            "not supported in PTX backend")
        p = f"%p{ins.rs1}"
        depth = len(blocks)
        if m == "if":
            if plan is not None:
                for text in if_lines(p, depth):
                    put(text)
            blocks.append(["if", counter, False])
            put(f"@!{p} bra $L_else_{counter};")
            counter += 1
        elif m == "loop":
            if plan is not None:
                for text in loop_entry_lines(counter, depth):
                    put(text)
            blocks.append(["loop", counter, False])
            put(f"$L_loop_{counter}:", label=True)
            if plan is not None:
                for text in loop_head_lines(counter, depth):
                    put(text)
            counter += 1
        elif m == "else":
            block = _innermost(blocks, "if", m)
            put(f"bra.uni $L_endif_{block[1]};")
            put(f"$L_else_{block[1]}:", label=True)
            block[2] = True
            if plan is not None:
                for text in else_lines(blocks.index(block)):
                    put(text)
        elif m == "endif":
            block = _innermost(blocks, "if", m)
            blocks.remove(block)
            put(f"$L_{'endif' if block[2] else 'else'}_{block[1]}:", label=True)
            if plan is not None and plan.exits.get(block[1]) and blocks:
                loop = _innermost(blocks, "loop", m)[1]
                for text in join_lines(block[1], len(blocks), loop, _outward(blocks)):
                    put(text)
        elif m == "endloop":
            block = _innermost(blocks, "loop", m)
            blocks.remove(block)
            if plan is not None:
                for text in loop_tail_lines(block[1]):
                    put(text)
            put(f"bra.uni $L_loop_{block[1]};")
            put(f"$L_endloop_{block[1]}:", label=True)
        elif m in ("break", "continue"):
            block = _innermost(blocks, "loop", m)
            if plan is not None:
                for text in exit_lines(m, p, block[1], depth, _outward(blocks)):
                    put(text)
            else:
                target = "endloop" if m == "break" else "loop"
                put(f"@{p} bra $L_{target}_{block[1]};")
        elif m == "call":
            raise EmitError("unsupported operation: call instructions are not supported in the "
                            "PTX backend")
        elif plan is not None and ins.spec.iclass is IC.WAVE:
            for text in wave_lines(ins, f"%wm{depth}", f"$L_wave_{waves}"):
                put(text)
            waves += 1
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


def _outward(blocks: list[list]) -> str:
    """Where a lane leaving its loop iteration goes next: the join of the innermost `if`, or,
    directly inside the loop, the loop's tail."""
    kind, number, _ = blocks[-1]
    return f"$L_join_{number}" if kind == "if" else f"$L_cont_{number}"


def _innermost(blocks: list[list], kind: str, mnemonic: str) -> list:
    for block in reversed(blocks):
        if block[0] == kind:
            return block
    raise EmitError(f"'{mnemonic}' without an open {kind}")
