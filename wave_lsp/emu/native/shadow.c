/* The native core's race shadows (see exec.h for what they decide). */
#include <string.h>

#include "exec.h"

/* ---- race shadows ----------------------------------------------------------------------------
 * Between workgroups (emu/overlap.py): per device word the workgroup that touched it (or MULTI)
 * and the kinds of access; a word touched by two workgroups with a plain write, or with an
 * atomic and a plain read, bails. Only atomics meeting is fine: one workgroup at a time gives the
 * same result and the numpy engine reports nothing.
 * Between waves of a workgroup (emu/racecheck.py), only with several waves: per word of local
 * and device memory the epoch (barriers end epochs), the wave (or MULTI) and whether it was
 * written; two waves in one epoch with a write bails, unless (local memory only) the race is
 * one racecheck calls benign: every access so far a 32-bit store of one same value, or a read
 * by a wave that has already stored it (the waves that wrote are a bit set, up to 64 waves).
 * They are a screen, a superset of racecheck's races: where waves met, waverace.c checks the
 * epoch's log exactly when it ends (the core used to leave the launch to the numpy engine).
 * Atomics are not checked, as there. Shadow word: epoch (19 bits), benign, written, wave+1.
 * With `run->strict_races` (RunOptions.racecheck "strict"), no race is benign and atomics are
 * checked too: the BENIGN bit then says an atomic touched the word (ATOMIC), a word one wave
 * both accessed plainly and atomically is marked written (any other wave's access races with
 * one of them), and two waves race on a written word or where plain accesses meet atomics. */
#define OWNER_MASK 0x1FFFFFFFu
#define OWNER_MULTI 0x1FFFFFFFu
#define F_W 0x20000000u
#define F_R 0x40000000u
#define F_A 0x80000000u
#define EPOCH_MAX 0x7FFFFu
#define WAVE_MULTI 0x7FFu
#define BENIGN (1u << 12)
#define ATOMIC BENIGN                         /* strict mode, where nothing is benign */
#define WRITTEN (1u << 11)

void next_epoch(WG *g)
{
    if (++g->epoch > EPOCH_MAX && g->shared_shadow) {
        bail(g->run, "epochs wrapped");        /* other threads use the shadow: re-run serially */
        g->epoch = EPOCH_MAX;
    } else if (g->epoch > EPOCH_MAX) {
        if (g->dev_shadow)                    /* the epoch words (odd) start afresh */
            for (int64_t i = 0; i < g->dev_words; i++)
                g->dev_shadow[2 * i + 1] = 0;
        if (g->loc_epoch)
            memset(g->loc_epoch, 0, g->loc_words * 4);
        g->epoch = 1;
    }
}

/* Strict mode: the shadow word `e` of a word after an access of `kind` (0 read, 1 write,
 * 2 atomic) by wave `mine` (wave + 1) in `epoch`; `*race` set where two waves may race on it. */
static inline uint32_t strict_step(uint32_t e, uint32_t epoch, uint32_t mine, int kind,
                                   int *race)
{
    if ((e >> 13) != epoch)
        return (epoch << 13) | (kind == 1 ? WRITTEN : 0) | (kind == 2 ? ATOMIC : 0) | mine;
    uint32_t w = e & WAVE_MULTI, flags = e & (WRITTEN | ATOMIC);
    int mixed = kind == 2 ? !(flags & ATOMIC) || (flags & WRITTEN) : (flags & ATOMIC) != 0;
    if (kind == 1 || mixed)
        flags |= WRITTEN;
    if (kind == 2)
        flags |= ATOMIC;
    if (w != mine)
        w = WAVE_MULTI;
    if (w == WAVE_MULTI && (flags & WRITTEN))
        *race = 1;
    return (epoch << 13) | flags | w;
}

/* The owner word of a device block after an access with `flag` by workgroup `me`; returns
 * OWNER_MET where workgroups may have met on it, OWNER_SHARED where several workgroups only
 * read it, else 0. Written only when it changes; where threads share the shadow (parallel.c) by
 * compare-and-swap, and any atomic meeting another workgroup counts too (its returned values
 * depend on the order: the run is then re-run one workgroup at a time). */
#define OWNER_MET 1
#define OWNER_SHARED 2
static inline int owner_access(uint32_t *word, uint32_t me, uint32_t flag, int shared)
{
    uint32_t o = __atomic_load_n(word, __ATOMIC_RELAXED), id, f;
    for (;;) {
        id = o & OWNER_MASK;
        f = (o & ~OWNER_MASK) | flag;
        if (id != me)
            id = id == 0 ? me : OWNER_MULTI;
        uint32_t v = id | f;
        if (v == o)
            break;
        if (!shared) {
            *word = v;
            break;
        }
        if (__atomic_compare_exchange_n(word, &o, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            break;
    }
    if (id != OWNER_MULTI)
        return 0;
    return (f & F_W) || ((f & F_A) && (shared || (f & F_R))) ? OWNER_MET : OWNER_SHARED;
}

/* One access of `kind` (0 read, 1 write, 2 atomic) of `width` bytes to device memory by every
 * executing lane: the owner shadows (workgroups; 2 where they met, at once) and the epoch
 * shadows (waves; 1 where two may race, every lane tracked), per block of 2^dev_shift bytes, with the loop invariants hoisted (the
 * hot path of device loads and stores). Atomics meet waves only in strict mode. */
int track_device_lanes(WG *g, const uint32_t *addr, const uint8_t *m, int64_t width,
                              int kind)
{
    uint32_t *sh = g->dev_shadow;
    const uint32_t me = (uint32_t)(g->linear + 1), epoch = g->epoch;
    const uint32_t flag = kind == 0 ? F_R : kind == 1 ? F_W : F_A;
    const uint32_t written = kind == 1 ? WRITTEN : 0;
    const int strict = g->run->strict_races;
    const int owned = g->dev_owned, waves = g->nw > 1 && (kind != 2 || strict);
    const int shared = g->shared_shadow;
    const int64_t n = g->n, W = g->W;
    const int shift = g->dev_shift;
    int met = 0;
    for (int64_t l = 0, wave = 0, in_wave = 0; l < n; l++) {
        if (m[l]) {
            uint64_t first = addr[l] >> shift, blocks = ((addr[l] + width - 1) >> shift) - first;
            uint32_t *s = sh + 2 * first;
            for (uint64_t k = 0; k <= blocks; k++, s += 2) {
                int owner = owned ? owner_access(s, me, flag, shared) : 0;
                if (owner == OWNER_MET)
                    return 2;
                if (waves && !(owner == OWNER_SHARED && shared)) {
                    uint32_t e = s[1];
                    if (strict) {
                        s[1] = strict_step(e, epoch, (uint32_t)(wave + 1), kind, &met);
                    } else if ((e >> 13) != epoch) {
                        s[1] = (epoch << 13) | written | (uint32_t)(wave + 1);
                    } else {
                        uint32_t w = e & WAVE_MULTI, wr = (e & WRITTEN) | written;
                        if (w != (uint32_t)(wave + 1))
                            w = WAVE_MULTI;
                        s[1] = (epoch << 13) | wr | w;
                        met |= w == WAVE_MULTI && wr;
                    }
                }
            }
        }
        if (++in_wave == W) {
            in_wave = 0;
            wave++;
        }
    }
    return met;
}

/* The epoch shadows of local memory for every executing lane of one access of `kind` (0 read,
 * 1 write, 2 atomic; over the words each lane's bytes touch; `data`: the values a 32-bit store
 * writes, NULL where they are not known, as racecheck treats an unaligned store), with the loop
 * invariants hoisted; 1 where two waves may race. Atomics only in strict mode. */
int track_local_lanes(WG *g, const uint32_t *addr, const uint8_t *m, int64_t width, int kind,
                      const uint32_t *data)
{
    uint32_t *sh = g->loc_epoch, *values = g->loc_value;
    uint64_t *writers = g->loc_writers;
    const int write = kind == 1, strict = g->run->strict_races;
    const uint32_t epoch = g->epoch, written = write ? WRITTEN : 0;
    const uint32_t shared_read = (epoch << 13) | WAVE_MULTI;  /* read by several, unwritten */
    const int known = write && width == 4 && data && !strict, small = g->nw <= 64;
    const int64_t W = g->W;
    int met = 0;
    if (kind == 2 && !strict)
        return 0;
    for (int64_t wave = 0; wave < g->nw; wave++) {
        const uint64_t bit = small ? 1ull << wave : 0;
        const uint32_t mine = (uint32_t)(wave + 1);
        for (int64_t l = wave * W; l < (wave + 1) * W; l++) {
            if (!m[l])
                continue;
            uint64_t word = addr[l] >> 2, last = ((uint64_t)addr[l] + width - 1) >> 2;
            for (; word <= last; word++) {
                uint32_t e = sh[word];
                if (!kind && e == shared_read)
                    continue;                 /* the common case of a tile read by all */
                if (strict) {
                    sh[word] = strict_step(e, epoch, mine, kind, &met);
                    continue;
                }
                if ((e >> 13) != epoch) {
                    sh[word] = (epoch << 13) | (known ? BENIGN : 0) | written | mine;
                    if (write) {
                        values[word] = known ? data[l] : 0;
                        writers[word] = bit;
                    }
                    continue;
                }
                uint32_t w = e & WAVE_MULTI, benign = e & BENIGN, wr = (e & WRITTEN) | written;
                if (w != mine)
                    w = WAVE_MULTI;
                if (benign) {
                    if (write) {
                        if (!known || values[word] != data[l])
                            benign = 0;
                        writers[word] |= bit;
                    } else if (!(writers[word] & bit)) {
                        benign = 0;
                    }
                }
                sh[word] = (epoch << 13) | benign | wr | w;
                met |= w == WAVE_MULTI && wr && !benign;
            }
        }
    }
    return met;
}
