/* The native core's ALU, compare, convert and move operations, each exactly as the numpy engine
 * computes it (emu/alu.py, compile_ops.py); memory and wave operations are dispatched to
 * memory.c and waveops.c. NaN results follow exec.h's rules (upstream's), as the numpy engine's
 * emu/nan_results.py chooses them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* alu.fma_f32: a*b is exact in f64; a sum that lands exactly halfway between two f32 values is
 * redone as round-to-odd so that the final rounding to f32 is the single rounding of fma. */
static inline float fma_single(float a, float b, float c)
{
    double x = (double)a * (double)b;
    double s = x + (double)c;
    uint64_t bits;
    memcpy(&bits, &s, 8);
    if ((bits & ((1ull << 29) - 1)) == (1ull << 28)) {
        double y = c, t = s, v = t - x;
        double err = (x - (t - v)) + (y - v);
        if (err != 0 && isfinite(t))
            t = nextafter(t, err > 0 ? INFINITY : -INFINITY);
        s = t;
    }
    return (float)s;
}

/* alu.fma_f32 of one lane, NaN operands included: the first NaN of b, a and c (upstream's
 * order) made quiet, else (0 * inf, inf - inf) the default NaN. */
static inline uint32_t fma_lane(uint32_t a, uint32_t b, uint32_t c)
{
    if (is_nan(a) || is_nan(b))
        return (is_nan(b) ? b : a) | QUIET_BIT;
    uint32_t r = u32(fma_single(f32(a), f32(b), f32(c)));
    return nan_settle(r, c, c);
}

/* AVX2 and plain clones of a hot loop, the loader picking one (x86-64 ELF); elsewhere (macOS,
 * Arm) one plain build. */
#if defined(__x86_64__) && defined(__ELF__)
#define LANE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LANE_CLONES
#endif

/* f32(f64(a) * f64(b) + f64(c)) for every lane into `out` (not one of the sources). Returns
 * 1 when an f64 sum is a tie that fma_single must redo, 2 when a sum is NaN (an operand may be
 * NaN: the caller checks). `sums` (n doubles) and `words` (2n words) are scratch. In passes of
 * their own so that each vectorises (with AVX2 where the processor has it). */
LANE_CLONES
static uint32_t fma_lanes(const float *restrict a, const float *restrict b,
                          const float *restrict c, float *restrict out, int64_t n,
                          double *restrict sums, uint32_t *restrict words)
{
    uint32_t nan = 0, tie = 0;
    for (int64_t l = 0; l < n; l++)
        sums[l] = (double)a[l] * (double)b[l] + (double)c[l];
    for (int64_t l = 0; l < n; l++) {
        out[l] = (float)sums[l];
        nan |= sums[l] != sums[l];
    }
    memcpy(words, sums, (size_t)n * 8);
    for (int64_t l = 0; l < n; l++)       /* the low word of each sum holds the 29 bits tested */
        tie |= (words[2 * l] & ((1u << 29) - 1)) == (1u << 28);
    return nan ? 2 : tie;
}

/* fmin / fmax as upstream computes them (Rust's f32 min and max; alu.py's `_pick`): a NaN
 * operand gives the other (both NaN: the second, its bits kept), of equal operands (+0 and -0)
 * the first. */
static inline uint32_t fminmax(uint32_t a, uint32_t b, int max)
{
    if (is_nan(a))
        return b;
    float x = f32(a), y = f32(b);
    return (max ? y > x : y < x) ? b : a;
}

/* clamp(x, lo, hi) as Rust's: x unless it compares below lo or above hi (a NaN x stays). */
static inline uint32_t fclamp(uint32_t x, uint32_t lo, uint32_t hi)
{
    uint32_t low = f32(x) < f32(lo) ? lo : x;
    return f32(low) > f32(hi) ? hi : low;
}

static inline uint32_t bitrev32(uint32_t v)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
    return (v >> 16) | (v << 16);
}

float transcendental(int op, float x)
{
    switch (op) {
    case OP_FSIN: return sinf(x);
    case OP_FCOS: return cosf(x);
    case OP_FEXP2: return exp2f(x);
    case OP_FLOG2: return log2f(x);
    default: return x;                  /* never: the callers pass only these four */
    }
}

static inline uint64_t low_mask(uint32_t width) { return (1ull << (width & 31)) - 1; }

#define BINARY(expr) LANES(uint32_t a = A[l]; uint32_t b = B[l]; D[l] = (expr);)
#define UNARY(expr) LANES(uint32_t a = A[l]; D[l] = (expr);)
#define COMPARE(expr) LANES(uint32_t a = A[l]; uint32_t b = B[l]; PD[l] = (expr) ? 1 : 0;)
/* f32 operations: NaN results as exec.h's nan_settle (a NaN operand made quiet, two: the
 * first, an invalid operation: the default NaN); floor, ceil and trunc (upstream's software
 * rounding) return a NaN operand as it is, signalling or not. */
#define FLOAT2(expr) LANES(uint32_t a = A[l]; uint32_t b = B[l]; D[l] = nan_settle((expr), a, b);)
#define FLOAT1(expr) LANES(uint32_t a = A[l]; D[l] = nan_settle((expr), a, a);)
#define ROUND1(expr) LANES(uint32_t a = A[l]; D[l] = is_nan(a) ? a : (expr);)

int64_t execute_op(WG *g, const Ins *ins)
{
    Run *run = g->run;
    int64_t n = g->n;
    const uint8_t *m = exec_mask(g, ins);
    int all = ins->guard < 0 && g->full;
    if (!all && !(ins->guard < 0 ? g->any_active : 1))
        return -1;
    if (ins->op >= OP_LOCAL_LOAD_U8 && ins->op <= OP_DEVICE_STORE_U128)
        return memory_op(g, ins, m);
    if (ins->op >= OP_LOCAL_ATOMIC_ADD && ins->op <= OP_ATOMIC_CAS)
        return atomic_op(g, ins, m);
    if (ins->op >= OP_WAVE_SHUFFLE && ins->op <= OP_WAVE_REDUCE_MAX)
        return wave_op(g, ins, m);
    if (ins->op >= OP_MMA_LOAD_A && ins->op <= OP_MMA_COMPUTE)
        return mma_op(g, ins, m);
    if (ins->op >= OP_HADD && ins->op <= OP_BMA2)
        return half_op(g, ins, m, all);
    if (ins->op >= OP_DADD && ins->op <= OP_CVT_F64_F32)
        return f64_op(g, ins, m, all);
    uint32_t *R = g->R;
    uint32_t *D = R + ins->rd * n;
    uint8_t *PD = g->P + ins->rd * n;
    const uint32_t *A = R + ins->rs1 * n, *B = R + ins->rs2 * n, *C = R + ins->rs3 * n,
                   *E = R + ins->rs4 * n;
    switch (ins->op) {
    case OP_IADD: BINARY(a + b); break;
    case OP_ISUB: BINARY(a - b); break;
    case OP_IMUL: BINARY(a * b); break;
    case OP_IMUL_HI: BINARY((uint32_t)(((int64_t)(int32_t)a * (int64_t)(int32_t)b) >> 32)); break;
    case OP_IMAD: LANES(D[l] = A[l] * B[l] + C[l];); break;
    case OP_IDIV:
        LANES({
            int64_t a = (int32_t)A[l], b = (int32_t)B[l];
            int64_t q = b == 0 ? 0 : llabs(a) / llabs(b);
            D[l] = (uint32_t)(((a < 0) != (b < 0)) ? -q : q);
        });
        break;
    case OP_IMOD:
        LANES({
            int64_t a = (int32_t)A[l], b = (int32_t)B[l];
            int64_t r = b == 0 ? 0 : llabs(a) % llabs(b);
            D[l] = (uint32_t)(a < 0 ? -r : r);
        });
        break;
    case OP_INEG: UNARY(0u - a); break;
    case OP_IABS: UNARY((int32_t)a < 0 ? 0u - a : a); break;
    case OP_IMIN: BINARY((int32_t)a < (int32_t)b ? a : b); break;
    case OP_IMAX: BINARY((int32_t)a > (int32_t)b ? a : b); break;
    case OP_ICLAMP:
        LANES({
            int32_t v = (int32_t)A[l], lo = (int32_t)B[l], hi = (int32_t)C[l];
            v = v > lo ? v : lo;
            D[l] = (uint32_t)(v < hi ? v : hi);
        });
        break;
    case OP_FADD: FLOAT2(u32(f32(a) + f32(b))); break;
    case OP_FSUB: FLOAT2(u32(f32(a) - f32(b))); break;
    case OP_FMUL: FLOAT2(u32(f32(a) * f32(b))); break;
    case OP_FDIV: FLOAT2(u32(f32(a) / f32(b))); break;
    case OP_FMA:
        if (all) {
            /* every lane: NaN check, f64 sums and tie test in vectorisable passes; the rare
             * lanes whose sum is a tie are then redone one by one */
            uint32_t *out = g->tmp32;
            uint32_t tie = fma_lanes((const float *)A, (const float *)B, (const float *)C,
                                     (float *)out, n, g->sums, g->words);
            if (tie)                          /* the ties and NaNs one by one */
                for (int64_t l = 0; l < n; l++)
                    out[l] = fma_lane(A[l], B[l], C[l]);
            memcpy(D, out, n * 4);
            break;
        }
        LANES(D[l] = fma_lane(A[l], B[l], C[l]););
        break;
    case OP_FNEG: UNARY(a ^ 0x80000000u); break;
    case OP_FABS: UNARY(a & 0x7FFFFFFFu); break;
    case OP_FMIN:
    case OP_FMAX:
        LANES(D[l] = fminmax(A[l], B[l], ins->op == OP_FMAX););
        break;
    case OP_FCLAMP:
        LANES(D[l] = fclamp(A[l], B[l], C[l]););
        break;
    case OP_FSQRT: FLOAT1(u32(sqrtf(f32(a)))); break;
    case OP_FRSQRT: FLOAT1(u32(1.0f / sqrtf(f32(a)))); break;
    case OP_FRCP: FLOAT1(u32(1.0f / f32(a))); break;
    case OP_FFLOOR: ROUND1(u32(floorf(f32(a)))); break;
    case OP_FCEIL: ROUND1(u32(ceilf(f32(a)))); break;
    case OP_FTRUNC: ROUND1(u32(truncf(f32(a)))); break;
    case OP_FROUND: {
        /* alu._fround: trunc(x + copysign(0.5, x)) in f64 */
        FLOAT1(u32((float)trunc((double)f32(a) + copysign(0.5, (double)f32(a)))));
        break;
    }
    case OP_FFRACT: FLOAT1(u32(f32(a) - truncf(f32(a)))); break;
    case OP_FSAT: LANES(D[l] = fclamp(A[l], 0u, 0x3F800000u);); break;
    case OP_FSIN:
    case OP_FCOS:
    case OP_FEXP2:
    case OP_FLOG2: {
        int op = ins->op;               /* NaNs included: the C library's own answer */
        UNARY(u32(transcendental(op, f32(a))));
        break;
    }
    case OP_AND: BINARY(a & b); break;
    case OP_OR: BINARY(a | b); break;
    case OP_XOR: BINARY(a ^ b); break;
    case OP_NOT: UNARY(~a); break;
    case OP_SHL: BINARY(a << (b & 31)); break;
    case OP_SHR: BINARY(a >> (b & 31)); break;
    case OP_SAR: BINARY((uint32_t)((int32_t)a >> (b & 31))); break;
    case OP_BITCOUNT: UNARY((uint32_t)__builtin_popcount(a)); break;
    case OP_BITFIND: UNARY(a == 0 ? 0xFFFFFFFFu : (uint32_t)__builtin_clz(a)); break;
    case OP_BITREV: UNARY(bitrev32(a)); break;
    case OP_BFE:
        LANES(D[l] = (uint32_t)(((uint64_t)A[l] >> (B[l] & 31)) & low_mask(C[l])););
        break;
    case OP_BFI:
        LANES({
            uint32_t sh = C[l] & 31;
            uint64_t mk = (low_mask(E[l]) << sh) & 0xFFFFFFFFull;
            D[l] = (uint32_t)((((uint64_t)A[l] & ~mk) | (((uint64_t)B[l] << sh) & mk))
                              & 0xFFFFFFFFull);
        });
        break;
    case OP_ICMP_EQ: COMPARE(a == b); break;
    case OP_ICMP_NE: COMPARE(a != b); break;
    case OP_ICMP_LT: COMPARE((int32_t)a < (int32_t)b); break;
    case OP_ICMP_LE: COMPARE((int32_t)a <= (int32_t)b); break;
    case OP_ICMP_GT: COMPARE((int32_t)a > (int32_t)b); break;
    case OP_ICMP_GE: COMPARE((int32_t)a >= (int32_t)b); break;
    case OP_UCMP_LT: COMPARE(a < b); break;
    case OP_UCMP_LE: COMPARE(a <= b); break;
    case OP_FCMP_EQ: COMPARE(f32(a) == f32(b)); break;
    case OP_FCMP_NE: COMPARE(f32(a) != f32(b)); break;
    case OP_FCMP_LT: COMPARE(f32(a) < f32(b)); break;
    case OP_FCMP_LE: COMPARE(f32(a) <= f32(b)); break;
    case OP_FCMP_GT: COMPARE(f32(a) > f32(b)); break;
    case OP_FCMP_ORD: COMPARE(!is_nan(a) && !is_nan(b)); break;
    case OP_FCMP_UNORD: COMPARE(is_nan(a) || is_nan(b)); break;
    case OP_SELECT: {
        const uint8_t *PS = g->P + ins->rs1 * n;
        LANES(D[l] = PS[l] ? B[l] : C[l];);
        break;
    }
    case OP_CVT_F32_I32: UNARY(u32((float)(int32_t)a)); break;
    case OP_CVT_F32_U32: UNARY(u32((float)a)); break;
    case OP_CVT_I32_F32:
        LANES({
            double x = trunc((double)f32(A[l]));
            if (isnan(x)) x = 0.0;
            x = x < -2147483648.0 ? -2147483648.0 : x > 2147483647.0 ? 2147483647.0 : x;
            D[l] = (uint32_t)(int64_t)x;
        });
        break;
    case OP_CVT_U32_F32:
        LANES({
            double x = trunc((double)f32(A[l]));
            if (isnan(x)) x = 0.0;
            x = x < 0.0 ? 0.0 : x > 4294967295.0 ? 4294967295.0 : x;
            D[l] = (uint32_t)(uint64_t)x;
        });
        break;
    case OP_CVT_F32_BF16: UNARY((a & 0xFFFFu) << 16); break;
    case OP_CVT_BF16_F32: UNARY(a >> 16); break;
    case OP_CVT_F16_F32: UNARY(float_to_half(a)); break;
    case OP_CVT_F32_F16: UNARY(u32(half_to_float((uint16_t)a))); break;
    case OP_MOV: UNARY(a); break;
    case OP_MOV_IMM: {
        uint32_t v = (uint32_t)ins->imm;
        LANES(D[l] = v;);
        break;
    }
    case OP_MOV_SR: {
        int64_t index = ins->rs1;
        if (index <= 4) {                    /* per thread: the same in every workgroup */
            const uint32_t *row = g->sr_lane + index * n;
            LANES(D[l] = row[l];);
        } else {
            uint32_t v = special(g, index, 0);
            LANES(D[l] = v;);
        }
        break;
    }
    default:
        return bail(run, "operation not in the native core");
    }
    return -1;
}
