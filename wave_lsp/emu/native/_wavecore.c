/* `wave_lsp.emu.native._wavecore`: the CPython face of the native emulator core.
 *
 *   OPS                                  the mnemonics the core implements (op index = position)
 *   run(code, geometry, device, set_regs[, uses, device_init, profile, memlog, deadline, cancel,
 *       wanted, registers_out, registers_have, lines, writers, threads, meeting, write_log,
 *       strict_races, race_groups, race_logged]) -> (bail reason or None, instruction index, stats, (warnings, error),
 *       threads used), paired with (lines, writers, write log) when one is asked for;
 *       uses/device_init: initcheck.c; warnings and error: findings.c (see finding());
 *       deadline: time.monotonic() seconds (0: none); cancel: a callable or None (limits.c);
 *       wanted (int64 thread ids) and the buffers registers.c fills; strict_races: shadow.c;
 *       race_groups, race_logged: racecheck's MAX_GROUPS and MAX_LOGGED (waverace.c);
 *       threads: workgroups on this many threads (parallel.c; 1: one at a time), and the
 *       result gains a fifth item, the threads whose results it holds (1 after a serial re-run)
 *   fill_iota(device, offset, count, scale)   f32 values i * scale, as launch.apply_memory_init
 *   format_values(device, offset, count, kind) -> bytes   one value a line (u32/f32/f16/bf16)
 *   hex_rows(device, start, end) -> bytes     the rows of upstream's --dump-memory
 *   format_f32(bits) -> str                   one f32 as Rust's `{:?}`
 *   transcendental(name, values)              fsin/fcos/fexp2/flog2 of f32s, in place
 *   Memory(size)                              zeroed device memory (memory_py.c)
 * (fill_iota to transcendental: values_py.c)
 * Device memory is any writable buffer (a bytearray, a Memory); no numpy. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "core.h"
#include "findings_py.h"
#include "memory_py.h"
#include "profile_py.h"
#include "record_py.h"
#include "values_py.h"

/* Run::poll: whether a signal handler raised (Ctrl-C), taking the GIL for a moment; the
 * exception stays set for `run` to return. */
static int pending_signal(void)
{
    PyGILState_STATE state = PyGILState_Ensure();
    int raised = PyErr_CheckSignals() != 0;
    PyGILState_Release(state);
    return raised;
}

static int get_i64(PyObject *seq, Py_ssize_t i, int64_t *out)
{
    PyObject *item = PySequence_GetItem(seq, i);
    if (!item)
        return -1;
    long long v = PyLong_AsLongLong(item);
    Py_DECREF(item);
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = v;
    return 0;
}

static PyObject *py_run(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"code", "geometry", "device", "set_regs", "uses", "device_init",
                               "profile", "memlog", "deadline", "cancel", "wanted",
                               "registers_out", "registers_have", "lines", "writers", "threads",
                               "meeting", "write_log", "strict_races", "race_groups",
                               "race_logged", NULL};
    Py_buffer code, device, uses = {0}, device_init = {0}, wanted = {0}, regs_out = {0},
              regs_have = {0}, meeting = {0};
    PyObject *geometry, *set_regs, *profile_spec = Py_None, *cancel = Py_None;
    PyObject *lines_spec = Py_None, *writers_spec = Py_None, *wlog_spec = Py_None;
    int memlog = 0, strict_races = 0;
    double deadline = 0;
    Py_ssize_t threads = 1, race_groups = 256, race_logged = 4 << 20;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*Ow*O|y*w*OpdOy*w*w*OOnw*Opnn", keywords,
                                     &code,
                                     &geometry, &device, &set_regs, &uses, &device_init,
                                     &profile_spec, &memlog, &deadline, &cancel, &wanted,
                                     &regs_out, &regs_have, &lines_spec, &writers_spec,
                                     &threads, &meeting, &wlog_spec, &strict_races,
                                     &race_groups, &race_logged))
        return NULL;
    Run *run = PyMem_Calloc(1, sizeof(Run));
    Findings *found = PyMem_Calloc(1, sizeof(Findings));
    Prof prof = {0};
    MemLog mem = {0};
    Rec rec = {0};
    PyObject *result = NULL;
    if (!run || !found) {
        PyErr_NoMemory();
        goto done;
    }
    if (code.len % (INS_FIELDS * 8) != 0 || PySequence_Size(geometry) != 12) {
        PyErr_SetString(PyExc_ValueError, "bad code or geometry");
        goto done;
    }
    int64_t g[12];
    for (int i = 0; i < 12; i++)
        if (get_i64(geometry, i, &g[i]) < 0)
            goto done;
    run->code = (const Ins *)code.buf;
    run->n_code = code.len / (INS_FIELDS * 8);
    memcpy(run->grid, g, 3 * 8);
    memcpy(run->wg, g + 3, 3 * 8);
    run->W = g[6];
    run->registers = g[7];
    run->local_size = g[8];
    run->max_ctrl = g[9];
    run->max_calls = g[10];
    run->max_instructions = g[11];
    if (run->W < 1 || run->registers < 1 || run->registers > 256 || run->local_size < 0
        || run->grid[0] < 1 || run->grid[1] < 1 || run->grid[2] < 1 || run->wg[0] < 1
        || run->wg[1] < 1 || run->wg[2] < 1) {
        PyErr_SetString(PyExc_ValueError, "bad geometry");
        goto done;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(set_regs, &pos, &key, &value)) {
        long reg = PyLong_AsLong(key);
        unsigned long long v = PyLong_AsUnsignedLongLongMask(value);
        if (PyErr_Occurred())
            goto done;
        if (reg >= 0 && reg < 256) {
            run->set_reg[reg] = 1;
            run->set_reg_value[reg] = (int64_t)(v & 0xFFFFFFFFull);
        }
    }
    run->device = device.buf;
    run->device_size = device.len;
    if (uses.buf && uses.len) {               /* the uninitialised-read check */
        if (uses.len != run->n_code * USE_FIELDS * 2 || device_init.len < device.len) {
            PyErr_SetString(PyExc_ValueError, "bad uses or device_init");
            goto done;
        }
        run->uses = (const int16_t *)uses.buf;
        run->device_init = device_init.buf;
    }
    if (profile_spec != Py_None && profile_begin(run, &prof, profile_spec) < 0)
        goto done;
    if (record_begin(run, &rec, lines_spec, writers_spec, wlog_spec) < 0)
        goto done;
    run->mem = memlog ? &mem : NULL;
    run->poll = pending_signal;
    run->deadline = deadline;
    run->threads = threads;
    run->strict_races = strict_races;
    run->race_groups = race_groups;
    run->race_logged = race_logged;
    run->meeting = meeting.obj && meeting.len >= 7 * 8 ? meeting.buf : NULL;
    if (run->meeting && meeting_begin(run) < 0) {   /* races between workgroups, exactly */
        PyErr_NoMemory();
        goto done;
    }
    if (cancel != Py_None) {
        run->cancelled = call_cancel;
        run->cancel_arg = cancel;
    }
    found->error.kind = -1;
    if (wanted.obj && wanted.len) {           /* the registers asked for (registers.c) */
        int64_t n = wanted.len / 8;
        if (regs_out.len < n * (run->registers + 4) * 4 || regs_have.len < n) {
            PyErr_SetString(PyExc_ValueError, "bad registers_out or registers_have");
            goto done;
        }
        run->wanted = wanted.buf;
        run->n_wanted = n;
        run->regs_out = regs_out.buf;
        run->regs_have = regs_have.buf;
    }
    if (!(found->slot = PyMem_Malloc((size_t)(run->n_code ? run->n_code : 1) * WARN_KINDS
                                     * sizeof(int32_t)))) {
        PyErr_NoMemory();
        goto done;
    }
    memset(found->slot, 0xFF, (size_t)run->n_code * WARN_KINDS * sizeof(int32_t));
    run->found = found;
    Py_BEGIN_ALLOW_THREADS
    wave_run(run);
    Py_END_ALLOW_THREADS
    if (PyErr_Occurred())             /* a signal handler raised (KeyboardInterrupt) */
        goto done;
    Stats *s = &run->stats;
    int stopped = run->bail && found->error.kind < 0;       /* not by an error it reports */
    PyObject *bail = stopped ? PyUnicode_FromString(run->bail) : Py_NewRef(Py_None);
    PyObject *report = findings(found, run->bail_index);
    if (!report) {
        Py_DECREF(bail);
        goto done;
    }
    result = Py_BuildValue(
        "(NL(LLLLLLLLLLLLLLLLLLL)NL)", bail, (long long)run->bail_index,
        (long long)s->cat[CAT_INTEGER], (long long)s->cat[CAT_FLOAT],
        (long long)s->cat[CAT_MEMORY], (long long)s->cat[CAT_CONTROL],
        (long long)s->cat[CAT_WAVE], (long long)s->cat[CAT_ATOMIC],
        (long long)s->atomic_lanes, (long long)s->device_loads, (long long)s->device_stores,
        (long long)s->device_load_bytes, (long long)s->device_store_bytes,
        (long long)s->local_loads, (long long)s->local_stores, (long long)s->local_load_bytes,
        (long long)s->local_store_bytes, (long long)s->barriers,
        (long long)s->divergent_branches, (long long)s->workgroups, (long long)s->waves,
        report, (long long)run->threads_used);
    if (result && run->prof) {
        PyObject *record = profile_result(&prof, run->n_code);
        PyObject *both = record ? PyTuple_Pack(2, result, record) : NULL;
        Py_XDECREF(record);
        Py_SETREF(result, both);
    }
    if (result && run->mem)
        result = memlog_paired(result, &mem);
    if (result && run->rec)
        result = record_paired(result, &rec);
done:
    if (run)
        meeting_end(run);
    if (found)
        PyMem_Free(found->slot);
    PyMem_Free(found);
    free(mem.data);
    profile_end(&prof);
    record_end(&rec);
    PyMem_Free(run);
    PyBuffer_Release(&code);
    PyBuffer_Release(&device);
    Py_buffer *optional[] = {&uses, &device_init, &wanted, &regs_out, &regs_have, &meeting};
    for (size_t i = 0; i < sizeof optional / sizeof *optional; i++)
        if (optional[i]->obj)
            PyBuffer_Release(optional[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"run", (PyCFunction)(void (*)(void))py_run, METH_VARARGS | METH_KEYWORDS, "Run a pre-decoded kernel over the grid."},
    {"fill_iota", py_fill_iota, METH_VARARGS, "Write f32 values i * scale."},
    {"format_values", py_format_values, METH_VARARGS, "Dump values, one a line."},
    {"hex_rows", py_hex_rows, METH_VARARGS, "Rows of the hex dump."},
    {"format_f32", py_format_f32, METH_O, "An f32 (bits) as Rust's {:?}."},
    {"transcendental", py_transcendental, METH_VARARGS, "fsin/fcos/fexp2/flog2 in place."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_wavecore", "The native emulator core.", -1, methods,
};

PyMODINIT_FUNC PyInit__wavecore(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    PyObject *ops = PyTuple_New(OP_COUNT);
    if (!ops) {
        Py_DECREF(m);
        return NULL;
    }
    for (int i = 0; i < OP_COUNT; i++)
        PyTuple_SET_ITEM(ops, i, PyUnicode_FromString(OP_NAMES[i]));
    if (PyModule_AddObject(m, "OPS", ops) < 0) {
        Py_DECREF(ops);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "INS_FIELDS", INS_FIELDS);
    if (PyType_Ready(&MemoryType) < 0)
        return NULL;
    Py_INCREF(&MemoryType);
    PyModule_AddObject(m, "Memory", (PyObject *)&MemoryType);
    return m;
}
