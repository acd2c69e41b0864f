/* What the editor shows, recorded by the core in the same pass as the run (core.h's Rec): the
 * per-line records of the shown lanes, as emu/recording.py's LineRecorder keeps them, and the
 * store-writer record, as emu/writers.py's StoreWriters keeps it. Python (native/recorded.py)
 * turns them into the numpy engine's `line_records` and `writers`.
 *
 * Lines: around an instruction run while a shown lane's wave is present (only the workgroup of
 * the shown threads has any), the executing shown lanes are taken before it runs, with a store's
 * addresses; after it, the line's slot counts the execution, keeps the first one's lanes, and,
 * for at most `limit` executions with a shown lane executing, logs what it wrote (the plan's
 * registers and predicates, read after it ran). Writers: before a device store or atomic, its
 * executing lanes and addresses; after it, every byte it wrote (lanes in order, the last wins)
 * names the instruction's line and the writing thread, in pages made when first written.
 * The write log (writelog.c) is taken around the same instructions. */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

int rec_setup(WG *g)
{
    Rec *r = g->run->rec;
    if (!r)
        return 0;
    int64_t k = r->n_lanes ? r->n_lanes : 1;
    r->mask = calloc((size_t)k, 1);
    r->addr = calloc((size_t)k, 4);
    r->wmask = calloc((size_t)g->n, 1);
    r->waddr = calloc((size_t)g->n, 4);
    if (!r->mask || !r->addr || !r->wmask || !r->waddr)
        return -1;
    return r->wlog ? wlog_setup(g) : 0;
}

static void line_before(WG *g, Rec *r, const Ins *ins, int64_t index)
{
    int present = 0;
    for (int64_t i = 0; i < r->n_lanes && !present; i++)
        present = g->present[r->lanes[i] / g->W];
    if (!present)
        return;
    const uint8_t *m = exec_mask(g, ins);
    for (int64_t i = 0; i < r->n_lanes; i++)
        r->mask[i] = m[r->lanes[i]] != 0;
    int32_t reg = r->plan[index * REC_PLAN + 1];
    if (reg >= 0)
        for (int64_t i = 0; i < r->n_lanes; i++)
            r->addr[i] = g->R[reg * g->n + r->lanes[i]];
    r->valid = 1;
}

void rec_before(WG *g, const Ins *ins, int64_t index)
{
    Rec *r = g->run->rec;
    r->valid = r->wvalid = 0;
    if (r->plan && g->linear == r->workgroup)
        line_before(g, r, ins, index);
    if (r->where && r->where[2 * index + 1] > 0 && g->any_active) {
        const uint8_t *m = exec_mask(g, ins);
        memcpy(r->wmask, m, (size_t)g->n);
        memcpy(r->waddr, g->R + ins->rs1 * g->n, (size_t)g->n * 4);
        r->wvalid = 1;
    }
    if (r->wlog)
        wlog_before(g, ins, index);
}

static int log_room(Rec *r, int64_t words)
{
    if (r->log_len + words <= r->log_cap)
        return 0;
    int64_t cap = r->log_cap ? r->log_cap : 4096;
    while (cap < r->log_len + words)
        cap *= 2;
    uint32_t *log = realloc(r->log, (size_t)cap * 4);
    if (!log)
        return -1;
    r->log = log;
    r->log_cap = cap;
    return 0;
}

static int line_after(WG *g, Rec *r, int64_t index)
{
    const int32_t *plan = r->plan + index * REC_PLAN;
    int64_t slot = plan[0], k = 0;
    if (r->first[slot] < 0) {
        r->first[slot] = index;
        r->order[r->n_order++] = slot;
        memcpy(r->first_active + slot * r->n_lanes, r->mask, (size_t)r->n_lanes);
    }
    r->count[slot]++;
    for (int64_t i = 0; i < r->n_lanes; i++)
        k += r->mask[i];
    if (!k || r->kept[slot] >= r->limit)
        return 0;
    r->kept[slot]++;
    int64_t caps = plan[2];
    if (log_room(r, 2 + k * (1 + caps + (plan[1] >= 0))) != 0)
        return -1;
    uint32_t *out = r->log + r->log_len;
    *out++ = (uint32_t)index;
    *out++ = (uint32_t)k;
    for (int64_t i = 0; i < r->n_lanes; i++)
        if (r->mask[i])
            *out++ = (uint32_t)i;
    for (int64_t c = 0; c < caps; c++) {
        int32_t what = plan[3 + c];
        for (int64_t i = 0; i < r->n_lanes; i++) {
            if (!r->mask[i])
                continue;
            int64_t lane = r->lanes[i];
            *out++ = what >= 0 ? g->R[what * g->n + lane] : g->P[(-1 - what) * g->n + lane];
        }
    }
    if (plan[1] >= 0)
        for (int64_t i = 0; i < r->n_lanes; i++)
            if (r->mask[i])
                *out++ = r->addr[i];
    r->log_len = out - r->log;
    return 0;
}

static int writers_after(WG *g, Rec *r, int64_t index)
{
    int64_t line = r->where[2 * index], width = r->where[2 * index + 1];
    int64_t size = g->run->device_size, low = (1 << WRITER_PAGE_BITS) - 1;
    int64_t base = g->linear * r->threads_per_wg;
    for (int64_t k = 0; k < width; k++)
        for (int64_t l = 0; l < g->n; l++) {
            if (!r->wmask[l])
                continue;
            int64_t at = (int64_t)r->waddr[l] + k;
            if (at >= size)
                continue;
            int64_t page = at >> WRITER_PAGE_BITS;
            if (!r->page_line[page]) {
                r->page_line[page] = malloc((size_t)4 << WRITER_PAGE_BITS);
                r->page_lane[page] = malloc((size_t)8 << WRITER_PAGE_BITS);
                if (!r->page_line[page] || !r->page_lane[page])
                    return -1;
                memset(r->page_line[page], 0xFF, (size_t)4 << WRITER_PAGE_BITS);
                memset(r->page_lane[page], 0xFF, (size_t)8 << WRITER_PAGE_BITS);
            }
            r->page_line[page][at & low] = (int32_t)line;
            r->page_lane[page][at & low] = base + l;
        }
    return 0;
}

int rec_after(WG *g, int64_t index)
{
    Rec *r = g->run->rec;
    if (r->valid && line_after(g, r, index) != 0)
        return -1;
    if (r->wvalid && writers_after(g, r, index) != 0)
        return -1;
    return r->wlog ? wlog_after(g, index) : 0;
}
