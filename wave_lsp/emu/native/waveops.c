/* The native core's wave operations, exactly as emu/waveops.py (a shuffle from an inactive lane
 * or one outside the wave reads 0 and warns, as compile_ops.build_wave). */
#include <string.h>

#include "exec.h"

int64_t wave_op(WG *g, const Ins *ins, const uint8_t *m)
{
    Run *run = g->run;
    int64_t n = g->n, W = g->W;
    int op = (int)ins->op;
    const uint32_t *src = g->R + ins->rs1 * n, *sel = g->R + ins->rs2 * n;
    uint32_t *out = g->tmp32;
    int any = 0, warned = 0;
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
                g->bad[base + i] = g->bad2[base + i] = 0;
                if (!mw[i])
                    continue;
                int64_t s = sel[base + i];
                int64_t source = op == OP_WAVE_SHUFFLE ? s
                    : op == OP_WAVE_SHUFFLE_UP ? i - s
                    : op == OP_WAVE_SHUFFLE_DOWN ? i + s
                    : op == OP_WAVE_SHUFFLE_XOR ? (i ^ s)
                    : (int64_t)sel[base + first];
                if (source < 0 || source >= W) {          /* reads 0, and warns */
                    g->bad2[base + i] = 1;
                    warned = 1;
                    out[base + i] = 0;
                } else if (!mw[source]) {
                    g->bad[base + i] = 1;
                    warned = 1;
                    out[base + i] = 0;
                } else {
                    out[base + i] = src[base + source];
                }
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
    if (warned) {                             /* inactive sources first, as compile_ops */
        int64_t index = ins - run->code;
        warn_lanes(g, WARN_INACTIVE_SHUFFLE, index, g->bad, 0);
        warn_lanes(g, WARN_OUT_OF_RANGE_SHUFFLE, index, g->bad2, 0);
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
