/* The kernel profile between Python and the core: the widths to record at, and the record
 * handed back as bytes for emu/profile_native.py; and the memory access log (memlog.c) as
 * bytes for emu/mem_access.py. */
#include "profile_py.h"

#include <stdlib.h>

int profile_begin(Run *run, Prof *prof, PyObject *spec)
{
    PyObject *widths;
    long long max_patterns, max_words;
    if (!PyArg_ParseTuple(spec, "OLL", &widths, &max_patterns, &max_words))
        return -1;
    if (max_patterns < 1 || max_words < 1) {
        PyErr_SetString(PyExc_ValueError, "bad profile bounds");
        return -1;
    }
    prof->max_patterns = max_patterns;
    prof->max_words = max_words;
    Py_ssize_t k = PySequence_Size(widths);
    if (k < 1 || k > PROF_MAX_WIDTHS) {
        PyErr_SetString(PyExc_ValueError, "bad profile widths");
        return -1;
    }
    prof->k = k;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *item = PySequence_GetItem(widths, i);
        long long w = item ? PyLong_AsLongLong(item) : -1;
        Py_XDECREF(item);
        if (w < 1) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "bad profile widths");
            return -1;
        }
        prof->widths[i] = w;
    }
    prof->executions = calloc((size_t)(run->n_code * k + 1), 8);
    prof->divergent = calloc((size_t)(run->n_code * k + 1), 8);
    prof->lanes = calloc((size_t)(run->n_code + 1), 8);
    prof->kept = calloc((size_t)(run->n_code + 1), 8);
    prof->dropped = calloc((size_t)(2 * run->n_code + 1), 8);
    if (!prof->executions || !prof->divergent || !prof->lanes || !prof->kept || !prof->dropped) {
        PyErr_NoMemory();
        return -1;
    }
    run->prof = prof;
    return 0;
}

/* The profile's record as (executions, divergent, lanes, pattern data, entries, dropped) bytes:
 * int64 per instruction and width (twice), int64 per instruction, uint32 words, (offset, length,
 * count) int64, (accesses, lanes) int64 per instruction not kept. */
PyObject *profile_result(const Prof *p, int64_t n_code)
{
    PyObject *entries = PyBytes_FromStringAndSize(NULL, p->entries * 24);
    if (!entries)
        return NULL;
    int64_t *out = (int64_t *)PyBytes_AS_STRING(entries);
    for (int64_t i = 0; i < p->table_cap; i++) {
        if (!p->table[i].hash)
            continue;
        *out++ = p->table[i].offset;
        *out++ = p->table[i].length;
        *out++ = p->table[i].count;
    }
    return Py_BuildValue("(y#y#y#y#Ny#)",
                         (const char *)p->executions, (Py_ssize_t)(n_code * p->k * 8),
                         (const char *)p->divergent, (Py_ssize_t)(n_code * p->k * 8),
                         (const char *)p->lanes, (Py_ssize_t)(n_code * 8),
                         (const char *)p->data, (Py_ssize_t)(p->data_len * 4), entries,
                         (const char *)p->dropped, (Py_ssize_t)(n_code * 16));
}

void profile_end(Prof *prof)
{
    free(prof->executions);
    free(prof->divergent);
    free(prof->lanes);
    free(prof->kept);
    free(prof->dropped);
    prof_free(prof);
}

PyObject *memlog_paired(PyObject *result, const MemLog *log)
{
    PyObject *data = PyBytes_FromStringAndSize(
        (const char *)log->data, (Py_ssize_t)(log->count * MEMLOG_FIELDS * 8));
    PyObject *both = data ? PyTuple_Pack(2, result, data) : NULL;
    Py_DECREF(result);
    Py_XDECREF(data);
    return both;
}
