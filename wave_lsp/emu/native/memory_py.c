/* `_wavecore.Memory`: zeroed device memory (for _wavecore.c). */
#define PY_SSIZE_T_CLEAN
#define _DEFAULT_SOURCE
#include <Python.h>
#include <sys/mman.h>

#include "memory_py.h"

/* ---- Memory: zeroed device memory from mmap (huge pages where allowed: a large launch then
 * costs a few page faults, not one per 4 KiB), exposed through the buffer protocol. ---------- */
typedef struct {
    PyObject_HEAD
    uint8_t *data;
    Py_ssize_t size;
    Py_ssize_t exports;
} Memory;

static PyObject *memory_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "n", &size))
        return NULL;
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "negative size");
        return NULL;
    }
    Memory *self = (Memory *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->size = size;
    void *p = mmap(NULL, (size_t)(size ? size : 1), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
#ifdef MADV_HUGEPAGE
    if (size >= (4 << 20))
        madvise(p, (size_t)size, MADV_HUGEPAGE);
#endif
    self->data = p;
    return (PyObject *)self;
}

static void memory_dealloc(Memory *self)
{
    if (self->data)
        munmap(self->data, (size_t)(self->size ? self->size : 1));
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int memory_getbuffer(Memory *self, Py_buffer *view, int flags)
{
    int rc = PyBuffer_FillInfo(view, (PyObject *)self, self->data, self->size, 0, flags);
    if (rc == 0)
        self->exports++;
    return rc;
}

static void memory_releasebuffer(Memory *self, Py_buffer *view)
{
    self->exports--;
}

static Py_ssize_t memory_length(Memory *self) { return self->size; }

static PyBufferProcs memory_as_buffer = {
    (getbufferproc)memory_getbuffer, (releasebufferproc)memory_releasebuffer,
};

static PySequenceMethods memory_as_sequence = {.sq_length = (lenfunc)memory_length};

PyTypeObject MemoryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "wave_lsp.emu.native._wavecore.Memory",
    .tp_basicsize = sizeof(Memory),
    .tp_dealloc = (destructor)memory_dealloc,
    .tp_as_buffer = &memory_as_buffer,
    .tp_as_sequence = &memory_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Zeroed device memory of SIZE bytes (a writable buffer).",
    .tp_new = memory_new,
};

