/* The native core's barrier, as emu/control.py barrier: one release per workgroup reaching it
 * (every wave still stepping through, a guarded one only where a lane passes the guard), and
 * the faults of a workgroup whose executing waves are not all here with all their live lanes:
 * a wave that halted (deadlock) first, then one that diverged. A barrier ends an epoch of the
 * race shadows (shadow.c), reporting its race between waves (waverace.c). */
#include <string.h>

#include "exec.h"

static int any_of(const uint8_t *m, int64_t n)
{
    for (int64_t l = 0; l < n; l++)
        if (m[l])
            return 1;
    return 0;
}

int64_t barrier_op(WG *g, const Ins *ins)
{
    Run *run = g->run;
    const uint8_t *m = exec_mask(g, ins);
    int reaching = 0, here = 0;
    for (int64_t w = 0; w < g->nw; w++) {
        int arriving = any_of(m + w * g->W, g->W);
        reaching |= ins->guard >= 0 ? arriving : g->present[w];
        here |= arriving;
    }
    run->stats.barriers += reaching;
    if (here) {
        int64_t W = g->W;
        for (int64_t w = 0; w < g->nw; w++)
            if (!any_of(g->alive + w * W, W)) {
                memset(g->bad, 0, g->n);
                memset(g->bad + w * W, 1, W);
                return fault(g, ERR_DEADLOCK, g->bad, 0, 0);
            }
        for (int64_t w = 0; w < g->nw; w++) {
            const uint8_t *alive = g->alive + w * W, *mw = m + w * W;
            if (memcmp(alive, mw, W) != 0) {
                uint64_t active = 0, expected = 0;
                for (int64_t i = 0; i < W; i++) {
                    active |= (uint64_t)(mw[i] != 0) << i;
                    expected |= (uint64_t)(alive[i] != 0) << i;
                }
                memset(g->bad, 0, g->n);
                memcpy(g->bad + w * W, alive, W);
                return fault(g, ERR_DIVERGENT_BARRIER, g->bad, (int64_t)active,
                             (int64_t)expected);
            }
        }
    }
    if (g->nw > 1) {
        if (races_end_epoch(g))                /* its race between waves (waverace.c) */
            return BAIL_AT;
        next_epoch(g);
    }
    return -1;
}
