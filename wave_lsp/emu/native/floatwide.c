/* The native core's f16, bf16 and f64 operations, exactly as emu/alu.py computes them. */
#include <math.h>
#include <string.h>

#include "exec.h"


/* ---- f16 and bf16 (alu._scalar16 / _packed16): each 16-bit value widened to f32 exactly, the
 * operation in f32 (hma: a multiply and an add, two roundings), the result rounded to f16 (nearest
 * even) or truncated to bf16. NaN results as exec.h's rules in the 16-bit format: the first NaN
 * operand in upstream's order of precedence (b, a for hadd and hmul; a, b for the others; b, a, c
 * for the multiply-adds) made quiet, else an invalid operation's default NaN. */
#define HALF_NAN(h) (((h) & 0x7FFFu) > 0x7C00u)
#define BF16_NAN(h) (((h) & 0x7FFFu) > 0x7F80u)

/* One 16-bit result of `op` (0 add, 1 sub, 2 mul, 3 multiply-add) from the operands' low halves. */
static uint32_t value16(int bf, int op, uint32_t a, uint32_t b, uint32_t c)
{
    a &= 0xFFFFu, b &= 0xFFFFu, c &= 0xFFFFu;
    uint32_t first = op == 1 || (bf && op != 3) ? a : b, second = first == a ? b : a;
    uint32_t order[3] = {first, second, op == 3 ? c : second};
    for (int i = 0; i < 3; i++)
        if (bf ? BF16_NAN(order[i]) : HALF_NAN(order[i]))
            return order[i] | (bf ? 0x40u : 0x200u);
    float x = bf ? f32(a << 16) : half_to_float((uint16_t)a);
    float y = bf ? f32(b << 16) : half_to_float((uint16_t)b);
    float z = bf ? f32(c << 16) : half_to_float((uint16_t)c);
    float r = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x * y + z;
    if (r != r)
        return bf ? 0xFFC0u : 0xFE00u;            /* the default NaN, narrowed */
    return bf ? u32(r) >> 16 : float_to_half(u32(r));
}

int64_t half_op(WG *g, const Ins *ins, const uint8_t *m, int all)
{
    static const int8_t kinds[] = {0, 1, 2, 3, 0, 2, 3};   /* hadd hsub hmul hma hadd2 hmul2 hma2 */
    int64_t n = g->n;
    int bf = ins->op >= OP_BADD, index = (int)(ins->op - (bf ? OP_BADD : OP_HADD));
    int op = kinds[index], packed = index >= 4;
    const uint32_t *A = g->R + ins->rs1 * n, *B = g->R + ins->rs2 * n, *C = g->R + ins->rs3 * n;
    uint32_t *D = g->R + ins->rd * n;
    LANES({
        uint32_t lo = value16(bf, op, A[l], B[l], C[l]);
        uint32_t hi = packed ? value16(bf, op, A[l] >> 16, B[l] >> 16, C[l] >> 16) : 0;
        D[l] = lo | (hi << 16);
    });
    return -1;
}

/* ---- f64 on register pairs (alu.pair_to_f64 / f64_to_pair). NaN results as exec.h's rules in
 * f64 (a, b; dma: b, a, c; the default NaN 0xFFF8...); the conversions as upstream's (the
 * processor's): a NaN made quiet, f32 -> f64 widening its payload, f64 -> f32 keeping its high
 * bits. */
#define QUIET64 (1ull << 51)
#define DEFAULT_NAN64 0xFFF8000000000000ull

static inline int is_nan64(uint64_t u) { return (u & ~(1ull << 63)) > 0x7FF0000000000000ull; }
static inline uint64_t bits64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double f64(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* nan_settle (exec.h) in f64. */
static inline uint64_t nan64_settle(uint64_t r, uint64_t x, uint64_t y)
{
    if (!is_nan64(r))
        return r;
    return is_nan64(x) ? x | QUIET64 : is_nan64(y) ? y | QUIET64 : DEFAULT_NAN64;
}

static inline uint64_t f64_binary(int64_t op, uint64_t x, uint64_t y)
{
    double a = f64(x), b = f64(y);
    return nan64_settle(bits64(op == OP_DADD ? a + b : op == OP_DSUB ? a - b
                               : op == OP_DMUL ? a * b : a / b), x, y);
}

int64_t f64_op(WG *g, const Ins *ins, const uint8_t *m, int all)
{
    int64_t n = g->n, op = ins->op;
    const uint32_t *R = g->R;
    const uint32_t *A = R + ins->rs1 * n, *A1 = A + n, *B = R + ins->rs2 * n, *B1 = B + n,
                   *C = R + ins->rs3 * n, *C1 = C + n;
    uint32_t *D = g->R + ins->rd * n, *D1 = D + n;
    LANES({
        uint64_t r;
        if (op == OP_CVT_F64_F32) {
            uint32_t a = A[l];
            r = is_nan(a) ? ((uint64_t)(a >> 31) << 63) | 0x7FF0000000000000ull | QUIET64
                                | ((uint64_t)(a & 0x7FFFFFu) << 29)
                          : bits64((double)f32(a));
        } else {
            uint64_t x = ((uint64_t)A1[l] << 32) | A[l], y = 0, z = 0;
            if (op != OP_DSQRT && op != OP_CVT_F32_F64)      /* only the operands it has */
                y = ((uint64_t)B1[l] << 32) | B[l];
            if (op == OP_DMA)
                z = ((uint64_t)C1[l] << 32) | C[l];
            if (op == OP_CVT_F32_F64) {
                D[l] = is_nan64(x) ? (uint32_t)(x >> 32 & 0x80000000u) | 0x7FC00000u
                                         | (uint32_t)(x >> 29 & 0x7FFFFFu)
                                   : u32((float)f64(x));
                continue;
            }
            if (op == OP_DSQRT)
                r = nan64_settle(bits64(sqrt(f64(x))), x, x);
            else if (op == OP_DMA)               /* numpy's a * b + c: two roundings */
                r = is_nan64(x) || is_nan64(y) ? f64_binary(OP_DMUL, y, x)
                    : is_nan64(z)              ? z | QUIET64
                                               : f64_binary(OP_DADD, f64_binary(OP_DMUL, x, y), z);
            else
                r = f64_binary(op, x, y);
        }
        D[l] = (uint32_t)r;
        D1[l] = (uint32_t)(r >> 32);
    });
    return -1;
}
