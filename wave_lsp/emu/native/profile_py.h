/* The kernel profile and the memory access log between Python and the core (profile_py.c;
 * the records are profile.c's and memlog.c's). */
#ifndef WAVECORE_PROFILE_PY_H
#define WAVECORE_PROFILE_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"

/* Profile the run as `spec` = (wave widths, patterns kept per instruction, words kept in all)
 * says: -1 with a Python error set. */
int profile_begin(Run *run, Prof *prof, PyObject *spec);
/* The record as (executions, divergent, lanes, pattern data, entries, dropped) bytes (see
 * profile_py.c). */
PyObject *profile_result(const Prof *prof, int64_t n_code);
/* Free everything `profile_begin` and the run allocated (a zeroed Prof: nothing). */
void profile_end(Prof *prof);
/* (result, the memory access log's records as bytes), taking `result`'s reference. */
PyObject *memlog_paired(PyObject *result, const MemLog *log);

#endif
