/* The native emulator core: shared declarations.
 *
 * The core runs a kernel that Python has pre-decoded into `Ins` records over the whole grid,
 * one workgroup at a time, in order (or on several threads with the same results: parallel.c), with every wave of the workgroup in lock-step — the same
 * schedule as the numpy engine (wave_lsp/emu/engine.py, control.py), which is the reference for
 * every rule here. It records the warnings and the error the numpy engine reports (findings.c,
 * limits.c), races between waves included (waverace.c); where it cannot run an instruction (one
 * it lacks) it stops with a bail reason and Python runs the launch again with the numpy engine.
 */
#ifndef WAVECORE_H
#define WAVECORE_H

#include <stdint.h>
#include <stddef.h>

/* Operations: the OP_ enumeration (ops.h) and OP_NAMES (names.c), the mnemonic of each in the
 * same order, are generated from the ISA table (wave_lsp/emu/native/opnames.py); the Python side
 * maps instructions to these indices by name. Memory ops are generic: width, words and space come
 * from the instruction record (the ISA table, via Python). */
#include "ops.h"

/* A pseudo-op (not a mnemonic): the instruction names a register or predicate that does not
 * exist; the numpy engine faults when a lane runs it, so the core bails. */
#define OP_TRAP (-1)
#define TRAP_REGISTER 1                  /* Ins.trap: register_out_of_range */

/* Statistics categories (the order of CATEGORIES in native/program.py). */
enum { CAT_INTEGER, CAT_FLOAT, CAT_MEMORY, CAT_CONTROL, CAT_WAVE, CAT_ATOMIC, CAT_COUNT };

/* One pre-decoded instruction (native/program.py writes these as 16 int64 fields). */
typedef struct {
    int64_t op, rd, rs1, rs2, rs3, rs4;
    int64_t guard;       /* predicate of the guard, -1 when unguarded */
    int64_t neg;         /* the guard is negated */
    int64_t imm;         /* mov_imm's value; call: target instruction index (-1: none) */
    int64_t skip;        /* if/else/loop: where an empty region ends (-1: never skipped) */
    int64_t category;    /* CAT_* of the statistics */
    int64_t width;       /* memory: bytes per access */
    int64_t words;       /* memory: registers loaded or stored */
    int64_t local;       /* memory: 1 local, 0 device */
    int64_t trap;        /* OP_TRAP: TRAP_REGISTER (the fault) or 0 (bails) */
    int64_t pad1;
} Ins;

#define INS_FIELDS 16
#define USE_READS 8                      /* registers read, then written, per instruction */
#define USE_FIELDS 12

/* Statistics, as emu/report.py's Stats. */
typedef struct {
    int64_t cat[CAT_COUNT];
    int64_t atomic_lanes;
    int64_t device_loads, device_stores, device_load_bytes, device_store_bytes;
    int64_t local_loads, local_stores, local_load_bytes, local_store_bytes;
    int64_t barriers, divergent_branches, workgroups, waves;
} Stats;

/* The kernel profile's record (profile.c); NULL in Run when not profiling. */
#define PROF_MAX_WIDTHS 16
typedef struct {
    uint64_t hash;                       /* 0: empty slot */
    int64_t offset, length, count;       /* the pattern in Prof.data, how often it ran */
} PEntry;

typedef struct {
    int64_t k, widths[PROF_MAX_WIDTHS];  /* the recorded wave widths */
    int64_t *executions;                 /* n_code x k */
    int64_t *divergent;                  /* n_code x k: divergent branches */
    int64_t *lanes;                      /* n_code */
    int64_t waves[PROF_MAX_WIDTHS];      /* groups of each width with an active lane */
    int64_t n;
    PEntry *table;
    int64_t table_cap, entries;
    uint32_t *data, *scratch;
    int64_t data_len, data_cap;
    /* the bounds on what is kept (emu/profile.py MAX_PATTERNS, MAX_PATTERN_WORDS) */
    int64_t max_patterns, max_words, words;
    int64_t *kept;                       /* n_code: patterns kept */
    int64_t *dropped;                    /* n_code x 2: accesses not kept, their lanes */
} Prof;

/* What a run reports (findings.c): its warnings, deduplicated per instruction and kind and at
 * most MAX_WARNINGS (emu/context.py RunContext.warn), and the error that stopped it. Python
 * (native/findings.py) gives them the numpy engine's text. The kinds, in this order, are
 * FINDING_WARNINGS and FINDING_ERRORS of native/findings.py. */
enum { WARN_UNALIGNED, WARN_INACTIVE_SHUFFLE, WARN_OUT_OF_RANGE_SHUFFLE, WARN_UNINIT_REGISTER,
       WARN_UNINIT_LOCAL, WARN_UNINIT_DEVICE, WARN_DATA_RACE, WARN_KINDS };
enum { ERR_OUT_OF_BOUNDS, ERR_DIVERGENT_BARRIER, ERR_DEADLOCK, ERR_CONTROL_STACK,
       ERR_CALL_STACK, ERR_REGISTER, ERR_INSTRUCTION_LIMIT, ERR_TIME_LIMIT, ERR_CANCELLED,
       ERR_INVALID, ERR_KINDS };
/* ERR_INVALID's detail: which invalid_instruction (INVALID_MESSAGES in native/findings.py) */
enum { INVALID_ELSE, INVALID_ENDIF, INVALID_ENDLOOP, INVALID_BREAK, INVALID_CONTINUE,
       INVALID_CALL_TARGET };
#define MAX_WARNINGS 200
typedef struct {
    int64_t kind, index;                 /* WARN_*, instruction */
    int64_t workgroup, lane;             /* linear workgroup, its first lane (in the workgroup) */
    uint64_t lanes;                      /* the lanes of that lane's wave (bits) */
    int64_t count, detail;               /* lane-events folded in; register or address */
    /* WARN_DATA_RACE (waverace.c): the other access's instruction and lane in the workgroup,
     * and space (bit 0: device), kinds of the two (2 bits each: read, write, atomic), same
     * value (bit 5) */
    int64_t other_index, other_lane, race;
} Finding;

typedef struct {
    Finding warnings[MAX_WARNINGS];
    int64_t n_warnings;
    int32_t *slot;                       /* n_code x WARN_KINDS: index in `warnings`, -1 */
    Finding error;                       /* kind -1: none; detail and detail2 below */
    int64_t detail2;
} Findings;

/* Everything a run needs. */
/* The memory access log of `--mem-trace` (memlog.c): MEMLOG_FIELDS int64 per lane access,
 * step, workgroup (linear), lane in the workgroup, instruction index, address, value (low and
 * high 64 bits), atomics' operand << 32 | swap. */
#define MEMLOG_FIELDS 8
#define MEMLOG_MAX_RECORDS (1 << 21)
typedef struct {
    int64_t *data;
    int64_t count, capacity;             /* records */
} MemLog;

/* The write log of a recorded run (writelog.c, emu/write_log.py): per step of a recorded
 * workgroup inside the step window, in the order they ran, a row (instruction, workgroup,
 * step, offset of its values), the executing lanes (a bit each, `mask_bytes` per row) and its
 * values: the address register's n values before it ran (a memory access), then each
 * capture's n values after it (plan: REC_PLAN int32 per instruction: unused, address register
 * or -1, captures, then that many registers >= 0 or predicates -1 - p). The three buffers are
 * the caller's (Python's `Memory`s: no copy at the end); past `budget` bytes, or their room,
 * it stops (`over`: the workgroup and step it stopped at). Without `keep_values` it writes
 * rows and masks only (offsets and bytes counted as if it kept them: the values are rebuilt by
 * running again with them); `last_group` >= 0 ends the run after that workgroup. */
typedef struct WriteLog {
    const int32_t *plan;
    const uint8_t *groups;               /* per workgroup: recorded */
    int64_t n_groups, from, to, budget, bytes;
    int64_t *rows, n_rows, cap_rows;     /* WLOG_ROW per row */
    uint8_t *masks;
    int64_t cap_masks, mask_bytes;
    uint32_t *values;
    int64_t n_values, cap_values;
    uint8_t *mask;                       /* executing lanes as bits, before the instruction */
    uint8_t *full;                       /* every lane as bits */
    const uint8_t *lanes;                /* the step's lanes: `mask` or `full` */
    int taken, over, keep_values;
    int64_t over_group, over_step, n, last_group;
} WriteLog;
#define WLOG_ROW 4
void wlog_free(WriteLog *w);             /* writelog.c: what the run allocated */

/* What the editor shows, recorded in the same pass (record.c): the per-line records of the
 * shown lanes (emu/recording.py LineRecorder) and the store-writer record (emu/writers.py
 * StoreWriters). A NULL `plan` or `where` turns each off; the loop then only tests the pointer.
 * plan: REC_PLAN int32 per instruction: line slot, the store's address register (-1: none),
 * captures, then that many registers (>= 0) or predicates (-1 - p) its execution writes.
 * log: per kept execution: instruction, k active shown lanes, their positions, each capture's
 * k values, the k addresses (a store). */
#define REC_PLAN 16
#define WRITER_PAGE_BITS 16
typedef struct {
    const int32_t *plan;
    int64_t workgroup, n_lanes, limit, n_slots;
    int64_t *lanes;                      /* n_lanes: lane in the workgroup of each shown thread */
    int64_t *count, *kept, *first;       /* per slot: executions, kept, first instruction (-1) */
    int64_t *order, n_order;             /* slots in the order first executed */
    uint8_t *first_active;               /* n_slots x n_lanes */
    uint8_t *mask;                       /* n_lanes: executing before the instruction */
    uint32_t *addr;                      /* n_lanes: the store's addresses before it */
    int valid;
    uint32_t *log;
    int64_t log_len, log_cap;
    const int64_t *where;                /* n_code x 2: line (or pc), bytes each lane stores */
    int64_t threads_per_wg, n_pages;
    int32_t **page_line;                 /* per page of device memory: line per byte, -1 */
    int64_t **page_lane;                 /* per page: global thread per byte */
    uint8_t *wmask;                      /* n: executing lanes of the store, before it */
    uint32_t *waddr;                     /* n: their addresses */
    int wvalid;
    WriteLog *wlog;                      /* the write log (writelog.c), or NULL */
    WriteLog wlog_storage;               /* where `wlog` points when set */
} Rec;


typedef struct {
    const Ins *code;
    int64_t n_code;
    /* geometry */
    int64_t grid[3], wg[3], W, registers, local_size;
    int64_t max_ctrl, max_calls;         /* ISA: MIN_DIVERGENCE_DEPTH, MAX_CALL_DEPTH */
    int64_t max_instructions;            /* 0: unlimited */
    int64_t set_reg_value[256];
    uint8_t set_reg[256];
    /* device memory */
    uint8_t *device;
    int64_t device_size;
    /* the uninitialised-read check (initcheck.c); NULL: off */
    const int16_t *uses;                 /* per instruction: USE_FIELDS register numbers */
    uint8_t *device_init;                /* per device byte: initialised */
    /* results */
    Stats stats;
    const char *bail;                    /* why the run stopped ("error": found->error; NULL: it
                                            ran to the end) */
    int64_t bail_index;
    /* polled between workgroups (every POLL_WORKGROUPS): nonzero stops the run ("interrupted");
     * a short kernel on a huge grid would otherwise never notice a Ctrl-C */
    int (*poll)(void);
    Prof *prof;                          /* the kernel profile, or NULL */
    Findings *found;                     /* warnings and the error (findings.c) */
    /* the threads whose registers are reported (registers.c): n_wanted global thread ids; per
     * thread registers + 4 words out (general registers, then predicates), and whether set */
    const int64_t *wanted;
    int64_t n_wanted;
    uint32_t *regs_out;
    uint8_t *regs_have;
    /* the time limit and cancelling (limits.c): a CLOCK_MONOTONIC deadline in seconds (0: none)
     * and `cancelled`, polled with the clock at most every CANCEL_POLL_SECONDS */
    double deadline;
    int (*cancelled)(void *);
    void *cancel_arg;
    double next_cancel_poll;
    MemLog *mem;                         /* the memory access log (memlog.c), or NULL */
    Rec *rec;                            /* the editor's records (record.c), or NULL */
    /* workgroups on several threads (parallel.c): the threads asked for (<= 1: one at a time),
     * those whose results the run reports (1 after a re-run one at a time), and the flag that
     * stops every thread (polled with the limits; NULL when running one at a time) */
    int64_t threads, threads_used;
    const int *stop;
    /* races between workgroups found exactly (meeting.c), when `meeting` is not NULL: the first
     * access of each kind per device word, and the race found (7 words, see runner.py) */
    int64_t *first[3];
    int64_t *meeting;
    /* RunOptions.racecheck "strict": atomics and stores of one same value race too (shadow.c) */
    int strict_races;
    /* races between waves (waverace.c): the words examined per epoch, those logged before an
     * early check (emu/race_report.py MAX_GROUPS, MAX_LOGGED) */
    int64_t race_groups, race_logged;
} Run;

/* The bail reason of a run on several threads whose workgroups met (parallel.c): device memory
 * is no longer as it started; the caller writes it afresh and runs again with threads = 1. */
#define RUN_AGAIN "run again one workgroup at a time"
/* The bail reason of a run whose owner shadows saw two workgroups meet on a device block
 * (shadow.c): the caller runs it again with `meeting` (meeting.c), which reports the race. */
#define WORKGROUPS_MEET "workgroups met on device memory"

#define POLL_WORKGROUPS 1024
#define POLL_EVERY 256                   /* steps between limit polls (emu/engine.py) */
#define CANCEL_POLL_SECONDS 0.01

int wave_run(Run *run);
int meeting_begin(Run *run);             /* meeting.c: the tables of `first` (-1: no memory) */
void meeting_end(Run *run);
void prof_free(Prof *p);                 /* profile.c: the tables of a finished profile */
extern const char *const OP_NAMES[OP_COUNT];

/* fsin, fcos, fexp2 or flog2 (`op`) of one value: the C library's sinf, cosf, exp2f, log2f, as
 * upstream's Rust f32::sin, cos, exp2 and log2 call them (alu.c; wave_lsp/emu/libm.py) */
float transcendental(int op, float x);

/* floatfmt.c */
size_t format_f32(float x, char *out);   /* Rust `{:?}`; out needs 48 bytes */
float half_to_float(uint16_t h);
uint16_t float_to_half(uint32_t bits);

#endif
