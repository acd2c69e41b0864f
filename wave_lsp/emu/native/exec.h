/* The state of the workgroup being run, shared by exec.c (control flow, loops) and the
 * operations: alu.c and floatwide.c (ALU), memory.c, waveops.c, shadow.c (race shadows),
 * state.c and initcheck.c. */
#ifndef WAVECORE_EXEC_H
#define WAVECORE_EXEC_H

#include <string.h>

#include "core.h"

#define BAIL_AT (-2)
#define FRAME_IF 1
#define FRAME_LOOP 2

/* An if frame (entry lanes; aux = the else lanes) or a loop frame (entry lanes; aux = broken
 * lanes; out = lanes broken or continued this iteration), as control.IfFrame / LoopFrame. */
typedef struct {
    int kind;
    uint8_t *entry, *aux, *out, *entry_present;
    int64_t start;       /* loop: first instruction of the body */
    int64_t loop;        /* index of the enclosing loop frame, -1 none */
} Frame;

typedef struct {
    int64_t ret, depth, loop;
    uint8_t *active, *present;
} CallFrame;

typedef struct {
    Run *run;
    int64_t n, nw, W, threads;           /* lanes (whole waves), waves, wave width, threads */
    int64_t linear, wg_id[3];            /* the workgroup being run */
    uint32_t *R;                         /* registers x lanes */
    uint8_t *P;                          /* 4 predicates x lanes */
    uint8_t *alive, *active, *ex, *tmp8, *present;
    uint32_t *tmp32, *tmp32b;
    double *sums;                        /* fma scratch: f64 sums and their words */
    uint32_t *words;
    int any_active, full;
    int64_t active_count;                /* lanes of `active` (set_active) */
    int64_t present_count;
    Frame *frames;
    int64_t depth;
    CallFrame *calls;
    int64_t n_calls;
    uint8_t *local;
    int local_dirty;                     /* local memory was written since it was cleared */
    int64_t executed;                    /* wave-instructions of the launch so far */
    /* race shadows (see shadow.c) */
    uint32_t *dev_shadow;                /* per device word: owner workgroup and access kinds,
                                            then epoch, wave, written (see shadow.c) */
    int dev_owned;                       /* several workgroups: the owner words are kept */
    uint32_t *loc_epoch;                 /* per local word: epoch, wave, written (waves > 1) */
    uint32_t *sr_lane;                   /* special registers 0-4 per lane */
    uint32_t *loc_value;                 /* per local word: the value every store wrote */
    uint64_t *loc_writers;               /* per local word: the waves that stored it */
    uint32_t epoch;
    int64_t dev_words, loc_words;        /* device: blocks (see dev_shift), local: words */
    int dev_shift;                       /* log2 of the bytes of a device shadow block */
    uint8_t *block;                      /* one allocation for the lane arrays */
    uint8_t *bad, *bad2;                 /* lanes a warning or error is about (scratch) */
    int64_t steps, check;                /* steps of this workgroup, the next limit poll */
    struct Init *init;                   /* uninitialised-read shadows (initcheck.c) or NULL */
    int shared_shadow;                   /* the device shadow is shared by threads (parallel.c) */
    struct Mma *mma;                     /* the mma fragments (mma.c), NULL until one is used */
    struct RaceLog *races[2];            /* the epoch's accesses, local and device (waverace.c) */
} WG;

static inline float f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t u32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline int is_nan(uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }
static inline uint32_t load32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* NaN results as upstream's emulator gives them (its f32 arithmetic is x86-64's SSE; measured
 * with its wave-emu), chosen here bit by bit so that neither the processor nor the order of the
 * operands in a loop decides (emu/nan_results.py is the numpy engine's copy of these rules): an
 * operation with NaN operands returns the first of them in the instruction's order of precedence
 * (the order of its operands, but b, a, c for the multiply-adds and b, a for hadd and hmul) made
 * quiet; an invalid operation (inf - inf, 0 * inf, 0 / 0, sqrt(-1)) returns the negative default
 * NaN. */
#define QUIET_BIT 0x00400000u
#define DEFAULT_NAN 0xFFC00000u

/* The result of an operation on x and y (in order of precedence) computed as `r`: r unless it
 * is a NaN, else the first NaN operand made quiet, else the default NaN. */
static inline uint32_t nan_settle(uint32_t r, uint32_t x, uint32_t y)
{
    if (!is_nan(r))
        return r;
    return is_nan(x) ? x | QUIET_BIT : is_nan(y) ? y | QUIET_BIT : DEFAULT_NAN;
}

/* Loop over the executing lanes `l` of an operation (with `n`, `m` and `all` in scope): every
 * lane when the instruction is unguarded and every lane is active (no mask test), else the
 * lanes of `m`. */
#define LANES(...)                                                                   \
    do {                                                                             \
        if (all) {                                                                   \
            for (int64_t l = 0; l < n; l++) { __VA_ARGS__ }                          \
        } else {                                                                     \
            for (int64_t l = 0; l < n; l++) if (m[l]) { __VA_ARGS__ }                \
        }                                                                            \
    } while (0)

static inline int64_t bail(Run *run, const char *why)
{
    if (!run->bail)
        run->bail = why;
    return BAIL_AT;
}

/* findings.c: record a warning about the lanes `bad` (of g->n) of instruction `index`; stop the
 * run with an error about `lanes` (NULL: none), returning BAIL_AT */
void warn_lanes(WG *g, int kind, int64_t index, const uint8_t *bad, int64_t detail);
int64_t fault(WG *g, int kind, const uint8_t *lanes, int64_t detail, int64_t detail2);
/* limits.c: the instruction limit, time limit and cancel polls (emu/engine.py's schedule) */
int64_t next_poll(WG *g);
int64_t limit_poll(WG *g, int64_t index);     /* when ++g->steps reaches g->check */
int limits_between(WG *g);

/* initcheck.c: the checks warn (findings.c) */
typedef struct Init Init;
int init_setup(WG *g);
void init_free(WG *g);
void init_workgroup(WG *g);
int init_registers(WG *g, const Ins *ins, int64_t index);
void init_memory(WG *g, int local, const uint32_t *addr, const uint8_t *m, int64_t width,
                 int read, int write, int64_t index, uint32_t top);   /* top: largest address */
void init_tile(WG *g, const int64_t *tile, const uint8_t *m, int read, int64_t index);
/* profile.c (only called when run->prof is set) */
int prof_setup(WG *g);
void prof_workgroup(WG *g);
void prof_skip(WG *g, int64_t start, int64_t stop);
int prof_step(WG *g, const Ins *ins, int64_t index);
int64_t prof_control(WG *g, const Ins *ins, int64_t index);
/* record.c (only called when run->rec is set): around every instruction; rec_after is not
 * called for one that stopped the run, and returns -1 out of memory */
int rec_setup(WG *g);
void rec_before(WG *g, const Ins *ins, int64_t index);
int rec_after(WG *g, int64_t index);
/* writelog.c (called by record.c when rec->wlog is set) */
int wlog_setup(WG *g);
void wlog_before(WG *g, const Ins *ins, int64_t index);
int wlog_after(WG *g, int64_t index);
/* memlog.c: 1 when the log cannot grow (the core then bails) */
int memlog_add(WG *g, int64_t index, int64_t lane, int64_t before, uint64_t address,
               uint64_t low, uint64_t high, uint64_t operands);
/* exec.c */
int64_t run_workgroup(WG *g, int64_t linear);             /* 0 or BAIL_AT */
int serial_run(Run *run);                /* the workgroups one at a time, in order */
int64_t control(WG *g, const Ins *ins, int64_t index);   /* a control instruction's next */
/* registers.c: the asked-for threads' registers of the workgroup being run */
void collect_registers(WG *g);
/* barrier.c */
int64_t barrier_op(WG *g, const Ins *ins);
void set_active(WG *g, const uint8_t *mask);
const uint8_t *exec_mask(WG *g, const Ins *ins);
/* state.c */
void *shadow_alloc(int64_t bytes);
/* meeting.c */
#define MEET_PLAIN 0
#define MEET_ATOMIC 1
#define MEET_READ 2
void meet_device(WG *g, int64_t index, const uint32_t *addr, const uint8_t *m, int64_t width,
                 int kind);
void shadow_free(void *p, int64_t bytes);
int wg_setup(WG *g, Run *run);
void wg_free(WG *g);
uint32_t special(WG *g, int64_t index, int64_t lane);
/* alu.c (and the dispatch to memory.c and waveops.c) */
int64_t execute_op(WG *g, const Ins *ins);
int64_t memory_op(WG *g, const Ins *ins, const uint8_t *m);
int64_t atomic_op(WG *g, const Ins *ins, const uint8_t *m);
int64_t wave_op(WG *g, const Ins *ins, const uint8_t *m);
/* mma.c: the fragments, zeroed in every workgroup (mma_workgroup when one begins) */
typedef struct Mma Mma;
int64_t mma_op(WG *g, const Ins *ins, const uint8_t *m);
void mma_workgroup(WG *g);
void mma_free(WG *g);
/* memory.c: present waves before wave `w` (a memory log record's step within its instruction) */
int64_t waves_before(const WG *g, int64_t w);
/* floatwide.c: `all` = every lane executes */
int64_t half_op(WG *g, const Ins *ins, const uint8_t *m, int all);
int64_t f64_op(WG *g, const Ins *ins, const uint8_t *m, int all);
/* shadow.c: each returns 1 where the access may be a race (waverace.c then checks the epoch) */
void next_epoch(WG *g);
/* kind: 0 read, 1 write, 2 atomic; device: 2 where workgroups met */
int track_device_lanes(WG *g, const uint32_t *addr, const uint8_t *m, int64_t width, int kind);
int track_local_lanes(WG *g, const uint32_t *addr, const uint8_t *m, int64_t width, int kind,
                      const uint32_t *data);
/* waverace.c: races between the waves of a workgroup, exactly (space: RACE_LOCAL, RACE_DEVICE;
 * kind: 0 read, 1 write, 2 atomic; count: lanes of `m`; bits: OR of their addresses; data: the
 * values of a 32-bit aligned store or NULL); races_log and races_end_epoch return 1 when the
 * run stops (out of memory) */
#define RACE_LOCAL 0
#define RACE_DEVICE 1
typedef struct RaceLog RaceLog;
int races_setup(WG *g);
void races_free(WG *g);
void races_flag(WG *g, int space);
int races_log(WG *g, int space, int64_t index, int kind, const uint32_t *addr, const uint8_t *m,
              int64_t width, int64_t count, uint32_t bits, const uint32_t *data);
int races_end_epoch(WG *g);

#endif
