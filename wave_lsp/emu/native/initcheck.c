/* The native core's uninitialised-read check (emu/initcheck.py is the reference): the same
 * shadows, and the same warnings (findings.c), lane for lane.
 *
 * Device memory: one byte per byte of device memory, from Python (the `--arg`/fill ranges set),
 * set by stores and atomics for the whole launch. Local memory: one byte per byte, cleared at
 * each workgroup that wrote any. Registers: per register a flag "every lane wrote it" and, for
 * registers written in part, one byte per lane; an instruction whose registers are all settled
 * is remembered and costs one test. Registers read and written come from Python per instruction
 * (`Run.uses`: USE_READS then USE_WRITES register numbers, -1 padded; plan.register_uses). */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

struct Init {
    uint8_t *loc;                        /* per local byte: written in this workgroup */
    int loc_dirty;
    uint8_t *rows;                       /* registers x lanes: lane wrote the register */
    uint8_t full[256];                   /* register written by every lane of the workgroup */
    uint8_t *settled;                    /* per instruction: its registers are all full */
};

int init_setup(WG *g)
{
    Run *run = g->run;
    if (!run->uses)
        return 0;
    Init *s = calloc(1, sizeof *s);
    g->init = s;
    if (!s || !(s->loc = calloc(run->local_size + 16, 1))
        || !(s->rows = calloc((size_t)run->registers * g->n, 1))
        || !(s->settled = calloc(run->n_code + 1, 1)))
        return -1;
    return 0;
}

void init_free(WG *g)
{
    Init *s = g->init;
    if (!s)
        return;
    free(s->loc); free(s->rows); free(s->settled); free(s);
    g->init = NULL;
}

void init_workgroup(WG *g)
{
    Init *s = g->init;
    Run *run = g->run;
    if (!s)
        return;
    if (s->loc_dirty) {
        memset(s->loc, 0, run->local_size);
        s->loc_dirty = 0;
    }
    memset(s->rows, 0, (size_t)run->registers * g->n);
    memset(s->settled, 0, run->n_code);
    for (int64_t r = 0; r < run->registers && r < 256; r++)
        s->full[r] = run->set_reg[r];
}

static int settled(const Init *s, const int16_t *u)
{
    for (int k = 0; k < USE_FIELDS; k++)
        if (u[k] >= 0 && !s->full[u[k]])
            return 0;
    return 1;
}

/* Warn about the executing lanes of `ins` that read a register nothing wrote (one warning per
 * instruction, the first such register's, as InitShadow.check_registers); record its writes. */
int init_registers(WG *g, const Ins *ins, int64_t index)
{
    Init *s = g->init;
    if (s->settled[index])
        return 0;
    const int16_t *u = g->run->uses + index * USE_FIELDS;
    if (settled(s, u)) {
        s->settled[index] = 1;
        return 0;
    }
    int64_t n = g->n;
    const uint8_t *m = exec_mask(g, ins);
    int all = ins->guard < 0 && g->full;
    uint8_t *bad = g->bad;
    for (int k = 0; k < USE_READS; k++) {
        int r = u[k];
        if (r < 0 || s->full[r])
            continue;
        const uint8_t *row = s->rows + (int64_t)r * n;
        uint8_t any = 0;
        if (all)
            for (int64_t l = 0; l < n; l++)
                any |= bad[l] = !row[l];
        else
            for (int64_t l = 0; l < n; l++)
                any |= bad[l] = m[l] & !row[l];
        if (any)
            warn_lanes(g, WARN_UNINIT_REGISTER, index, bad, r);
    }
    for (int k = USE_READS; k < USE_FIELDS; k++) {
        int r = u[k];
        if (r < 0 || s->full[r])
            continue;
        if (all) {
            s->full[r] = 1;
            continue;
        }
        uint8_t *row = s->rows + (int64_t)r * n;
        int every = 1;
        for (int64_t l = 0; l < n; l++) {
            row[l] |= m[l];
            every &= row[l] | !g->alive[l];
        }
        s->full[r] = (uint8_t)every;
    }
    s->settled[index] = (uint8_t)settled(s, u);
    return 0;
}

/* The memory side of a load, store or atomic of `width` bytes at `addr` (MemoryCheck.run):
 * warn about the executing lanes whose in-bounds access reads bytes nothing initialised (an
 * atomic: lanes in thread order, each initialising its word for the next), naming the first
 * one's address; record what the in-bounds writes initialise (out-of-bounds lanes are the
 * access's fault). */
void init_memory(WG *g, int local, const uint32_t *addr, const uint8_t *m, int64_t width,
                 int read, int write, int64_t index, uint32_t top)
{
    Init *s = g->init;
    uint8_t *shadow = local ? s->loc : g->run->device_init;
    uint64_t size = (uint64_t)(local ? g->run->local_size : g->run->device_size);
    int64_t n = g->n, detail = -1;
    uint8_t *bad = g->bad;
    static const uint32_t set = 0x01010101u;
    if (local && write)
        s->loc_dirty = 1;
    if (read && !write && (uint64_t)top + (uint64_t)width <= size) {
        int clean = 1;                       /* the common case: every byte initialised */
        for (int64_t l = 0; l < n && clean; l++)
            if (m[l])
                clean = width == 4 ? load32(shadow + addr[l]) == set
                                   : memchr(shadow + addr[l], 0, (size_t)width) == NULL;
        if (clean)
            return;
    }
    for (int64_t l = 0; l < n; l++) {
        bad[l] = 0;
        if (!m[l] || (uint64_t)addr[l] + (uint64_t)width > size)
            continue;
        uint8_t *p = shadow + addr[l];
        if (read)
            bad[l] = width == 4 ? load32(p) != set : memchr(p, 0, (size_t)width) != NULL;
        if (bad[l] && detail < 0)
            detail = addr[l];
        if (read && write)                   /* an atomic: the next lane sees this one */
            memcpy(p, &set, 4);
    }
    if (detail >= 0)
        warn_lanes(g, local ? WARN_UNINIT_LOCAL : WARN_UNINIT_DEVICE, index, bad, detail);
    if (write && !read) {
        int inside = (uint64_t)top + (uint64_t)width <= size;
        for (int64_t l = 0; l < n; l++) {
            if (!m[l] || (!inside && (uint64_t)addr[l] + (uint64_t)width > size))
                continue;
            if (width == 4)
                memcpy(shadow + addr[l], &set, 4);
            else
                memset(shadow + addr[l], 1, (size_t)width);
        }
    }
}

/* The memory side of an mma tile load or store (MemoryCheck with `tile`): the executing lanes
 * whose 16 words (`tile`: n x 16 offsets in local memory) all lie in bounds; a load warns about
 * those reading a byte nothing initialised, naming the first one's tile address (its first
 * word), a store initialises them. Lanes go in `g->bad2` (the access's fault uses `g->bad`). */
void init_tile(WG *g, const int64_t *tile, const uint8_t *m, int read, int64_t index)
{
    Init *s = g->init;
    uint64_t size = (uint64_t)g->run->local_size;
    int64_t detail = -1;
    uint8_t *bad = g->bad2;
    static const uint32_t set = 0x01010101u;
    if (!read)
        s->loc_dirty = 1;
    for (int64_t l = 0; l < g->n; l++) {
        bad[l] = 0;
        if (!m[l])
            continue;
        const int64_t *at = tile + l * 16;
        int inside = 1;
        for (int w = 0; w < 16; w++)
            inside &= (uint64_t)at[w] + 4 <= size;
        if (!inside)
            continue;
        for (int w = 0; w < 16; w++) {
            if (!read)
                memcpy(s->loc + at[w], &set, 4);
            else if (load32(s->loc + at[w]) != set)
                bad[l] = 1;
        }
        if (bad[l] && detail < 0)
            detail = at[0];
    }
    if (detail >= 0)
        warn_lanes(g, WARN_UNINIT_LOCAL, index, bad, detail);
}
