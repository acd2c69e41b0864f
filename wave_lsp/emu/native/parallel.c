/* The native core on several threads: workgroups run in parallel with results bit-identical to
 * running them one at a time, in order (exec.c's serial_run, which stays the reference).
 *
 * Each thread takes the next workgroup from a shared counter (so each runs its workgroups in
 * increasing order) into its own workgroup state, statistics and findings; device memory and
 * the device race shadow (shadow.c) are shared, the shadow's owner words updated by
 * compare-and-swap. A workgroup's run depends on nothing but device memory it reads; where no
 * two workgroups meet on a device block with a write or an atomic (a possible race between
 * workgroups, which the serial run reports too, or an atomic whose returned values depend on
 * the order), every workgroup read what it would have read one at a time, so memory, statistics and
 * each workgroup's warnings are the serial ones. Otherwise the threads stop (Run.stop, polled with
 * the limits) and the run stops with the bail reason RUN_AGAIN (core.h): device memory and its
 * initialised bytes are then no longer those it started from, and the caller (native/runner.py)
 * writes them afresh and runs the launch again one workgroup at a time, whose report is the
 * serial one. So it is after an error, the instruction limit passed in total, the warnings' table
 * full, the time limit, a cancel, or the race shadow's epochs wrapping. No copy of memory is
 * taken: a launch whose workgroups never meet costs no more than on one thread.
 *
 * The registers asked for (registers.c) are copied by the thread that ran their workgroup.
 * Warnings (findings.c) are merged as the serial run records them: per instruction and kind the
 * entry of the lowest workgroup, counts summed, in order of that workgroup then of finding (a
 * race between waves, waverace.c: per space and pair of instructions the lowest workgroup's).
 *
 * The calling thread is one of the workers and, once out of workgroups, polls Ctrl-C and the
 * cancel callback (which take the GIL) while the others finish; only it calls them.
 */
#define _POSIX_C_SOURCE 199309L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec.h"

#define MAX_THREADS 256

typedef struct {
    int64_t total;                       /* workgroups */
    int64_t next;                        /* the next workgroup to take (atomic) */
    int64_t executed;                    /* wave-instructions of finished workgroups (atomic) */
    int stop;                            /* nonzero: every thread stops (atomic) */
    int finished;                        /* threads done (atomic) */
} Pool;

typedef struct {
    Pool *pool;
    Run run;                             /* this thread's copy: statistics, findings, bail */
    Findings *found;
    WG g;
    pthread_t thread;
    int started;
} Worker;

static void *work(void *arg)
{
    Worker *w = arg;
    Pool *p = w->pool;
    WG *g = &w->g;
    Run *run = &w->run;
    int64_t polled = 0;                           /* the workgroup of the last Ctrl-C poll */
    while (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
        int64_t linear = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (linear >= p->total)
            break;
        /* Ctrl-C, polled (by the caller's thread) as often as one at a time polls it: every
         * POLL_WORKGROUPS workgroups of the launch */
        if (run->poll && linear - polled >= POLL_WORKGROUPS) {
            polled = linear;
            if (run->poll()) {
                run->bail = "interrupted";
                break;
            }
        }
        /* the instruction limit sees the finished workgroups of every thread and its own */
        int64_t base = __atomic_load_n(&p->executed, __ATOMIC_RELAXED);
        g->executed = base;
        if (run_workgroup(g, linear) == BAIL_AT)
            break;
        if (run->n_wanted)                        /* its threads' registers (registers.c) */
            collect_registers(g);
        __atomic_fetch_add(&p->executed, g->executed - base, __ATOMIC_RELAXED);
        if (g->nw > 1)
            next_epoch(g);
        if (run->bail)
            break;
        run->stats.workgroups += 1;
        run->stats.waves += g->nw;
    }
    if (run->bail)
        __atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&p->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* The calling thread, out of workgroups: wait for the others, polling Ctrl-C and the cancel
 * callback (a cancel stops the threads; the serial re-run then reports it where it would). */
static void wait_others(Worker *main_worker, Pool *p, int64_t threads)
{
    Run *run = &main_worker->run;
    struct timespec nap = {0, 200000};
    int64_t naps = 0;
    while (__atomic_load_n(&p->finished, __ATOMIC_ACQUIRE) < threads) {
        nanosleep(&nap, NULL);
        if (++naps % 50 || run->bail)                 /* every 10 ms */
            continue;
        if (run->poll && run->poll()) {
            run->bail = "interrupted";
            __atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
        } else if (run->cancelled) {
            int answer = run->cancelled(run->cancel_arg);
            if (answer != 0)
                __atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
            if (answer < 0)
                run->bail = "the cancel callback raised";
        }
    }
}

static void add_stats(Stats *to, const Stats *s)
{
    for (int i = 0; i < CAT_COUNT; i++)
        to->cat[i] += s->cat[i];
    to->atomic_lanes += s->atomic_lanes;
    to->device_loads += s->device_loads; to->device_stores += s->device_stores;
    to->device_load_bytes += s->device_load_bytes; to->device_store_bytes += s->device_store_bytes;
    to->local_loads += s->local_loads; to->local_stores += s->local_stores;
    to->local_load_bytes += s->local_load_bytes; to->local_store_bytes += s->local_store_bytes;
    to->barriers += s->barriers; to->divergent_branches += s->divergent_branches;
    to->workgroups += s->workgroups; to->waves += s->waves;
}

typedef struct {
    const Finding *f;
    int64_t order;                       /* the thread's order of finding */
} Ranked;

static int by_serial_order(const void *a, const void *b)
{
    const Ranked *x = a, *y = b;
    if (x->f->workgroup != y->f->workgroup)
        return x->f->workgroup < y->f->workgroup ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* Whether `to` holds the race `f` names (waverace.c reports each once). */
static int same_race(const Findings *to, const Finding *f)
{
    for (int64_t i = 0; i < to->n_warnings; i++) {
        const Finding *w = &to->warnings[i];
        if (w->kind == WARN_DATA_RACE && w->index == f->index
            && w->other_index == f->other_index && (w->race & 1) == (f->race & 1))
            return 1;
    }
    return 0;
}

/* The threads' warnings as the serial run records them (see the module doc); -1 when they
 * cannot be (a thread's table is full: the serial table may hold other entries). */
static int merge_warnings(Findings *to, Worker *w, int64_t threads)
{
    int64_t total = 0;
    for (int64_t t = 0; t < threads; t++) {
        if (w[t].found->n_warnings >= MAX_WARNINGS)
            return -1;
        total += w[t].found->n_warnings;
    }
    if (!total)
        return 0;
    Ranked *all = malloc((size_t)total * sizeof *all);
    if (!all)
        return -1;
    int64_t k = 0;
    for (int64_t t = 0; t < threads; t++)
        for (int64_t i = 0; i < w[t].found->n_warnings; i++)
            all[k++] = (Ranked){&w[t].found->warnings[i], i};
    qsort(all, (size_t)total, sizeof *all, by_serial_order);
    for (k = 0; k < total; k++) {
        const Finding *f = all[k].f;
        if (f->kind == WARN_DATA_RACE) {          /* one per space and pair of instructions */
            if (!same_race(to, f) && to->n_warnings < MAX_WARNINGS)
                to->warnings[to->n_warnings++] = *f;
            continue;
        }
        int32_t *slot = &to->slot[f->index * WARN_KINDS + f->kind];
        if (*slot >= 0)
            to->warnings[*slot].count += f->count;
        else if (to->n_warnings < MAX_WARNINGS) {
            *slot = (int32_t)to->n_warnings;
            to->warnings[to->n_warnings++] = *f;
        }
    }
    free(all);
    return 0;
}

static void free_workers(Worker *w, int64_t threads)
{
    for (int64_t t = 0; t < threads; t++) {
        if (t > 0)
            w[t].g.dev_shadow = NULL;             /* thread 0's, shared */
        init_free(&w[t].g);
        wg_free(&w[t].g);
        if (w[t].found)
            free(w[t].found->slot);
        free(w[t].found);
    }
    free(w);
}

/* Run the workgroups on `threads` threads; 1 when they finished cleanly (the results are in
 * `run`), 0 when the run must be re-run one at a time, -1 out of memory. */
static int run_parallel(Run *run, int64_t threads)
{
    Pool pool = {.total = run->grid[0] * run->grid[1] * run->grid[2]};
    Worker *w = calloc((size_t)threads, sizeof *w);
    if (!w)
        return -1;
    size_t slots = (size_t)(run->n_code ? run->n_code : 1) * WARN_KINDS * sizeof(int32_t);
    int ok = 1;
    for (int64_t t = 0; t < threads && ok; t++) {
        w[t].pool = &pool;
        w[t].run = *run;
        w[t].run.stop = &pool.stop;
        if (t > 0) {                              /* only the caller's thread may call Python */
            w[t].run.poll = NULL;
            w[t].run.cancelled = NULL;
        }
        w[t].found = calloc(1, sizeof(Findings));
        ok = w[t].found && (w[t].found->slot = malloc(slots));
        if (!ok)
            break;
        memset(w[t].found->slot, 0xFF, slots);
        w[t].found->error.kind = -1;
        w[t].run.found = w[t].found;
        ok = wg_setup(&w[t].g, &w[t].run) == 0 && init_setup(&w[t].g) == 0;
        w[t].g.shared_shadow = 1;
        if (ok && t > 0) {
            shadow_free(w[t].g.dev_shadow, w[t].g.dev_words * 8);
            w[t].g.dev_shadow = w[0].g.dev_shadow;
        }
    }
    if (!ok) {
        free_workers(w, threads);
        return -1;
    }
    int64_t started = 1;
    for (int64_t t = 1; t < threads; t++) {
        if (pthread_create(&w[t].thread, NULL, work, &w[t]) != 0)
            break;
        w[t].started = 1;
        started++;
    }
    work(&w[0]);
    wait_others(&w[0], &pool, started);
    for (int64_t t = 1; t < started; t++)
        pthread_join(w[t].thread, NULL);

    int clean = 1;
    for (int64_t t = 0; t < started; t++)
        clean &= w[t].run.bail == NULL;
    const char *caller = w[0].run.bail;
    int result = 0;
    if (caller && (!strcmp(caller, "interrupted") || !strcmp(caller, "the cancel callback raised"))) {
        run->bail = caller;                       /* Python reports the exception */
        run->bail_index = 0;
        result = 1;
    } else if (clean && __atomic_load_n(&pool.next, __ATOMIC_RELAXED) >= pool.total) {
        Stats sum = {0};
        for (int64_t t = 0; t < started; t++)
            add_stats(&sum, &w[t].run.stats);
        int64_t total = sum.cat[0] + sum.cat[1] + sum.cat[2] + sum.cat[3] + sum.cat[4] + sum.cat[5];
        if (!(run->max_instructions > 0 && total > run->max_instructions)
            && merge_warnings(run->found, w, started) == 0) {
            run->stats = sum;
            run->threads_used = started;
            result = 1;
        }
    }
    free_workers(w, threads);
    return result;
}

int wave_run(Run *run)
{
    int64_t total = run->grid[0] * run->grid[1] * run->grid[2];
    int64_t threads = run->threads < total ? run->threads : total;
    threads = threads > MAX_THREADS ? MAX_THREADS : threads;
    run->threads_used = 1;
    if (threads <= 1 || run->prof || run->mem || run->rec     /* the records follow one order */
        || run->meeting)
        return serial_run(run);
    int done = run_parallel(run, threads);
    if (done < 0)                                 /* nothing ran: memory is as it was */
        return serial_run(run);
    if (done == 0) {                              /* the caller runs it again (see RUN_AGAIN) */
        Findings *f = run->found;
        f->n_warnings = 0;
        f->error.kind = -1;
        if (run->n_wanted)
            memset(run->regs_have, 0, (size_t)run->n_wanted);
        memset(&run->stats, 0, sizeof run->stats);
        run->bail = RUN_AGAIN;
        run->bail_index = 0;
    }
    return run->bail ? -1 : 0;
}
