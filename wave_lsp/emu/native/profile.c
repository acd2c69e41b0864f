/* The native core's kernel profile (issue 23), the same record as emu/profiler.py fills:
 * per instruction, wave-instructions at every recorded width (groups of w threads following the
 * anchor mask: all threads, a loop's remaining lanes from its second iteration, the lanes of a
 * guarded call), executing lanes, and each distinct memory access pattern (executing lanes and
 * addresses relative to a 4096-byte-aligned base) with how often it ran. Patterns are kept once,
 * in a hash table over `data`; Python (native/runner.py) turns them into AccessPatterns.
 *
 * data: per pattern [instruction, lanes, full, lane..., relative address...] (uint32). */
#include <stdlib.h>
#include <string.h>

#include "exec.h"

#define PATTERN_ALIGN 4096u
#define KIND_LOOP 1
#define KIND_CALL 2

int prof_setup(WG *g)
{
    Prof *p = g->run->prof;
    if (!p)
        return 0;
    int64_t n = g->n, depth = g->run->max_ctrl + g->run->max_calls + 1;
    p->n = n;
    p->anchor = calloc(n, 1);
    p->stack = calloc(depth * n, 1);
    p->kinds = calloc(depth, 1);
    p->capacity = depth;
    p->table_cap = 1024;
    p->table = calloc(p->table_cap, sizeof(PEntry));
    p->data_cap = 1 << 16;
    p->data = malloc(p->data_cap * 4);
    p->scratch = malloc((2 * n + 3) * 4);
    if (!p->anchor || !p->stack || !p->kinds || !p->table || !p->data || !p->scratch)
        return -1;
    return 0;
}

void prof_free(Prof *p)
{
    if (!p)
        return;
    free(p->anchor); free(p->stack); free(p->kinds); free(p->table); free(p->data);
    free(p->scratch);
}

/* present[k] = groups of widths[k] lanes with an anchor lane and a live lane */
static void recount(WG *g, Prof *p)
{
    int64_t n = g->n;
    for (int64_t k = 0; k < p->k; k++) {
        int64_t w = p->widths[k], count = 0;
        for (int64_t start = 0; start < n; start += w) {
            int64_t end = start + w < n ? start + w : n;
            int anchor = 0, alive = 0;
            for (int64_t l = start; l < end; l++) {
                anchor |= p->anchor[l];
                alive |= g->alive[l];
            }
            count += anchor && alive;
        }
        p->present[k] = count;
    }
}

void prof_workgroup(WG *g)
{
    Prof *p = g->run->prof;
    if (!p)
        return;
    memset(p->anchor, 1, g->n);
    p->depth = 0;
    recount(g, p);
}

void prof_skip(WG *g, int64_t start, int64_t stop)
{
    Prof *p = g->run->prof;
    if (!p)
        return;
    for (int64_t i = start; i < stop; i++)
        for (int64_t k = 0; k < p->k; k++)
            p->executions[i * p->k + k] += p->present[k];
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

/* Count one pattern (scratch[0..len)) or add it to the table. */
static int add_pattern(Prof *p, int64_t len)
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

/* Before instruction `index` runs: executions, executing lanes and its access pattern. */
int prof_step(WG *g, const Ins *ins, int64_t index)
{
    Prof *p = g->run->prof;
    int64_t n = g->n;
    for (int64_t k = 0; k < p->k; k++)
        p->executions[index * p->k + k] += p->present[k];
    const uint8_t *m = ins->guard < 0 ? g->active : exec_mask(g, ins);
    int64_t count = 0;
    if (ins->guard < 0) {
        count = g->active_count;
    } else {
        for (int64_t l = 0; l < n; l++)
            count += m[l];
    }
    p->lanes[index] += count;
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
    return add_pattern(p, len);
}

static void push(Prof *p, int kind)
{
    memcpy(p->stack + p->depth * p->n, p->anchor, p->n);
    p->kinds[p->depth++] = (uint8_t)kind;
}

/* Run a control instruction (exec.c `control`), then follow the anchor (see the file
 * comment); returns what `control` returns. */
int64_t prof_control(WG *g, const Ins *ins, int64_t index)
{
    Prof *p = g->run->prof;
    int64_t depth = g->depth, calls = g->n_calls;
    int64_t next = control(g, ins, index);
    if (g->run->bail)
        return next;
    switch (ins->op) {
    case OP_LOOP:
        if (g->depth > depth)
            push(p, KIND_LOOP);
        return next;
    case OP_ENDLOOP:
        if (g->depth == depth) {
            memcpy(p->anchor, g->active, g->n);       /* another iteration */
        } else {
            p->depth--;
            memcpy(p->anchor, p->stack + p->depth * p->n, g->n);
        }
        break;
    case OP_CALL:
        if (g->n_calls <= calls)
            return next;
        push(p, KIND_CALL);
        if (ins->guard >= 0)
            memcpy(p->anchor, g->active, g->n);
        break;
    case OP_RETURN:
        if (g->n_calls < calls) {
            while (p->depth > 0 && p->kinds[--p->depth] != KIND_CALL)
                ;
            memcpy(p->anchor, p->stack + p->depth * p->n, g->n);
        }
        break;
    case OP_HALT:
        break;
    default:
        return next;
    }
    recount(g, p);
    return next;
}
