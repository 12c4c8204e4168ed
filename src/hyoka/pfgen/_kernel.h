/* What the sources of the compiled kernel (hyoka.pfgen._ngram_kernel) share. */
#ifndef HYOKA_PFGEN_KERNEL_H
#define HYOKA_PFGEN_KERNEL_H

#include <Python.h>

/* helpfulness(rules, answers): _helpfulness.c */
PyObject *hyoka_helpfulness(PyObject *self, PyObject *args);

#endif
