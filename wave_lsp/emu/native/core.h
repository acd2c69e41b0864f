/* The native emulator core: shared declarations.
 *
 * The core runs a kernel that Python has pre-decoded into `Ins` records over the whole grid,
 * one workgroup at a time, in order, with every wave of the workgroup in lock-step — the same
 * schedule as the numpy engine (wave_lsp/emu/engine.py, control.py), which is the reference for
 * every rule here. It only ever stands for clean runs: on any event the numpy engine would report
 * (fault, warning, possible data race, limit) it stops with BAIL and Python runs the launch again
 * with the numpy engine, which produces the full report.
 */
#ifndef WAVECORE_H
#define WAVECORE_H

#include <stdint.h>
#include <stddef.h>

/* Operations. OP_NAMES (exec.c) gives the mnemonic of each, in this order; the Python side maps
 * instructions to these indices by name. Memory ops are generic: width, words and space come
 * from the instruction record (the ISA table, via Python). */
enum {
    OP_IADD, OP_ISUB, OP_IMUL, OP_IMUL_HI, OP_IMAD, OP_IDIV, OP_IMOD, OP_INEG, OP_IABS, OP_IMIN,
    OP_IMAX, OP_ICLAMP,
    OP_FADD, OP_FSUB, OP_FMUL, OP_FMA, OP_FDIV, OP_FNEG, OP_FABS, OP_FMIN, OP_FMAX, OP_FCLAMP,
    OP_FSQRT, OP_FRSQRT, OP_FRCP, OP_FFLOOR, OP_FCEIL, OP_FROUND, OP_FTRUNC, OP_FFRACT, OP_FSAT,
    OP_AND, OP_OR, OP_XOR, OP_NOT, OP_SHL, OP_SHR, OP_SAR, OP_BITCOUNT, OP_BITFIND, OP_BITREV,
    OP_BFE, OP_BFI,
    OP_ICMP_EQ, OP_ICMP_NE, OP_ICMP_LT, OP_ICMP_LE, OP_ICMP_GT, OP_ICMP_GE, OP_UCMP_LT,
    OP_UCMP_LE, OP_FCMP_EQ, OP_FCMP_NE, OP_FCMP_LT, OP_FCMP_LE, OP_FCMP_GT, OP_FCMP_ORD,
    OP_FCMP_UNORD, OP_SELECT,
    OP_CVT_F32_I32, OP_CVT_F32_U32, OP_CVT_I32_F32, OP_CVT_U32_F32, OP_CVT_F32_BF16,
    OP_CVT_BF16_F32, OP_CVT_F32_F16, OP_CVT_F16_F32,
    /* f16 and bf16: computed in f32, rounded to f16 (nearest even) or truncated to bf16 */
    OP_HADD, OP_HSUB, OP_HMUL, OP_HMA, OP_HADD2, OP_HMUL2, OP_HMA2,
    OP_BADD, OP_BSUB, OP_BMUL, OP_BMA, OP_BADD2, OP_BMUL2, OP_BMA2,
    /* f64 on register pairs (low word first) */
    OP_DADD, OP_DSUB, OP_DMUL, OP_DMA, OP_DDIV, OP_DSQRT, OP_CVT_F32_F64, OP_CVT_F64_F32,
    OP_MOV, OP_MOV_IMM, OP_MOV_SR,
    /* memory: loads and stores of every width, both spaces */
    OP_LOCAL_LOAD_U8, OP_LOCAL_LOAD_U16, OP_LOCAL_LOAD_U32, OP_LOCAL_LOAD_U64,
    OP_LOCAL_STORE_U8, OP_LOCAL_STORE_U16, OP_LOCAL_STORE_U32, OP_LOCAL_STORE_U64,
    OP_DEVICE_LOAD_U8, OP_DEVICE_LOAD_U16, OP_DEVICE_LOAD_U32, OP_DEVICE_LOAD_U64,
    OP_DEVICE_LOAD_U128,
    OP_DEVICE_STORE_U8, OP_DEVICE_STORE_U16, OP_DEVICE_STORE_U32, OP_DEVICE_STORE_U64,
    OP_DEVICE_STORE_U128,
    /* atomics (32-bit) */
    OP_LOCAL_ATOMIC_ADD, OP_LOCAL_ATOMIC_SUB, OP_LOCAL_ATOMIC_MIN, OP_LOCAL_ATOMIC_MAX,
    OP_LOCAL_ATOMIC_AND, OP_LOCAL_ATOMIC_OR, OP_LOCAL_ATOMIC_XOR, OP_LOCAL_ATOMIC_EXCHANGE,
    OP_LOCAL_ATOMIC_CAS,
    OP_ATOMIC_ADD, OP_ATOMIC_SUB, OP_ATOMIC_MIN, OP_ATOMIC_MAX, OP_ATOMIC_AND, OP_ATOMIC_OR,
    OP_ATOMIC_XOR, OP_ATOMIC_EXCHANGE, OP_ATOMIC_CAS,
    /* wave operations */
    OP_WAVE_SHUFFLE, OP_WAVE_SHUFFLE_UP, OP_WAVE_SHUFFLE_DOWN, OP_WAVE_SHUFFLE_XOR,
    OP_WAVE_BROADCAST, OP_WAVE_BALLOT, OP_WAVE_ANY, OP_WAVE_ALL, OP_WAVE_PREFIX_SUM,
    OP_WAVE_REDUCE_ADD, OP_WAVE_REDUCE_MIN, OP_WAVE_REDUCE_MAX,
    /* control and synchronisation */
    OP_IF, OP_ELSE, OP_ENDIF, OP_LOOP, OP_BREAK, OP_CONTINUE, OP_ENDLOOP, OP_CALL, OP_RETURN,
    OP_HALT, OP_BARRIER, OP_FENCE_ACQUIRE, OP_FENCE_RELEASE, OP_FENCE_ACQ_REL, OP_WAIT, OP_NOP,
    OP_COUNT
};

/* A pseudo-op (not a mnemonic): the instruction names a register or predicate that does not
 * exist; the numpy engine faults when a lane runs it, so the core bails. */
#define OP_TRAP (-1)

/* Statistics categories (the order of CATEGORIES in native/program.py). */
enum { CAT_INTEGER, CAT_FLOAT, CAT_MEMORY, CAT_CONTROL, CAT_WAVE, CAT_ATOMIC, CAT_COUNT };

/* One pre-decoded instruction (native/program.py writes these as 16 int64 fields). */
typedef struct {
    int64_t op, rd, rs1, rs2, rs3, rs4;
    int64_t guard;       /* predicate of the guard, -1 when unguarded */
    int64_t neg;         /* the guard is negated */
    int64_t imm;         /* mov_imm's value; call: target instruction index (-1: none) */
    int64_t skip;        /* if/else/loop: where an empty region ends (-1: never skipped) */
    int64_t category;    /* CAT_* of the statistics */
    int64_t width;       /* memory: bytes per access */
    int64_t words;       /* memory: registers loaded or stored */
    int64_t local;       /* memory: 1 local, 0 device */
    int64_t pad0, pad1;
} Ins;

#define INS_FIELDS 16
#define USE_READS 8                      /* registers read, then written, per instruction */
#define USE_FIELDS 12

/* Statistics, as emu/report.py's Stats. */
typedef struct {
    int64_t cat[CAT_COUNT];
    int64_t atomic_lanes;
    int64_t device_loads, device_stores, device_load_bytes, device_store_bytes;
    int64_t local_loads, local_stores, local_load_bytes, local_store_bytes;
    int64_t barriers, divergent_branches, workgroups, waves;
} Stats;

/* Everything a run needs. */
typedef struct {
    const Ins *code;
    int64_t n_code;
    /* geometry */
    int64_t grid[3], wg[3], W, registers, local_size;
    int64_t max_ctrl, max_calls;         /* ISA: MIN_DIVERGENCE_DEPTH, MAX_CALL_DEPTH */
    int64_t max_instructions;            /* 0: unlimited */
    int64_t set_reg_value[256];
    uint8_t set_reg[256];
    /* device memory */
    uint8_t *device;
    int64_t device_size;
    /* the uninitialised-read check (initcheck.c); NULL: off */
    const int16_t *uses;                 /* per instruction: USE_FIELDS register numbers */
    uint8_t *device_init;                /* per device byte: initialised */
    /* results */
    Stats stats;
    const char *bail;                    /* why the run stopped (NULL: it finished cleanly) */
    int64_t bail_index;
    /* polled between workgroups (every POLL_WORKGROUPS): nonzero stops the run ("interrupted");
     * a short kernel on a huge grid would otherwise never notice a Ctrl-C */
    int (*poll)(void);
} Run;

#define POLL_WORKGROUPS 1024

int wave_run(Run *run);
extern const char *const OP_NAMES[OP_COUNT];

/* floatfmt.c */
size_t format_f32(float x, char *out);   /* Rust `{:?}`; out needs 48 bytes */
float half_to_float(uint16_t h);
int float_to_half(uint32_t bits, uint16_t *out);   /* 0 for NaN (not reproduced) */

#endif
