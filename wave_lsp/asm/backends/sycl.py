"""The SYCL backend (Intel, `wave-sycl`): a SYCL C++ launch function per kernel (seed 003).

SYCL's fastest work-item dimension is 2 (`isa/kernel_abi.py`), so WAVE's x is dimension 2, y 1
and z 0: the ranges are `range<3>(z, y, x)` and `sr_thread_id_x` is `get_local_id(2)` (the
special registers in `corrections.py`); the launch function still takes its sizes as x, y, z.
Upstream maps x to dimension 0, which makes a 16x16 workgroup's sub-groups run along y:
`--compat upstream` keeps that.
"""

from __future__ import annotations

from ...isa.kernel_abi import SYCL_DIMENSION
from ..ir import KernelCode
from .arguments import argument_name, kernel_arguments
from .c_family import MMA_ARRAYS, PREDICATES, CStyle, register_lines
from .corrections import corrected
from .c_table import TEMPLATES as COMMON
from .sycl_table import TEMPLATES

HEADER = (
    "#include <sycl/sycl.hpp>",
    "#if __has_include(<sycl/ext/oneapi/matrix/matrix.hpp>)",
    "#include <sycl/ext/oneapi/matrix/matrix.hpp>",
    "#endif",
    "#include <cstdint>",
    "",
    "using namespace sycl;",
    "",
    "inline float rf(uint32_t r) { return bit_cast<float>(r); }",
    "inline uint32_t ri(float f) { return bit_cast<uint32_t>(f); }",
    "inline half rh(uint32_t r) { return bit_cast<half>((uint16_t)(r & 0xFFFFu)); }",
    "inline uint32_t rhi(half h) { return (uint32_t)bit_cast<uint16_t>(h); }",
)
BODY = " " * 16


def _prologue(kernel: KernelCode, compat: bool) -> list[str]:
    arguments = kernel_arguments(kernel, compat)
    parameters = "".join(f" uint32_t {argument_name(r)}," for r in arguments)
    out = [f"void {kernel.name}_launch(queue& q, uint8_t* device_mem_usm,{parameters}",
           "        size_t grid_x, size_t grid_y, size_t grid_z,",
           "        size_t wg_x, size_t wg_y, size_t wg_z) {",
           "    q.submit([&](handler& h) {"]
    local = kernel.local_memory > 0
    if local:
        out.append(f"        local_accessor<uint8_t, 1> local_acc(range<1>({kernel.local_memory}),"
                   " h);")
    axes = "xyz" if compat else sorted("xyz", key=SYCL_DIMENSION.__getitem__)
    out += ["        h.parallel_for(",
            "            nd_range<3>(range<3>("
            + ", ".join(f"grid_{a} * wg_{a}" for a in axes) + "),",
            "                        range<3>(" + ", ".join(f"wg_{a}" for a in axes) + ")),",
            "            [=](nd_item<3> it) {",
            BODY + "auto sg = it.get_sub_group();"]
    if local:
        out.append(BODY + "uint8_t* lm = local_acc.get_multi_ptr<access::decorated::no>().get();")
    out.extend(register_lines(kernel.register_count, BODY, arguments))
    out.append(BODY + PREDICATES)
    if local:
        out.extend(BODY + line for line in MMA_ARRAYS)
    out.append("")
    return out


TABLE = {**COMMON, **TEMPLATES}
STYLE = CStyle("SYCL", HEADER, _prologue,
               ("            }", "        );", "    }).wait();", "}", ""), 4,
               lambda compat: corrected("sycl", TABLE, compat),
               "unsupported operation: call instructions are not supported in the SYCL backend")
