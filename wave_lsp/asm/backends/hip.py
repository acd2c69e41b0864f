"""The HIP backend (AMD, `wave-hip`): HIP C++ kernels compiled with hipcc (seed 003)."""

from __future__ import annotations

from ..ir import KernelCode
from .arguments import argument_name, kernel_arguments
from .c_family import MMA_ARRAYS, PREDICATES, CStyle, register_lines
from .corrections import corrected
from .c_table import TEMPLATES as COMMON
from .hip_table import TEMPLATES

HEADER = (
    "#include <hip/hip_runtime.h>",
    "#include <hip/hip_fp16.h>",
    "#include <cstdint>",
    "",
    "__device__ inline float rf(uint32_t r) { return __uint_as_float(r); }",
    "__device__ inline uint32_t ri(float f) { return __float_as_uint(f); }",
    "__device__ inline __half rh(uint32_t r) "
    "{ return __ushort_as_half((unsigned short)(r & 0xFFFFu)); }",
    "__device__ inline uint32_t rhi(__half h) { return (uint32_t)__half_as_ushort(h); }",
)


def _prologue(kernel: KernelCode, compat: bool) -> list[str]:
    arguments = kernel_arguments(kernel, compat)
    parameters = "".join(f", uint32_t {argument_name(r)}" for r in arguments)
    out = [f"__global__ void {kernel.name}(uint8_t* device_mem{parameters}) {{", ""]
    if kernel.local_memory > 0:
        out.append("    extern __shared__ uint8_t local_mem[];")
        out.extend("    " + line for line in MMA_ARRAYS)
    out.extend(register_lines(kernel.register_count, "    ", arguments))
    out.append("    " + PREDICATES)
    out.append("    uint32_t wave_id = (threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * "
               "blockDim.x * blockDim.y) / warpSize;")
    out.append("    uint32_t wave_count = (blockDim.x * blockDim.y * blockDim.z + warpSize - 1) "
               "/ warpSize;")
    out.append("")
    return out


TABLE = {**COMMON, **TEMPLATES}
STYLE = CStyle("HIP", HEADER, _prologue, ("}", ""), 1,
               lambda compat: corrected("hip", TABLE, compat),
               "unsupported operation: call instructions are not supported in the HIP backend")
