/* The check of an epoch's log of accesses (waverace.c), exactly emu/racecheck.py's `_check`,
 * `_benign` and `_race`: per word the accesses sorted by wave, then log order (entry, lane); the
 * words where several waves meet with a write (in strict mode: or an atomic meeting a plain
 * access), in increasing order, the first `max_groups` of them examined (racecheck's
 * MAX_GROUPS), the first that is not benign (every wave touching it stored one same known value;
 * in strict mode nothing is benign) is the epoch's race, its pair chosen as `_race` chooses it.
 * Only where the race shadows saw waves meet (`flagged`); otherwise the log is just emptied. */
#include <stdlib.h>
#include <string.h>

#include "waverace.h"

typedef struct {                          /* 24 bytes: an epoch may log millions */
    uint32_t word, wave, lane;
    uint32_t seq, value, access;          /* entry; the value stored (known stores); access */
} Row;

void races_forget(RaceLog *r)
{
    r->n_acc = r->n_lanes = r->size = r->entries = 0;
}

static int by_word_wave_entry(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    if (x->word != y->word)
        return x->word < y->word ? -1 : 1;
    if (x->wave != y->wave)
        return x->wave < y->wave ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return (x->lane > y->lane) - (x->lane < y->lane);
}

/* Scatter `from` into `to` stably by key (the row's word or wave, less `base`; `count`: zeroed,
 * `keys` + 1 entries). */
static void scatter(const Row *from, Row *to, int64_t n, int64_t *count, int64_t keys,
                    int by_word, int64_t base)
{
    for (int64_t i = 0; i < n; i++)
        count[(by_word ? from[i].word : from[i].wave) - base + 1]++;
    for (int64_t k = 0; k < keys; k++)
        count[k + 1] += count[k];
    for (int64_t i = 0; i < n; i++)
        to[count[(by_word ? from[i].word : from[i].wave) - base]++] = from[i];
}

/* Sort the rows (made in log order: entry, lane) by word, then wave, then log order: two
 * stable counting passes (by wave, then by word) where the words lie close together, as a
 * workgroup's local memory does; else qsort. -1 out of memory. */
static int sort_rows(Row *rows, int64_t n)
{
    uint32_t low = UINT32_MAX, high = 0, last_wave = 0;
    for (int64_t i = 0; i < n; i++) {
        low = rows[i].word < low ? rows[i].word : low;
        high = rows[i].word > high ? rows[i].word : high;
        last_wave = rows[i].wave > last_wave ? rows[i].wave : last_wave;
    }
    int64_t range = n ? (int64_t)high - low + 1 : 0;
    if (range > 4 * n + 4096) {
        qsort(rows, (size_t)n, sizeof *rows, by_word_wave_entry);
        return 0;
    }
    int64_t waves = (int64_t)last_wave + 1, keys = range > waves ? range : waves;
    int64_t *count = calloc((size_t)keys + 1, sizeof *count);
    Row *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
    int ok = count && tmp;
    if (ok) {
        scatter(rows, tmp, n, count, waves, 0, 0);
        memset(count, 0, ((size_t)keys + 1) * sizeof *count);
        scatter(tmp, rows, n, count, range, 1, low);
    }
    free(tmp);
    free(count);
    return ok ? 0 : -1;
}

static int kind_of(const RaceLog *r, const Row *row)
{
    return r->acc[row->access].kind;
}

/* racecheck's value of a row: the value a known store wrote, else -1 - its entry */
static int64_t value_of(const RaceLog *r, const Row *row)
{
    return r->acc[row->access].known ? (int64_t)row->value : -1 - (int64_t)row->seq;
}

/* racecheck._benign: every wave touching the word stores it, all with one known value. */
static int benign(const RaceLog *r, const Row *g, int64_t n)
{
    int64_t value = -1;
    for (int64_t i = 0; i < n; i++)
        if (kind_of(r, &g[i]) == WRITE) {
            int64_t v = value_of(r, &g[i]);
            if (v < 0 || (value >= 0 && v != value))
                return 0;
            value = v;
        }
    for (int64_t i = 0; i < n;) {                  /* each wave's run stores */
        int64_t j = i, stored = 0;
        for (; j < n && g[j].wave == g[i].wave; j++)
            stored |= kind_of(r, &g[j]) == WRITE;
        if (!stored)
            return 0;
        i = j;
    }
    return 1;
}

/* racecheck._race: the pair of the group `g` (one word's accesses, by wave then log order). */
static Race pick(const RaceLog *r, const Row *g, int64_t n, int strict)
{
    const Row *first = NULL, *other = NULL;
    for (int64_t i = 0; i < n && !first; i++)
        if (kind_of(r, &g[i]) == WRITE)
            first = &g[i];
    if (first) {
        const Row *any = NULL, *store = NULL, *differs = NULL;
        for (int64_t i = 0; i < n; i++) {
            if (g[i].wave == first->wave)
                continue;
            if (!any)
                any = &g[i];
            if (kind_of(r, &g[i]) == WRITE) {
                if (!store)
                    store = &g[i];
                if (!differs && value_of(r, &g[i]) != value_of(r, first))
                    differs = &g[i];
            }
        }
        other = strict && differs ? differs : store ? store : any;
    } else {                                       /* strict: atomics and plain reads */
        const Row *read = NULL;
        for (int64_t i = 0; i < n && !first; i++)
            if (kind_of(r, &g[i]) == ATOMIC)
                first = &g[i];
        for (int64_t i = 0; i < n && !other; i++)
            if (kind_of(r, &g[i]) == READ && g[i].wave != first->wave)
                other = &g[i];
        for (int64_t i = 0; i < n && !read; i++)
            if (kind_of(r, &g[i]) == READ)
                read = &g[i];
        if (!other) {                              /* every read by the first atomic's wave */
            other = read;
            first = NULL;
            for (int64_t i = 0; i < n && !first; i++)
                if (kind_of(r, &g[i]) == ATOMIC && g[i].wave != read->wave)
                    first = &g[i];
        }
    }
    Race race = {r->space, kind_of(r, first), kind_of(r, other), 0, first->word,
                 r->acc[first->access].index, first->lane, r->acc[other->access].index,
                 other->lane};
    race.same = strict && race.kind_other == WRITE && value_of(r, first) >= 0
                && value_of(r, first) == value_of(r, other);
    return race;
}

/* The rows of the log: a lane's word of each entry, the values of known stores. */
static Row *rows_of(const RaceLog *r, int64_t W, int64_t *count)
{
    Row *rows = malloc((size_t)(r->size ? r->size : 1) * sizeof *rows);
    int64_t k = 0;
    if (!rows)
        return NULL;
    for (int64_t a = 0; a < r->n_acc; a++) {
        const Access *x = &r->acc[a];
        for (int64_t sub = x->sub_from; sub <= x->sub_to; sub++) {
            uint32_t seq = (uint32_t)(x->seq + sub - x->sub_from);
            for (int64_t i = 0; i < x->count; i++) {
                uint32_t address = r->addr[x->at + i];
                uint64_t word = (address >> 2) + (uint64_t)sub;
                if (word > ((uint64_t)address + (uint64_t)x->width - 1) >> 2)
                    continue;
                uint32_t lane = x->all ? (uint32_t)i : r->lane[x->at + i];
                rows[k++] = (Row){(uint32_t)word, lane / (uint32_t)W, lane, seq,
                                  x->known ? r->value[x->at + i] : 0, (uint32_t)a};
            }
        }
    }
    *count = k;
    return rows;
}

int races_check(RaceLog *r, int64_t W, int strict, Race *race)
{
    int result = 0, written = 0;
    for (int64_t a = 0; a < r->n_acc && !written; a++)
        written = r->acc[a].kind != READ;
    if (!r->flagged || !written) {
        races_forget(r);
        return 0;
    }
    int64_t n;
    Row *rows = rows_of(r, W, &n);
    if (!rows) {
        races_forget(r);
        return -1;
    }
    if (sort_rows(rows, n) < 0) {
        free(rows);
        races_forget(r);
        return -1;
    }
    int64_t examined = 0;
    for (int64_t i = 0, j; i < n && examined < r->max_groups; i = j) {
        int writes = 0, atomics = 0, plain = 0;
        for (j = i; j < n && rows[j].word == rows[i].word; j++) {
            int kind = kind_of(r, &rows[j]);
            writes |= kind == WRITE;
            atomics |= kind == ATOMIC;
            plain |= kind != ATOMIC;
        }
        int bad = rows[i].wave != rows[j - 1].wave
                  && (writes || (strict && atomics && plain));
        if (!bad)
            continue;
        examined++;
        if (strict || !benign(r, rows + i, j - i)) {
            *race = pick(r, rows + i, j - i, strict);
            result = 1;
            break;
        }
    }
    free(rows);
    races_forget(r);
    return result;
}

