/* Races between workgroups, exactly as emu/workgroup_races.py finds them: per device word the
 * first plain write, atomic and plain read of the launch ((thread << 24 | instruction) + 1; 0
 * nobody), the accesses taken in the order of one workgroup at a time (per access, the first
 * word of every lane, then the second, ...). The first access that meets another workgroup's
 * earlier one is the launch's race, written to the caller's `meeting` (runner.py); nothing more
 * is tracked then. Only when the runner asks (a run whose owner shadows saw workgroups meet,
 * shadow.c, runs again one at a time with these). */
#include <stdlib.h>

#include "exec.h"

#define INDEX_BITS 24

int meeting_begin(Run *run)
{
    int64_t words = (run->device_size + 3) / 4;
    for (int k = 0; k < 3; k++)
        if (!(run->first[k] = shadow_alloc((words ? words : 1) * 8)))
            return -1;
    return 0;
}

void meeting_end(Run *run)
{
    int64_t words = (run->device_size + 3) / 4;
    for (int k = 0; k < 3; k++)
        if (run->first[k])
            shadow_free(run->first[k], (words ? words : 1) * 8);
}

/* One device access of `width` bytes by the lanes of `m`; kind MEET_PLAIN, MEET_ATOMIC or
 * MEET_READ. */
void meet_device(WG *g, int64_t index, const uint32_t *addr, const uint8_t *m, int64_t width,
                 int kind)
{
    Run *run = g->run;
    if (!run->first[0] || run->meeting[0])
        return;
    const int64_t per_wg = run->wg[0] * run->wg[1] * run->wg[2], n = g->n;
    int64_t spans = 0;
    for (int64_t l = 0; l < n; l++)
        if (m[l]) {
            int64_t extra = (int64_t)((((uint64_t)addr[l] + width - 1) >> 2) - (addr[l] >> 2));
            spans = extra > spans ? extra : spans;
        }
    for (int64_t k = 0; k <= spans; k++)
        for (int64_t l = 0; l < n; l++) {
            if (!m[l])
                continue;
            uint64_t word = (addr[l] >> 2) + (uint64_t)k;
            if (word > (((uint64_t)addr[l] + width - 1) >> 2))
                continue;
            int64_t thread = g->linear * per_wg + l;
            for (int earlier = 0; earlier < 3; earlier++) {
                if ((earlier == MEET_ATOMIC && kind == MEET_ATOMIC)
                    || (earlier == MEET_READ && kind == MEET_READ))
                    continue;
                int64_t seen = run->first[earlier][word];
                if (seen == 0 || ((seen - 1) >> INDEX_BITS) / per_wg == g->linear)
                    continue;
                seen -= 1;
                int64_t *out = run->meeting, mine_i = index, mine_t = thread;
                int64_t their_i = seen & ((1 << INDEX_BITS) - 1), their_t = seen >> INDEX_BITS;
                out[0] = 1;
                out[1] = (int64_t)word * 4;
                if (earlier == MEET_READ) {
                    out[2] = mine_i; out[3] = mine_t; out[4] = their_i; out[5] = their_t;
                    out[6] = 0;
                } else {
                    out[2] = their_i; out[3] = their_t; out[4] = mine_i; out[5] = mine_t;
                    out[6] = kind != MEET_READ;
                }
                return;
            }
            if (!run->first[kind][word])
                run->first[kind][word] = ((thread << INDEX_BITS) | index) + 1;
        }
}
