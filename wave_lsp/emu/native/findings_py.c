/* The native core's findings and its cancel callback seen from Python (for _wavecore.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"
#include "findings_py.h"

/* Run::cancelled: the cancel callback's answer, taking the GIL (-1: it raised; the exception
 * stays set for `run` to return). */
int call_cancel(void *callback)
{
    PyGILState_STATE state = PyGILState_Ensure();
    PyObject *answer = PyObject_CallNoArgs((PyObject *)callback);
    int result = answer ? PyObject_IsTrue(answer) : -1;
    Py_XDECREF(answer);
    PyGILState_Release(state);
    return result;
}

/* A finding as (kind, instruction, workgroup, first lane, lanes of its wave, count, detail,
 * detail2, and a race's other instruction, other lane and flags: core.h's Finding). */
static PyObject *finding(const Finding *f, int64_t detail2)
{
    return Py_BuildValue("(LLLLKLLLLLL)", (long long)f->kind, (long long)f->index,
                         (long long)f->workgroup, (long long)f->lane,
                         (unsigned long long)f->lanes, (long long)f->count,
                         (long long)f->detail, (long long)detail2,
                         (long long)f->other_index, (long long)f->other_lane,
                         (long long)f->race);
}

PyObject *findings(const Findings *found, int64_t index)
{
    PyObject *warnings = PyList_New(found->n_warnings);
    if (!warnings)
        return NULL;
    for (int64_t i = 0; i < found->n_warnings; i++) {
        PyObject *item = finding(&found->warnings[i], 0);
        if (!item) {
            Py_DECREF(warnings);
            return NULL;
        }
        PyList_SET_ITEM(warnings, i, item);
    }
    PyObject *error;
    if (found->error.kind >= 0) {
        Finding e = found->error;
        e.index = index;
        error = finding(&e, found->detail2);
    } else {
        error = Py_NewRef(Py_None);
    }
    return error ? Py_BuildValue("(NN)", warnings, error) : NULL;
}

