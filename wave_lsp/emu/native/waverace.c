/* Races between the waves of a workgroup, exactly as emu/racecheck.py finds them (EpochLog), so
 * that the core reports them itself (the `data_race` warning; native/findings.py gives it the
 * text of race_report.py).
 *
 * Per memory space the epoch's accesses are logged as they run (each access: instruction, kind,
 * the executing lanes, their byte addresses and, for a 32-bit aligned store, the values; the
 * words past a lane's first are racecheck's later log entries, `sub` 1, 2, ...). The race
 * shadows (shadow.c) screen them: where they saw two waves meet on a word since the epoch began
 * (`flagged`), wavecheck.c checks the log when the epoch ends (a barrier, the workgroup's end),
 * as racecheck checks it; otherwise it is just emptied. Past `max_logged` words (MAX_LOGGED,
 * Run.race_logged) an epoch is checked early and logged afresh, after the same log entry as
 * racecheck (a race found then is the epoch's, reported when it ends; nothing more is logged).
 * A workgroup that stops at an error reports nothing of its last epoch, as there. The race is
 * reported once per space and pair of instructions (findings.c's table; racecheck's context). */
#include <stdlib.h>

#include "waverace.h"

int races_setup(WG *g)
{
    for (int s = 0; s < 2; s++) {
        if (!(g->races[s] = calloc(1, sizeof(RaceLog))))
            return -1;
        g->races[s]->space = s;
        g->races[s]->max_groups = g->run->race_groups;
        g->races[s]->max_logged = g->run->race_logged;
    }
    return 0;
}

void races_free(WG *g)
{
    for (int s = 0; s < 2; s++) {
        RaceLog *r = g->races[s];
        if (!r)
            continue;
        free(r->acc); free(r->lane); free(r->addr); free(r->value);
        free(r);
        g->races[s] = NULL;
    }
}

void races_flag(WG *g, int device)
{
    g->races[device]->flagged = 1;
}

/* ---- logging ---------------------------------------------------------------------------- */

static int grow(RaceLog *r, int64_t lanes)
{
    if (r->n_acc == r->cap_acc) {
        int64_t cap = r->cap_acc ? 2 * r->cap_acc : 64;
        Access *acc = realloc(r->acc, (size_t)cap * sizeof *acc);
        if (!acc)
            return -1;
        r->acc = acc;
        r->cap_acc = cap;
    }
    if (r->n_lanes + lanes > r->cap_lanes) {
        int64_t cap = r->cap_lanes ? r->cap_lanes : 1024;
        while (cap < r->n_lanes + lanes)
            cap *= 2;
        uint32_t *lane = realloc(r->lane, (size_t)cap * 4);
        if (lane)
            r->lane = lane;
        uint32_t *addr = realloc(r->addr, (size_t)cap * 4);
        if (addr)
            r->addr = addr;
        uint32_t *value = realloc(r->value, (size_t)cap * 4);
        if (value)
            r->value = value;
        if (!lane || !addr || !value)
            return -1;
        r->cap_lanes = cap;
    }
    return 0;
}

/* Log entries [from, to] of an access whose lanes are already in the arrays at `at`. */
static void add_entries(RaceLog *r, Access x, int64_t from, int64_t to)
{
    x.sub_from = from;
    x.sub_to = to;
    x.seq = r->entries;
    r->entries += to - from + 1;
    r->acc[r->n_acc++] = x;
}

/* The lanes of an entry `sub` (racecheck's record_words sizes: the lanes spanning that word). */
static int64_t entry_size(const RaceLog *r, const Access *x, int64_t sub)
{
    if (sub == 0)
        return x->count;
    int64_t size = 0;
    for (int64_t i = 0; i < x->count; i++) {
        uint32_t a = r->addr[x->at + i];
        size += (((uint64_t)a + (uint64_t)x->width - 1) >> 2) - (a >> 2) >= (uint64_t)sub;
    }
    return size;
}

/* Log one access of `kind` by the lanes of `m` (every lane's address in `addr`; `data`: the
 * values of a 32-bit aligned store, else NULL); 1 when the run stops (out of memory). */
int races_log(WG *g, int device, int64_t index, int kind, const uint32_t *addr,
              const uint8_t *m, int64_t width, int64_t count, uint32_t bits,
              const uint32_t *data)
{
    RaceLog *r = g->races[device];
    if (r->found)
        return 0;                                  /* the epoch's race is known */
    const int64_t n = g->n;
    if (grow(r, count + 1) < 0)                    /* + 1: the branchless copy below */
        return bail(g->run, "out of memory") == BAIL_AT;
    Access x = {index, kind, data != NULL, count == n, width, 0, 0, 0, r->n_lanes, count};
    uint32_t *lanes = r->lane + r->n_lanes, *addrs = r->addr + r->n_lanes;
    uint32_t *values = r->value + r->n_lanes;
    if (count == n) {
        memcpy(addrs, addr, (size_t)n * 4);
        if (data)
            memcpy(values, data, (size_t)n * 4);
    } else {
        int64_t k = 0;                             /* each lane written, kept if active */
        if (data)
            for (int64_t l = 0; l < n; l++) {
                lanes[k] = (uint32_t)l;
                addrs[k] = addr[l];
                values[k] = data[l];
                k += m[l] != 0;
            }
        else
            for (int64_t l = 0; l < n; l++) {
                lanes[k] = (uint32_t)l;
                addrs[k] = addr[l];
                k += m[l] != 0;
            }
    }
    r->n_lanes += count;
    int64_t span = (width - 1) >> 2, total = count * (span + 1);   /* entries past the first */
    if (bits & 3) {                                /* unaligned: each lane's words */
        span = total = 0;
        for (int64_t i = 0; i < count; i++) {
            int64_t s = (int64_t)((((uint64_t)addrs[i] + (uint64_t)width - 1) >> 2)
                                  - (addrs[i] >> 2));
            span = s > span ? s : span;
            total += s + 1;
        }
    }
    if (r->size + total <= r->max_logged) {           /* the common case: no early check */
        r->size += total;
        add_entries(r, x, 0, span);
        return 0;
    }
    int64_t from = 0;
    for (int64_t sub = 0; sub <= span; sub++) {
        r->size += entry_size(r, &x, sub);
        if (r->size <= r->max_logged)
            continue;
        add_entries(r, x, from, sub);              /* checked early, logged afresh */
        from = sub + 1;
        int64_t old = x.at;
        int found = races_check(r, g->W, g->run->strict_races, &r->pending);
        if (found < 0)
            return bail(g->run, "out of memory") == BAIL_AT;
        if (found) {
            r->found = 1;
            return 0;
        }
        if (from <= span) {                        /* the rest of its entries: its lanes again */
            if (!x.all)                            /* races_check emptied the log */
                memmove(r->lane, r->lane + old, (size_t)count * 4);
            memmove(r->addr, r->addr + old, (size_t)count * 4);
            memmove(r->value, r->value + old, (size_t)count * 4);
            x.at = 0;
            r->n_lanes = count;
        }
    }
    if (from <= span)
        add_entries(r, x, from, span);
    return 0;
}

/* ---- the end of an epoch ------------------------------------------------------------------- */

/* The warning of `race` (findings.c's table: one per space and pair of instructions). */
static void report(WG *g, const Race *race)
{
    Findings *f = g->run->found;
    int64_t flags = race->space | race->kind_first << 1 | race->kind_other << 3
                    | race->same << 5;
    for (int64_t i = 0; i < f->n_warnings; i++) {
        const Finding *w = &f->warnings[i];
        if (w->kind == WARN_DATA_RACE && w->index == race->first_index
            && w->other_index == race->other_index && (w->race & 1) == race->space)
            return;
    }
    if (f->n_warnings >= MAX_WARNINGS)
        return;
    f->warnings[f->n_warnings++] = (Finding){
        .kind = WARN_DATA_RACE, .index = race->first_index, .workgroup = g->linear,
        .lane = race->first_lane, .lanes = 0, .count = 1, .detail = race->word * 4,
        .other_index = race->other_index, .other_lane = race->other_lane, .race = flags};
}

/* A barrier or the end of the workgroup: report the epoch's race per space (local, then
 * device, as racecheck's logs), and start afresh; 1 when the run stops (out of memory). */
int races_end_epoch(WG *g)
{
    for (int s = 0; s < 2 && g->races[s]; s++) {
        RaceLog *r = g->races[s];
        Race race;
        int found = r->found;
        if (found)
            race = r->pending;
        else if ((found = races_check(r, g->W, g->run->strict_races, &race)) < 0)
            return bail(g->run, "out of memory") == BAIL_AT;
        races_forget(r);
        r->flagged = r->found = 0;
        if (found)
            report(g, &race);
    }
    return 0;
}
