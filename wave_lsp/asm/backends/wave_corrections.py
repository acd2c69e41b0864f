"""WAVE's wave operations in HIP, Metal and SYCL where upstream's templates are wrong
(`isa/backends.py` UPSTREAM_DEFECTS P819-P821; the PTX ones are in `ptx_waves.py`):

- P820, shuffles: a source lane outside the wave, or (HIP, Metal) not active, reads 0 (DESIGN.md
  §1). Upstream's `__shfl_up/down`, `simd_shuffle_up/down` and SYCL's shifts give the lane's own
  value (SYCL: unspecified), `__shfl`/`__shfl_xor` wrap the index, Metal's and SYCL's xor, shift
  and select functions are undefined for an out-of-range lane, and Metal's and SYCL's shifts and
  xor need the same offset in every lane. Every shuffle becomes an indexed read
  (`__shfl`, `simd_shuffle`, `select_from_group`) of the computed source lane, kept only when
  that lane is in the wave and active.
- P821, `wave_broadcast`: the lane index is that of the first active lane (HIP `__ffsll` of the
  active mask, Metal `simd_broadcast_first`, SYCL the sub-group's first item); upstream reads
  from each lane's own index (HIP) or needs one index in every lane (Metal, SYCL).
- P819, `wave_reduce_min/max`: unsigned (upstream: `int32_t`).
- P822 (HIP): the reductions and the prefix sum read only active lanes: a loop over the wave's
  lanes combines those in the active mask (`__ballot(1)`), where upstream's shuffle trees read
  inactive lanes and take lane 0's result. (SYCL's sub-group functions in divergent code have no
  correct translation here; Metal's `simd_*` reductions already honour the active lanes.)

The C-family guard `if (p) { ... }` around an instruction makes the guard's lanes the active
ones, as WAVE's guard does.
"""

from __future__ import annotations

_SOURCE = {     # mnemonic -> (source lane, in-range test), with {lane} and {width} filled in
    "wave_shuffle": ("r$rs2", "_src < {width}"),
    "wave_shuffle_up": ("{lane} - r$rs2", "r$rs2 <= {lane}"),
    "wave_shuffle_down": ("{lane} + r$rs2", "r$rs2 <= {width} - 1u - {lane}"),
    "wave_shuffle_xor": ("{lane} ^ r$rs2", "_src < {width}"),
    "wave_broadcast": ("{first}", "_src < {width}"),
}
_COMBINE = {"wave_reduce_add": ("0u", "_rv + _t"),
            "wave_reduce_min": ("0xFFFFFFFFu", "(_t < _rv) ? _t : _rv"),
            "wave_reduce_max": ("0u", "(_t > _rv) ? _t : _rv"),
            "wave_prefix_sum": ("0u", "_rv + _t")}


def _shuffles(lane: str, width: str, first: str, active: str | None, read: str,
              word: str = "uint32_t") -> dict[str, tuple[str, ...]]:
    out = {}
    for m, (source, test) in _SOURCE.items():
        fill = dict(lane=lane, width=width, first=first)
        lines = ["{"]
        if active:
            lines.append(f"    {active}")
        lines += [f"    {word} _src = {source.format(**fill)};",
                  f"    bool _ok = {test.format(**fill)};",
                  f"    {word} _v = {read};",
                  "    r$rd = (_ok && ((_am >> _src) & 1u)) ? _v : 0u;" if active
                  else "    r$rd = _ok ? _v : 0u;", "}"]
        out[m] = tuple(lines)
    return out


def _hip_combine() -> dict[str, tuple[str, ...]]:
    out = {}
    for m, (identity, combine) in _COMBINE.items():
        below = " && (uint32_t)_l < __lane_id()" if m == "wave_prefix_sum" else ""
        out[m] = ("{", "    unsigned long long _am = __ballot(1);",
                  f"    uint32_t _rv = {identity};",
                  "    for (int _l = 0; _l < warpSize; ++_l) {",
                  "        uint32_t _t = (uint32_t)__shfl((int)r$rs1, _l);",
                  f"        if (((_am >> _l) & 1ull){below}) _rv = {combine};",
                  "    }", "    r$rd = _rv;", "}")
    return out


WAVE_CORRECTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "hip": {**_shuffles("__lane_id()", "(uint32_t)warpSize",
                        "(uint32_t)__shfl((int)r$rs2, __ffsll(_am) - 1)",
                        "unsigned long long _am = __ballot(1);",
                        "(uint32_t)__shfl((int)r$rs1, (int)(_src & (uint32_t)(warpSize - 1)))"),
            **_hip_combine()},
    "metal": {**_shuffles("lane_id", "32u", "simd_broadcast_first(r$rs2)",
                          "ulong _am = static_cast<ulong>(simd_active_threads_mask());",
                          "simd_shuffle(r$rs1, (ushort)(_src & 31u))", word="uint")},
    "sycl": {**_shuffles("(uint32_t)sg.get_local_id()[0]", "(uint32_t)sg.get_local_range()[0]",
                         "group_broadcast(sg, r$rs2, 0)", None,
                         "select_from_group(sg, r$rs1, _ok ? _src : "
                         "(uint32_t)sg.get_local_id()[0])"),
             "wave_reduce_min": ("r$rd = reduce_over_group(sg, r$rs1, minimum<uint32_t>());",),
             "wave_reduce_max": ("r$rd = reduce_over_group(sg, r$rs1, maximum<uint32_t>());",)},
}
