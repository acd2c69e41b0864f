/* values_py.c: the value functions of _wavecore.c. */
#ifndef WAVECORE_VALUES_PY_H
#define WAVECORE_VALUES_PY_H

#include <Python.h>

PyObject *py_fill_iota(PyObject *self, PyObject *args);
PyObject *py_format_values(PyObject *self, PyObject *args);
PyObject *py_hex_rows(PyObject *self, PyObject *args);
PyObject *py_format_f32(PyObject *self, PyObject *arg);
PyObject *py_transcendental(PyObject *self, PyObject *args);

#endif
