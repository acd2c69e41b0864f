"""The Metal backend (Apple, `wave-metal`): Metal Shading Language compute kernels (seed 003)."""

from __future__ import annotations

from ...isa.kernel_abi import METAL_BUFFER_ARGUMENTS
from ..ir import KernelCode
from .arguments import argument_name, kernel_arguments
from .c_family import MMA_ARRAYS, PREDICATES, CStyle, EmitError, register_lines
from .corrections import corrected
from .c_table import TEMPLATES as COMMON
from .metal_table import TEMPLATES

HEADER = (
    "#include <metal_stdlib>",
    "using namespace metal;",
    "",
    "inline float rf(uint32_t r) { return as_type<float>(r); }",
    "inline uint32_t ri(float f) { return as_type<uint32_t>(f); }",
    "inline half rh(uint32_t r) { return as_type<half>((ushort)(r & 0xFFFFu)); }",
    "inline uint32_t rhi(half h) { return (uint32_t)as_type<ushort>(h); }",
    "inline half2 rh2(uint32_t r) { return as_type<half2>(r); }",
    "inline uint32_t rh2i(half2 h) { return as_type<uint32_t>(h); }",
)

PARAMETERS = (
    "    device uint8_t* device_mem [[buffer(0)]],",
    "    uint3 tid [[thread_position_in_threadgroup]],",
    "    uint3 gid [[threadgroup_position_in_grid]],",
    "    uint3 tsize [[threads_per_threadgroup]],",
    "    uint3 grid_dim [[threadgroups_per_grid]],",
    "    uint lane_id [[thread_index_in_simdgroup]],",
    "    uint simd_id [[simdgroup_index_in_threadgroup]]",
)


def _prologue(kernel: KernelCode, compat: bool) -> list[str]:
    arguments = kernel_arguments(kernel, compat)
    if len(arguments) >= METAL_BUFFER_ARGUMENTS:
        raise EmitError(f"kernel '{kernel.name}' has {len(arguments)} arguments (registers read "
                        f"before written: {', '.join(f'r{r}' for r in arguments)}); Metal binds "
                        f"at most {METAL_BUFFER_ARGUMENTS - 1} besides the device memory")
    buffers = [f"    constant uint32_t& {argument_name(r)} [[buffer({i})]]"
               for i, r in enumerate(arguments, 1)]
    parameters = [PARAMETERS[0], *(b + "," for b in buffers), *PARAMETERS[1:]]
    out = [f"kernel void {kernel.name}(", *parameters, ") {"]
    out.extend(register_lines(kernel.register_count, "    ", arguments))
    out.append("    " + PREDICATES)
    out.append("    uint wave_count = (tsize.x * tsize.y * tsize.z + 31u) / 32u;")
    if kernel.local_memory > 0:
        out.append(f"    threadgroup uint8_t local_mem[{kernel.local_memory}];")
        out.extend("    " + line for line in MMA_ARRAYS)
    out.append("")
    return out


TABLE = {**COMMON, **TEMPLATES}
STYLE = CStyle("Metal", HEADER, _prologue, ("}", ""), 1,
               lambda compat: corrected("metal", TABLE, compat),
               "unsupported operation: call instructions require function extraction which is "
               "not supported in the Metal backend")
