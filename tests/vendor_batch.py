"""Many kernels in one vendor-compiler run: the PTX (HIP, SYCL) of several programs joined into one
module (one file), each program's kernels renamed (PTX) or put in a namespace of their own (HIP),
and every message the compiler prints traced back to the program and the line it came from.
CI has two cores, and ptxas / hipcc start slowly: one run per batch, not one per kernel.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import pytest

from wave_lsp.asm import vendors
from wave_lsp.asm.backends import emit
from wave_lsp.asm.backends.hip import HEADER as HIP_HEADER
from wave_lsp.asm.backends.ptx import HEADER as PTX_HEADER
from wave_lsp.asm.backends.sycl import HEADER as SYCL_HEADER

from conftest import ROOT

HEADERS = {"ptx": PTX_HEADER, "hip": HIP_HEADER, "sycl": SYCL_HEADER}
# Intel's SYCL headers, put there by .ci/tools/sycl-headers.sh
SYCL_INCLUDE = ROOT / ".tools" / "intel-sycl" / "include"

_ENTRY = re.compile(r"^\.visible \.entry (\w+)\(")


def compiler(target: str) -> str:
    """The compiler the tests use: for PTX the pinned wheel's ptxas (the `test` extra), else the
    one found as the editor finds it. Skips outside CI when there is none; fails under CI."""
    found = (vendors.wheel_ptxas() if target == "ptx" else None) or vendors.find_compiler(target)
    if target == "sycl" and not (SYCL_INCLUDE / "sycl" / "sycl.hpp").is_file():
        found = None
    if found is None:
        reason = (f"{vendors.COMPILERS[target]} not found (pip install -e '.[test]' for ptxas; "
                  "bash .ci/tools/vendor-compilers.sh for hipcc; bash .ci/tools/sycl-headers.sh "
                  "for the SYCL headers)")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


@dataclass
class Rejection:
    program: int            # index into the batch
    arch: str
    line: int | None        # line of that program's emitted text (0-based)
    text: str
    generated: str          # that line's text


def join(target: str, texts: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """One module of `texts` (emitted with the default header); returns it and, per program,
    the (first line in the module, number of header lines dropped)."""
    header = HEADERS[target]
    out = list(header)
    spans = []
    for n, text in enumerate(texts):
        lines = text.splitlines()
        assert tuple(lines[:len(header)]) == header, "unexpected header"
        body = lines[len(header):]
        if target == "ptx":
            body = [_ENTRY.sub(lambda m: f".visible .entry {m.group(1)}__b{n}(", line)
                    for line in body]
            spans.append((len(out), len(header)))
            out += body
        else:
            out.append(f"namespace b{n} {{")
            spans.append((len(out), len(header)))
            out += body + ["}"]
    return "\n".join(out) + "\n", spans


def rejections(target: str, texts: list[str], verbose: bool = False) -> list[Rejection]:
    """Every error and warning the compiler gives the joined `texts`, for each architecture."""
    module, spans = join(target, texts)
    module_lines = module.splitlines()
    found = []
    for result in vendors.check_all(target, module, compiler(target), verbose=verbose,
                                    include=str(SYCL_INCLUDE) if target == "sycl" else None):
        for message in result.messages:
            program, line = None, None
            if message.line is not None:
                for n, (start, dropped) in enumerate(spans):
                    if message.line >= start:
                        program, line = n, message.line - start + dropped
            found.append(Rejection(program if program is not None else -1, result.arch, line,
                                   f"{message.severity}: {message.text}",
                                   module_lines[message.line].strip()
                                   if message.line is not None else ""))
        if not result.accepted and not result.messages:
            found.append(Rejection(-1, result.arch, None, "rejected without a message", ""))
    return found


def emitted(sources: list[str], target: str) -> list[str]:
    return [emit(source, target).text for source in sources]


def describe(found: list[Rejection], names: list[str]) -> str:
    return "\n".join(f"{names[r.program] if r.program >= 0 else '?'} [{r.arch}] line "
                     f"{r.line}: {r.text}   | {r.generated}" for r in found[:40])
