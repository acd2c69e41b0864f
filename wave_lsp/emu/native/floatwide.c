/* The native core's f16, bf16 and f64 operations, exactly as emu/alu.py computes them. */
#include <math.h>
#include <string.h>

#include "exec.h"


/* ---- f16 and bf16 (alu._scalar16 / _packed16): each 16-bit value widened to f32 exactly, the
 * operation in f32 (hma: a multiply and an add, two roundings), the result rounded to f16 (nearest
 * even) or truncated to bf16. bf16 widens and narrows by shifting bits, so a NaN operand gives
 * the f32 instructions' result (exec.h nan_result; two different NaNs bail); an f16 NaN bails
 * (numpy converts f16 NaNs in software or with F16C by length and processor: payloads differ). */
static int widen16(uint32_t h, float *out)
{
    h &= 0xFFFFu;
    if ((h & 0x7C00u) == 0x7C00u && (h & 0x3FFu))
        return 0;
    *out = half_to_float((uint16_t)h);
    return 1;
}

static int narrow16(float x, uint32_t *out)
{
    uint32_t bits = u32(x);
    uint16_t h;
    if (is_nan(bits) || !float_to_half(bits, &h))
        return 0;
    *out = h;
    return 1;
}

/* One f16 result of `op` (0 add, 1 sub, 2 mul, 3 multiply-add) from the 16-bit operands. */
static int half_value(int op, uint32_t a, uint32_t b, uint32_t c, uint32_t *out)
{
    float x, y, z = 0.0f;
    if (!widen16(a, &x) || !widen16(b, &y) || (op == 3 && !widen16(c, &z)))
        return 0;
    float r = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x * y + z;
    return narrow16(r, out);
}

/* One bf16 result of `op` with NaN operands as the f32 instructions'; 0 where two NaNs meet. */
static int bf16_value(int op, uint32_t a, uint32_t b, uint32_t c, uint32_t *out)
{
    uint32_t x = (a & 0xFFFFu) << 16, y = (b & 0xFFFFu) << 16, z = (c & 0xFFFFu) << 16;
    uint32_t r = u32(op == 0 ? f32(x) + f32(y) : op == 1 ? f32(x) - f32(y) : f32(x) * f32(y));
    if ((is_nan(x) || is_nan(y)) && !nan_result(x, y, &r))
        return 0;
    if (op == 3) {                           /* the product, then the sum: numpy's a * b + c */
        uint32_t t = u32(f32(r) + f32(z));
        if ((is_nan(r) || is_nan(z)) && !nan_result(r, z, &t))
            return 0;
        r = t;
    }
    *out = r >> 16;
    return 1;
}

int64_t half_op(WG *g, const Ins *ins, const uint8_t *m, int all)
{
    static const int8_t kinds[] = {0, 1, 2, 3, 0, 2, 3};   /* hadd hsub hmul hma hadd2 hmul2 hma2 */
    Run *run = g->run;
    int64_t n = g->n;
    int bf = ins->op >= OP_BADD, index = (int)(ins->op - (bf ? OP_BADD : OP_HADD));
    int op = kinds[index], packed = index >= 4;
    const uint32_t *A = g->R + ins->rs1 * n, *B = g->R + ins->rs2 * n, *C = g->R + ins->rs3 * n;
    uint32_t *D = g->R + ins->rd * n;
    if (bf) {
        LANES({
            uint32_t lo, hi = 0;
            if (!bf16_value(op, A[l], B[l], C[l], &lo)
                || (packed && !bf16_value(op, A[l] >> 16, B[l] >> 16, C[l] >> 16, &hi)))
                return bail(run, "NaN operands meet");
            D[l] = lo | (hi << 16);
        });
        return -1;
    }
    LANES({
        uint32_t lo, hi = 0;
        if (!half_value(op, A[l], B[l], C[l], &lo)
            || (packed && !half_value(op, A[l] >> 16, B[l] >> 16, C[l] >> 16, &hi)))
            return bail(run, "f16 NaN");
        D[l] = lo | (hi << 16);
    });
    return -1;
}

/* ---- f64 on register pairs (alu.pair_to_f64 / f64_to_pair). A NaN operand gives the f32
 * instructions' rule in f64 (the NaN made quiet; two different NaNs bail); an invalid operation's
 * default NaN is computed; the conversions are the processor's, as numpy's casts (f32 -> f64
 * quiets and widens the payload, f64 -> f32 quiets and keeps its high bits). */
#define QUIET64 (1ull << 51)

static inline int is_nan64(uint64_t u) { return (u & ~(1ull << 63)) > 0x7FF0000000000000ull; }
static inline uint64_t bits64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double f64(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* nan_result (exec.h) in f64: `*out` for an operation on a and b, one at least a NaN; 0 where
 * the result depends on the order of the operands. */
static inline int nan64_result(uint64_t a, uint64_t b, uint64_t *out)
{
    int na = is_nan64(a), nb = is_nan64(b);
    if (!NAN_PAYLOADS || (na && nb && (a | QUIET64) != (b | QUIET64)))
        return 0;
    *out = (na ? a : b) | QUIET64;
    return 1;
}

/* One binary result of `op` with NaN operands as numpy's loops give them where they do not
 * depend on the order; 0 otherwise. */
static inline int f64_binary(int64_t op, uint64_t x, uint64_t y, uint64_t *out)
{
    double a = f64(x), b = f64(y);
    *out = bits64(op == OP_DADD ? a + b : op == OP_DSUB ? a - b : op == OP_DMUL ? a * b : a / b);
    return !(is_nan64(x) || is_nan64(y)) || nan64_result(x, y, out);
}

int64_t f64_op(WG *g, const Ins *ins, const uint8_t *m, int all)
{
    Run *run = g->run;
    int64_t n = g->n, op = ins->op;
    const uint32_t *R = g->R;
    const uint32_t *A = R + ins->rs1 * n, *A1 = A + n, *B = R + ins->rs2 * n, *B1 = B + n,
                   *C = R + ins->rs3 * n, *C1 = C + n;
    uint32_t *D = g->R + ins->rd * n, *D1 = D + n;
    LANES({
        uint64_t r;
        if (op == OP_CVT_F64_F32) {
            if (is_nan(A[l]) && !NAN_PAYLOADS)
                return bail(run, "NaN operand");
            r = bits64((double)f32(A[l]));
        } else {
            uint64_t x = ((uint64_t)A1[l] << 32) | A[l], y = 0, z = 0;
            if (op != OP_DSQRT && op != OP_CVT_F32_F64)      /* only the operands it has */
                y = ((uint64_t)B1[l] << 32) | B[l];
            if (op == OP_DMA)
                z = ((uint64_t)C1[l] << 32) | C[l];
            if (op == OP_CVT_F32_F64 || op == OP_DSQRT) {
                if (is_nan64(x) && !NAN_PAYLOADS)
                    return bail(run, "NaN operand");
                if (op == OP_CVT_F32_F64) {
                    D[l] = u32((float)f64(x));
                    continue;
                }
                r = is_nan64(x) ? x | QUIET64 : bits64(sqrt(f64(x)));
            } else if (op == OP_DMA) {             /* numpy's a * b + c: two roundings */
                uint64_t p;
                if (!f64_binary(OP_DMUL, x, y, &p) || !f64_binary(OP_DADD, p, z, &r))
                    return bail(run, "NaN operands meet");
            } else if (!f64_binary(op, x, y, &r)) {
                return bail(run, "NaN operands meet");
            }
        }
        D[l] = (uint32_t)r;
        D1[l] = (uint32_t)(r >> 32);
    });
    return -1;
}
