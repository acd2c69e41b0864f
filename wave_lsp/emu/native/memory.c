/* The native core's loads, stores and atomics, exactly as emu/memory.py and compile_ops.py
 * (out-of-bounds accesses fault, unaligned ones warn and run; lanes act in thread order,
 * unaligned atomics too). */
#include <string.h>

#include "exec.h"

/* Present waves before wave `w` (the step offset of its accesses within the instruction). */
int64_t waves_before(const WG *g, int64_t w)
{
    int64_t count = 0;
    for (int64_t i = 0; i < w; i++)
        count += g->present[i];
    return count;
}

/* Log a load's or store's lanes (before it runs: a load's value is read from memory). */
static int log_access(WG *g, const Ins *ins, const uint8_t *m, const uint8_t *mem, int load)
{
    int64_t n = g->n, width = ins->width, index = ins - g->run->code;
    const uint32_t *addr = g->R + ins->rs1 * n, *data = g->R + ins->rs2 * n;
    int64_t wave = -1, before = 0;
    for (int64_t l = 0; l < n; l++) {
        if (!m[l])
            continue;
        if (l / g->W != wave) {
            wave = l / g->W;
            before = waves_before(g, wave);
        }
        uint64_t words[4] = {0, 0, 0, 0};
        if (load) {
            uint8_t bytes[16] = {0};
            memcpy(bytes, mem + addr[l], (size_t)width);
            memcpy(words, bytes, 16);
        } else {
            for (int64_t i = 0; i < (width + 3) / 4; i++)
                words[i] = data[i * n + l];
            if (width < 4)
                words[0] &= (1u << (8 * width)) - 1;
        }
        if (memlog_add(g, index, l, before, addr[l], words[0] | words[1] << 32,
                       words[2] | words[3] << 32, 0))
            return 1;
    }
    return 0;
}

/* memory.addresses: a fault for the executing lanes out of bounds (the first one's address),
 * else a warning for the unaligned ones; 1 when the run stops. */
static int check_addresses(WG *g, const Ins *ins, const uint32_t *addr, const uint8_t *m,
                           int64_t width, uint64_t size, uint32_t top, uint32_t bits)
{
    int64_t n = g->n, index = ins - g->run->code;
    if ((uint64_t)top + (uint64_t)width > size) {
        int64_t first = -1;
        for (int64_t l = 0; l < n; l++) {
            g->bad[l] = m[l] && (uint64_t)addr[l] + (uint64_t)width > size;
            if (g->bad[l] && first < 0)
                first = addr[l];
        }
        fault(g, ERR_OUT_OF_BOUNDS, g->bad, first, width);
        return 1;
    }
    uint32_t align = width >= 4 ? 3 : (uint32_t)width - 1;
    if (bits & align) {
        int64_t first = -1;
        for (int64_t l = 0; l < n; l++) {
            g->bad[l] = m[l] && (addr[l] & align);
            if (g->bad[l] && first < 0)
                first = addr[l];
        }
        warn_lanes(g, WARN_UNALIGNED, index, g->bad, first);
    }
    return 0;
}

int64_t memory_op(WG *g, const Ins *ins, const uint8_t *m)
{
    Run *run = g->run;
    int64_t n = g->n, width = ins->width, words = ins->words;
    int local = (int)ins->local;
    int load = (ins->op >= OP_LOCAL_LOAD_U8 && ins->op <= OP_LOCAL_LOAD_U64)
               || (ins->op >= OP_DEVICE_LOAD_U8 && ins->op <= OP_DEVICE_LOAD_U128);
    uint8_t *mem = local ? g->local : run->device;
    uint64_t size = (uint64_t)(local ? run->local_size : run->device_size);
    const uint32_t *addr = g->R + ins->rs1 * n;
    int64_t count = 0;
    uint32_t top = 0, bits = 0;               /* largest address, OR of the addresses */
    for (int64_t l = 0; l < n; l++) {
        uint32_t a = m[l] ? addr[l] : 0;
        top = a > top ? a : top;
        bits |= a;
        count += m[l];
    }
    if (!count)
        return -1;
    if (g->init)                              /* the initcheck runs before the access */
        init_memory(g, local, addr, m, width, load, !load, ins - run->code, top);
    if (check_addresses(g, ins, addr, m, width, size, top, bits))
        return BAIL_AT;
    int tracked = local ? g->loc_epoch != NULL : g->dev_shadow != NULL;
    if (!local && run->meeting)
        meet_device(g, ins - run->code, addr, m, width, load ? MEET_READ : MEET_PLAIN);
    const uint32_t *stored = !load && width == 4 && !(bits & 3) ? g->R + ins->rs2 * n : NULL;
    if (tracked && !local) {
        int met = track_device_lanes(g, addr, m, width, load ? 0 : 1);
        if (met == 2)
            return bail(run, WORKGROUPS_MEET);
        if (met)
            races_flag(g, RACE_DEVICE);
    } else if (tracked && track_local_lanes(g, addr, m, width, !load, stored)) {
        races_flag(g, RACE_LOCAL);
    }
    if (g->nw > 1 && races_log(g, local ? RACE_LOCAL : RACE_DEVICE, ins - run->code, !load,
                               addr, m, width, count, bits, stored))
        return BAIL_AT;
    if (run->mem && log_access(g, ins, m, mem, load))
        return bail(run, "memory trace too long");
    uint32_t *data = g->R + (load ? ins->rd : ins->rs2) * n;
    if (local && !load)
        g->local_dirty = 1;
    if (width == 4 && count == n) {          /* every lane, one word each */
        if (load)
            for (int64_t l = 0; l < n; l++)
                data[l] = load32(mem + addr[l]);
        else
            for (int64_t l = 0; l < n; l++)
                memcpy(mem + addr[l], &data[l], 4);
    } else for (int64_t l = 0; l < n; l++) {
        if (!m[l])
            continue;
        uint8_t *p = mem + addr[l];
        if (load) {
            if (width == 1)
                data[l] = p[0];
            else if (width == 2)
                data[l] = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
            else
                for (int64_t i = 0; i < words; i++)
                    data[i * n + l] = load32(p + 4 * i);
        } else {
            uint32_t v = data[l];
            if (width == 1)
                p[0] = (uint8_t)v;
            else if (width == 2) {
                p[0] = (uint8_t)v;
                p[1] = (uint8_t)(v >> 8);
            } else
                for (int64_t i = 0; i < words; i++) {
                    uint32_t w = data[i * n + l];
                    memcpy(p + 4 * i, &w, 4);
                }
        }
    }
    Stats *s = &run->stats;
    if (local) {
        if (load) { s->local_loads += count; s->local_load_bytes += count * width; }
        else { s->local_stores += count; s->local_store_bytes += count * width; }
    } else {
        if (load) { s->device_loads += count; s->device_load_bytes += count * width; }
        else { s->device_stores += count; s->device_store_bytes += count * width; }
    }
    return -1;
}

/* memory.atomic: lanes in thread order, each reading the value the previous one left */
int64_t atomic_op(WG *g, const Ins *ins, const uint8_t *m)
{
    Run *run = g->run;
    int64_t n = g->n;
    int local = ins->op <= OP_LOCAL_ATOMIC_CAS;
    int operation = (int)(local ? ins->op - OP_LOCAL_ATOMIC_ADD : ins->op - OP_ATOMIC_ADD);
    uint8_t *mem = local ? g->local : run->device;
    uint64_t size = (uint64_t)(local ? run->local_size : run->device_size);
    if (local)
        g->local_dirty = 1;
    const uint32_t *addr = g->R + ins->rs1 * n, *V = g->R + ins->rs2 * n,
                   *T = g->R + ins->rs3 * n;
    uint32_t *D = g->R + ins->rd * n;
    int64_t count = 0;
    uint32_t top = 0, bits = 0;
    for (int64_t l = 0; l < n; l++) {
        uint32_t a = m[l] ? addr[l] : 0;
        top = a > top ? a : top;
        bits |= a;
        count += m[l];
    }
    if (!count)
        return -1;
    if (g->init)
        init_memory(g, local, addr, m, 4, 1, 1, ins - run->code, top);
    if (check_addresses(g, ins, addr, m, 4, size, top, bits))
        return BAIL_AT;
    /* unaligned too: lane after lane, as memory.atomic, tracked over both words */
    if (!local && run->meeting)
        meet_device(g, ins - run->code, addr, m, 4, MEET_ATOMIC);
    if (!local && g->dev_shadow) {
        int met = track_device_lanes(g, addr, m, 4, 2);
        if (met == 2)
            return bail(run, WORKGROUPS_MEET);
        if (met)
            races_flag(g, RACE_DEVICE);
    } else if (local && g->loc_epoch && track_local_lanes(g, addr, m, 4, 2, NULL)) {
        races_flag(g, RACE_LOCAL);                     /* strict mode only: racecheck.py */
    }
    if (g->nw > 1 && run->strict_races    /* racecheck logs atomics in strict mode only */
        && races_log(g, local ? RACE_LOCAL : RACE_DEVICE, ins - run->code, 2, addr, m, 4,
                     count, bits, NULL))
        return BAIL_AT;
    int64_t wave = -1, before = 0, index = ins - run->code;
    for (int64_t l = 0; l < n; l++) {
        if (!m[l])
            continue;
        uint8_t *p = mem + addr[l];
        if (run->mem) {
            if (l / g->W != wave) {
                wave = l / g->W;
                before = waves_before(g, wave);
            }
            uint64_t swap = operation == 8 ? T[l] : 0;
            if (memlog_add(g, index, l, before, addr[l], load32(p), 0,
                           (uint64_t)V[l] << 32 | swap))
                return bail(run, "memory trace too long");
        }
        uint32_t old = load32(p), v = V[l], nv;
        switch (operation) {
        case 0: nv = old + v; break;
        case 1: nv = old - v; break;
        case 2: nv = old < v ? old : v; break;
        case 3: nv = old > v ? old : v; break;
        case 4: nv = old & v; break;
        case 5: nv = old | v; break;
        case 6: nv = old ^ v; break;
        case 7: nv = v; break;
        default: nv = old == v ? T[l] : old; break;    /* cas: expected rs2, desired rs3 */
        }
        memcpy(p, &nv, 4);
        g->tmp32[l] = old;
    }
    run->stats.atomic_lanes += count;
    if (ins->rd)
        for (int64_t l = 0; l < n; l++)
            if (m[l])
                D[l] = g->tmp32[l];
    return -1;
}
