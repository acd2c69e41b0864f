/* memory_py.c: the `Memory` type of _wavecore.c. */
#ifndef WAVECORE_MEMORY_PY_H
#define WAVECORE_MEMORY_PY_H

#include <Python.h>

extern PyTypeObject MemoryType;      /* Memory(size): zeroed device memory, a writable buffer */

#endif
