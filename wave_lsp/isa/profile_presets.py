"""The presets of the kernel profile (`wave-lsp run --profile-target`, the editor's Profile
lens): for each vendor target, the wave width, the local-memory banks and the memory segment
size the profile counts with, each number with the document it comes from.

Kept apart from `backends` (whose tables derive from the instruction table) so that the command
line's flag table can name the targets without building the instruction table.
"""

from __future__ import annotations

from collections import namedtuple

# What `wave-lsp run --profile --profile-target T` counts with: the wave width lanes are grouped
# in, the local-memory banks (count and width: a bank serves one `bank_bytes` unit per pass) and the
# global-memory segment ("sector") size. Each number carries where it comes from; where a vendor
# publishes none, the source says so and the value is the common 32 x 4-byte / 32-byte choice.
# Widths are always one of the backend's `wave_widths` (the `--wave-widths` check runs those;
# tests/test_profile.py checks that the two agree). Bank rows and sectors must divide PATTERN_ALIGN
# (emu/profile.py records access patterns relative to a 4096-byte-aligned base).

class ProfilePreset(namedtuple("ProfilePreset", "name backend wave_width banks bank_bytes "
                                               "sector_bytes hardware sources")):
    """One target of the kernel profile: `name`; `backend`, the `backends.Backend` it models
    (None: the default preset); `wave_width` (None: the launch's); `banks` and `bank_bytes`;
    `sector_bytes`; `hardware`; `sources`, (which number, where it comes from) pairs. (A named
    tuple, not a dataclass: `wave-lsp run --help` names the targets without loading the
    dataclasses module.)"""

    __slots__ = ()


_CUDA_GUIDE = ("NVIDIA CUDA C++ Programming Guide, https://docs.nvidia.com/cuda/"
               "cuda-c-programming-guide/, section 'Compute Capabilities', 'Shared Memory' of "
               "compute capability 5.x and later")
_NCU_GUIDE = ("NVIDIA Nsight Compute Profiling Guide, https://docs.nvidia.com/nsight-compute/"
              "ProfilingGuide/, 'Memory Tables' (a sector is an aligned 32-byte chunk; L1 and L2 "
              "lines are 4 sectors)")
_ROCM_SPECS = ("AMD ROCm 'GPU specifications', https://rocm.docs.amd.com/en/latest/reference/"
               "gpu-specs.html, column 'Wavefront Size'")
_AMD_LDS = ("AMD ROCm blog 'Avoiding LDS Bank Conflicts on AMD GPUs Using CK-Tile', "
            "https://rocm.blogs.amd.com/software-tools-optimization/lds-bank-conflict/README.html, "
            "section 'What's LDS and Bank Conflict' (MI-series: 32 banks, 4 bytes per bank)")
_CK_LDS = ("AMD Composable Kernel docs 'Understanding AMD GPU LDS and Bank Conflicts', "
           "https://rocm.docs.amd.com/projects/composable_kernel/en/latest/conceptual/ck_tile/"
           "hardware/lds_bank_conflicts.html (32 or 64 banks by architecture, 4 bytes wide)")
_INTEL_SLM = ("Intel oneAPI GPU Optimization Guide, https://www.intel.com/content/www/us/en/docs/"
              "oneapi/optimization-guide-gpu/2025-0/shared-local-memory.html, section 'Shared "
              "Local Memory' (banked SLM; bank count as used in its bank-conflict discussion)")
_INTEL_ARCH = ("Intel oneAPI GPU Optimization Guide, https://www.intel.com/content/www/us/en/docs/"
               "oneapi/optimization-guide-gpu/2025-0/intel-xe-gpu-architecture.html (SIMD8/16/32 "
               "sub-groups; 64-byte cache lines)")
_APPLE = ("Apple publishes no bank count, bank width or memory segment size for threadgroup or "
          "device memory (Metal Feature Set Tables, https://developer.apple.com/metal/"
          "Metal-Feature-Set-Tables.pdf, list sizes only); the SIMD-group width 32 is "
          "`threadExecutionWidth` on Apple GPUs (Metal Shading Language Specification, "
          "'SIMD-groups')")

PROFILE_PRESETS: dict[str, ProfilePreset] = {p.name: p for p in (
    ProfilePreset("default", None, None, 32, 4, 32, "the launch's wave width, 32 x 4-byte banks, "
                  "32-byte sectors", (("all", "wave-lsp's choice, not a vendor's: the launch's "
                                      "width, 32 banks of 4 bytes, 32-byte sectors"),)),
    ProfilePreset("ptx", "ptx", 32, 32, 4, 32, "NVIDIA Turing and later", (
        ("wave width 32", _CUDA_GUIDE + " (warps of 32 threads)"),
        ("32 banks x 4 bytes", _CUDA_GUIDE),
        ("32-byte sectors", _NCU_GUIDE))),
    ProfilePreset("hip-cdna", "hip", 64, 32, 4, 64,
                  "AMD CDNA (Instinct MI100-MI300)", (
        ("wave width 64", _ROCM_SPECS + " (64 for every Instinct GPU)"),
        ("32 banks x 4 bytes", _AMD_LDS),
        ("64-byte segments", "AMD Composable Kernel slides 'LDS Bank Conflicts on CDNA' "
                             "(A. H. Ghamarian, ROCm/composable_kernel): 64-byte cache line as "
                             "the HBM transaction granularity; AMD's ISA guides give no "
                             "sector size"))),
    ProfilePreset("hip-rdna", "hip", 32, 32, 4, 128, "AMD RDNA (Radeon) in wave32", (
        ("wave width 32", _ROCM_SPECS + " (32 for Radeon GPUs)"),
        ("32 banks x 4 bytes", _CK_LDS + "; RDNA ISA guides describe the LDS per CU as 32 banks"),
        ("128-byte segments", "AMD 'RDNA Architecture' whitepaper, https://www.amd.com/system/"
                              "files/documents/rdna-whitepaper.pdf, cache hierarchy: 128-byte "
                              "cache lines (AMD publishes no smaller request granularity)"))),
    ProfilePreset("metal", "metal", 32, 32, 4, 32, "Apple M1-M4, A-series", (
        ("wave width 32", _APPLE),
        ("32 banks x 4 bytes", "not published by Apple: " + _APPLE),
        ("32-byte sectors", "not published by Apple: " + _APPLE))),
    ProfilePreset("sycl", "sycl", 16, 16, 4, 64,
                  "Intel Xe (Xe-HPG/Xe-HPC, SIMD16)", (
        ("wave width 16", _INTEL_ARCH),
        ("16 banks x 4 bytes", _INTEL_SLM),
        ("64-byte segments", _INTEL_ARCH))),
)}
PROFILE_TARGETS: tuple[str, ...] = tuple(PROFILE_PRESETS)


def profile_preset(name: str | None) -> ProfilePreset:
    """The preset called `name` (None: "default"); ValueError naming the targets otherwise."""
    preset = PROFILE_PRESETS.get(name or "default")
    if preset is None:
        raise ValueError(f"unknown profile target '{name}' (targets: "
                         f"{', '.join(PROFILE_TARGETS)})")
    return preset
