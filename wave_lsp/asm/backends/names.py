"""The one decision on what a kernel's name becomes in generated code, for every backend.

A `.wbin` may hold any printable text as a kernel name, and every backend writes the name into
its output as an identifier (`.visible .entry NAME(`, `__global__ void NAME(`, `kernel void
NAME(`, `void NAME_launch(`): a crafted name could otherwise put arbitrary code into the
generated source (a namespace-scope initializer calling `system(...)`). So a name that is not an
ASCII identifier (`[A-Za-z_][A-Za-z0-9_]*`, what PTX, C++ and Metal all accept) is mangled
before any backend sees it: each other character becomes `_xHH_` (its code point in hex), a
leading digit gets a `_` in front, and a kernel without a name (a `.wbin` without symbols) is
`kernel_N`, N its index. Names that are identifiers already are left as they are, so the output
of every ordinary program is unchanged.
"""

from __future__ import annotations

import dataclasses
import re

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OTHER = re.compile(r"[^A-Za-z0-9_]")


def code_name(name: str, index: int) -> str:
    """The identifier that stands for kernel number `index`, named `name`, in generated code."""
    if _IDENTIFIER.fullmatch(name):
        return name
    if not name:
        return f"kernel_{index}"
    safe = _OTHER.sub(lambda m: f"_x{ord(m.group()):x}_", name)
    return "_" + safe if safe[0].isdigit() else safe


def with_code_names(kernels: list) -> list:
    """The kernels, each renamed to its `code_name` where that differs."""
    names = [code_name(k.name, i) for i, k in enumerate(kernels)]
    return [k if name == k.name else dataclasses.replace(k, name=name)
            for k, name in zip(kernels, names)]
