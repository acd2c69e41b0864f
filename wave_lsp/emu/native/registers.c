/* The registers a run reports (`Launch.register_threads`, `--dump-regs`): for each thread asked
 * for, its general registers and predicates when its workgroup ends, or where the run stops in
 * it, as the numpy engine collects them at the end of each batch and at an error (emu/api.py). */
#include <string.h>

#include "exec.h"

void collect_registers(WG *g)
{
    Run *run = g->run;
    int64_t per = run->registers + 4;
    for (int64_t i = 0; i < run->n_wanted; i++) {
        int64_t t = run->wanted[i];
        if (t / g->threads != g->linear)
            continue;
        int64_t lane = t % g->threads;
        uint32_t *out = run->regs_out + i * per;
        for (int64_t r = 0; r < run->registers; r++)
            out[r] = g->R[r * g->n + lane];
        for (int64_t p = 0; p < 4; p++)
            out[run->registers + p] = g->P[p * g->n + lane];
        run->regs_have[i] = 1;
    }
}
