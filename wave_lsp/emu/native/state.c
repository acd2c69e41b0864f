/* The native core's workgroup state: allocation of the lane arrays, frames, local memory and
 * race shadows (large ones in transparent huge pages), and the special registers. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "exec.h"


/* Zeroed memory for a shadow: large ones in transparent huge pages where the system allows,
 * so that touching them costs a few page faults instead of thousands. */
void *shadow_alloc(int64_t bytes)
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

void shadow_free(void *p, int64_t bytes)
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
    g->bad = calloc(2 * n, 1);
    g->bad2 = g->bad ? g->bad + n : NULL;
    if (!g->bad || !g->block || !g->R || !g->P || !g->tmp32 || !g->tmp32b || !g->frames || !g->calls
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
    /* Device accesses are tracked per block of 2^dev_shift bytes (a superset of the races per
     * word: never fewer bails): 4 words where waves and workgroups both span a multiple of 4
     * threads (threads touching consecutive words then never share a block across a wave or
     * workgroup boundary), fewer otherwise; smaller shadows are much cheaper to clear. */
    int64_t common = g->W, other = g->threads;
    while (other) {
        int64_t t = common % other;
        common = other;
        other = t;
    }
    g->dev_shift = 2;
    while (g->dev_shift < 4 && common % (2ll << (g->dev_shift - 2)) == 0)
        g->dev_shift++;
    g->dev_words = (run->device_size + (1ll << g->dev_shift) - 1) >> g->dev_shift;
    g->loc_words = (run->local_size + 3) / 4;
    g->epoch = 1;
    g->dev_owned = total > 1 && !run->meeting;     /* else meeting.c finds them exactly */
    if ((total > 1 || g->nw > 1) && g->dev_words && !(g->dev_shadow = shadow_alloc(g->dev_words * 8)))
        return -1;
    if (g->nw > 1) {
        if (races_setup(g) != 0)
            return -1;
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
    free(g->loc_value); free(g->loc_writers); free(g->bad);
    races_free(g);
    mma_free(g);
}

uint32_t special(WG *g, int64_t index, int64_t lane)
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
