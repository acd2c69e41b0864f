/* The native core's execution loop: workgroups one at a time, in order (serial_run; parallel.c
 * runs run_workgroup on several threads); the waves of a
 * workgroup in lock-step over one lane array, exactly as emu/engine.py runs a batch of one
 * workgroup. Control flow (if/else/endif, loops, calls, halt, barrier) mirrors emu/control.py
 * rule for rule, including which waves are "present" (the statistics count present waves).
 * ALU, memory and wave operations are in alu.c, floatwide.c, memory.c and waveops.c.
 */
#include <stdlib.h>
#include <string.h>

#include "exec.h"


/* ---- masks ----------------------------------------------------------------------------- */

void set_active(WG *g, const uint8_t *mask)
{
    int64_t count = 0;
    if (mask != g->active)
        memcpy(g->active, mask, g->n);
    for (int64_t l = 0; l < g->n; l++)
        count += g->active[l];
    g->active_count = count;
    g->any_active = count > 0;
    g->full = count == g->n;
}

/* The lanes that execute `ins`: the active lanes, minus those failing its guard. */
const uint8_t *exec_mask(WG *g, const Ins *ins)
{
    if (ins->guard < 0)
        return g->active;
    const uint8_t *p = g->P + ins->guard * g->n;
    uint8_t flip = ins->neg ? 1 : 0;
    for (int64_t l = 0; l < g->n; l++)
        g->ex[l] = g->active[l] & (p[l] ^ flip);
    return g->ex;
}

static int any_of(const uint8_t *m, int64_t n)
{
    for (int64_t l = 0; l < n; l++)
        if (m[l])
            return 1;
    return 0;
}

/* present[w] = wave w has a lane in `lanes` (Batch.refresh_present) */
static void refresh_present(WG *g, const uint8_t *lanes)
{
    int64_t count = 0;
    for (int64_t w = 0; w < g->nw; w++) {
        g->present[w] = any_of(lanes + w * g->W, g->W);
        count += g->present[w];
    }
    g->present_count = count;
}

/* present &= (wave has a live lane) */
static void present_and_alive(WG *g, const uint8_t *base)
{
    int64_t count = 0;
    for (int64_t w = 0; w < g->nw; w++) {
        g->present[w] = base[w] && any_of(g->alive + w * g->W, g->W);
        count += g->present[w];
    }
    g->present_count = count;
}

static int64_t innermost_loop(WG *g)
{
    for (int64_t i = g->depth - 1; i >= 0; i--)
        if (g->frames[i].kind == FRAME_LOOP)
            return i;
    return -1;
}

/* control.restore: `mask` minus halted lanes and lanes that left the enclosing loop */
static void restore(WG *g, const uint8_t *mask, int64_t loop)
{
    const uint8_t *out = loop >= 0 ? g->frames[loop].out : NULL;
    for (int64_t l = 0; l < g->n; l++)
        g->active[l] = mask[l] & g->alive[l] & (out ? !out[l] : 1);
    set_active(g, g->active);
}

static Frame *push_frame(WG *g, int kind)
{
    if (g->depth >= g->run->max_ctrl)
        return NULL;                     /* control_stack_overflow */
    Frame *f = &g->frames[g->depth++];
    f->kind = kind;
    return f;
}

/* Popping a frame the current call did not push would leave a call frame naming a loop frame
 * that is gone; the numpy engine keeps the object alive, we cannot, so we bail instead. */
static int pop_allowed(WG *g)
{
    return g->n_calls == 0 || g->depth > g->calls[g->n_calls - 1].depth;
}

/* Account for instructions [start, stop) stepped over with no active lane (RunContext.skip). */
static void skip_region(WG *g, int64_t start, int64_t stop)
{
    for (int64_t i = start; i < stop; i++)
        g->run->stats.cat[g->run->code[i].category] += g->present_count;
    g->executed += (stop - start) * g->present_count;
    prof_skip(g, start, stop);
}

static int64_t halt_lanes(WG *g, const uint8_t *ending)
{
    if (!any_of(ending, g->n))
        return -1;
    for (int64_t l = 0; l < g->n; l++) {
        g->alive[l] &= !ending[l];
        g->active[l] &= !ending[l];
    }
    set_active(g, g->active);
    present_and_alive(g, g->present);
    if (!any_of(g->alive, g->n))
        return g->run->n_code;
    return -1;
}

/* ---- control flow ------------------------------------------------------------------------
 * Returns the next instruction index, -1 for "the next one", or BAIL_AT with g->run->bail set. */
int64_t control(WG *g, const Ins *ins, int64_t index)
{
    Run *run = g->run;
    int64_t n = g->n;
    switch (ins->op) {
    case OP_IF: {
        const uint8_t *m = exec_mask(g, ins);
        const uint8_t *p = g->P + ins->rs1 * n;
        int64_t loop = innermost_loop(g);
        Frame *f = push_frame(g, FRAME_IF);
        if (!f)
            return fault(g, ERR_CONTROL_STACK, g->active, 0, 0);
        memcpy(f->entry, g->active, n);
        for (int64_t l = 0; l < n; l++)
            f->aux[l] = m[l] & !p[l];
        f->loop = loop;
        if (g->present_count) {
            for (int64_t w = 0; w < g->nw; w++)
                run->stats.divergent_branches += any_of(f->aux + w * g->W, g->W);
        }
        for (int64_t l = 0; l < n; l++)
            g->tmp8[l] = m[l] & p[l];
        set_active(g, g->tmp8);
        if (!g->any_active && ins->skip >= 0) {
            skip_region(g, index + 1, ins->skip);
            return ins->skip;
        }
        return -1;
    }
    case OP_ELSE: {
        if (g->depth == 0 || g->frames[g->depth - 1].kind != FRAME_IF)
            return fault(g, ERR_INVALID, g->alive, INVALID_ELSE, 0);
        Frame *f = &g->frames[g->depth - 1];
        restore(g, f->aux, f->loop);
        if (!g->any_active && ins->skip >= 0) {
            skip_region(g, index + 1, ins->skip);
            return ins->skip;
        }
        return -1;
    }
    case OP_ENDIF: {
        if (g->depth == 0 || g->frames[g->depth - 1].kind != FRAME_IF)
            return fault(g, ERR_INVALID, g->alive, INVALID_ENDIF, 0);
        if (!pop_allowed(g))
            return bail(run, "endif pops a frame of the caller");
        Frame *f = &g->frames[--g->depth];
        restore(g, f->entry, f->loop);
        return -1;
    }
    case OP_LOOP: {
        if (!g->any_active && ins->skip >= 0) {
            skip_region(g, index + 1, ins->skip);
            return ins->skip;
        }
        int64_t loop = innermost_loop(g);
        Frame *f = push_frame(g, FRAME_LOOP);
        if (!f)
            return fault(g, ERR_CONTROL_STACK, g->active, 0, 0);
        memcpy(f->entry, g->active, n);
        memset(f->aux, 0, n);            /* broken */
        memset(f->out, 0, n);
        memcpy(f->entry_present, g->present, g->nw);
        f->start = index + 1;
        f->loop = loop;
        return -1;
    }
    case OP_BREAK:
    case OP_CONTINUE: {
        int64_t loop = innermost_loop(g);
        if (loop < 0)
            return fault(g, ERR_INVALID, g->alive,
                         ins->op == OP_BREAK ? INVALID_BREAK : INVALID_CONTINUE, 0);
        const uint8_t *m = exec_mask(g, ins);
        const uint8_t *p = g->P + ins->rs1 * n;
        Frame *f = &g->frames[loop];
        int any = 0;
        for (int64_t l = 0; l < n; l++) {
            uint8_t leaving = m[l] & p[l];
            if (leaving) {
                any = 1;
                if (ins->op == OP_BREAK)
                    f->aux[l] = 1;
                f->out[l] = 1;
            }
            g->tmp8[l] = leaving;
        }
        if (any) {
            for (int64_t l = 0; l < n; l++)
                g->active[l] &= !g->tmp8[l];
            set_active(g, g->active);
        }
        return -1;
    }
    case OP_ENDLOOP: {
        if (g->depth == 0 || g->frames[g->depth - 1].kind != FRAME_LOOP)
            return fault(g, ERR_INVALID, g->alive, INVALID_ENDLOOP, 0);
        Frame *f = &g->frames[g->depth - 1];
        int any = 0;
        for (int64_t l = 0; l < n; l++) {
            g->tmp8[l] = f->entry[l] & g->alive[l] & !f->aux[l];
            any |= g->tmp8[l];
        }
        if (any) {
            memcpy(f->out, f->aux, n);
            set_active(g, g->tmp8);
            refresh_present(g, g->tmp8);
            return f->start;
        }
        if (!pop_allowed(g))
            return bail(run, "endloop pops a frame of the caller");
        g->depth--;
        restore(g, f->entry, f->loop);
        present_and_alive(g, f->entry_present);
        return -1;
    }
    case OP_CALL: {
        const uint8_t *m = exec_mask(g, ins);
        if (ins->guard >= 0 && !any_of(m, n))
            return -1;
        if (ins->imm < 0)
            return fault(g, ERR_INVALID, m, INVALID_CALL_TARGET, 0);
        if (g->n_calls >= run->max_calls)
            return fault(g, ERR_CALL_STACK, m, 0, 0);
        CallFrame *c = &g->calls[g->n_calls++];
        c->ret = index + 1;
        memcpy(c->active, g->active, n);
        memcpy(c->present, g->present, g->nw);
        c->depth = g->depth;
        c->loop = innermost_loop(g);
        if (m != g->active)
            memcpy(g->tmp8, m, n);
        set_active(g, m == g->active ? g->active : g->tmp8);
        if (ins->guard >= 0)
            refresh_present(g, g->active);
        return ins->imm;
    }
    case OP_RETURN: {
        const uint8_t *m = exec_mask(g, ins);
        if (ins->guard >= 0 && !any_of(m, n))
            return -1;
        if (g->n_calls == 0) {
            memcpy(g->tmp8, m, n);
            return halt_lanes(g, g->tmp8);
        }
        CallFrame *c = &g->calls[--g->n_calls];
        g->depth = c->depth;
        restore(g, c->active, c->loop);
        present_and_alive(g, c->present);
        return c->ret;
    }
    case OP_HALT: {
        const uint8_t *m = exec_mask(g, ins);
        memcpy(g->tmp8, m, n);
        return halt_lanes(g, g->tmp8);
    }
    case OP_BARRIER:
        return barrier_op(g, ins);
    default:                                  /* fences, wait, nop */
        return -1;
    }
}

/* ---- the workgroup and grid loops ----------------------------------------------------------- */

int64_t run_workgroup(WG *g, int64_t linear)
{
    Run *run = g->run;
    int64_t n = g->n;
    g->linear = linear;
    g->wg_id[0] = linear % run->grid[0];
    g->wg_id[1] = (linear / run->grid[0]) % run->grid[1];
    g->wg_id[2] = linear / (run->grid[0] * run->grid[1]);
    for (int64_t r = 0; r < run->registers; r++) {
        uint32_t v = r < 256 && run->set_reg[r] ? (uint32_t)run->set_reg_value[r] : 0;
        uint32_t *row = g->R + r * n;
        for (int64_t l = 0; l < n; l++)
            row[l] = v;
    }
    memset(g->P, 0, 4 * n);
    for (int64_t l = 0; l < n; l++)
        g->alive[l] = l < g->threads;
    set_active(g, g->alive);
    refresh_present(g, g->alive);
    g->depth = 0;
    g->n_calls = 0;
    init_workgroup(g);
    prof_workgroup(g);
    mma_workgroup(g);
    g->steps = 0;
    if (linear > 0 && limits_between(g))
        return BAIL_AT;
    g->check = next_poll(g);
    if (g->local_dirty) {                     /* local memory starts zeroed in every workgroup */
        memset(g->local, 0, run->local_size);
        g->local_dirty = 0;
    }

    int64_t index = 0;
    while (index < run->n_code) {
        const Ins *ins = &run->code[index];
        int64_t present = g->present_count;
        int64_t next;
        if (run->prof && prof_step(g, ins, index) != 0)
            return bail(run, "out of memory");
        if (run->rec)
            rec_before(g, ins, index);
        if (ins->op >= OP_IF || ins->op == OP_TRAP) {
            if (ins->op == OP_TRAP) {
                const uint8_t *m = exec_mask(g, ins);
                if (ins->trap == TRAP_REGISTER && any_of(m, n))
                    next = fault(g, ERR_REGISTER, m, 0, 0);
                else if (ins->trap != TRAP_REGISTER && g->any_active)
                    return bail(run, "register or predicate out of range");
                else
                    next = -1;
            } else {
                next = run->prof ? prof_control(g, ins, index) : control(g, ins, index);
            }
        } else {
            if (g->init)
                init_registers(g, ins, index);
            next = execute_op(g, ins);
        }
        if (run->bail) {
            run->bail_index = index;
            return BAIL_AT;
        }
        if (run->rec && rec_after(g, index) != 0)
            return bail(run, "out of memory");
        run->stats.cat[ins->category] += present;
        g->executed += present;
        if (++g->steps >= g->check && limit_poll(g, index) == BAIL_AT)
            return BAIL_AT;
        index = next < 0 ? index + 1 : next;
    }
    return races_end_epoch(g) ? BAIL_AT : 0;  /* the workgroup's last epoch (waverace.c) */
}

int serial_run(Run *run)
{
    WG g;
    if (wg_setup(&g, run) != 0 || init_setup(&g) != 0 || prof_setup(&g) != 0
        || rec_setup(&g) != 0) {
        run->bail = "out of memory";
        init_free(&g);
        return -1;
    }
    int64_t total = run->grid[0] * run->grid[1] * run->grid[2];
    int64_t waves = g.nw;
    for (int64_t linear = 0; linear < total; linear++) {
        if (run->poll && linear % POLL_WORKGROUPS == POLL_WORKGROUPS - 1 && run->poll()) {
            run->bail = "interrupted";
            run->bail_index = 0;
            break;
        }
        if (run->rec && run->rec->wlog && run->rec->wlog->last_group >= 0
            && linear > run->rec->wlog->last_group)
            break;                            /* the write log's values rebuilt: enough */
        int64_t stopped = run_workgroup(&g, linear);
        if (run->n_wanted && (stopped != BAIL_AT || run->found->error.kind >= 0))
            collect_registers(&g);
        if (stopped == BAIL_AT)
            break;
        if (g.nw > 1)
            next_epoch(&g);
        run->stats.workgroups += 1;
        run->stats.waves += waves;
    }
    init_free(&g);
    wg_free(&g);
    return run->bail ? -1 : 0;
}
