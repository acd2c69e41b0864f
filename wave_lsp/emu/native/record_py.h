/* The editor's records (record.c) between Python and the core (record_py.c). */
#ifndef WAVECORE_RECORD_PY_H
#define WAVECORE_RECORD_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"

/* Record the run as `lines` = (plan, shown lanes, their workgroup, slots, limit) and
 * `writers` = (where, threads per workgroup) say (None: not that record); the buffers `plan`
 * and `where` must stay alive for the run: -1 with a Python error set. */
int record_begin(Run *run, Rec *rec, PyObject *lines, PyObject *writers, PyObject *wlog);
/* (lines, writers, wlog): lines = (order, first, count, first_active, log) bytes or None;
 * writers = [(page, line bytes, lane bytes)] or None; wlog = (rows, values words, over,
 * over workgroup, over step, bytes) or None. The write log's spec is (plan, recorded
 * workgroups (a byte each), first step, end step (-1: none), budget in bytes, and the
 * writable buffers it fills: rows, masks, values, which must outlive the run). */
PyObject *record_result(const Rec *rec);
/* Free what `record_begin` and the run allocated (a zeroed Rec: nothing). */
void record_end(Rec *rec);
/* (result, record_result(rec)), taking `result`'s reference. */
PyObject *record_paired(PyObject *result, const Rec *rec);

#endif
