/* The editor's records (record.c) and the write log (writelog.c) between Python and the core:
 * what to record, and the records handed back as bytes for emu/native/recorded.py and
 * emu/write_log.py. */
#include "record_py.h"

#include <stdlib.h>

static int lines_begin(Run *run, Rec *rec, PyObject *spec)
{
    const char *plan;
    Py_ssize_t plan_len;
    PyObject *lanes;
    long long workgroup, slots, limit;
    if (!PyArg_ParseTuple(spec, "y#OLLL", &plan, &plan_len, &lanes, &workgroup, &slots, &limit))
        return -1;
    Py_ssize_t k = PySequence_Size(lanes);
    if (plan_len != run->n_code * REC_PLAN * 4 || k < 0 || slots < 0 || limit < 0) {
        PyErr_SetString(PyExc_ValueError, "bad line recording");
        return -1;
    }
    const int32_t *p = (const int32_t *)plan;
    for (int64_t i = 0; i < run->n_code; i++) {
        const int32_t *row = p + i * REC_PLAN;
        if (row[0] < 0 || row[0] >= slots || row[1] >= run->registers || row[2] < 0
            || row[2] > REC_PLAN - 3) {
            PyErr_SetString(PyExc_ValueError, "bad line recording plan");
            return -1;
        }
        for (int32_t c = 0; c < row[2]; c++)
            if (row[3 + c] >= run->registers || row[3 + c] < -4) {
                PyErr_SetString(PyExc_ValueError, "bad line recording plan");
                return -1;
            }
    }
    int64_t threads = run->wg[0] * run->wg[1] * run->wg[2];
    rec->plan = p;
    rec->workgroup = workgroup;
    rec->n_lanes = k;
    rec->limit = limit;
    rec->n_slots = slots;
    rec->lanes = calloc((size_t)k + 1, 8);
    rec->count = calloc((size_t)slots + 1, 8);
    rec->kept = calloc((size_t)slots + 1, 8);
    rec->first = malloc(((size_t)slots + 1) * 8);
    rec->order = calloc((size_t)slots + 1, 8);
    rec->first_active = calloc((size_t)(slots * k) + 1, 1);
    if (!rec->lanes || !rec->count || !rec->kept || !rec->first || !rec->order
        || !rec->first_active) {
        PyErr_NoMemory();
        return -1;
    }
    memset(rec->first, 0xFF, ((size_t)slots + 1) * 8);
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *item = PySequence_GetItem(lanes, i);
        long long lane = item ? PyLong_AsLongLong(item) : -1;
        Py_XDECREF(item);
        if (lane < 0 || lane >= threads) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "bad shown lane");
            return -1;
        }
        rec->lanes[i] = lane;
    }
    return 0;
}

static int writers_begin(Run *run, Rec *rec, PyObject *spec)
{
    const char *where;
    Py_ssize_t where_len;
    long long threads_per_wg;
    if (!PyArg_ParseTuple(spec, "y#L", &where, &where_len, &threads_per_wg))
        return -1;
    if (where_len != run->n_code * 16) {
        PyErr_SetString(PyExc_ValueError, "bad store-writer record");
        return -1;
    }
    rec->where = (const int64_t *)where;
    for (int64_t i = 0; i < run->n_code; i++)
        if (rec->where[2 * i + 1] > 0 && run->code[i].rs1 >= run->registers) {
            PyErr_SetString(PyExc_ValueError, "bad store-writer record");
            return -1;
        }
    rec->threads_per_wg = threads_per_wg;
    rec->n_pages = (run->device_size >> WRITER_PAGE_BITS) + 1;
    rec->page_line = calloc((size_t)rec->n_pages, sizeof(int32_t *));
    rec->page_lane = calloc((size_t)rec->n_pages, sizeof(int64_t *));
    if (!rec->page_line || !rec->page_lane) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* A writable buffer's memory; the object (a `Memory`: it never moves) must outlive the run. */
static void *writable(PyObject *obj, int64_t *size)
{
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_WRITABLE) < 0)
        return NULL;
    void *data = view.buf;
    *size = view.len;
    PyBuffer_Release(&view);
    return data;
}

static int log_begin(Run *run, Rec *rec, PyObject *spec, WriteLog *w)
{
    const char *plan, *groups;
    Py_ssize_t plan_len, groups_len;
    long long from, to, budget, last_group;
    int keep_values;
    PyObject *rows, *masks, *values;
    if (!PyArg_ParseTuple(spec, "y#y#LLLOOOpL", &plan, &plan_len, &groups, &groups_len, &from,
                          &to, &budget, &rows, &masks, &values, &keep_values, &last_group))
        return -1;
    if (plan_len != run->n_code * REC_PLAN * 4 || from < 0 || budget < 0) {
        PyErr_SetString(PyExc_ValueError, "bad write log");
        return -1;
    }
    const int32_t *p = (const int32_t *)plan;
    for (int64_t i = 0; i < run->n_code; i++) {
        const int32_t *row = p + i * REC_PLAN;
        int bad = row[1] >= run->registers || row[2] < 0 || row[2] > REC_PLAN - 3;
        for (int32_t c = 0; !bad && c < row[2]; c++)
            bad = row[3 + c] >= run->registers || row[3 + c] < -4;
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "bad write log plan");
            return -1;
        }
    }
    int64_t rows_size, masks_size, values_size;
    if (!(w->rows = writable(rows, &rows_size)) || !(w->masks = writable(masks, &masks_size))
        || !(w->values = writable(values, &values_size)))
        return -1;
    w->cap_rows = rows_size / (WLOG_ROW * 8);
    w->cap_masks = masks_size;
    w->cap_values = values_size / 4;
    w->plan = p;
    w->groups = (const uint8_t *)groups;
    w->n_groups = groups_len;
    w->from = from;
    w->to = to;
    w->budget = budget;
    w->keep_values = keep_values;
    w->last_group = last_group;
    rec->wlog = w;
    return 0;
}

int record_begin(Run *run, Rec *rec, PyObject *lines, PyObject *writers, PyObject *wlog)
{
    if (lines == Py_None && writers == Py_None && wlog == Py_None)
        return 0;
    if (lines != Py_None && lines_begin(run, rec, lines) < 0)
        return -1;
    if (writers != Py_None && writers_begin(run, rec, writers) < 0)
        return -1;
    if (wlog != Py_None && log_begin(run, rec, wlog, &rec->wlog_storage) < 0)
        return -1;
    run->rec = rec;
    return 0;
}

static PyObject *log_result(const WriteLog *w)
{
    return Py_BuildValue("(LLiLLL)", (long long)w->n_rows, (long long)w->n_values, w->over,
                         (long long)w->over_group, (long long)w->over_step,
                         (long long)w->bytes);
}

static PyObject *lines_result(const Rec *r)
{
    return Py_BuildValue("(y#y#y#y#y#)",
                         (const char *)r->order, (Py_ssize_t)(r->n_order * 8),
                         (const char *)r->first, (Py_ssize_t)(r->n_slots * 8),
                         (const char *)r->count, (Py_ssize_t)(r->n_slots * 8),
                         (const char *)r->first_active, (Py_ssize_t)(r->n_slots * r->n_lanes),
                         (const char *)r->log, (Py_ssize_t)(r->log_len * 4));
}

static PyObject *writers_result(const Rec *r)
{
    PyObject *pages = PyList_New(0);
    for (int64_t p = 0; pages && p < r->n_pages; p++) {
        if (!r->page_line[p])
            continue;
        PyObject *item = Py_BuildValue("(Ly#y#)", (long long)p,
                                       (const char *)r->page_line[p],
                                       (Py_ssize_t)4 << WRITER_PAGE_BITS,
                                       (const char *)r->page_lane[p],
                                       (Py_ssize_t)8 << WRITER_PAGE_BITS);
        if (!item || PyList_Append(pages, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(pages);
            break;
        }
        Py_DECREF(item);
    }
    return pages;
}

PyObject *record_result(const Rec *rec)
{
    PyObject *lines = rec->plan ? lines_result(rec) : Py_NewRef(Py_None);
    PyObject *writers = rec->where ? writers_result(rec) : Py_NewRef(Py_None);
    PyObject *wlog = rec->wlog ? log_result(rec->wlog) : Py_NewRef(Py_None);
    if (!lines || !writers || !wlog) {
        Py_XDECREF(lines);
        Py_XDECREF(writers);
        Py_XDECREF(wlog);
        return NULL;
    }
    return Py_BuildValue("(NNN)", lines, writers, wlog);
}

PyObject *record_paired(PyObject *result, const Rec *rec)
{
    PyObject *recorded = record_result(rec);
    PyObject *both = recorded ? PyTuple_Pack(2, result, recorded) : NULL;
    Py_DECREF(result);
    Py_XDECREF(recorded);
    return both;
}

void record_end(Rec *rec)
{
    free(rec->lanes); free(rec->count); free(rec->kept); free(rec->first);
    free(rec->order); free(rec->first_active); free(rec->mask); free(rec->addr);
    free(rec->log); free(rec->wmask); free(rec->waddr);
    for (int64_t p = 0; rec->page_line && rec->page_lane && p < rec->n_pages; p++) {
        free(rec->page_line[p]);
        free(rec->page_lane[p]);
    }
    free(rec->page_line);
    free(rec->page_lane);
    wlog_free(rec->wlog);
}
