/* The native core's kernel profile (what each line costs on a GPU), the same record as
 * emu/profiler.py fills:
 * per instruction, wave-instructions and divergent branches at every recorded width, executing
 * lanes, and each distinct memory access pattern (executing lanes and addresses relative to a
 * 4096-byte-aligned base) with how often it ran. A group of w lanes executes an instruction when
 * one of its lanes is active (emu/profile.py: guard or not); `waves` holds those groups per width
 * and is recounted after every control instruction, the only ones that change the active lanes.
 * A branch-like instruction (if, break, continue, a guarded call) also counts the groups whose
 * active lanes its condition splits. Patterns are kept once, in a hash table over `data`; Python
 * (emu/profile_native.py) turns them into AccessPatterns. What is kept is bounded as
 * emu/profile.py says: a new pattern past `max_patterns` of its instruction or `max_words` words
 * in all (an instruction's first always kept) is only counted in `dropped` (accesses, lanes).
 *
 * data: per pattern [instruction, lanes, full, lane..., relative address...] (uint32). */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

#define PATTERN_ALIGN 4096u

int prof_setup(WG *g)
{
    Prof *p = g->run->prof;
    if (!p)
        return 0;
    int64_t n = g->n;
    p->n = n;
    p->table_cap = 1024;
    p->table = calloc(p->table_cap, sizeof(PEntry));
    p->data_cap = 1 << 16;
    p->data = malloc(p->data_cap * 4);
    p->scratch = malloc((2 * n + 3) * 4);
    if (!p->table || !p->data || !p->scratch)
        return -1;
    return 0;
}

void prof_free(Prof *p)
{
    if (!p)
        return;
    free(p->table); free(p->data); free(p->scratch);
}

static int has_lane(const uint8_t *m, int64_t n)
{
    for (int64_t l = 0; l < n; l++)
        if (m[l])
            return 1;
    return 0;
}

/* waves[k] = groups of widths[k] lanes with an active lane */
static void recount(WG *g, Prof *p)
{
    int64_t n = g->n;
    for (int64_t k = 0; k < p->k; k++) {
        int64_t w = p->widths[k], count = 0;
        if (g->any_active)
            for (int64_t start = 0; start < n; start += w)
                count += has_lane(g->active + start, start + w < n ? w : n - start);
        p->waves[k] = count;
    }
}

void prof_workgroup(WG *g)
{
    Prof *p = g->run->prof;
    if (!p)
        return;
    recount(g, p);
}

/* Instructions stepped over with no active lane (exec.c skip_region): no group executes them. */
void prof_skip(WG *g, int64_t start, int64_t stop)
{
    (void)g; (void)start; (void)stop;
}

static uint64_t hash_words(const uint32_t *w, int64_t count)
{
    uint64_t h = 1469598103934665603ull;
    for (int64_t i = 0; i < count; i++) {
        h ^= w[i];
        h *= 1099511628211ull;
    }
    return h ? h : 1;
}

static int grow_table(Prof *p)
{
    int64_t cap = p->table_cap * 2;
    PEntry *table = calloc(cap, sizeof(PEntry));
    if (!table)
        return -1;
    for (int64_t i = 0; i < p->table_cap; i++) {
        PEntry e = p->table[i];
        if (!e.hash)
            continue;
        int64_t j = (int64_t)(e.hash & (uint64_t)(cap - 1));
        while (table[j].hash)
            j = (j + 1) & (cap - 1);
        table[j] = e;
    }
    free(p->table);
    p->table = table;
    p->table_cap = cap;
    return 0;
}

/* Count one pattern (scratch[0..len)) of instruction `index` run by `lanes` lanes, or add it
 * to the table when within the bounds. */
static int add_pattern(Prof *p, int64_t len, int64_t index, int64_t lanes)
{
    uint64_t h = hash_words(p->scratch, len);
    int64_t j = (int64_t)(h & (uint64_t)(p->table_cap - 1));
    while (p->table[j].hash) {
        PEntry *e = &p->table[j];
        if (e->hash == h && e->length == len
            && memcmp(p->data + e->offset, p->scratch, (size_t)len * 4) == 0) {
            e->count++;
            return 0;
        }
        j = (j + 1) & (p->table_cap - 1);
    }
    if (p->kept[index] && (p->kept[index] >= p->max_patterns
                           || p->words + len - 3 > p->max_words)) {
        p->dropped[2 * index] += 1;
        p->dropped[2 * index + 1] += lanes;
        return 0;
    }
    p->kept[index] += 1;
    p->words += len - 3;
    while (p->data_len + len > p->data_cap) {
        uint32_t *data = realloc(p->data, (size_t)p->data_cap * 8);
        if (!data)
            return -1;
        p->data = data;
        p->data_cap *= 2;
    }
    memcpy(p->data + p->data_len, p->scratch, (size_t)len * 4);
    p->table[j] = (PEntry){h, p->data_len, len, 1};
    p->data_len += len;
    if (++p->entries * 2 > p->table_cap)
        return grow_table(p);
    return 0;
}

/* Groups whose active lanes the branch-like `ins` splits (some take it, some not), per width;
 * `m` is its executing lanes. */
static void divergence(WG *g, Prof *p, const Ins *ins, const uint8_t *m, int64_t index)
{
    const uint8_t *cond = ins->op == OP_CALL ? NULL : g->P + ins->rs1 * g->n;
    int64_t n = g->n;
    for (int64_t k = 0; k < p->k; k++) {
        int64_t w = p->widths[k], count = 0;
        for (int64_t start = 0; start < n; start += w) {
            int64_t end = start + w < n ? start + w : n;
            int taken = 0, rest = 0;
            for (int64_t l = start; l < end && !(taken && rest); l++) {
                int t = m[l] && (!cond || cond[l]);
                taken |= t;
                rest |= g->active[l] && !t;
            }
            count += taken && rest;
        }
        p->divergent[index * p->k + k] += count;
    }
}

static int is_branch(const Ins *ins)
{
    return ins->op == OP_IF || ins->op == OP_BREAK || ins->op == OP_CONTINUE
           || (ins->op == OP_CALL && ins->guard >= 0);
}

/* Before instruction `index` runs: executions, executing lanes, divergence and its access
 * pattern. */
int prof_step(WG *g, const Ins *ins, int64_t index)
{
    Prof *p = g->run->prof;
    int64_t n = g->n;
    if (!g->any_active)
        return 0;
    for (int64_t k = 0; k < p->k; k++)
        p->executions[index * p->k + k] += p->waves[k];
    const uint8_t *m = ins->guard < 0 ? g->active : exec_mask(g, ins);
    int64_t count = 0;
    if (ins->guard < 0) {
        count = g->active_count;
    } else {
        for (int64_t l = 0; l < n; l++)
            count += m[l];
    }
    p->lanes[index] += count;
    if (is_branch(ins))
        divergence(g, p, ins, m, index);
    if (ins->width <= 0 || !count || ins->op == OP_TRAP)
        return 0;
    const uint32_t *addr = g->R + ins->rs1 * n;
    uint32_t low = 0xFFFFFFFFu;
    for (int64_t l = 0; l < n; l++)
        if (m[l] && addr[l] < low)
            low = addr[l];
    uint32_t base = low & ~(PATTERN_ALIGN - 1);
    uint32_t *s = p->scratch;
    int full = count == n;
    int64_t len = 3;
    s[0] = (uint32_t)index;
    s[1] = (uint32_t)count;
    s[2] = (uint32_t)full;
    if (!full)
        for (int64_t l = 0; l < n; l++)
            if (m[l])
                s[len++] = (uint32_t)l;
    for (int64_t l = 0; l < n; l++)
        if (m[l])
            s[len++] = addr[l] - base;
    return add_pattern(p, len, index, count);
}

/* Run a control instruction (exec.c `control`), then recount the groups with an active lane;
 * returns what `control` returns. */
int64_t prof_control(WG *g, const Ins *ins, int64_t index)
{
    int64_t next = control(g, ins, index);
    if (!g->run->bail)
        recount(g, g->run->prof);
    return next;
}
