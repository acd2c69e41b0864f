/* The write log of a recorded run (core.h's WriteLog; emu/write_log.py reads it back): around
 * every step of a recorded workgroup inside the step window, the executing lanes and a memory
 * access's addresses are taken before the instruction runs; after it, a row (instruction,
 * workgroup, step, values offset), the lanes as bits and the values it wrote (the plan's
 * registers and predicates, all n lanes: a copy, no selection) are appended to the caller's
 * buffers. Past the byte budget (or the buffers' room) the log stops and says where (`over`);
 * the run itself goes on unchanged. The lanes are packed and a memory access's addresses
 * written in place before the instruction runs (a step every lane executes takes the whole
 * mask made once: nothing to pack); a step that faults is never appended. Without
 * `keep_values` only the rows and masks are written (the offsets and the bytes counted as if
 * the values were there): Python rebuilds the values, on the first question, by running again
 * with them, to the last recorded workgroup (`last_group`: serial_run stops after it). */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

int wlog_setup(WG *g)
{
    WriteLog *w = g->run->rec->wlog;
    w->n = g->n;
    w->mask_bytes = (g->n + 7) / 8;
    w->mask = calloc((size_t)w->mask_bytes + 8, 1);
    w->full = malloc((size_t)w->mask_bytes + 8);
    if (!w->mask || !w->full)
        return -1;
    memset(w->full, 0xFF, (size_t)w->mask_bytes);
    if (g->n & 7)
        w->full[w->mask_bytes - 1] = (uint8_t)((1u << (g->n & 7)) - 1);
    return 0;
}

/* The executing lanes (0/1 bytes) as bits, the first lane in the lowest bit, 8 at a time. */
static void pack_bits(uint8_t *bits, const uint8_t *lanes, int64_t n)
{
    int64_t l = 0;
    for (; l + 8 <= n; l += 8) {
        uint64_t v;
        memcpy(&v, lanes + l, 8);
        bits[l >> 3] = (uint8_t)(((v & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56);
    }
    if (l < n) {
        bits[l >> 3] = 0;
        for (; l < n; l++)
            bits[l >> 3] |= (uint8_t)((lanes[l] != 0) << (l & 7));
    }
}

static int recorded(const WriteLog *w, const WG *g)
{
    return !w->over && g->linear < w->n_groups && w->groups[g->linear]
           && g->steps >= w->from && (w->to < 0 || g->steps < w->to);
}

void wlog_before(WG *g, const Ins *ins, int64_t index)
{
    WriteLog *w = g->run->rec->wlog;
    w->taken = 0;
    if (!g->any_active || !recorded(w, g))
        return;
    if (ins->guard < 0 && g->full)          /* every lane: the usual case, nothing to pack */
        w->lanes = w->full;
    else {
        pack_bits(w->mask, exec_mask(g, ins), g->n);
        w->lanes = w->mask;
    }
    int32_t reg = w->plan[index * REC_PLAN + 1];
    if (reg >= 0 && w->keep_values && w->n_values + g->n <= w->cap_values)   /* in place */
        memcpy(w->values + w->n_values, g->R + reg * g->n, (size_t)g->n * 4);
    w->taken = 1;
}

int wlog_after(WG *g, int64_t index)
{
    WriteLog *w = g->run->rec->wlog;
    if (!w->taken)
        return 0;
    const int32_t *plan = w->plan + index * REC_PLAN;
    int64_t n = g->n, words = ((plan[1] >= 0) + plan[2]) * n;
    int64_t bytes = WLOG_ROW * 8 + w->mask_bytes + words * 4;
    if (w->bytes + bytes > w->budget || w->n_rows >= w->cap_rows
        || (w->n_rows + 1) * w->mask_bytes > w->cap_masks
        || (w->keep_values && w->n_values + words > w->cap_values)) {
        w->over = 1;
        w->over_group = g->linear;
        w->over_step = g->steps;
        return 0;
    }
    int64_t *row = w->rows + w->n_rows * WLOG_ROW;
    row[0] = index;
    row[1] = g->linear;
    row[2] = g->steps;
    row[3] = w->n_values;
    memcpy(w->masks + w->n_rows * w->mask_bytes, w->lanes, (size_t)w->mask_bytes);
    w->n_values += words;
    w->n_rows += 1;
    w->bytes += bytes;
    if (!w->keep_values)
        return 0;
    uint32_t *out = w->values + w->n_values - words + (plan[1] >= 0 ? n : 0);   /* past it */
    for (int32_t c = 0; c < plan[2]; c++, out += n) {
        int32_t what = plan[3 + c];
        if (what >= 0) {
            memcpy(out, g->R + what * n, (size_t)n * 4);
        } else {
            const uint8_t *p = g->P + (-1 - what) * n;
            for (int64_t l = 0; l < n; l++)
                out[l] = p[l];
        }
    }
    return 0;
}

void wlog_free(WriteLog *w)
{
    if (!w)
        return;
    free(w->mask);
    free(w->full);
}
