"""How each vendor's kernel receives its arguments and numbers its work-items: the facts the
backend emitters (`asm/backends`) rely on for a kernel's parameters and thread indices.

WAVE numbers the threads of a workgroup with x fastest: the linear id of thread (x, y, z) in a
workgroup of (X, Y, Z) is x + X * (y + Y * z), and waves are consecutive runs of that id (spec
§2; the emulator's `emu/geometry.py`).
"""

from __future__ import annotations

# Which vendor index dimension carries WAVE's x, y and z, and why that gives WAVE's order.
# PTX, HIP and Metal: their x is the fastest dimension, so WAVE's x, y, z are theirs.
#   CUDA C++ Programming Guide, section 'Thread Hierarchy': "the thread ID of a thread of index
#   (x, y, z) is (x + y Dx + z Dx Dy)"; section 'SIMT Architecture': a warp holds consecutive
#   thread IDs. HIP follows CUDA (HIP Programming Guide, 'Thread hierarchy'; wavefronts of
#   consecutive threads). Metal Shading Language Specification, section 'Attributes for Kernel
#   Function Input Arguments': thread_index_in_threadgroup is the linearised
#   thread_position_in_threadgroup (x + y * width + z * width * height), and SIMD-groups are
#   consecutive in it.
# SYCL: the right-most dimension is the fastest. SYCL 2020 Specification (revision 8), section
#   3.11.1 'Linearization': for a 3-D id in a range r, the linear id is
#   id[2] + id[1] * r[2] + id[0] * r[1] * r[2]; sub-groups are consecutive in the linear local
#   id (DPC++). So WAVE's x is SYCL dimension 2, y is 1 and z is 0, and a range is built
#   range<3>(z, y, x).
VENDOR_DIMENSION = {
    "ptx": {"x": "x", "y": "y", "z": "z"},
    "hip": {"x": "x", "y": "y", "z": "z"},
    "metal": {"x": "x", "y": "y", "z": "z"},
    "sycl": {"x": 2, "y": 1, "z": 0},
}
SYCL_DIMENSION: dict[str, int] = VENDOR_DIMENSION["sycl"]

# Metal binds at most 31 buffers to a kernel function: "Maximum number of entries in the buffer
# argument table, per graphics or kernel function: 31" (Apple, Metal Feature Set Tables,
# https://developer.apple.com/metal/Metal-Feature-Set-Tables.pdf, 'Resource limits'). Buffer 0
# is the device memory, so a kernel has at most 30 arguments in the Metal backend.
METAL_BUFFER_ARGUMENTS = 31
