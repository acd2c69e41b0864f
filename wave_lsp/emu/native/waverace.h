/* Races between the waves of a workgroup (waverace.c logs an epoch's accesses, wavecheck.c
 * checks the log as emu/racecheck.py does): the log and the race it finds. */
#ifndef WAVECORE_WAVERACE_H
#define WAVECORE_WAVERACE_H

#include "exec.h"

#define READ 0
#define WRITE 1
#define ATOMIC 2

typedef struct {
    int64_t index;                        /* instruction */
    int kind, known, all;                 /* READ/WRITE/ATOMIC; the values are logged; every
                                             lane (lane i is lane i, the lanes not logged) */
    int64_t width, sub_from, sub_to;      /* bytes a lane accesses; its entries in this log */
    int64_t seq;                          /* the log entry of sub_from (entries count on) */
    int64_t at, count;                    /* its lanes in the lane arrays */
} Access;

typedef struct {
    int space, kind_first, kind_other, same;
    int64_t word, first_index, first_lane, other_index, other_lane;
} Race;

struct RaceLog {
    int space;                            /* 0 local, 1 device */
    Access *acc;
    int64_t n_acc, cap_acc;
    uint32_t *lane, *addr, *value;        /* per logged lane */
    int64_t n_lanes, cap_lanes;
    int64_t size, entries;                /* words logged (as racecheck counts), entries (since
                                             the log was last emptied) */
    int64_t max_groups, max_logged;       /* Run.race_groups, race_logged */
    int flagged;                          /* the shadows saw waves meet in this epoch */
    int found;                            /* a race was found early: `pending` */
    Race pending;
};

/* wavecheck.c: racecheck._check of what `r` holds (1: a race, in *race; -1 out of memory),
 * then forgotten (forget: emptied, unchecked) */
int races_check(RaceLog *r, int64_t W, int strict, Race *race);
void races_forget(RaceLog *r);

#endif
