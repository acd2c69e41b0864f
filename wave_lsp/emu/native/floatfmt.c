/* Floats as upstream wave-emu prints them: Rust's `{:?}` of an f32.
 *
 * Digits: Rust's shortest round-trip digits (core::num::flt2dec, the Dragon4-style
 * `format_shortest`, reproduced step for step with exact big integers, including its decoding
 * quirks: subnormals always count as "even", and every mantissa 0x800000 as a power-of-two
 * boundary). Where two shortest decimals are equally close it rounds up, i.e. away from zero
 * (`-5.47265625` prints `-5.4726563`). Layout: positional for 1e-4 <= |x| < 1e16 with at least
 * one fractional digit (`3.0`), else `1.5e-7` / `1e16`; `NaN`, `inf`, `-inf`, `-0.0`.
 * launch/formats.py is the Python reference of the same text.
 */
#include <string.h>

#include "core.h"

#define LIMBS 10                 /* 320 bits: enough for every f32 (at most ~2^200 here) */

typedef struct { uint32_t d[LIMBS]; } Big;

static void big_set(Big *b, uint64_t v)
{
    memset(b, 0, sizeof *b);
    b->d[0] = (uint32_t)v;
    b->d[1] = (uint32_t)(v >> 32);
}

static void big_mul_small(Big *b, uint32_t k)
{
    uint64_t carry = 0;
    for (int i = 0; i < LIMBS; i++) {
        uint64_t v = (uint64_t)b->d[i] * k + carry;
        b->d[i] = (uint32_t)v;
        carry = v >> 32;
    }
}

static void big_shl(Big *b, int bits)
{
    int words = bits / 32, rest = bits % 32;
    for (int i = LIMBS - 1; i >= 0; i--) {
        uint64_t hi = i - words >= 0 ? b->d[i - words] : 0;
        uint64_t lo = i - words - 1 >= 0 ? b->d[i - words - 1] : 0;
        b->d[i] = (uint32_t)(rest ? (hi << rest) | (lo >> (32 - rest)) : hi);
    }
}

static void big_mul_pow10(Big *b, int k)
{
    while (k >= 9) { big_mul_small(b, 1000000000u); k -= 9; }
    static const uint32_t small[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                      100000000};
    if (k > 0)
        big_mul_small(b, small[k]);
}

static void big_add(Big *out, const Big *a, const Big *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < LIMBS; i++) {
        uint64_t v = (uint64_t)a->d[i] + b->d[i] + carry;
        out->d[i] = (uint32_t)v;
        carry = v >> 32;
    }
}

static void big_sub(Big *a, const Big *b)             /* a -= b, a >= b */
{
    int64_t borrow = 0;
    for (int i = 0; i < LIMBS; i++) {
        int64_t v = (int64_t)a->d[i] - b->d[i] - borrow;
        borrow = v < 0;
        a->d[i] = (uint32_t)(v + (borrow ? (1ll << 32) : 0));
    }
}

static int big_cmp(const Big *a, const Big *b)
{
    for (int i = LIMBS - 1; i >= 0; i--)
        if (a->d[i] != b->d[i])
            return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

/* flt2dec's round_up: add one at the last of the `n` digits, carrying; all nines become 10...0
 * with one digit more (returned count) and the exponent one higher. */
static int round_up(char *buf, int n, int *k)
{
    int j = n - 1;
    while (j >= 0 && buf[j] == '9')
        j--;
    if (j >= 0) {
        buf[j]++;
        for (int t = j + 1; t < n; t++)
            buf[t] = '0';
        return n;
    }
    buf[0] = '1';
    for (int t = 1; t < n; t++)
        buf[t] = '0';
    buf[n] = '0';
    *k += 1;
    return n + 1;
}

typedef unsigned __int128 u128;

/* `shortest` when every quantity fits in 128 bits (all of the positional range): the same
 * steps on u128 instead of Big. */
static int shortest_small(uint64_t m, uint64_t minus_, uint64_t plus_, int exp, int inclusive,
                          int k, char *buf, int *kout)
{
    u128 mant = m, minus = minus_, plus = plus_, scale = 1;
    if (exp < 0) {
        scale <<= -exp;
    } else {
        mant <<= exp; minus <<= exp; plus <<= exp;
    }
    for (int i = 0; i < k; i++)
        scale *= 10;
    for (int i = 0; i < -k; i++) {
        mant *= 10; minus *= 10; plus *= 10;
    }
#define BELOW(a, b) (inclusive ? (a) <= (b) : (a) < (b))
    if (BELOW(scale, mant + plus)) {
        k += 1;
    } else {
        mant *= 10; minus *= 10; plus *= 10;
    }
    int i = 0, down, up;
    for (;;) {
        int d = (int)(mant / scale);
        mant -= (u128)d * scale;
        buf[i++] = (char)('0' + d);
        down = BELOW(mant, minus);
        up = BELOW(scale, mant + plus);
        if (down || up)
            break;
        mant *= 10; minus *= 10; plus *= 10;
    }
#undef BELOW
    *kout = k;
    return up && (!down || 2 * mant >= scale) ? -i : i;   /* negative: round the last digit up */
}

/* Rust's shortest digits of mant * 2^exp (half-gaps minus and plus); returns the digit count,
 * *k the decimal exponent (value = 0.DIGITS * 10^k). */
static int shortest(uint64_t m, uint64_t minus_, uint64_t plus_, int exp, int inclusive,
                    char *buf, int *kout)
{
    /* estimate_scaling_factor(mant + plus, exp) */
    uint64_t high = m + plus_;
    int64_t nbits = 64 - __builtin_clzll(high - 1);
    int k = (int)(((nbits + exp) * 1292913986LL) >> 32);
    /* bits of the largest quantity (mant or scale, times 20) on the u128 path */
    int mant_bits = 64 - __builtin_clzll(m | 1) + (exp > 0 ? exp : 0) + (k < 0 ? -k * 4 : 0);
    int scale_bits = (exp < 0 ? -exp : 0) + (k > 0 ? k * 4 : 0);
    if (mant_bits + 5 < 126 && scale_bits + 6 < 126) {
        int n = shortest_small(m, minus_, plus_, exp, inclusive, k, buf, kout);
        if (n > 0)
            return n;
        return round_up(buf, -n, kout);
    }
    Big mant, minus, plus, scale, sum;
    big_set(&mant, m);
    big_set(&minus, minus_);
    big_set(&plus, plus_);
    big_set(&scale, 1);
    if (exp < 0) {
        big_shl(&scale, -exp);
    } else {
        big_shl(&mant, exp);
        big_shl(&minus, exp);
        big_shl(&plus, exp);
    }
    if (k >= 0) {
        big_mul_pow10(&scale, k);
    } else {
        big_mul_pow10(&mant, -k);
        big_mul_pow10(&minus, -k);
        big_mul_pow10(&plus, -k);
    }
    /* `a.cmp(b) < rounding`: a <= b when inclusive, a < b otherwise */
#define BELOW(c) (inclusive ? (c) <= 0 : (c) < 0)
    big_add(&sum, &mant, &plus);
    if (BELOW(big_cmp(&scale, &sum))) {
        k += 1;
    } else {
        big_mul_small(&mant, 10);
        big_mul_small(&minus, 10);
        big_mul_small(&plus, 10);
    }
    Big s2 = scale, s4 = scale, s8 = scale;
    big_shl(&s2, 1);
    big_shl(&s4, 2);
    big_shl(&s8, 3);
    int i = 0, down, up;
    for (;;) {
        int d = 0;
        if (big_cmp(&mant, &s8) >= 0) { big_sub(&mant, &s8); d += 8; }
        if (big_cmp(&mant, &s4) >= 0) { big_sub(&mant, &s4); d += 4; }
        if (big_cmp(&mant, &s2) >= 0) { big_sub(&mant, &s2); d += 2; }
        if (big_cmp(&mant, &scale) >= 0) { big_sub(&mant, &scale); d += 1; }
        buf[i++] = (char)('0' + d);
        down = BELOW(big_cmp(&mant, &minus));
        big_add(&sum, &mant, &plus);
        up = BELOW(big_cmp(&scale, &sum));
        if (down || up)
            break;
        big_mul_small(&mant, 10);
        big_mul_small(&minus, 10);
        big_mul_small(&plus, 10);
    }
#undef BELOW
    Big twice = mant;
    big_shl(&twice, 1);
    if (up && (!down || big_cmp(&twice, &scale) >= 0))
        i = round_up(buf, i, &k);
    *kout = k;
    return i;
}

static size_t put_int(char *out, int v)
{
    char tmp[12];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return (size_t)n;
}

size_t format_f32(float x, char *out)
{
    uint32_t bits;
    memcpy(&bits, &x, 4);
    size_t o = 0;
    uint32_t E = (bits >> 23) & 0xFF, M = bits & 0x7FFFFF;
    if (E == 0xFF) {
        if (M) { memcpy(out, "NaN", 3); return 3; }
        if (bits >> 31) { memcpy(out, "-inf", 4); return 4; }
        memcpy(out, "inf", 3);
        return 3;
    }
    if (bits >> 31)
        out[o++] = '-';
    if (E == 0 && M == 0) {
        memcpy(out + o, "0.0", 3);
        return o + 3;
    }
    /* flt2dec::decode of f32::integer_decode */
    uint64_t mant, minus = 1, plus = 1;
    int exp, inclusive;
    if (E == 0) {
        mant = (uint64_t)M << 1;
        exp = -150;
        inclusive = 1;
    } else {
        uint64_t f = M | 0x800000u;
        inclusive = (f & 1) == 0;
        if (M == 0) {
            mant = f << 2; plus = 2; exp = (int)E - 150 - 2;
        } else {
            mant = f << 1; exp = (int)E - 150 - 1;
        }
    }
    char digits[48];
    int k, n = shortest(mant, minus, plus, exp, inclusive, digits, &k);
    uint32_t mag_bits = bits & 0x7FFFFFFFu;
    float mag;
    memcpy(&mag, &mag_bits, 4);
    if (mag < 1e-4f || mag >= 1e16f) {
        out[o++] = digits[0];
        if (n > 1) {
            out[o++] = '.';
            memcpy(out + o, digits + 1, n - 1);
            o += n - 1;
        }
        out[o++] = 'e';
        int e = k - 1;
        if (e < 0) { out[o++] = '-'; e = -e; }
        o += put_int(out + o, e);
        return o;
    }
    if (k <= 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -k; i++)
            out[o++] = '0';
        memcpy(out + o, digits, n);
        o += n;
    } else if (k < n) {
        memcpy(out + o, digits, k);
        o += k;
        out[o++] = '.';
        memcpy(out + o, digits + k, n - k);
        o += n - k;
    } else {
        memcpy(out + o, digits, n);
        o += n;
        for (int i = 0; i < k - n; i++)
            out[o++] = '0';
        out[o++] = '.';
        out[o++] = '0';
    }
    return o;
}

/* binary32 to binary16, rounding to nearest even (overflow to infinity, underflow through the
 * subnormals to zero), as numpy's astype(float16); a NaN as upstream converts it (the `half`
 * crate): made quiet, the high 10 bits of its payload kept. */
uint16_t float_to_half(uint32_t x)
{
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7FFFFFFFu;
    if (ax > 0x7F800000u)
        return sign | 0x7E00u | (uint16_t)((ax >> 13) & 0x3FFu);
    if (ax >= 0x477FF000u)                    /* >= 65520 (and infinity): infinity */
        return sign | 0x7C00u;
    uint32_t e = ax >> 23, m = ax & 0x7FFFFFu;
    if (e < 113) {                            /* below 2^-14: a subnormal half or zero */
        if (e < 102)                          /* below 2^-25: rounds to zero */
            return sign;
        uint32_t shift = 126 - e, full = m | 0x800000u;   /* value = full * 2^-24 >> ... */
        uint32_t k = full >> shift, rest = full & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (k & 1)))
            k++;
        return sign | (uint16_t)k;
    }
    uint32_t h = ((e - 112) << 10) | (m >> 13), rest = m & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
        h++;                                  /* a carry may reach the exponent: correct */
    return sign | (uint16_t)h;
}

/* IEEE binary16 to binary32 (exact; a NaN made quiet, as upstream's `half` crate converts it). */
float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1F, m = h & 0x3FF, bits;
    if (e == 0x1F) {
        bits = sign | 0x7F800000u | (m << 13) | (m ? 0x00400000u : 0u);
    } else if (e == 0) {
        if (m == 0) {
            bits = sign;
        } else {                              /* subnormal: normalise */
            int shift = 0;
            while (!(m & 0x400)) { m <<= 1; shift++; }
            m &= 0x3FF;
            bits = sign | ((uint32_t)(127 - 15 + 1 - shift) << 23) | (m << 13);
        }
    } else {
        bits = sign | ((e + 127 - 15) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
