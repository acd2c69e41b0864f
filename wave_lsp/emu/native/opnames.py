"""The native core's operations, generated from the instruction table.

The C core (core.h) numbers its operations with an `OP_` enumeration and names each by mnemonic
in `OP_NAMES`; Python maps instructions to operations by those names (`_wavecore.OPS`). Both
lists restate `wave_lsp.isa`, so both are generated from it: `python -m
wave_lsp.emu.native.opnames` rewrites `ops.h` (the enumeration) and `names.c` (the names), and
`--check` fails when one is stale (a test runs the check).

The order groups the operations the way the core dispatches them, by ranges: the memory
accesses, atomics, wave operations, matrix operations, f16/bf16 arithmetic and f64 arithmetic
(with its conversions) each form one contiguous run, and everything from `OP_IF` on (control,
synchronisation, `nop`) goes to the control path. Within a group the table's order is kept.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from ...isa import generated
from ...isa import INSTRUCTIONS, InstructionClass as IC, InstructionSpec

_GENERATED = (" * GENERATED from wave_lsp/isa by `python -m wave_lsp.emu.native.opnames`: "
              "do not edit. */")
HEADER_PATH = Path("wave_lsp/emu/native/ops.h")
NAMES_PATH = Path("wave_lsp/emu/native/names.c")

# What the core leaves to the numpy engine (a kernel using one runs there): nothing now.
NOT_NATIVE: frozenset = frozenset()
NOT_NATIVE_CLASSES: frozenset = frozenset()

# The dispatch groups, in the core's order. "f64" takes the conversions to and from f64;
# "control" takes the control, synchronisation and operand-less instructions (`nop`).
GROUPS = (IC.INTEGER, IC.FLOAT, IC.BITWISE, IC.COMPARE, IC.CONVERT, IC.F16, IC.BF16, IC.F64,
          IC.MISC, IC.LOCAL_MEMORY, IC.DEVICE_MEMORY, IC.ATOMIC, IC.WAVE, IC.MMA, "control")


def group_of(spec: InstructionSpec) -> object:
    """The dispatch group of an instruction (one of GROUPS)."""
    if "f64" in (spec.conversion or ()):
        return IC.F64
    if spec.iclass in (IC.CONTROL, IC.SYNC) or (spec.iclass is IC.MISC and not spec.operands):
        return "control"
    return spec.iclass


def native_ops() -> list[str]:
    """The mnemonics the core implements, in the order of its enumeration."""
    specs = [spec for m, spec in INSTRUCTIONS.items()
             if m not in NOT_NATIVE and spec.iclass not in NOT_NATIVE_CLASSES]
    return [spec.mnemonic for spec in sorted(specs, key=lambda s: GROUPS.index(group_of(s)))]


def _wrapped(items: list[str], indent: str = "    ") -> list[str]:
    return textwrap.wrap(", ".join(items) + ",", 100, initial_indent=indent,
                         subsequent_indent=indent, break_on_hyphens=False)


def render_header() -> str:
    """ops.h: the OP_ enumeration."""
    return "\n".join([
        "/* The native core's operations, in dispatch order (see wave_lsp/emu/native/opnames.py).",
        _GENERATED,
        "#ifndef WAVECORE_OPS_H",
        "#define WAVECORE_OPS_H",
        "",
        "enum {",
        *_wrapped([f"OP_{m.upper()}" for m in native_ops()] + ["OP_COUNT"]),
        "};",
        "",
        "#endif",
        "",
    ])


def render_names() -> str:
    """names.c: the mnemonic of each operation."""
    return "\n".join([
        "/* The mnemonic of each native operation, in the order of the OP_ enumeration (ops.h).",
        " * Python reads them as `_wavecore.OPS` and maps instructions to operations by name.",
        _GENERATED,
        '#include "core.h"',
        "",
        "const char *const OP_NAMES[OP_COUNT] = {",
        *_wrapped([f'"{m}"' for m in native_ops()]),
        "};",
        "",
    ])


GENERATED = {HEADER_PATH: render_header, NAMES_PATH: render_names}


def stale(root: Path) -> list[Path]:
    """The generated files under repository `root` that are missing or differ from the table."""
    return generated.stale(root, GENERATED)


def main(argv: list[str] | None = None) -> int:
    return generated.main("wave_lsp.emu.native.opnames", "Write the native core's operation "
                          "list from the instruction table.", GENERATED, argv)


if __name__ == "__main__":
    sys.exit(main())
