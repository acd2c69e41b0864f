/* The native core's findings: the warnings of a run, deduplicated per instruction and kind and
 * at most MAX_WARNINGS, each naming the first lane's workgroup and wave and that wave's lanes
 * (emu/context.py RunContext.warn), and the error that stops it, with the lanes of its first
 * lane's wave (emu/engine.py to_error). Python (native/findings.py) adds the text. */
#include "exec.h"

/* The lanes of `mask` in the wave of its first lane (bits), that first lane (-1: none). */
static int64_t first_wave(const WG *g, const uint8_t *mask, uint64_t *bits)
{
    int64_t first = -1;
    *bits = 0;
    for (int64_t l = 0; l < g->n; l++)
        if (mask[l]) {
            first = l;
            break;
        }
    if (first < 0)
        return -1;
    int64_t base = first / g->W * g->W;
    for (int64_t i = 0; i < g->W; i++)
        if (mask[base + i])
            *bits |= 1ull << i;
    return first;
}

void warn_lanes(WG *g, int kind, int64_t index, const uint8_t *bad, int64_t detail)
{
    Findings *f = g->run->found;
    int64_t count = 0;
    for (int64_t l = 0; l < g->n; l++)
        count += bad[l];
    if (!count)
        return;
    int32_t *slot = &f->slot[index * WARN_KINDS + kind];
    if (*slot >= 0) {
        f->warnings[*slot].count += count;
        return;
    }
    if (f->n_warnings >= MAX_WARNINGS)
        return;
    Finding *w = &f->warnings[f->n_warnings];
    *slot = (int32_t)f->n_warnings++;
    w->kind = kind;
    w->index = index;
    w->workgroup = g->linear;
    w->lane = first_wave(g, bad, &w->lanes);
    w->count = count;
    w->detail = detail;
}

int64_t fault(WG *g, int kind, const uint8_t *lanes, int64_t detail, int64_t detail2)
{
    Run *run = g->run;
    if (run->bail)
        return BAIL_AT;
    Finding *e = &run->found->error;
    e->kind = kind;
    e->workgroup = g->linear;
    e->lanes = 0;
    e->lane = lanes ? first_wave(g, lanes, &e->lanes) : -1;
    e->detail = detail;
    run->found->detail2 = detail2;
    return bail(run, "error");
}
