/* What the sources of the compiled kernel (hyoka.pfgen._ngram_kernel) share. */
#ifndef HYOKA_PFGEN_KERNEL_H
#define HYOKA_PFGEN_KERNEL_H

#include <Python.h>

/* PyUnicode_READY is a no-op, and deprecated, from Python 3.12 on */
#if PY_VERSION_HEX < 0x030C0000
#define STR_READY(text) PyUnicode_READY(text)
#else
#define STR_READY(text) 0
#endif

/* helpfulness(rules, answers): _helpfulness.c */
PyObject *hyoka_helpfulness(PyObject *self, PyObject *args);
/* checksum(buffer, portable=False): _checksum.c; its tables are filled by hyoka_checksum_init */
PyObject *hyoka_checksum(PyObject *self, PyObject *args, PyObject *kwargs);
void hyoka_checksum_init(void);

#endif
