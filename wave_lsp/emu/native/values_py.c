/* values_py.c: the value functions of _wavecore.c (fill_iota, format_values, hex_rows,
 * format_f32, transcendental): device memory filled and printed as upstream does, and the
 * transcendentals of the numpy engine (wave_lsp/emu/libm.py). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "core.h"
#include "values_py.h"

PyObject *py_fill_iota(PyObject *self, PyObject *args)
{
    Py_buffer device;
    Py_ssize_t offset, count;
    double scale;
    if (!PyArg_ParseTuple(args, "w*nnd", &device, &offset, &count, &scale))
        return NULL;
    if (offset < 0 || count < 0 || offset + 4 * count > device.len) {
        PyBuffer_Release(&device);
        PyErr_SetString(PyExc_ValueError, "fill outside device memory");
        return NULL;
    }
    uint8_t *p = (uint8_t *)device.buf + offset;
    float s = (float)scale;
    float *values = PyMem_Malloc(4 << 16);
    if (!values) {
        PyBuffer_Release(&device);
        return PyErr_NoMemory();
    }
    /* i as f32, times SCALE as f32, in f32 (count < 2^30: i fits an int32, which vectorises) */
    for (Py_ssize_t first = 0; first < count; first += 1 << 16) {
        int32_t n = (int32_t)(count - first < (1 << 16) ? count - first : (1 << 16));
        for (int32_t i = 0; i < n; i++)
            values[i] = (float)((int32_t)first + i) * s;
        memcpy(p + 4 * first, values, (size_t)n * 4);
    }
    PyMem_Free(values);
    PyBuffer_Release(&device);
    Py_RETURN_NONE;
}

PyObject *py_format_values(PyObject *self, PyObject *args)
{
    Py_buffer device;
    Py_ssize_t offset, count;
    const char *kind;
    if (!PyArg_ParseTuple(args, "y*nns", &device, &offset, &count, &kind))
        return NULL;
    int k = !strcmp(kind, "u32") ? 0 : !strcmp(kind, "f32") ? 1 : !strcmp(kind, "f16") ? 2
            : !strcmp(kind, "bf16") ? 3 : -1;
    Py_ssize_t width = k < 2 ? 4 : 2;
    if (k < 0 || offset < 0 || count < 0 || offset + width * count > device.len) {
        PyBuffer_Release(&device);
        PyErr_SetString(PyExc_ValueError, "bad dump");
        return NULL;
    }
    char *out = PyMem_Malloc((size_t)count * 48 + 1);
    if (!out) {
        PyBuffer_Release(&device);
        return PyErr_NoMemory();
    }
    const uint8_t *p = (const uint8_t *)device.buf + offset;
    size_t o = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (k == 0) {
            uint32_t v;
            memcpy(&v, p + 4 * i, 4);
            o += (size_t)sprintf(out + o, "%u", v);
        } else {
            float f;
            if (k == 1) {
                memcpy(&f, p + 4 * i, 4);
            } else {
                uint16_t h = (uint16_t)(p[2 * i] | (p[2 * i + 1] << 8));
                if (k == 2) {
                    f = half_to_float(h);
                } else {
                    uint32_t b = (uint32_t)h << 16;
                    memcpy(&f, &b, 4);
                }
            }
            o += format_f32(f, out + o);
        }
        out[o++] = '\n';
    }
    PyBuffer_Release(&device);
    PyObject *bytes = PyBytes_FromStringAndSize(out, (Py_ssize_t)o);
    PyMem_Free(out);
    return bytes;
}

PyObject *py_hex_rows(PyObject *self, PyObject *args)
{
    Py_buffer device;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "y*nn", &device, &start, &end))
        return NULL;
    if (start < 0 || end < start || end > device.len) {
        PyBuffer_Release(&device);
        PyErr_SetString(PyExc_ValueError, "bad dump");
        return NULL;
    }
    Py_ssize_t rows = (end - start + 15) / 16;
    char *out = PyMem_Malloc((size_t)rows * 80 + 1);
    if (!out) {
        PyBuffer_Release(&device);
        return PyErr_NoMemory();
    }
    const uint8_t *mem = device.buf;
    size_t o = 0;
    for (Py_ssize_t base = start; base < end; base += 16) {
        int len = (int)(end - base < 16 ? end - base : 16);
        o += (size_t)sprintf(out + o, "%08zx: ", (size_t)base);
        size_t cells = o;
        for (int i = 0; i < len; i++) {
            if (i == 8)
                out[o++] = ' ';
            o += (size_t)sprintf(out + o, i ? " %02x" : "%02x", mem[base + i]);
        }
        out[o++] = ' ';
        while (o - cells < 50)                   /* (cells + " ").ljust(50) */
            out[o++] = ' ';
        out[o++] = '|';
        for (int i = 0; i < len; i++) {
            uint8_t c = mem[base + i];
            out[o++] = (char)(c >= 0x20 && c < 0x7F ? c : '.');
        }
        out[o++] = '|';
        out[o++] = '\n';
    }
    PyBuffer_Release(&device);
    PyObject *bytes = PyBytes_FromStringAndSize(out, (Py_ssize_t)o);
    PyMem_Free(out);
    return bytes;
}

PyObject *py_format_f32(PyObject *self, PyObject *arg)
{
    unsigned long bits = PyLong_AsUnsignedLongMask(arg);
    if (PyErr_Occurred())
        return NULL;
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, 4);
    char out[48];
    size_t n = format_f32(f, out);
    return PyUnicode_FromStringAndSize(out, (Py_ssize_t)n);
}

/* transcendental(name, values): fsin, fcos, fexp2 or flog2 of each f32 of a writable buffer,
 * in place (the numpy engine's loop for them: wave_lsp/emu/libm.py) */
PyObject *py_transcendental(PyObject *self, PyObject *args)
{
    const char *name;
    Py_buffer values;
    if (!PyArg_ParseTuple(args, "sw*", &name, &values))
        return NULL;
    static const int ops[] = {OP_FSIN, OP_FCOS, OP_FEXP2, OP_FLOG2};
    int op = -1;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(OP_NAMES[ops[i]], name) == 0)
            op = ops[i];
    if (op < 0 || values.len % 4) {
        PyBuffer_Release(&values);
        PyErr_SetString(PyExc_ValueError, "not fsin/fcos/fexp2/flog2 of f32 values");
        return NULL;
    }
    uint8_t *p = values.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t at = 0; at < values.len; at += 4) {
        float x;
        memcpy(&x, p + at, 4);
        x = transcendental(op, x);
        memcpy(p + at, &x, 4);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&values);
    Py_RETURN_NONE;
}
