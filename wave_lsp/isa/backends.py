"""The four vendor backends of WAVE (seed 003): what each one maps and where they differ.

One `Backend` record per target, read by the portability lints, the wave-width run check, the
occupancy lens and the backend emitters. Facts come from seed `003_…` (backend summary, register
mapping, limitations) and from what upstream's `wave-ptx`/`wave-hip`/`wave-metal`/`wave-sycl`
emit for each instruction.
"""

from __future__ import annotations

from dataclasses import dataclass

from .classes import InstructionClass as IC
from .instructions import INSTRUCTIONS


@dataclass(frozen=True)
class Backend:
    """One vendor backend."""

    name: str                       # the target name in settings and on the command line
    tool: str                       # upstream's translator
    vendor: str
    language: str                   # what the backend emits
    hardware: str
    wave_widths: tuple[int, ...]    # every wave width the target's hardware may run with
    f64: bool                       # double precision available
    # how general registers are declared in the output: every backend declares r0 .. r{N-1} for
    # the kernel's `.registers N` and nothing more (seed 003 shows r0..r31, the v0.2 file)
    register_mapping: str
    # operations the backend has no single instruction or call for: mnemonic -> how it is done
    emulated: tuple[tuple[str, str], ...]

    @property
    def fixed_width(self) -> bool:
        return len(self.wave_widths) == 1

    def widths_text(self) -> str:
        return "/".join(str(w) for w in self.wave_widths)

    def emulation(self, mnemonic: str) -> str | None:
        """How the backend emulates `mnemonic`, or None when it maps it directly."""
        return dict(self.emulated).get(mnemonic)


_SHUFFLE_TREE = "a shuffle-tree loop of log2(W) shuffles and adds"
_SHUFFLE_SCAN = "a shuffle-up scan of log2(W) shuffles and guarded adds"
_MMA = "a 4x4x4 multiply-add loop over private arrays (no matrix unit is used)"

BACKENDS: tuple[Backend, ...] = (
    Backend("ptx", "wave-ptx", "NVIDIA", "PTX assembly", "Turing+ (SM 75+)", (32,), True,
            "PTX virtual registers %r<N> (.b32), %f<N> (.f32), 64-bit pairs through %rd", (
        ("atomic_sub", "neg followed by atom.add (PTX has no atom.sub)"),
        ("local_atomic_sub", "neg followed by atom.shared.add (PTX has no atom.sub)"),
        ("wave_reduce_add", "five shfl.sync.bfly steps, each followed by an add"),
        ("wave_reduce_min", "five shfl.sync.bfly steps, each followed by a min"),
        ("wave_reduce_max", "five shfl.sync.bfly steps, each followed by a max"),
        ("wave_prefix_sum", "five shfl.sync.up steps with guarded adds, then a shift"),
    )),
    Backend("hip", "wave-hip", "AMD", "HIP C++", "RDNA (wave32/64) and CDNA (wave64)", (64, 32),
            True, "uint32_t locals r0..r{N-1}", (
        ("wave_reduce_add", _SHUFFLE_TREE + " (HIP has no wave reduce)"),
        ("wave_reduce_min", _SHUFFLE_TREE.replace("adds", "mins") + " (HIP has no wave reduce)"),
        ("wave_reduce_max", _SHUFFLE_TREE.replace("adds", "maxes") + " (HIP has no wave reduce)"),
        ("wave_prefix_sum", _SHUFFLE_SCAN),
        ("mma_compute", _MMA),
    )),
    Backend("metal", "wave-metal", "Apple", "Metal Shading Language", "Apple M1-M4, A-series",
            (32,), False,
            "uint32_t locals r0..r{N-1}", (
        ("mma_compute", _MMA),
    )),
    Backend("sycl", "wave-sycl", "Intel", "SYCL C++", "Intel Xe / Arc", (8, 16, 32), True,
            "uint32_t locals r0..r{N-1} in the kernel lambda", (
        ("wave_ballot", "a bit-or reduction over the sub-group of each lane's bit"),
        ("mma_compute", _MMA),
    )),
)

BACKEND_BY_NAME: dict[str, Backend] = {b.name: b for b in BACKENDS}
TARGET_NAMES: tuple[str, ...] = tuple(b.name for b in BACKENDS)

# the f64 instructions of the ISA are those of class F64 plus the two conversions touching f64
F64_CONVERSIONS = frozenset({"cvt_f32_f64", "cvt_f64_f32"})


def targets_widths(names) -> tuple[int, ...]:
    """Every wave width the named targets may run with, ascending."""
    return tuple(sorted({w for n in names for w in BACKEND_BY_NAME[n].wave_widths}))


@dataclass(frozen=True)
class UpstreamDefect:
    """An instruction upstream's translator gets wrong (read against the specification and seed
    003). `wave-lsp emit` emits the correct code unless `--compat upstream` (or, where `fixed`
    is False, still emits upstream's); the lint `code` reports it."""

    code: str
    backends: tuple[str, ...]
    mnemonics: frozenset[str]
    upstream: str                    # what upstream emits
    correct: str                     # what the specification asks for (and wave-lsp emits)
    guarded_only: bool = False       # only when the instruction has a guard
    fixed: bool = True
    # "" the mnemonic alone; "divergent": only where not every lane may run it (inside if/loop,
    # guarded, after a lane halted); "lane": unless its lane/offset operand is a constant that
    # is in range on the backend, outside divergent code
    context: str = ""


_CVT = "translated as the opposite conversion (cvt_A_B converts B to A, spec v0.4)"
_CORRECT_CVT = "the conversion its name says"
_GUARD = "the guard is dropped, so the instruction runs in every lane"
_MEMORY = frozenset(m for m, s in INSTRUCTIONS.items()
                    if s.iclass in (IC.LOCAL_MEMORY, IC.DEVICE_MEMORY, IC.ATOMIC))
_WAVE_OPS = frozenset(m for m, s in INSTRUCTIONS.items() if s.iclass is IC.WAVE)
_BF16_ARITHMETIC = frozenset(m for m, s in INSTRUCTIONS.items() if s.iclass is IC.BF16)
_MMA_OPS = frozenset(m for m, s in INSTRUCTIONS.items() if s.iclass is IC.MMA)
_SHUFFLES = frozenset({"wave_shuffle", "wave_shuffle_up", "wave_shuffle_down", "wave_shuffle_xor"})
_SCANS = frozenset({"wave_reduce_add", "wave_reduce_min", "wave_reduce_max", "wave_prefix_sum"})

UPSTREAM_DEFECTS: tuple[UpstreamDefect, ...] = (
    UpstreamDefect("P811", TARGET_NAMES, frozenset({"cvt_f32_i32", "cvt_i32_f32", "cvt_f32_u32",
                                                    "cvt_u32_f32", "cvt_f32_f64", "cvt_f64_f32"}),
                   _CVT, _CORRECT_CVT),
    UpstreamDefect("P811", ("ptx", "hip", "sycl"), frozenset({"cvt_f32_f16", "cvt_f16_f32"}),
                   _CVT, _CORRECT_CVT),
    UpstreamDefect("P811", ("hip", "metal"), frozenset({"cvt_f32_bf16", "cvt_bf16_f32"}),
                   _CVT + " (hip's bf16-to-f32 also stores the float converted to an integer)",
                   _CORRECT_CVT),
    UpstreamDefect("P812", ("ptx",), _MEMORY, _GUARD, "the guard on every emitted line",
                   guarded_only=True),
    UpstreamDefect("P812", ("ptx",), _WAVE_OPS, _GUARD,
                   "the wave operation run by every lane of its member mask over the lanes whose "
                   "guard holds (a ballot of the guard), and the guard on the write of the result "
                   "(a guarded shfl.sync or vote.sync with a full member mask is undefined)",
                   guarded_only=True),
    UpstreamDefect("P813", ("metal", "sycl"), frozenset({"atomic_cas", "local_atomic_cas"}),
                   "compare_exchange_weak, which may fail spuriously without storing",
                   "compare_exchange_strong"),
    UpstreamDefect("P814", ("hip", "metal", "sycl"), frozenset({"imul_hi"}),
                   "the high half of the unsigned product", "the high half of the signed product"),
    UpstreamDefect("P815", TARGET_NAMES, frozenset({"bitfind"}),
                   "the index of the lowest set bit (trailing zeros)",
                   "the count of leading zeros (0xFFFFFFFF for 0)"),
    UpstreamDefect("P816", TARGET_NAMES, frozenset({"fround"}),
                   "halfway cases rounded to even (rint, cvt.rni)",
                   "halfway cases rounded away from zero"),
    UpstreamDefect("P817", ("hip", "sycl"), _BF16_ARITHMETIC,
                   "the registers are written as an array r[N] that is never declared, so the "
                   "output does not compile", "the declared registers rN"),
    UpstreamDefect("P818", ("ptx",), _MMA_OPS,
                   "wmma 16x16x16 fragment operations, not WAVE's 4x4x4 f32 tiles in local "
                   "memory (and mma_load_* reads a whole 16x16 tile)",
                   "per-lane 4x4 f32 fragments in registers, loaded from and stored to .shared "
                   "at addr + row * stride + col * 4, C += A x B in f32 with k in order"),
    UpstreamDefect("P819", ("ptx", "hip", "sycl"), frozenset({"wave_reduce_min",
                                                            "wave_reduce_max"}),
                   "a signed minimum/maximum (min.s32/max.s32, int32_t)",
                   "the unsigned minimum/maximum (WAVE's reductions are unsigned)"),
    UpstreamDefect("P820", TARGET_NAMES, _SHUFFLES,
                   "a source lane outside the wave gives the lane's own value (shuffle_up/down) "
                   "or wraps (PTX, HIP idx/xor) or is undefined (Metal, SYCL, which also need "
                   "one offset in every lane), and an inactive source lane's register is read",
                   "an indexed shuffle of the computed source lane that reads 0 when that lane "
                   "is outside the wave or inactive, as the emulator", context="lane"),
    UpstreamDefect("P821", TARGET_NAMES, frozenset({"wave_broadcast"}),
                   "each lane reads the lane its own index names (PTX, HIP) or the index must "
                   "be the same in every lane (Metal, SYCL: undefined otherwise)",
                   "the value of the lane named by the first active lane's index (0 when out "
                   "of range or inactive)", context="lane"),
    UpstreamDefect("P822", ("ptx",), _WAVE_OPS,
                   "shfl.sync/vote.sync name all 32 lanes (member mask 0xFFFFFFFF) where not "
                   "every lane runs them, which is undefined, and reductions and prefix sums "
                   "read inactive lanes",
                   "member masks of the lanes that run it (ballots at if, else, break and "
                   "continue) and a reduction over the active lanes", context="divergent"),
    UpstreamDefect("P822", ("hip",), _SCANS,
                   "a shuffle tree that reads inactive lanes (and the reduction takes lane 0's "
                   "result)", "a loop over the active lanes of __ballot(1)", context="divergent"),
    UpstreamDefect("P822", ("sycl",), _WAVE_OPS,
                   "a sub-group function in control flow that not every work-item of the "
                   "sub-group reaches, which SYCL leaves undefined",
                   "no correct SYCL translation: keep wave operations out of divergent code "
                   "for SYCL", fixed=False, context="divergent"),
    # P823: what the vendors' own compilers reject (tests/test_emit_vendors.py)
    UpstreamDefect("P823", ("ptx",), frozenset(
        f"{space}atomic_{op}" for space in ("", "local_")
        for op in ("and", "or", "xor", "exchange")),
        "atom.and/or/xor/exch on .u32, which ptxas rejects (they take .b32)", "the .b32 forms"),
    UpstreamDefect("P823", ("ptx",), frozenset({"hadd", "hsub", "hmul", "hma"}),
                   "add/sub/mul/fma.f16 on 32-bit registers, which ptxas rejects",
                   "the .f16x2 form on the register, keeping the low half"),
    UpstreamDefect("P823", ("ptx",), frozenset({"bma2"}),
                   "the registers %ft4 and %ft5, never declared, so ptxas rejects it",
                   "the same arithmetic on the declared %ft0..%ft3"),
    UpstreamDefect("P823", ("hip",), frozenset({"hadd2", "hmul2", "hma2"}),
                   "floats passed to __hadd2/__hmul2/__hfma2, which hipcc rejects",
                   "the registers bit-cast to __half2 and back"),
    UpstreamDefect("P823", ("hip",), frozenset({"iclamp"}),
                   "clamp(), which HIP does not have, so hipcc rejects it", "min(max())"),
)

# The architectures the vendors' compilers check emitted code for (`asm/vendors.py`, the tests):
# the oldest the PTX backend targets (SM 75, its `.target`) and Hopper; CDNA2 (wave64) and RDNA2
# (wave32), which Debian's ROCm 5.2 device libraries cover.
# SYCL: compiled for the host only (no device compiler can be installed from the registries).
VENDOR_ARCHES = {"ptx": ("sm_75", "sm_90"), "hip": ("gfx90a", "gfx1030"), "sycl": ("host",)}

# How to install the compilers the editor runs (`asm/vendors.py` finds them): NVIDIA's ptxas is
# in the CUDA compiler wheel on PyPI (https://pypi.org/project/nvidia-cuda-nvcc-cu12/, its
# `nvidia/cuda_nvcc/bin`), found when installed into wave-lsp's own Python; AMD's hipcc is
# Debian/Ubuntu's ROCm packaging (https://packages.debian.org/hipcc), which compiles for gfx
# targets only with the device libraries and the HIP headers beside it.
VENDOR_COMPILER_PACKAGES = {
    "ptx": ("pip", "nvidia-cuda-nvcc-cu12"),
    "hip": ("apt-get", "hipcc rocm-device-libs libamdhip64-dev"),
}

# the instructions that use local memory (`wave-lsp emit` declares `launch_defaults`'
# DEFAULT_LOCAL_MEMORY for a kernel that uses them without `.local_memory`)
LOCAL_MEMORY_MNEMONICS = frozenset(m for m, s in INSTRUCTIONS.items()
                                   if s.iclass is IC.MMA
                                   or (s.memory is not None and s.memory.space == "local"))
