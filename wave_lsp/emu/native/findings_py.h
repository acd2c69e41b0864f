/* findings_py.c: the CPython side of findings.c and limits.c. */
#ifndef WAVECORE_FINDINGS_PY_H
#define WAVECORE_FINDINGS_PY_H

#include <Python.h>

#include "core.h"

/* Run::cancelled: the callable `callback`'s answer, taking the GIL (-1: it raised; the
 * exception stays set). */
int call_cancel(void *callback);
/* (warnings, error): each finding as (kind, instruction, workgroup, first lane, lanes of its
 * wave as bits, count, detail, detail2); the error None, or at instruction `index`. */
PyObject *findings(const Findings *found, int64_t index);

#endif
