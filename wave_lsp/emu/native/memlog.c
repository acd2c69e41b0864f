/* The memory access log of `--mem-trace` (see core.h's MemLog and emu/mem_access.py, which
 * reads it): memory.c adds one record per lane access when the run has a log. */
#include <stdlib.h>

#include "exec.h"

int memlog_add(WG *g, int64_t index, int64_t lane, int64_t before, uint64_t address,
               uint64_t low, uint64_t high, uint64_t operands)
{
    MemLog *log = g->run->mem;
    if (log->count == log->capacity) {
        if (log->capacity >= MEMLOG_MAX_RECORDS)
            return 1;
        int64_t capacity = log->capacity ? 2 * log->capacity : 1024;
        int64_t *data = realloc(log->data, (size_t)capacity * MEMLOG_FIELDS * 8);
        if (!data)
            return 1;
        log->data = data;
        log->capacity = capacity;
    }
    int64_t *r = log->data + log->count * MEMLOG_FIELDS;
    r[0] = g->executed + before;        /* present waves before this lane's, this instruction */
    r[1] = g->linear;
    r[2] = lane;
    r[3] = index;
    r[4] = (int64_t)address;
    r[5] = (int64_t)low;
    r[6] = (int64_t)high;
    r[7] = (int64_t)operands;
    log->count++;
    return 0;
}
