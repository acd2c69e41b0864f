/* The mnemonic of each native operation, in the order of the OP_ enumeration (ops.h).
 * Python reads them as `_wavecore.OPS` and maps instructions to operations by name.
 * GENERATED from wave_lsp/isa by `python -m wave_lsp.emu.native.opnames`: do not edit. */
#include "core.h"

const char *const OP_NAMES[OP_COUNT] = {
    "iadd", "isub", "imul", "imul_hi", "imad", "idiv", "imod", "ineg", "iabs", "imin", "imax",
    "iclamp", "fadd", "fsub", "fmul", "fma", "fdiv", "fneg", "fabs", "fmin", "fmax", "fclamp",
    "fsqrt", "frsqrt", "frcp", "ffloor", "fceil", "fround", "ftrunc", "ffract", "fsat", "fsin",
    "fcos", "fexp2", "flog2", "and", "or", "xor", "not", "shl", "shr", "sar", "bitcount", "bitfind",
    "bitrev", "bfe", "bfi", "icmp_eq", "icmp_ne", "icmp_lt", "icmp_le", "icmp_gt", "icmp_ge",
    "ucmp_lt", "ucmp_le", "fcmp_eq", "fcmp_ne", "fcmp_lt", "fcmp_le", "fcmp_gt", "fcmp_ord",
    "fcmp_unord", "select", "cvt_f32_i32", "cvt_f32_u32", "cvt_i32_f32", "cvt_u32_f32",
    "cvt_f32_f16", "cvt_f16_f32", "cvt_f32_bf16", "cvt_bf16_f32", "hadd", "hsub", "hmul", "hma",
    "hadd2", "hmul2", "hma2", "badd", "bsub", "bmul", "bma", "badd2", "bmul2", "bma2", "dadd",
    "dsub", "dmul", "dma", "ddiv", "dsqrt", "cvt_f32_f64", "cvt_f64_f32", "mov", "mov_imm",
    "mov_sr", "local_load_u8", "local_load_u16", "local_load_u32", "local_load_u64",
    "local_store_u8", "local_store_u16", "local_store_u32", "local_store_u64", "device_load_u8",
    "device_load_u16", "device_load_u32", "device_load_u64", "device_load_u128", "device_store_u8",
    "device_store_u16", "device_store_u32", "device_store_u64", "device_store_u128",
    "local_atomic_add", "local_atomic_sub", "local_atomic_min", "local_atomic_max",
    "local_atomic_and", "local_atomic_or", "local_atomic_xor", "local_atomic_exchange",
    "local_atomic_cas", "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and",
    "atomic_or", "atomic_xor", "atomic_exchange", "atomic_cas", "wave_shuffle", "wave_shuffle_up",
    "wave_shuffle_down", "wave_shuffle_xor", "wave_broadcast", "wave_ballot", "wave_any",
    "wave_all", "wave_prefix_sum", "wave_reduce_add", "wave_reduce_min", "wave_reduce_max",
    "mma_load_a", "mma_load_b", "mma_store_c", "mma_compute", "if", "else", "endif", "loop",
    "break", "continue", "endloop", "call", "return", "halt", "barrier", "fence_acquire",
    "fence_release", "fence_acq_rel", "wait", "nop",
};
