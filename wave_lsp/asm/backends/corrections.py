"""Where upstream's translators are wrong (`isa/backends.py` UPSTREAM_DEFECTS, lints P811-P822),
the templates `wave-lsp emit` uses instead; `--compat upstream` keeps upstream's.

- P811: each swapped conversion takes its partner's template (upstream translates `cvt_A_B` as
  `cvt_B_A`, so the partner's text is the right direction); HIP's bf16-to-f32 is rewritten.
- P812 (PTX guards) and P818 (PTX mma tiles): handled by the PTX emitter itself (`ptx.py`,
  `ptx_fixes.py`).
- P813: a compare-and-swap that cannot fail spuriously (SYCL's `compare_exchange_strong`;
  Metal has only the weak form, so it retries while the failure was spurious).
- P814: `imul_hi` takes the high half of the signed product.
- P815: `bitfind` counts leading zeros (0xFFFFFFFF for 0).
- P816: `fround` rounds halfway cases away from zero.
- P817: HIP's and SYCL's bf16 arithmetic name the registers `rN`, not an undeclared `r[N]`
  (SYCL's `bma2` reads its third operand, where upstream writes `r[0]`).
- P819-P822, wave operations: `wave_corrections.py` (HIP, Metal, SYCL) and `ptx_waves.py`.
- SYCL's work-item order: the special registers with an axis read the SYCL dimension that
  carries it (x is dimension 2, SYCL's fastest; `isa/kernel_abi.py`), as the ranges in
  `sycl.py` are built.
- P823, what the vendors' compilers reject (`vendors.py`, tests/test_emit_vendors.py): PTX's
  bitwise and exchange atomics take `.b32` (ptxas refuses `.u32`); PTX's f16 arithmetic runs on
  the packed `.f16x2` forms of the 32-bit registers, keeping the low half (`add.f16` on `.b32`
  registers is refused); PTX's `bma2` uses the four declared `%ft` registers (upstream's names
  `%ft4`, `%ft5`, never declared); HIP's packed f16 arithmetic reinterprets the registers as
  `__half2` (upstream passes floats) and `iclamp` is `min(max())` (HIP has no `clamp`).
"""

from __future__ import annotations

import re

from ...isa import INSTRUCTIONS
from ...isa.backends import UPSTREAM_DEFECTS
from ...isa.kernel_abi import SYCL_DIMENSION
from .wave_corrections import WAVE_CORRECTIONS

_REGISTER_ARRAY = re.compile(r"\br\[(\$\w+(?:\+\d)?)\]")

_METAL_CAS = (
    "{{",
    "    uint expected_tmp = r$rs2;",
    "    while (!atomic_compare_exchange_weak_explicit(({space} atomic_uint*)({base} + r$rs1), "
    "&expected_tmp, r$rs3, memory_order_relaxed, memory_order_relaxed) && expected_tmp == r$rs2) "
    "{{}}",
    "{result}",
    "}}",
)

# HIP: a 32-bit register as two halves and back (bit casts; no helper in upstream's header)
_HALF2 = "r$rd = __builtin_bit_cast(uint32_t, {});"


def _h2(text: str) -> str:
    return re.sub(r"h2\((r\$\w+)\)", r"__builtin_bit_cast(__half2, \1)", text)


# PTX f16 arithmetic on the low halves of packed .f16x2 registers (rounded: never contracted)
_PTX_HALF = {"hadd": "add.rn.f16x2 %t0, %r$rs1, %r$rs2;",
             "hsub": "sub.rn.f16x2 %t0, %r$rs1, %r$rs2;",
             "hmul": "mul.rn.f16x2 %t0, %r$rs1, %r$rs2;",
             "hma": "fma.rn.f16x2 %t0, %r$rs1, %r$rs2, %r$rs3;"}
_PTX_BMA2 = (   # low halves into %t3, high halves into %t0, four f32 temporaries
    "and.b32 %t0, %r$rs1, 0xFFFF;", "shl.b32 %t0, %t0, 16;", "mov.b32 %ft0, %t0;",
    "and.b32 %t1, %r$rs2, 0xFFFF;", "shl.b32 %t1, %t1, 16;", "mov.b32 %ft1, %t1;",
    "and.b32 %t2, %r$rs3, 0xFFFF;", "shl.b32 %t2, %t2, 16;", "mov.b32 %ft2, %t2;",
    "fma.rn.f32 %ft3, %ft0, %ft1, %ft2;", "mov.b32 %t3, %ft3;", "shr.b32 %t3, %t3, 16;",
    "and.b32 %t0, %r$rs1, 0xFFFF0000;", "mov.b32 %ft0, %t0;",
    "and.b32 %t1, %r$rs2, 0xFFFF0000;", "mov.b32 %ft1, %t1;",
    "and.b32 %t2, %r$rs3, 0xFFFF0000;", "mov.b32 %ft2, %t2;",
    "fma.rn.f32 %ft3, %ft0, %ft1, %ft2;", "mov.b32 %t0, %ft3;", "and.b32 %t0, %t0, 0xFFFF0000;",
    "or.b32 %r$rd, %t3, %t0;",
)

_BY_TARGET: dict[str, dict[str, tuple[str, ...]]] = {
    "ptx": {
        **{m: (t, "and.b32 %r$rd, %t0, 0xFFFF;") for m, t in _PTX_HALF.items()},
        "bma2": _PTX_BMA2,
        "bitfind": ("clz.b32 %t0, %r$rs1;", "setp.eq.u32 %pt0, %r$rs1, 0;",
                    "selp.b32 %r$rd, 0xFFFFFFFF, %t0, %pt0;"),
        "fround": ("mov.b32 %f$rs1, %r$rs1;", "abs.f32 %ft0, %f$rs1;",
                   "add.rz.f32 %ft0, %ft0, 0f3F000000;", "cvt.rzi.f32.f32 %ft0, %ft0;",
                   "copysign.f32 %f$rd, %f$rs1, %ft0;", "mov.b32 %r$rd, %f$rd;"),
    },
    "hip": {
        "iclamp": ("r$rd = (uint32_t)min(max((int32_t)r$rs1, (int32_t)r$rs2), (int32_t)r$rs3);",),
        "hadd2": (_HALF2.format("__hadd2(h2(r$rs1), h2(r$rs2))"),),
        "hmul2": (_HALF2.format("__hmul2(h2(r$rs1), h2(r$rs2))"),),
        "hma2": (_HALF2.format("__hfma2(h2(r$rs1), h2(r$rs2), h2(r$rs3))"),),
        "cvt_f32_bf16": ("r$rd = (r$rs1 & 0xFFFFu) << 16;",),
        "imul_hi": ("r$rd = (uint32_t)__mulhi((int)r$rs1, (int)r$rs2);",),
        "bitfind": ("r$rd = (r$rs1 == 0u) ? 0xFFFFFFFFu : (uint32_t)__clz((int)r$rs1);",),
        "fround": ("r$rd = ri(roundf(rf(r$rs1)));",),
    },
    "metal": {
        "imul_hi": ("r$rd = (uint32_t)mulhi((int)r$rs1, (int)r$rs2);",),
        "bitfind": ("r$rd = (r$rs1 == 0u) ? 0xFFFFFFFFu : clz(r$rs1);",),
        "fround": ("r$rd = ri(round(rf(r$rs1)));",),
    },
    "sycl": {
        "imul_hi": ("r$rd = (uint32_t)sycl::mul_hi((int32_t)r$rs1, (int32_t)r$rs2);",),
        "bitfind": ("r$rd = (r$rs1 == 0u) ? 0xFFFFFFFFu : sycl::clz(r$rs1);",),
        "fround": ("r$rd = ri(sycl::round(rf(r$rs1)));",),
    },
}


def _metal_cas(space: str, base: str, returning: bool) -> tuple[str, ...]:
    result = "    r$rd = expected_tmp;" if returning else None
    lines = [line.format(space=space, base=base, result=result or "") for line in _METAL_CAS]
    return tuple(line for line in lines if line)


def _cas_fixes(target: str, templates: dict) -> dict[str, tuple[str, ...]]:
    out = {}
    for key, lines in templates.items():
        spec = INSTRUCTIONS.get(key.split("/")[0])
        if spec is None or spec.memory is None or not spec.memory.compare_and_swap:
            continue
        if target == "sycl":
            out[key] = tuple(line.replace("compare_exchange_weak", "compare_exchange_strong")
                             for line in lines)
        elif target == "metal":
            local = spec.memory.space == "local"
            out[key] = _metal_cas("threadgroup" if local else "device",
                                  "local_mem" if local else "device_mem",
                                  not key.endswith("/nort"))
    return out


def _typed_atomics(target: str, templates: dict) -> dict[str, tuple[str, ...]]:
    """PTX's bitwise and exchange atomics on `.b32` (ptxas rejects them on `.u32`)."""
    if target != "ptx":
        return {}
    bitwise = re.compile(r"\b(atom\.(?:global|shared)\.(?:and|or|xor|exch))\.u32\b")
    return {key: tuple(bitwise.sub(r"\1.b32", line) for line in lines)
            for key, lines in templates.items() if any(bitwise.search(l) for l in lines)}


def _register_arrays(templates: dict) -> dict[str, tuple[str, ...]]:
    return {key: tuple(_REGISTER_ARRAY.sub(r"r\1", line) for line in lines)
            for key, lines in templates.items() if any(_REGISTER_ARRAY.search(l) for l in lines)}


def _converse(mnemonic: str) -> str:
    """The conversion the other way round (`cvt_f32_i32` for `cvt_i32_f32`)."""
    pair = INSTRUCTIONS[mnemonic].conversion[::-1]
    return next(m for m, s in INSTRUCTIONS.items() if s.conversion == pair)


def _conversion_swaps(target: str, templates: dict) -> dict[str, tuple[str, ...]]:
    out = {}
    for defect in UPSTREAM_DEFECTS:
        if defect.code != "P811" or target not in defect.backends:
            continue
        for m in defect.mnemonics:
            out[m] = templates[_converse(m)]
    return out


_AXIS_KEY = re.compile(r"mov_sr/sr_\w+_([xyz])")


def _sycl_dimensions(templates: dict) -> dict[str, tuple[str, ...]]:
    """Every special register with an axis (thread and workgroup ids, workgroup and grid sizes)
    on the SYCL dimension that carries that axis (`isa/kernel_abi.py`): upstream's `(0)` for x
    becomes `(2)`, z's `(2)` becomes `(0)`."""
    out = {}
    for key, lines in templates.items():
        axis = _AXIS_KEY.fullmatch(key)
        if axis:
            upstream = f"({'xyz'.index(axis.group(1))})"
            ours = f"({SYCL_DIMENSION[axis.group(1)]})"
            out[key] = tuple(line.replace(upstream, ours) for line in lines)
    return out


_CACHE: dict[str, tuple[dict, dict]] = {}


def corrected(target: str, templates: dict[str, tuple[str, ...]], compat: bool) -> dict:
    """The templates `wave-lsp emit` uses for `target` (built once per backend table):
    upstream's own under `compat`."""
    if compat:
        return templates
    cached = _CACHE.get(target)
    if cached is None or cached[0] is not templates:
        table = dict(templates)
        table.update(_conversion_swaps(target, templates))
        table.update(_cas_fixes(target, templates))
        if target == "sycl":
            table["bma2"] = tuple(line.replace("r[0]", "r$rs3") for line in table["bma2"])
        table.update(_register_arrays(table))
        table.update(_typed_atomics(target, table))
        table.update({k: tuple(_h2(line) for line in v)
                      for k, v in _BY_TARGET.get(target, {}).items()})
        table.update(WAVE_CORRECTIONS.get(target, {}))
        if target == "sycl":
            table.update(_sycl_dimensions(table))
        cached = _CACHE[target] = (templates, table)
    return cached[1]
