"""Occupancy limits of each vendor architecture the backends target, with the source of every
number, and the occupancy calculator over them.

The calculator works as NVIDIA's occupancy calculator does (`cuda_occupancy.h`): the workgroups
resident on one SM / CU / WGP / Xe-core are the minimum over the limits that apply (waves,
workgroups, registers with their allocation granularity, local memory with its granularity), the
limit (or limits) reaching that minimum is named, and occupancy is resident waves / the unit's
maximum. A kernel that breaks a per-workgroup limit (threads, registers per thread or per
workgroup, local memory per workgroup) is reported as exceeding that limit: it does not launch,
which is not the same as "0 resident workgroups". AMD follows LLVM's AMDGPU backend (the compiler
hipcc runs, whose `Occupancy [waves/SIMD]` remark agrees: tests/test_occupancy.py), Intel follows
Intel's GPU Occupancy Calculator. Apple publishes no such limits: no occupancy is claimed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

KIB = 1024

# ---- sources ---------------------------------------------------------------------------------
# NVIDIA: cuda_occupancy.h is NVIDIA's own calculator (the header behind
# cudaOccupancyMaxActiveBlocksPerMultiprocessor); tests/test_occupancy.py compiles it and checks
# these rows against it. The per-SM figures it takes from the device (warps, registers, shared
# memory per block) are the Programming Guide's table: not re-read from that page here (the search
# index holds the tuning guides' front pages only), so they are marked as such.
_CUDA_TABLE = ("NVIDIA CUDA C++ Programming Guide, https://docs.nvidia.com/cuda/"
               "cuda-c-programming-guide/, 'Technical Specifications per Compute Capability', "
               "columns 7.5 and 9.0 (as commonly reproduced; the page itself not re-read here), "
               "and the Turing / Hopper Tuning Guides, https://docs.nvidia.com/cuda/"
               "turing-tuning-guide/, https://docs.nvidia.com/cuda/hopper-tuning-guide/, "
               "'Occupancy'")
_CUDA_OCC = ("NVIDIA cuda_occupancy.h (CUDA Toolkit 13.0, include/cuda_occupancy.h): "
             "cudaOccRegAllocationGranularity (256 registers per warp), "
             "cudaOccSubPartitionsPerMultiprocessor (4), cudaOccMaxBlocksPerMultiprocessor "
             "(16 on 7.5, 32 on 9.0), cudaOccSMemAllocationGranularity (256 / 128 bytes), "
             "cudaOccAlignUpShmemSizeVoltaPlus (carveouts up to 64 KB / 228 KB), "
             "cudaOccMaxBlocksPerSMRegsLimit")
_CUDA_RESERVED = ("NVIDIA CUDA C++ Programming Guide, 'Compute Capability 8.x' and 9.0, 'Shared "
                  "Memory': the 1 KB not available to a thread block is reserved for system use; "
                  "cuda_occupancy.h adds reservedSharedMemPerBlock from compute capability 8.0")
_LLVM_AMDGPU = ("LLVM AMDGPU backend (the compiler hipcc runs), llvm/lib/Target/AMDGPU/Utils/"
                "AMDGPUBaseInfo.cpp, https://github.com/llvm/llvm-project/blob/main/llvm/lib/"
                "Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp: getTotalNumVGPRs, getVGPRAllocGranule, "
                "getMaxWavesPerEU, getEUsPerCU, getLocalMemorySize, getMaxWorkGroupsPerCU, "
                "getMaxFlatWorkGroupSize; the VGPR limits agree with hipcc 5.2's 'Occupancy "
                "[waves/SIMD]' remarks for 8..256 VGPRs (tests/test_occupancy.py)")
_AMDGPU_USAGE = ("LLVM 'User Guide for AMDGPU Backend', https://llvm.org/docs/AMDGPUUsage.html: "
                 "COMPUTE_PGM_RSRC2 LDS_SIZE, GFX7-GFX10 allocate LDS in 128 x 4 = 512-byte "
                 "blocks; target feature cumode off by default on GFX10 (WGP mode, the native "
                 "mode of GFX10+)")
_ROCM_SPECS = ("AMD ROCm 'GPU specifications', https://rocm.docs.amd.com/en/latest/reference/"
               "gpu-specs.html (LDS 64 KiB per CU on MI200; wavefront size 64 on Instinct, 32 "
               "on Radeon)")
_INTEL_CALC = ("Intel GPU Occupancy Calculator, https://oneapi-src.github.io/oneAPI-samples/"
               "Tools/GPU-Occupancy-Calculator/ (oneAPI-samples, Tools/GPU-Occupancy-Calculator/"
               "index.html, 'Discrete GPU (Xe HPG / Arc Graphics / DG2)': 16 XVEs per Xe-core, 8 "
               "threads per XVE, 128 threads per Xe-core, no large-GRF mode, SLM 128 KiB per "
               "Xe-core and 64 KiB per work-group in sizes 0/1/2/4/8/16/32/64 KiB, 1024 "
               "work-items per work-group, 128 work-groups per Xe-core; compute_ss_occupancy)")
_INTEL_GRF = ("Intel oneAPI GPU Optimization Guide, https://www.intel.com/content/www/us/en/docs/"
              "oneapi/optimization-guide-gpu/2023-1/small-register-mode-vs-large-register-"
              "mode.html (each hardware thread owns a fixed GRF; the compiler spills beyond it, "
              "so registers reduce the resident threads only in large-GRF mode)")
_APPLE = ("Apple publishes no register file size, resident SIMD-group count or threadgroup count "
          "per GPU core (Metal Feature Set Tables, https://developer.apple.com/metal/"
          "Metal-Feature-Set-Tables.pdf, give per-threadgroup limits only)")
_APPLE_TG = ("Metal Feature Set Tables, https://developer.apple.com/metal/"
             "Metal-Feature-Set-Tables.pdf: 1024 threads per threadgroup and 32 KiB of "
             "threadgroup memory on Apple GPUs (as commonly cited; not re-checked against the "
             "PDF here: an estimate)")


@dataclass(frozen=True)
class ArchLimits:
    """One architecture's occupancy limits, per SM / CU / WGP / Xe-core (the `unit`)."""

    arch: str                       # sm_75, gfx90a, ... (what ptxas / hipcc call it)
    backend: str                    # the Backend (isa.backends) whose code runs on it
    hardware: str
    unit: str                       # "SM", "CU", "WGP", "Xe-core"
    wave_name: str                  # "warp", "wave", "thread" (Intel: a hardware thread per
    #                                 sub-group)
    wave_widths: tuple[int, ...]
    max_waves: int | None           # resident waves per unit (None: not published)
    max_workgroup_size: int
    local_per_workgroup: int
    published: bool = True
    max_workgroups: int | None = None        # per unit, whatever the workgroup
    barrier_workgroups: int | None = None    # per unit, workgroups of more than one wave (AMD)
    partitions: int = 0             # register-file partitions per unit (0: registers set no limit)
    registers_per_lane: int = 0     # 32-bit registers per lane of one partition's file
    register_granule: int = 1       # per-thread allocation granularity, in registers
    max_registers: int | None = None           # per thread
    max_waves_per_partition: int | None = None
    registers_per_workgroup: int | None = None  # NVIDIA's per-block check (all partitions at once)
    local_per_unit: int = 0
    local_granule: int = 1
    local_sizes: tuple[int, ...] = ()       # allowed local allocations (Intel), else granule
    local_reserved: int = 0                 # added to every workgroup's local memory
    local_default_limit: int | None = None  # above this a workgroup needs an opt-in (NVIDIA)
    sources: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def register_allocation(self, registers: int) -> int:
        """Registers allocated per thread: rounded up to the granularity (at least one granule)."""
        g = self.register_granule
        return -(-max(registers, 1) // g) * g

    def local_allocation(self, local: int) -> int:
        """Bytes of local memory one workgroup takes from its unit (0 when it uses none)."""
        need = local + self.local_reserved
        if need == 0:
            return 0
        if self.local_sizes:
            return next((s for s in self.local_sizes if need <= s), need)
        return -(-need // self.local_granule) * self.local_granule


ARCH_LIMITS: dict[str, ArchLimits] = {a.arch: a for a in (
    ArchLimits(
        "sm_75", "ptx", "NVIDIA Turing", "SM", "warp", (32,), max_waves=32,
        max_workgroup_size=1024, max_workgroups=16, partitions=4, registers_per_lane=512,
        register_granule=8, max_registers=255, registers_per_workgroup=64 * KIB,
        local_per_unit=64 * KIB, local_per_workgroup=64 * KIB, local_granule=256,
        local_default_limit=48 * KIB, sources=(
            ("32 warps per SM, 16 blocks per SM, 1024 threads per block, 64K 32-bit registers per "
             "SM and per block, 255 registers per thread, 64 KB shared memory per SM and per block "
             "(48 KB without opt-in)", _CUDA_TABLE),
            ("registers allocated per warp in units of 256 (8 per thread) from 4 sub-partitions "
             "of 16K registers; shared memory in 256-byte units, carveouts 32 or 64 KB",
             _CUDA_OCC))),
    ArchLimits(
        "sm_90", "ptx", "NVIDIA Hopper", "SM", "warp", (32,), max_waves=64,
        max_workgroup_size=1024, max_workgroups=32, partitions=4, registers_per_lane=512,
        register_granule=8, max_registers=255, registers_per_workgroup=64 * KIB,
        local_per_unit=228 * KIB, local_per_workgroup=227 * KIB, local_granule=128,
        local_reserved=1 * KIB, local_default_limit=48 * KIB, sources=(
            ("64 warps per SM, 32 blocks per SM, 1024 threads per block, 64K 32-bit registers per "
             "SM and per block, 255 registers per thread, 228 KB shared memory per SM, 227 KB per "
             "block with opt-in (48 KB without)", _CUDA_TABLE),
            ("registers allocated per warp in units of 256 from 4 sub-partitions; shared memory "
             "in 128-byte units, largest carveout 228 KB", _CUDA_OCC),
            ("1 KB of shared memory reserved per block", _CUDA_RESERVED))),
    ArchLimits(
        "gfx90a", "hip", "AMD CDNA2 (MI200), wave64", "CU", "wave", (64,), max_waves=32,
        max_workgroup_size=1024, barrier_workgroups=16, partitions=4, registers_per_lane=512,
        register_granule=8, max_registers=512, max_waves_per_partition=8,
        local_per_unit=64 * KIB, local_per_workgroup=64 * KIB, local_granule=512, sources=(
            ("4 SIMDs per CU, 8 waves per SIMD, 512 VGPRs (VGPRs and AGPRs together) per SIMD "
             "lane allocated in 8s, 16 workgroups of several waves per CU (barriers), 1024 "
             "work-items per workgroup, 64 KiB LDS", _LLVM_AMDGPU),
            ("64 KiB LDS per CU", _ROCM_SPECS),
            ("LDS in 512-byte blocks", _AMDGPU_USAGE))),
    ArchLimits(
        "gfx1030", "hip", "AMD RDNA2, wave32 in WGP mode", "WGP", "wave", (32,),
        max_waves=64, max_workgroup_size=1024, barrier_workgroups=32, partitions=4,
        registers_per_lane=1024, register_granule=16, max_registers=256,
        max_waves_per_partition=16, local_per_unit=128 * KIB, local_per_workgroup=64 * KIB,
        local_granule=512, sources=(
            ("4 SIMD32s per WGP in WGP mode, 16 waves per SIMD, 1024 VGPRs per SIMD lane in wave32 "
             "allocated in 16s (GFX10.3), 256 addressable, 32 workgroups of several waves per WGP "
             "(barriers), LDS 128 KiB per WGP and 64 KiB per workgroup", _LLVM_AMDGPU),
            ("WGP mode by default; LDS in 512-byte blocks", _AMDGPU_USAGE))),
    ArchLimits(
        "apple", "metal", "Apple GPUs (M1-M4, A-series)", "GPU core", "SIMD-group", (32,),
        max_waves=None, max_workgroup_size=1024, local_per_workgroup=32 * KIB, published=False,
        sources=(("occupancy limits", _APPLE), ("per-threadgroup limits", _APPLE_TG))),
    ArchLimits(
        "xe-hpg", "sycl", "Intel Xe-HPG (Arc A-series)", "Xe-core", "thread", (8, 16, 32),
        max_waves=128, max_workgroup_size=1024, max_workgroups=128, local_per_unit=128 * KIB,
        local_per_workgroup=64 * KIB, local_sizes=tuple(s * KIB for s in (1, 2, 4, 8, 16, 32, 64)),
        sources=(("threads, work-groups and SLM per Xe-core, SLM sizes", _INTEL_CALC),
                 ("registers set no limit", _INTEL_GRF))),
)}

# the architectures of each backend, in the order rows are shown
TARGET_ARCHES: dict[str, tuple[str, ...]] = {
    backend: tuple(a.arch for a in ARCH_LIMITS.values() if a.backend == backend)
    for backend in dict.fromkeys(a.backend for a in ARCH_LIMITS.values())}


@dataclass(frozen=True)
class Occupancy:
    """What the calculator found for one kernel on one architecture at one wave width."""

    limits: ArchLimits
    width: int
    threads: int | None             # None: the launcher chooses the workgroup size
    registers: int
    local: int
    waves_per_workgroup: int | None
    exceeds: tuple[str, ...]        # per-workgroup limits the kernel breaks (it does not launch)
    by_limit: tuple[tuple[str, int | None], ...]   # limit -> workgroups it allows (None: no limit)
    workgroups: int | None          # resident workgroups per unit
    waves: int | None               # resident waves per unit
    notes: tuple[str, ...] = ()

    @property
    def fraction(self) -> float | None:
        if self.waves is None or not self.limits.max_waves:
            return None
        return self.waves / self.limits.max_waves

    @property
    def limited_by(self) -> tuple[str, ...]:
        """The limits that set the resident workgroups (as the CUDA calculator names them)."""
        if self.workgroups is None:      # the launcher chooses: the per-wave limit that binds
            return tuple(n for n, v in self.by_limit if self.waves is not None and v == self.waves)
        return tuple(n for n, v in self.by_limit if v is not None and v == self.workgroups)


def _exceeds(a: ArchLimits, threads: int, registers: int, local: int) -> list[str]:
    out = []
    if threads > a.max_workgroup_size:
        out.append(f"threads per workgroup ({threads} > {a.max_workgroup_size})")
    if a.max_registers is not None and registers > a.max_registers:
        out.append(f"registers per thread ({registers} > {a.max_registers})")
    if local > a.local_per_workgroup:
        out.append(f"local memory per workgroup ({local} > {a.local_per_workgroup} bytes)")
    return out


def compute(a: ArchLimits, width: int, threads: int | None, registers: int,
            local: int) -> Occupancy:
    """Occupancy of a kernel of `threads` threads per workgroup (None: unknown), `registers` per
    thread and `local` bytes of local memory per workgroup on `a` at wave width `width`."""
    notes: list[str] = []
    if not a.published:
        exceeds = tuple(_exceeds(a, threads or 0, registers, local))
        return Occupancy(a, width, threads, registers, local,
                         -(-threads // width) if threads else None, exceeds, (), None, None)
    waves_per_wg = -(-threads // width) if threads else None
    exceeds = _exceeds(a, threads or 0, registers, local)
    if a.local_default_limit is not None and a.local_default_limit < local <= a.local_per_workgroup:
        notes.append(f"more than {a.local_default_limit // KIB} KiB of shared memory per block "
                     "needs the opt-in cudaFuncAttributeMaxDynamicSharedMemorySize")
    # waves (per unit) the register file holds, from the partitions' files
    reg_waves = None
    if a.partitions:
        alloc = a.register_allocation(registers)
        per_partition = a.registers_per_lane // alloc
        if a.max_waves_per_partition is not None:
            per_partition = min(per_partition, a.max_waves_per_partition)
        reg_waves = per_partition * a.partitions
        if a.registers_per_workgroup and waves_per_wg:
            assumed = alloc * width * -(-waves_per_wg // a.partitions) * a.partitions
            if assumed > a.registers_per_workgroup:
                exceeds.append(f"registers per workgroup ({alloc} x {width} lanes x "
                               f"{waves_per_wg} {a.wave_name}s, {a.partitions} sub-partitions: "
                               f"{assumed} > {a.registers_per_workgroup})")
        elif waves_per_wg and reg_waves < waves_per_wg and not exceeds:
            exceeds.append(f"registers: {waves_per_wg} {a.wave_name}s of {alloc} registers do "
                           f"not fit one {a.unit} ({reg_waves} {a.wave_name}s at most; the "
                           "compiler spills to fit the workgroup)")
    if waves_per_wg is None:
        # the launcher chooses the workgroup: only the per-wave limits can be told
        waves = a.max_waves if reg_waves is None else min(a.max_waves, reg_waves)
        limit = (("registers", waves),) if reg_waves is not None and reg_waves < a.max_waves \
            else ((f"{a.wave_name}s", waves),)
        return Occupancy(a, width, None, registers, local, None, tuple(exceeds), limit, None,
                         waves, tuple(notes))
    by_limit: list[tuple[str, int | None]] = [(f"{a.wave_name}s", a.max_waves // waves_per_wg)]
    cap = a.max_workgroups
    if a.barrier_workgroups is not None and waves_per_wg > 1:
        cap = a.barrier_workgroups if cap is None else min(cap, a.barrier_workgroups)
    by_limit.append(("workgroups", cap))
    by_limit.append(("registers", None if reg_waves is None else reg_waves // waves_per_wg))
    taken = a.local_allocation(local)
    by_limit.append(("local memory", a.local_per_unit // taken if taken else None))
    if exceeds:
        return Occupancy(a, width, threads, registers, local, waves_per_wg, tuple(exceeds),
                         tuple(by_limit), None, None, tuple(notes))
    groups = min(v for _n, v in by_limit if v is not None)
    return Occupancy(a, width, threads, registers, local, waves_per_wg, (), tuple(by_limit),
                     groups, groups * waves_per_wg, tuple(notes))


def vendor_register_count(arch: str, figures: dict[str, int]) -> int | None:
    """The registers per thread a vendor compiler reports for `arch` (ptxas' `registers`; hipcc's
    VGPRs, plus AGPRs after the VGPRs aligned to 4 on gfx90a, as LLVM's getTotalNumVGPRs)."""
    if "registers" in figures:
        return figures["registers"]
    if "VGPRs" in figures:
        vgprs, agprs = figures["VGPRs"], figures.get("AGPRs", 0)
        return (-(-vgprs // 4) * 4 + agprs) if agprs else vgprs
    return None
