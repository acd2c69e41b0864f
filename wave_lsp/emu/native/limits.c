/* The native core's limits, polled on the numpy engine's schedule (emu/engine.py: every
 * POLL_EVERY steps of a workgroup, sooner near the instruction limit, and before every
 * workgroup but the first): the instruction limit (wave-instructions of the whole launch), the
 * time limit (a CLOCK_MONOTONIC deadline, Python's time.monotonic) and cancelling (a callback
 * that takes the GIL, called at most every CANCEL_POLL_SECONDS). Each stops the run with the
 * numpy engine's error, about the active lanes. */
#define _POSIX_C_SOURCE 199309L
#include <time.h>

#include "exec.h"

static double monotonic(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The step of the next poll (engine._next_poll). */
int64_t next_poll(WG *g)
{
    int64_t gap = POLL_EVERY, max = g->run->max_instructions;
    if (max > 0) {
        int64_t remaining = max - g->executed;
        int64_t present = g->present_count > 1 ? g->present_count : 1;
        int64_t near = remaining <= 0 ? 1 : remaining / present;
        near = near < 1 ? 1 : near;
        gap = near < gap ? near : gap;
    }
    return g->steps + gap;
}

/* engine._limit_fault: the error (BAIL_AT) or 0. */
static int64_t check_limits(WG *g)
{
    Run *run = g->run;
    if (run->stop && __atomic_load_n(run->stop, __ATOMIC_RELAXED))
        return bail(run, "stopped");             /* another thread stopped (parallel.c) */
    if (run->max_instructions > 0 && g->executed > run->max_instructions)
        return fault(g, ERR_INSTRUCTION_LIMIT, g->active, g->executed, 0);
    if (run->deadline <= 0 && !run->cancelled)
        return 0;
    double now = monotonic();
    if (run->deadline > 0 && now > run->deadline)
        return fault(g, ERR_TIME_LIMIT, g->active, 0, 0);
    if (run->cancelled && now >= run->next_cancel_poll) {
        run->next_cancel_poll = now + CANCEL_POLL_SECONDS;
        int answer = run->cancelled(run->cancel_arg);
        if (answer < 0)                          /* the callback raised: Python reports it */
            return bail(run, "the cancel callback raised");
        if (answer)
            return fault(g, ERR_CANCELLED, g->active, 0, 0);
    }
    return 0;
}

/* A poll that is due (after step g->steps): the error (BAIL_AT, at `index`) or 0. */
int64_t limit_poll(WG *g, int64_t index)
{
    if (check_limits(g) == BAIL_AT) {
        g->run->bail_index = index;
        return BAIL_AT;
    }
    g->check = next_poll(g);
    return 0;
}

/* Before a workgroup other than the first (its lanes active): 1 when the run stops. */
int limits_between(WG *g)
{
    if (check_limits(g) == BAIL_AT) {
        g->run->bail_index = 0;
        return 1;
    }
    return 0;
}
