"""The translation shared by the C-like backends (HIP, Metal, SYCL): structured control flow
becomes `if`/`while (true)` blocks, a guard wraps its instruction in `if (p) { ... }`, every
other instruction is its backend's template (`*_table.py`, corrected by `corrections.py`).

Each backend supplies a `CStyle`: the file header, the kernel prologue and epilogue, and its
templates. Every emitted line carries the source line of the instruction it came from (None
for the header and prologue), which is the source map of the editor's preview.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...isa import MIN_DIVERGENCE_DEPTH
from ..ir import DecodedInstruction, KernelCode
from .arguments import argument_name
from .templates import fill, lookup

Line = tuple[str, "int | None"]
INDENT = "    "


class EmitError(ValueError):
    """An instruction the backend cannot translate (upstream refuses it too)."""


@dataclass(frozen=True)
class CStyle:
    name: str                                        # "HIP", "Metal", "SYCL" (for messages)
    header: tuple[str, ...]
    prologue: Callable[[KernelCode, bool], list[str]]   # (kernel, compat) -> lines up to and
                                                        # including the blank line
    epilogue: tuple[str, ...]                        # lines after the body
    body_depth: int                                  # indentation of the body, in levels
    templates: Callable[[bool], dict]                # compat -> mnemonic table
    call_message: str


def emit_c(style: CStyle, kernels: list[KernelCode], compat: bool) -> list[Line]:
    """The whole translation unit."""
    out: list[Line] = [(line, None) for line in style.header]
    table = style.templates(compat)
    for kernel in kernels:
        out.extend((line, None) for line in style.prologue(kernel, compat))
        out.extend(_body(style, table, kernel))
        out.extend((line, None) for line in style.epilogue)
    return out


def _body(style: CStyle, table: dict, kernel: KernelCode) -> list[Line]:
    out: list[Line] = []
    depth = style.body_depth

    deepest = style.body_depth + MIN_DIVERGENCE_DEPTH   # indented at most this far (K309)

    def put(text: str, where: int | None) -> None:
        out.append((INDENT * min(depth, deepest) + text, where))

    for ins in kernel.instructions:
        m = ins.spec.mnemonic
        where = ins.line
        if ins.guarded:
            put(f"if ({'!' if ins.pred_neg else ''}p{ins.pred_reg}) {{", where)
            depth += 1
        if m == "if":
            put(f"if (p{ins.rs1}) {{", where)
            depth += 1
        elif m == "else":
            depth -= 1
            put("} else {", where)
            depth += 1
        elif m in ("endif", "endloop"):
            depth -= 1
            put("}", where)
        elif m == "loop":
            put("while (true) {", where)
            depth += 1
        elif m in ("break", "continue"):
            put(f"if (p{ins.rs1}) {m};", where)
        elif m in ("halt", "return"):
            put("return;", where)
        elif m == "call":
            raise EmitError(style.call_message)
        else:
            for text in template_lines(table, ins, style.name):
                put(text, where)
        if ins.guarded:
            depth -= 1
            put("}", where)
    return out


def template_lines(table: dict, ins: DecodedInstruction, backend: str) -> list[str]:
    found = lookup(table, ins)
    if found is None:
        raise EmitError(f"unsupported operation: {ins.spec.mnemonic} has no translation in the "
                        f"{backend} backend")
    return [fill(t, ins) for t in found]


def register_lines(count: int, indent: str, arguments: tuple[int, ...] = ()) -> list[str]:
    """`uint32_t r0 = 0, ..., r7 = 0;` eight to a line; a kernel argument starts with its
    parameter's value (`r0 = arg_r0`, `arguments.py`)."""
    names = [f"r{i} = {argument_name(i) if i in arguments else 0}" for i in range(count)]
    return [f"{indent}uint32_t " + ", ".join(names[i:i + 8]) + ";"
            for i in range(0, len(names), 8)]


PREDICATES = "bool p0 = false, p1 = false, p2 = false, p3 = false;"
MMA_ARRAYS = ("float _mma_a[16] = {};", "float _mma_b[16] = {};", "float _mma_c[16] = {};")
