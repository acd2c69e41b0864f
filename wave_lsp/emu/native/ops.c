/* The native core's non-control operations, each exactly as the numpy engine computes it:
 * ALU values as emu/alu.py, loads, stores and atomics as emu/memory.py and compile_ops.py, wave
 * operations as emu/waveops.py. Where the numpy engine's result depends on its library (NaN
 * payloads, the sign of a zero chosen by fmin) or it would record a warning or fault, the core
 * bails (see core.h). Also here: the race shadows that make the core bail on any access pattern
 * the numpy engine could report as a data race.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "exec.h"

static uint32_t special(WG *g, int64_t index, int64_t lane);

/* Zeroed memory for a shadow: large ones in transparent huge pages where the system allows,
 * so that touching them costs a few page faults instead of thousands. */
static void *shadow_alloc(int64_t bytes)
{
    if (bytes < (4 << 20))
        return calloc((size_t)bytes, 1);
    void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, (size_t)bytes, MADV_HUGEPAGE);
#endif
    return p;
}

static void shadow_free(void *p, int64_t bytes)
{
    if (!p)
        return;
    if (bytes < (4 << 20))
        free(p);
    else
        munmap(p, (size_t)bytes);
}

/* ---- workgroup state ------------------------------------------------------------------------ */

int wg_setup(WG *g, Run *run)
{
    memset(g, 0, sizeof *g);
    g->run = run;
    g->W = run->W;
    g->threads = run->wg[0] * run->wg[1] * run->wg[2];
    g->nw = (g->threads + g->W - 1) / g->W;
    g->n = g->nw * g->W;
    int64_t n = g->n, nw = g->nw, depth = run->max_ctrl, calls = run->max_calls;
    size_t bytes = 5 * n + nw + depth * (3 * n + nw) + calls * (n + nw) + 64;
    g->block = calloc(1, bytes);
    g->R = calloc((size_t)run->registers * n, 4);
    g->P = calloc(4 * n, 1);
    g->tmp32 = calloc(n, 4);
    g->tmp32b = calloc(n, 4);
    g->sums = calloc(n, 8);
    g->words = calloc(2 * n, 4);
    g->frames = calloc(depth, sizeof(Frame));
    g->calls = calloc(calls ? calls : 1, sizeof(CallFrame));
    g->local = calloc(run->local_size + 16, 1);
    if (!g->block || !g->R || !g->P || !g->tmp32 || !g->tmp32b || !g->frames || !g->calls
        || !g->local
        || !g->sums || !g->words)
        return -1;
    uint8_t *p = g->block;
    g->alive = p; p += n;
    g->active = p; p += n;
    g->ex = p; p += n;
    g->tmp8 = p; p += n;
    g->present = p; p += nw;
    p += n;
    for (int64_t i = 0; i < depth; i++) {
        g->frames[i].entry = p; p += n;
        g->frames[i].aux = p; p += n;
        g->frames[i].out = p; p += n;
        g->frames[i].entry_present = p; p += nw;
    }
    for (int64_t i = 0; i < calls; i++) {
        g->calls[i].active = p; p += n;
        g->calls[i].present = p; p += nw;
    }
    int64_t total = run->grid[0] * run->grid[1] * run->grid[2];
    if (!(g->sr_lane = calloc(5 * n, 4)))
        return -1;
    for (int64_t i = 0; i < 5; i++)
        for (int64_t l = 0; l < n; l++)
            g->sr_lane[i * n + l] = special(g, i, l);
    g->dev_words = (run->device_size + 3) / 4;
    g->loc_words = (run->local_size + 3) / 4;
    g->epoch = 1;
    g->dev_owned = total > 1;
    if ((total > 1 || g->nw > 1) && g->dev_words && !(g->dev_shadow = shadow_alloc(g->dev_words * 8)))
        return -1;
    if (g->nw > 1) {
        if (g->loc_words && (!(g->loc_epoch = calloc(g->loc_words, 4))
                             || !(g->loc_value = calloc(g->loc_words, 4))
                             || !(g->loc_writers = calloc(g->loc_words, 8))))
            return -1;
    }
    return 0;
}

void wg_free(WG *g)
{
    free(g->block); free(g->R); free(g->P); free(g->tmp32); free(g->tmp32b); free(g->sums); free(g->words); free(g->frames);
    free(g->calls); free(g->local); shadow_free(g->dev_shadow, g->dev_words * 8); free(g->sr_lane); free(g->loc_epoch);
    free(g->loc_value); free(g->loc_writers);
}

/* ---- race shadows ----------------------------------------------------------------------------
 * Between workgroups (emu/overlap.py): per device word the workgroup that touched it (or MULTI)
 * and the kinds of access; a word touched by two workgroups with a plain write, or with an
 * atomic and a plain read, bails. Only atomics meeting is fine: one workgroup at a time gives the
 * same result and the numpy engine reports nothing.
 * Between waves of a workgroup (emu/racecheck.py), only with several waves: per word of local
 * and device memory the epoch (barriers end epochs), the wave (or MULTI) and whether it was
 * written; two waves in one epoch with a write bails, unless (local memory only) the race is
 * one racecheck calls benign: every access so far a 32-bit store of one same value, or a read
 * by a wave that has already stored it (the waves that wrote are a bit set, up to 64 waves).
 * Atomics are not checked, as there. Shadow word: epoch (19 bits), benign, written, wave+1. */
#define OWNER_MASK 0x1FFFFFFFu
#define OWNER_MULTI 0x1FFFFFFFu
#define F_W 0x20000000u
#define F_R 0x40000000u
#define F_A 0x80000000u
#define EPOCH_MAX 0x7FFFFu
#define WAVE_MULTI 0x7FFu
#define BENIGN (1u << 12)
#define WRITTEN (1u << 11)

void next_epoch(WG *g)
{
    if (++g->epoch > EPOCH_MAX) {
        if (g->dev_shadow)                    /* the epoch words (odd) start afresh */
            for (int64_t i = 0; i < g->dev_words; i++)
                g->dev_shadow[2 * i + 1] = 0;
        if (g->loc_epoch)
            memset(g->loc_epoch, 0, g->loc_words * 4);
        g->epoch = 1;
    }
}

/* One access to a word in the current epoch; returns whether it may be a race. `value`: what a
 * 32-bit store writes (`known`); `bits`/`values` are NULL where benign races are not allowed. */
static inline int epoch_conflict(WG *g, int64_t word, uint32_t *shadow, uint32_t *values,
                                 uint64_t *writers, uint32_t wave, int write, int known,
                                 uint32_t value)
{
    uint32_t epoch = g->epoch, e = shadow[word];
    uint64_t bit = g->nw <= 64 ? 1ull << wave : 0;
    if ((e >> 13) != epoch) {
        uint32_t benign = values && write && known;
        shadow[word] = (epoch << 13) | (benign ? BENIGN : 0) | (write ? WRITTEN : 0)
                       | (wave + 1);
        if (values) {
            values[word] = value;
            writers[word] = write ? bit : 0;
        }
        return 0;
    }
    uint32_t w = e & WAVE_MULTI, benign = e & BENIGN, written = (e & WRITTEN) | (write ? WRITTEN : 0);
    if (w != wave + 1)
        w = WAVE_MULTI;
    if (benign) {
        if (write) {
            if (!known || values[word] != value)
                benign = 0;
            writers[word] |= bit;
        } else if (!(writers[word] & bit)) {
            benign = 0;
        }
    }
    shadow[word] = (epoch << 13) | benign | written | w;
    return w == WAVE_MULTI && written && !benign;
}

/* One access of `kind` (0 read, 1 write, 2 atomic) to device word `word` by this workgroup. */
static inline int track_device(WG *g, uint64_t word, int kind, uint32_t wave)
{
    uint32_t *shadow = g->dev_shadow + 2 * word;     /* owner word, epoch word */
    if (g->dev_owned) {
        uint32_t o = shadow[0];
        uint32_t id = o & OWNER_MASK, me = (uint32_t)(g->linear + 1);
        uint32_t flags = (o & ~OWNER_MASK) | (kind == 0 ? F_R : kind == 1 ? F_W : F_A);
        id = id == 0 ? me : id == me ? me : OWNER_MULTI;
        shadow[0] = id | flags;
        if (id == OWNER_MULTI && ((flags & F_W) || ((flags & F_A) && (flags & F_R))))
            return 1;
    }
    if (kind != 2 && g->nw > 1)
        return epoch_conflict(g, 0, shadow + 1, NULL, NULL, wave, kind == 1, 0, 0);
    return 0;
}

/* `track_device` for every executing lane of one aligned access of `width` bytes, with the
 * loop invariants hoisted (the hot path of device loads and stores). */
static int track_device_lanes(WG *g, const uint32_t *addr, const uint8_t *m, int64_t width,
                              int kind)
{
    uint32_t *sh = g->dev_shadow;
    const uint32_t me = (uint32_t)(g->linear + 1), epoch = g->epoch;
    const uint32_t flag = kind == 0 ? F_R : kind == 1 ? F_W : F_A;
    const uint32_t written = kind == 1 ? WRITTEN : 0;
    const int owned = g->dev_owned, waves = g->nw > 1 && kind != 2;
    const int64_t per = width >= 4 ? width / 4 : 1, n = g->n, W = g->W;
    for (int64_t l = 0, wave = 0, in_wave = 0; l < n; l++) {
        if (m[l]) {
            uint32_t *s = sh + 2 * (uint64_t)(addr[l] >> 2);
            for (int64_t k = 0; k < per; k++, s += 2) {
                if (owned) {
                    uint32_t o = s[0], id = o & OWNER_MASK, f = (o & ~OWNER_MASK) | flag;
                    if (id != me)
                        id = id == 0 ? me : OWNER_MULTI;
                    s[0] = id | f;
                    if (id == OWNER_MULTI && ((f & F_W) || ((f & F_A) && (f & F_R))))
                        return 1;
                }
                if (waves) {
                    uint32_t e = s[1];
                    if ((e >> 13) != epoch) {
                        s[1] = (epoch << 13) | written | (uint32_t)(wave + 1);
                    } else {
                        uint32_t w = e & WAVE_MULTI, wr = (e & WRITTEN) | written;
                        if (w != (uint32_t)(wave + 1))
                            w = WAVE_MULTI;
                        s[1] = (epoch << 13) | wr | w;
                        if (w == WAVE_MULTI && wr)
                            return 1;
                    }
                }
            }
        }
        if (++in_wave == W) {
            in_wave = 0;
            wave++;
        }
    }
    return 0;
}

/* `epoch_conflict` on local memory for every executing lane of one aligned access (loads and
 * stores; `data`: the values a store writes), with the loop invariants hoisted. */
static int track_local_lanes(WG *g, const uint32_t *addr, const uint8_t *m, int64_t width,
                             int write, const uint32_t *data)
{
    uint32_t *sh = g->loc_epoch, *values = g->loc_value;
    uint64_t *writers = g->loc_writers;
    const uint32_t epoch = g->epoch, written = write ? WRITTEN : 0;
    const uint32_t shared_read = (epoch << 13) | WAVE_MULTI;  /* read by several, unwritten */
    const int known = write && width == 4, small = g->nw <= 64;
    const int64_t per = width >= 4 ? width / 4 : 1, W = g->W;
    for (int64_t wave = 0; wave < g->nw; wave++) {
        const uint64_t bit = small ? 1ull << wave : 0;
        const uint32_t mine = (uint32_t)(wave + 1);
        for (int64_t l = wave * W; l < (wave + 1) * W; l++) {
            if (!m[l])
                continue;
            uint64_t word = addr[l] >> 2;
            for (int64_t k = 0; k < per; k++, word++) {
                uint32_t e = sh[word];
                if (!write && e == shared_read)
                    continue;                 /* the common case of a tile read by all */
                if ((e >> 13) != epoch) {
                    sh[word] = (epoch << 13) | (known ? BENIGN : 0) | written | mine;
                    if (write) {
                        values[word] = known ? data[l] : 0;
                        writers[word] = bit;
                    }
                    continue;
                }
                uint32_t w = e & WAVE_MULTI, benign = e & BENIGN, wr = (e & WRITTEN) | written;
                if (w != mine)
                    w = WAVE_MULTI;
                if (benign) {
                    if (write) {
                        if (!known || values[word] != data[l])
                            benign = 0;
                        writers[word] |= bit;
                    } else if (!(writers[word] & bit)) {
                        benign = 0;
                    }
                }
                sh[word] = (epoch << 13) | benign | wr | w;
                if (w == WAVE_MULTI && wr && !benign)
                    return 1;
            }
        }
    }
    return 0;
}

/* kind: 0 read, 1 write, 2 atomic; `known`: a 32-bit store of `value` */
static int track(WG *g, int local, uint64_t first, uint64_t last, int kind, uint32_t wave,
                 int known, uint32_t value)
{
    for (uint64_t word = first; word <= last; word++) {
        if (local) {
            if (kind != 2 && g->loc_epoch
                && epoch_conflict(g, (int64_t)word, g->loc_epoch, g->loc_value, g->loc_writers,
                                  wave, kind == 1, known, value))
                return 1;
        } else if (g->dev_shadow && track_device(g, word, kind, wave)) {
            return 1;
        }
    }
    return 0;
}

/* ---- ALU helpers ---------------------------------------------------------------------------- */

static inline float f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t u32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline int is_nan(uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }

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

/* f32(f64(a) * f64(b) + f64(c)) for every lane into `out` (not one of the sources). Returns
 * 1 when an f64 sum is a tie that fma_single must redo, 2 when a sum is NaN (an operand may be
 * NaN: the caller checks). `sums` (n doubles) and `words` (2n words) are scratch. In passes of
 * their own so that each vectorises (with AVX2 where the processor has it). */
__attribute__((target_clones("avx2", "default")))
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

/* np.fmin / np.fmax where their result does not depend on the library: no NaN, and not two
 * zeros of different signs. Returns 0 (bail) otherwise. */
static inline int fminmax(uint32_t a, uint32_t b, int max, uint32_t *out)
{
    if (is_nan(a) || is_nan(b))
        return 0;
    float x = f32(a), y = f32(b);
    if (x == y && a != b)
        return 0;
    *out = (max ? x >= y : x <= y) ? a : b;
    return 1;
}

static inline uint32_t bitrev32(uint32_t v)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
    return (v >> 16) | (v << 16);
}

static inline uint64_t low_mask(uint32_t width) { return (1ull << (width & 31)) - 1; }

static uint32_t special(WG *g, int64_t index, int64_t lane)
{
    Run *run = g->run;
    int64_t wx = run->wg[0], wy = run->wg[1];
    switch (index) {
    case 0: return (uint32_t)(lane % wx);
    case 1: return (uint32_t)((lane / wx) % wy);
    case 2: return (uint32_t)(lane / (wx * wy));
    case 3: return (uint32_t)(lane / g->W);
    case 4: return (uint32_t)(lane % g->W);
    case 5: case 6: case 7: return (uint32_t)g->wg_id[index - 5];
    case 8: case 9: case 10: return (uint32_t)run->wg[index - 8];
    case 11: case 12: case 13: return (uint32_t)run->grid[index - 11];
    case 14: return (uint32_t)g->W;
    case 15: return (uint32_t)g->nw;
    case 16: return 1;
    case 17: case 18: case 19: return 4;
    default: return 0;
    }
}

/* Loop over the executing lanes: every lane when the instruction is unguarded and every lane is
 * active (no mask test), else the lanes of `m`. */
#define LANES(...)                                                                   \
    do {                                                                             \
        if (all) {                                                                   \
            for (int64_t l = 0; l < n; l++) { __VA_ARGS__ }                          \
        } else {                                                                     \
            for (int64_t l = 0; l < n; l++) if (m[l]) { __VA_ARGS__ }                \
        }                                                                            \
    } while (0)

#define BINARY(expr) LANES(uint32_t a = A[l]; uint32_t b = B[l]; D[l] = (expr);)
#define UNARY(expr) LANES(uint32_t a = A[l]; D[l] = (expr);)
#define COMPARE(expr) LANES(uint32_t a = A[l]; uint32_t b = B[l]; PD[l] = (expr) ? 1 : 0;)
#define FLOAT2(expr) LANES(uint32_t a = A[l]; uint32_t b = B[l];                      \
    if (is_nan(a) || is_nan(b)) return bail(run, "NaN operand"); D[l] = (expr);)
#define FLOAT1(expr) LANES(uint32_t a = A[l];                                          \
    if (is_nan(a)) return bail(run, "NaN operand"); D[l] = (expr);)

static int64_t memory_op(WG *g, const Ins *ins, const uint8_t *m);
static int64_t atomic_op(WG *g, const Ins *ins, const uint8_t *m);
static int64_t wave_op(WG *g, const Ins *ins, const uint8_t *m);

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
            if (tie == 2)
                for (int64_t l = 0; l < n; l++)
                    if (is_nan(A[l]) || is_nan(B[l]) || is_nan(C[l]))
                        return bail(run, "NaN operand");
            if (tie)
                for (int64_t l = 0; l < n; l++)
                    out[l] = u32(fma_single(f32(A[l]), f32(B[l]), f32(C[l])));
            memcpy(D, out, n * 4);
            break;
        }
        LANES({
            uint32_t a = A[l], b = B[l], c = C[l];
            if (is_nan(a) || is_nan(b) || is_nan(c))
                return bail(run, "NaN operand");
            D[l] = u32(fma_single(f32(a), f32(b), f32(c)));
        });
        break;
    case OP_FNEG: UNARY(a ^ 0x80000000u); break;
    case OP_FABS: UNARY(a & 0x7FFFFFFFu); break;
    case OP_FMIN:
    case OP_FMAX:
        LANES({
            uint32_t v;
            if (!fminmax(A[l], B[l], ins->op == OP_FMAX, &v))
                return bail(run, "fmin/fmax of NaN or signed zeros");
            D[l] = v;
        });
        break;
    case OP_FCLAMP:
        LANES({
            uint32_t v, w;
            if (!fminmax(A[l], B[l], 1, &v) || !fminmax(v, C[l], 0, &w))
                return bail(run, "fclamp of NaN or signed zeros");
            D[l] = w;
        });
        break;
    case OP_FSQRT: FLOAT1(u32(sqrtf(f32(a)))); break;
    case OP_FRSQRT: FLOAT1(u32(1.0f / sqrtf(f32(a)))); break;
    case OP_FRCP: FLOAT1(u32(1.0f / f32(a))); break;
    case OP_FFLOOR: FLOAT1(u32(floorf(f32(a)))); break;
    case OP_FCEIL: FLOAT1(u32(ceilf(f32(a)))); break;
    case OP_FTRUNC: FLOAT1(u32(truncf(f32(a)))); break;
    case OP_FROUND: {
        /* alu._fround: trunc(x + copysign(0.5, x)) in f64 */
        FLOAT1(u32((float)trunc((double)f32(a) + copysign(0.5, (double)f32(a)))));
        break;
    }
    case OP_FFRACT: FLOAT1(u32(f32(a) - truncf(f32(a)))); break;
    case OP_FSAT:
        LANES({
            uint32_t a = A[l];
            if (is_nan(a) || a == 0x80000000u)
                return bail(run, "fsat of NaN or -0");
            float x = f32(a);
            D[l] = x < 0.0f ? u32(0.0f) : x > 1.0f ? u32(1.0f) : a;
        });
        break;
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
    case OP_CVT_F32_F16:
        LANES({
            uint32_t h = A[l] & 0xFFFFu;
            if ((h & 0x7C00u) == 0x7C00u && (h & 0x3FFu))
                return bail(run, "NaN operand");
            D[l] = u32(half_to_float((uint16_t)h));
        });
        break;
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

/* ---- memory ------------------------------------------------------------------------------------ */

static inline uint32_t load32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static int64_t memory_op(WG *g, const Ins *ins, const uint8_t *m)
{
    Run *run = g->run;
    int64_t n = g->n, width = ins->width, words = ins->words;
    int local = (int)ins->local;
    int load = (ins->op >= OP_LOCAL_LOAD_U8 && ins->op <= OP_LOCAL_LOAD_U64)
               || (ins->op >= OP_DEVICE_LOAD_U8 && ins->op <= OP_DEVICE_LOAD_U128);
    uint8_t *mem = local ? g->local : run->device;
    uint64_t size = (uint64_t)(local ? run->local_size : run->device_size);
    uint64_t align = width >= 4 ? 3 : (uint64_t)width - 1;
    const uint32_t *addr = g->R + ins->rs1 * n;
    int64_t count = 0;
    uint32_t top = 0, bits = 0;               /* largest address, OR of the addresses */
    for (int64_t l = 0; l < n; l++) {
        uint32_t a = m[l] ? addr[l] : 0;
        top = a > top ? a : top;
        bits |= a;
        count += m[l];
    }
    if (!count)
        return -1;
    if ((uint64_t)top + (uint64_t)width > size)
        return bail(run, "memory access out of bounds");
    if (bits & align)
        return bail(run, "unaligned access");
    int tracked = local ? g->loc_epoch != NULL : g->dev_shadow != NULL;
    if (tracked && !local) {
        if (track_device_lanes(g, addr, m, width, load ? 0 : 1))
            return bail(run, "possible data race");
    } else if (tracked) {
        if (track_local_lanes(g, addr, m, width, !load, g->R + ins->rs2 * n))
            return bail(run, "possible data race");
    }
    uint32_t *data = g->R + (load ? ins->rd : ins->rs2) * n;
    if (local && !load)
        g->local_dirty = 1;
    if (width == 4 && count == n) {          /* every lane, one word each */
        if (load)
            for (int64_t l = 0; l < n; l++)
                data[l] = load32(mem + addr[l]);
        else
            for (int64_t l = 0; l < n; l++)
                memcpy(mem + addr[l], &data[l], 4);
    } else for (int64_t l = 0; l < n; l++) {
        if (!m[l])
            continue;
        uint8_t *p = mem + addr[l];
        if (load) {
            if (width == 1)
                data[l] = p[0];
            else if (width == 2)
                data[l] = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
            else
                for (int64_t i = 0; i < words; i++)
                    data[i * n + l] = load32(p + 4 * i);
        } else {
            uint32_t v = data[l];
            if (width == 1)
                p[0] = (uint8_t)v;
            else if (width == 2) {
                p[0] = (uint8_t)v;
                p[1] = (uint8_t)(v >> 8);
            } else
                for (int64_t i = 0; i < words; i++) {
                    uint32_t w = data[i * n + l];
                    memcpy(p + 4 * i, &w, 4);
                }
        }
    }
    Stats *s = &run->stats;
    if (local) {
        if (load) { s->local_loads += count; s->local_load_bytes += count * width; }
        else { s->local_stores += count; s->local_store_bytes += count * width; }
    } else {
        if (load) { s->device_loads += count; s->device_load_bytes += count * width; }
        else { s->device_stores += count; s->device_store_bytes += count * width; }
    }
    return -1;
}

/* memory.atomic: lanes in thread order, each reading the value the previous one left */
static int64_t atomic_op(WG *g, const Ins *ins, const uint8_t *m)
{
    Run *run = g->run;
    int64_t n = g->n;
    int local = ins->op <= OP_LOCAL_ATOMIC_CAS;
    int operation = (int)(local ? ins->op - OP_LOCAL_ATOMIC_ADD : ins->op - OP_ATOMIC_ADD);
    uint8_t *mem = local ? g->local : run->device;
    uint64_t size = (uint64_t)(local ? run->local_size : run->device_size);
    if (local)
        g->local_dirty = 1;
    const uint32_t *addr = g->R + ins->rs1 * n, *V = g->R + ins->rs2 * n,
                   *T = g->R + ins->rs3 * n;
    uint32_t *D = g->R + ins->rd * n;
    int64_t count = 0;
    for (int64_t l = 0; l < n; l++) {
        if (!m[l])
            continue;
        uint64_t a = addr[l];
        if (a + 4 > size)
            return bail(run, "memory access out of bounds");
        if (a & 3)
            return bail(run, "unaligned access");
        if (!local && g->dev_shadow && track(g, 0, a >> 2, a >> 2, 2, 0, 0, 0))
            return bail(run, "possible data race");
        count++;
    }
    for (int64_t l = 0; l < n; l++) {
        if (!m[l])
            continue;
        uint8_t *p = mem + addr[l];
        uint32_t old = load32(p), v = V[l], nv;
        switch (operation) {
        case 0: nv = old + v; break;
        case 1: nv = old - v; break;
        case 2: nv = old < v ? old : v; break;
        case 3: nv = old > v ? old : v; break;
        case 4: nv = old & v; break;
        case 5: nv = old | v; break;
        case 6: nv = old ^ v; break;
        case 7: nv = v; break;
        default: nv = old == v ? T[l] : old; break;    /* cas: expected rs2, desired rs3 */
        }
        memcpy(p, &nv, 4);
        g->tmp32[l] = old;
    }
    run->stats.atomic_lanes += count;
    if (ins->rd)
        for (int64_t l = 0; l < n; l++)
            if (m[l])
                D[l] = g->tmp32[l];
    return -1;
}

/* ---- wave operations ---------------------------------------------------------------------------- */

static int64_t wave_op(WG *g, const Ins *ins, const uint8_t *m)
{
    Run *run = g->run;
    int64_t n = g->n, W = g->W;
    int op = (int)ins->op;
    const uint32_t *src = g->R + ins->rs1 * n, *sel = g->R + ins->rs2 * n;
    uint32_t *out = g->tmp32;
    int any = 0;
    for (int64_t l = 0; l < n; l++)
        any |= m[l];
    if (!any)
        return -1;
    for (int64_t w = 0; w < g->nw; w++) {
        int64_t base = w * W;
        const uint8_t *mw = m + base;
        if (op <= OP_WAVE_BROADCAST) {
            int64_t first = 0;
            for (int64_t i = 0; i < W; i++)
                if (mw[i]) { first = i; break; }
            for (int64_t i = 0; i < W; i++) {
                if (!mw[i])
                    continue;
                int64_t s = sel[base + i];
                int64_t source = op == OP_WAVE_SHUFFLE ? s
                    : op == OP_WAVE_SHUFFLE_UP ? i - s
                    : op == OP_WAVE_SHUFFLE_DOWN ? i + s
                    : op == OP_WAVE_SHUFFLE_XOR ? (i ^ s)
                    : (int64_t)sel[base + first];
                if (source < 0 || source >= W)
                    return bail(run, "shuffle from a lane outside the wave");
                if (!mw[source])
                    return bail(run, "shuffle from an inactive lane");
                out[base + i] = src[base + source];
            }
        } else if (op == OP_WAVE_BALLOT) {
            const uint8_t *p = g->P + ins->rs1 * n + base;
            uint64_t bits = 0;
            for (int64_t i = 0; i < W && i < 64; i++)
                if (p[i] && mw[i])
                    bits |= 1ull << i;
            for (int64_t i = 0; i < W; i++)
                out[base + i] = (uint32_t)bits;
        } else if (op == OP_WAVE_ANY || op == OP_WAVE_ALL) {
            const uint8_t *p = g->P + ins->rs1 * n + base;
            int r = op == OP_WAVE_ALL;
            for (int64_t i = 0; i < W; i++) {
                if (op == OP_WAVE_ANY && p[i] && mw[i]) r = 1;
                if (op == OP_WAVE_ALL && !p[i] && mw[i]) r = 0;
            }
            for (int64_t i = 0; i < W; i++)
                out[base + i] = (uint32_t)r;
        } else if (op == OP_WAVE_PREFIX_SUM) {
            uint32_t sum = 0;
            for (int64_t i = 0; i < W; i++) {
                out[base + i] = sum;
                if (mw[i])
                    sum += src[base + i];
            }
        } else {
            uint32_t r = op == OP_WAVE_REDUCE_MIN ? 0xFFFFFFFFu : 0;
            for (int64_t i = 0; i < W; i++) {
                if (!mw[i])
                    continue;
                uint32_t v = src[base + i];
                r = op == OP_WAVE_REDUCE_ADD ? r + v
                    : op == OP_WAVE_REDUCE_MIN ? (v < r ? v : r) : (v > r ? v : r);
            }
            for (int64_t i = 0; i < W; i++)
                out[base + i] = r;
        }
    }
    if (op == OP_WAVE_ANY || op == OP_WAVE_ALL) {
        uint8_t *PD = g->P + ins->rd * n;
        for (int64_t l = 0; l < n; l++)
            if (m[l])
                PD[l] = (uint8_t)out[l];
    } else {
        uint32_t *D = g->R + ins->rd * n;
        for (int64_t l = 0; l < n; l++)
            if (m[l])
                D[l] = out[l];
    }
    return -1;
}
