/* The native core's matrix instructions, exactly as compile_ops.build_mma and
 * memory.mma_tile_addresses: per-lane 4x4 f32 fragments A, B and C numbered by a register field
 * (a fragment never written reads as zeros, in every workgroup afresh), 4x4 tiles of local
 * memory at addr + row * stride + column * 4 (out of bounds: a fault naming the first lane's first
 * word outside; never an unaligned warning, never a race shadow or a memory statistic, as the
 * numpy engine), and C[i][j] += A[i][k] * B[k][j] for k in order, each product and each sum
 * rounded to f32 (no fused multiply-add).
 *
 * NaN results as exec.h's nan_settle and upstream's: the product's first NaN factor (A's, then B's)
 * made quiet, then the sum's first NaN of the product and C; an invalid product or sum gives
 * the default NaN. */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

enum { FRAG_A, FRAG_B, FRAG_C, FRAG_KINDS };
#define FRAGMENTS 256                    /* numbers: an 8-bit register field */

struct Mma {
    float *frag[FRAG_KINDS][FRAGMENTS];  /* n lanes x 16 (row-major), allocated at first use */
    int64_t stamp[FRAG_KINDS][FRAGMENTS];/* the workgroup it was last zeroed in */
    int64_t workgroup;                   /* workgroups begun (mma_workgroup) */
    int64_t *tile;                       /* n x 16: each executing lane's word offsets */
};

void mma_workgroup(WG *g)
{
    if (g->mma)
        g->mma->workgroup++;
}

void mma_free(WG *g)
{
    Mma *s = g->mma;
    if (!s)
        return;
    for (int k = 0; k < FRAG_KINDS; k++)
        for (int i = 0; i < FRAGMENTS; i++)
            free(s->frag[k][i]);
    free(s->tile);
    free(s);
    g->mma = NULL;
}

/* Fragment `number` of `kind`, zeros when this workgroup has not written it; NULL: no memory. */
static float *fragment(WG *g, int kind, int64_t number)
{
    Mma *s = g->mma;
    float **f = &s->frag[kind][number & (FRAGMENTS - 1)];
    int64_t *stamp = &s->stamp[kind][number & (FRAGMENTS - 1)];
    if (!*f && !(*f = malloc((size_t)g->n * 16 * sizeof(float))))
        return NULL;
    if (*stamp != s->workgroup + 1) {
        memset(*f, 0, (size_t)g->n * 16 * sizeof(float));
        *stamp = s->workgroup + 1;
    }
    return *f;
}

/* C += A x B for the executing lanes. */
static int64_t compute(WG *g, const Ins *ins, const uint8_t *m)
{
    int64_t n = g->n;
    float *C = fragment(g, FRAG_C, ins->rs2);
    float *A = fragment(g, FRAG_A, ins->rd);
    float *B = fragment(g, FRAG_B, ins->rs1);
    if (!A || !B || !C)
        return bail(g->run, "out of memory");
    for (int64_t l = 0; l < n; l++) {
        if (!m[l])
            continue;
        const float *a = A + l * 16, *b = B + l * 16;
        float *c = C + l * 16, acc[16];
        memcpy(acc, c, sizeof acc);
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    float p = a[i * 4 + k] * b[k * 4 + j];
                    float s = acc[i * 4 + j] + p;
                    if (s != s) {                 /* a NaN: its bits as upstream's */
                        uint32_t pb = nan_settle(u32(p), u32(a[i * 4 + k]), u32(b[k * 4 + j]));
                        s = f32(nan_settle(u32(s), pb, u32(acc[i * 4 + j])));
                    }
                    acc[i * 4 + j] = s;
                }
        memcpy(c, acc, sizeof acc);
    }
    return -1;
}

/* A tile load (mma_load_a/_b) or store (mma_store_c). */
static int64_t tile_op(WG *g, const Ins *ins, const uint8_t *m)
{
    Run *run = g->run;
    Mma *s = g->mma;
    int64_t n = g->n, index = ins - run->code;
    int load = ins->op != OP_MMA_STORE_C;
    const uint32_t *addr = g->R + (load ? ins->rs1 : ins->rd) * n;
    const uint32_t *stride = g->R + (load ? ins->rs2 : ins->rs1) * n;
    uint64_t size = (uint64_t)run->local_size;
    int64_t *tile = s->tile, first = -1;
    for (int64_t l = 0; l < n; l++) {
        g->bad[l] = 0;
        if (!m[l])
            continue;
        for (int w = 0; w < 16; w++) {
            int64_t at = (int64_t)addr[l] + (w / 4) * (int64_t)stride[l] + 4 * (w % 4);
            tile[l * 16 + w] = at;
            if ((uint64_t)at + 4 > size) {
                g->bad[l] = 1;
                if (first < 0)
                    first = at;
            }
        }
    }
    if (g->init)                         /* the initcheck runs before the access */
        init_tile(g, tile, m, load, index);
    if (first >= 0)
        return fault(g, ERR_OUT_OF_BOUNDS, g->bad, first, 4);
    float *F = load ? fragment(g, ins->op == OP_MMA_LOAD_A ? FRAG_A : FRAG_B, ins->rd)
                    : fragment(g, FRAG_C, ins->rs2);
    if (!F)
        return bail(run, "out of memory");
    int64_t wave = -1, before = 0;
    for (int64_t l = 0; l < n; l++) {
        if (!m[l])
            continue;
        if (run->mem && l / g->W != wave) {
            wave = l / g->W;
            before = waves_before(g, wave);
        }
        for (int w = 0; w < 16; w++) {
            uint8_t *p = g->local + tile[l * 16 + w];
            uint32_t v = load ? load32(p) : u32(F[l * 16 + w]);
            if (run->mem && memlog_add(g, index, l, before, (uint64_t)tile[l * 16 + w], v, 0, 0))
                return bail(run, "memory trace too long");
            if (load)
                F[l * 16 + w] = f32(v);
            else
                memcpy(p, &v, 4);
        }
    }
    if (!load)
        g->local_dirty = 1;
    return -1;
}

int64_t mma_op(WG *g, const Ins *ins, const uint8_t *m)
{
    int64_t n = g->n, count = 0;
    for (int64_t l = 0; l < n; l++)
        count += m[l];
    if (!count)
        return -1;
    if (!g->mma) {
        if (!(g->mma = calloc(1, sizeof *g->mma))
            || !(g->mma->tile = malloc((size_t)n * 16 * sizeof(int64_t))))
            return bail(g->run, "out of memory");
    }
    return ins->op == OP_MMA_COMPUTE ? compute(g, ins, m) : tile_op(g, ins, m);
}
