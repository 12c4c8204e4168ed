/*
 * Fluency and Truthfulness of many answers to one question, walked in C over the question's
 * combined trie (hyoka/pfgen/ngram_trie.py describes the table; ngram_metrics.py is the numpy
 * oracle whose every float this reproduces, operation for operation: pfgen-spec.md section 3).
 *
 * measure(nodes, stride, sets, answers, skipped, fluency_out, truthfulness_out)
 *   nodes:    buffer of uint32, rows of `stride` words: code point, first child, df per set
 *   sets:     sequence of (df column, number of answers, fluency baseline), one per output row
 *   answers:  sequence of str (code points as Python holds them, lone surrogates included)
 *   skipped:  str, the characters Truthfulness does not count
 *   *_out:    writable buffers of len(sets) * len(answers) doubles, row j = set j
 *   returns:  how many document frequencies read exceeded their set's number of answers (0 for
 *             any table built from its sets; the caller refuses the numbers otherwise)
 *
 * Plain C against the CPython API (no numpy headers). Compiled without fused multiply-add or
 * fast-math (setup.py), so every value is bit-identical to the numpy engine. The table may come
 * from a file: every child range is checked against the table's size, so a damaged file can
 * give wrong numbers but never a read outside the table, and every document frequency read is
 * checked against its set's size (a count of answers cannot exceed it), so a damaged count is
 * reported rather than scored.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_kernel.h"

#define FLUENCY_WINDOW 200
#define TRUTHFULNESS_WINDOW 202
#define MAX_NGRAM 10
#define TRUTHFULNESS_NGRAM 3
#define TRUTHFULNESS_SATURATION 200.0
/* code points kept per answer: Truthfulness reads answer[:201] */
#define KEPT (TRUTHFULNESS_WINDOW - 1)
/* distinct n-grams of one answer: at most 200 starts x 10 lengths, so this stays under half full */
#define SEEN_BITS 12
#define SEEN_SLOTS (1u << SEEN_BITS)
#define MAX_SKIPPED 64

#define BMP 0x10000

typedef struct {
    const uint32_t *rows;
    uint32_t count; /* nodes, the root included; row `count` is the sentinel */
    Py_ssize_t stride;
    /* the root's child for each code point of the BMP (0: none): every walk starts at the
       root, whose thousands of children would otherwise cost a dozen probes each time */
    uint32_t *root_children;
} Trie;

typedef struct {
    Py_ssize_t column;
    double num_answers;
    double baseline;
    uint32_t most; /* the largest document frequency there can be: the set's size */
} SetSpec;

/* The child of `node` whose code point is `cp`, or 0 (the root, never a child) if none. */
static inline uint32_t child_of(const Trie *t, uint32_t node, uint32_t cp) {
    if (node == 0 && cp < BMP) {
        return t->root_children[cp];
    }
    const uint32_t *row = t->rows + (size_t)node * (size_t)t->stride;
    uint32_t lo = row[1];
    uint32_t hi = row[1 + t->stride];
    if (hi > t->count || lo > hi || lo == 0) {
        return 0;
    }
    /* narrow [lo, end) to at most 8 rows [lo, lo + len) such that the first code point >= cp
       is in them or is row lo + len; the halving has no branch on the data (a conditional
       move), so it is never mispredicted */
    uint32_t end = hi;
    uint32_t len = hi - lo;
    while (len > 8) {
        uint32_t half = len / 2;
        lo = t->rows[(size_t)(lo + half) * (size_t)t->stride] < cp ? lo + half : lo;
        len -= half;
    }
    /* then count the rows below cp, again without a branch on the data: the loads are
       independent, where a scan stopping at the first row >= cp was mispredicted about once
       a lookup (perf; 16.4 -> 15.9 us an answer on the 49 runs' answers to 10 questions) */
    uint32_t at = lo;
    for (uint32_t k = lo; k < lo + len; k++) {
        at += t->rows[(size_t)k * (size_t)t->stride] < cp;
    }
    return at < end && t->rows[(size_t)at * (size_t)t->stride] == cp ? at : 0;
}

/* Fills t->root_children: of a valid table (code points sorted, distinct) the node the search finds. */
static void index_root(Trie *t) {
    memset(t->root_children, 0, sizeof(uint32_t) * BMP);
    uint32_t lo = t->rows[1];
    uint32_t hi = t->rows[1 + t->stride];
    if (hi > t->count || lo > hi || lo == 0) {
        return;
    }
    for (uint32_t node = lo; node < hi; node++) {
        uint32_t cp = t->rows[(size_t)node * (size_t)t->stride];
        if (cp < BMP && t->root_children[cp] == 0) {
            t->root_children[cp] = node;
        }
    }
}

static inline uint32_t df_of(const Trie *t, uint32_t node, Py_ssize_t column) {
    return t->rows[(size_t)node * (size_t)t->stride + 2 + (size_t)column];
}

/* Inserts `node` (never 0) into the answer's set of seen nodes; 1 if it was not there. */
static inline int first_sight(uint32_t *seen, uint32_t node) {
    uint32_t slot = (node * 2654435761u) >> (32 - SEEN_BITS);
    for (;;) {
        if (seen[slot] == 0) {
            seen[slot] = node;
            return 1;
        }
        if (seen[slot] == node) {
            return 0;
        }
        slot = (slot + 1) & (SEEN_SLOTS - 1);
    }
}

/* 1 - max(L - 100, 0) / 50, as numpy computes it from an int64 L */
static inline double discount(Py_ssize_t length) {
    return 1.0 - (double)(length > 100 ? length - 100 : 0) / 50.0;
}

typedef struct {
    uint8_t bmp[BMP / 8];
    uint32_t codepoints[MAX_SKIPPED]; /* all of them; only those past the BMP are searched */
    Py_ssize_t count;
} Skipped;

static inline int is_skipped(const Skipped *skipped, uint32_t cp) {
    if (cp < BMP) {
        return (skipped->bmp[cp >> 3] >> (cp & 7)) & 1;
    }
    for (Py_ssize_t i = 0; i < skipped->count; i++) {
        if (skipped->codepoints[i] == cp) {
            return 1;
        }
    }
    return 0;
}

typedef struct {
    uint32_t seen[SEEN_SLOTS];
    uint32_t wrapped[TRUTHFULNESS_WINDOW];
    uint32_t starts_here[TRUTHFULNESS_WINDOW]; /* the 3-gram node starting at each position, or 0 */
    uint8_t counted[TRUTHFULNESS_WINDOW];      /* 0 for the characters Truthfulness skips */
    /* the 3-gram node of the answer at each start, as Fluency's walk found it (0: none) */
    uint32_t trigram_at[FLUENCY_WINDOW];
    uint32_t found[FLUENCY_WINDOW][MAX_NGRAM]; /* the node of each (start, length) walked */
    uint8_t depth[FLUENCY_WINDOW];             /* the longest n-gram found at each start */
    int16_t live[FLUENCY_WINDOW];              /* the starts whose walk goes on */
} Scratch;

/* Fluency of one answer (its first `length` <= 200 code points) against every set. */
static void fluency(const Trie *t, const SetSpec *sets, Py_ssize_t set_count, const uint32_t *cps,
                    Py_ssize_t length, Scratch *scratch, int64_t *gains, double *out,
                    Py_ssize_t out_stride, Py_ssize_t *too_large) {
    memset(scratch->seen, 0, sizeof(scratch->seen));
    memset(gains, 0, sizeof(int64_t) * FLUENCY_WINDOW * (size_t)set_count);
    /* The walks from all starts go level by level: the lookups of one level are
       independent of each other, so their cache misses overlap instead of queueing. */
    Py_ssize_t live_count = 0;
    Py_ssize_t over = 0;
    for (Py_ssize_t start = 0; start < length; start++) {
        scratch->depth[start] = 0;
        scratch->live[live_count++] = (int16_t)start;
    }
    for (Py_ssize_t n = 1; n <= MAX_NGRAM && live_count > 0; n++) {
        if (n > 1) { /* ask for every live walk's first child row before searching any of them:
                        15.9 -> 15.3 us an answer on the 49 runs' answers to 10 questions */
            for (Py_ssize_t k = 0; k < live_count; k++) {
                uint32_t parent = scratch->found[scratch->live[k]][n - 2];
                uint32_t first = t->rows[(size_t)parent * (size_t)t->stride + 1];
                if (first < t->count) {
                    __builtin_prefetch(t->rows + (size_t)first * (size_t)t->stride);
                }
            }
        }
        Py_ssize_t still = 0;
        for (Py_ssize_t k = 0; k < live_count; k++) {
            Py_ssize_t start = scratch->live[k];
            if (start + n > length) {
                continue;
            }
            uint32_t parent = n == 1 ? 0 : scratch->found[start][n - 2];
            uint32_t node = child_of(t, parent, cps[start + n - 1]);
            if (node == 0) {
                continue;
            }
            scratch->found[start][n - 1] = node;
            scratch->depth[start] = (uint8_t)n;
            scratch->live[still++] = (int16_t)start;
        }
        live_count = still;
    }
    /* Then each start in order, its n-grams shortest first: an n-gram's first occurrence is
       at its smallest start, as the numpy engine counts it. */
    for (Py_ssize_t start = 0; start < length; start++) {
        Py_ssize_t depth = scratch->depth[start];
        scratch->trigram_at[start] =
            depth >= TRUTHFULNESS_NGRAM ? scratch->found[start][TRUTHFULNESS_NGRAM - 1] : 0;
        for (Py_ssize_t n = 1; n <= depth; n++) {
            uint32_t node = scratch->found[start][n - 1];
            if (first_sight(scratch->seen, node)) {
                for (Py_ssize_t j = 0; j < set_count; j++) {
                    uint32_t df = df_of(t, node, sets[j].column);
                    over += df > sets[j].most;
                    gains[j * FLUENCY_WINDOW + start + n - 1] += df;
                }
            }
        }
    }
    for (Py_ssize_t j = 0; j < set_count; j++) {
        const int64_t *gain = gains + j * FLUENCY_WINDOW;
        int64_t total = 0;
        double best = -INFINITY;
        for (Py_ssize_t column = 0; column < length; column++) {
            total += gain[column];
            double value = (double)total * discount(column + 1) / sets[j].baseline;
            if (value > best) {
                best = value;
            }
        }
        out[j * out_stride] = best > 0.0 ? best : 0.0;
    }
    *too_large += over;
}

/* Truthfulness of one answer (`kept` = min(len, 201) code points) against every set. */
static void truthfulness(const Trie *t, const SetSpec *sets, Py_ssize_t set_count,
                         const uint32_t *cps, Py_ssize_t kept, const Skipped *skipped,
                         Scratch *scratch, double *out, Py_ssize_t out_stride,
                         Py_ssize_t *too_large) {
    uint32_t *wrapped = scratch->wrapped;
    Py_ssize_t width = 0;
    wrapped[width++] = '^';
    for (Py_ssize_t i = 0; i < kept; i++) {
        wrapped[width++] = cps[i];
    }
    if (width < TRUTHFULNESS_WINDOW) {
        wrapped[width++] = '$';
    }
    /* the 3-grams inside Fluency's window were found by its walk: wrapped[p] is cps[p - 1] */
    Py_ssize_t walked = kept < FLUENCY_WINDOW ? kept : FLUENCY_WINDOW;
    Py_ssize_t over = 0;
    for (Py_ssize_t p = 0; p < width; p++) {
        uint32_t node = 0;
        if (p >= 1 && p - 1 + TRUTHFULNESS_NGRAM <= walked) {
            node = scratch->trigram_at[p - 1];
        } else if (p + TRUTHFULNESS_NGRAM <= width) {
            for (Py_ssize_t n = 0; n < TRUTHFULNESS_NGRAM && (n == 0 || node != 0); n++) {
                node = child_of(t, node, wrapped[p + n]);
            }
        }
        scratch->starts_here[p] = node;
        scratch->counted[p] = !is_skipped(skipped, wrapped[p]);
    }
    for (Py_ssize_t j = 0; j < set_count; j++) {
        Py_ssize_t column_of_set = sets[j].column;
        double total = 0.0;
        int64_t counted = 0;
        double best = -INFINITY;
        double last = 0.0;
        for (Py_ssize_t column = 0; column < width; column++) {
            if (!scratch->counted[column]) {
                continue; /* adds 0.0 to the running sum and nothing to the count */
            }
            uint32_t support = 0;
            for (Py_ssize_t back = 0; back < TRUTHFULNESS_NGRAM && back <= column; back++) {
                uint32_t node = scratch->starts_here[column - back];
                uint32_t df = node ? df_of(t, node, column_of_set) : 0;
                if (df > support) {
                    support = df;
                }
            }
            over += support > sets[j].most; /* the largest read is too large if any is */
            double share = (double)support / sets[j].num_answers * TRUTHFULNESS_SATURATION;
            total += share < 1.0 ? share : 1.0;
            counted++;
            double running = total / (double)counted * discount(column);
            if (column >= 100 && running > best) {
                best = running;
            }
            last = running;
        }
        best = best > 0.0 ? best : 0.0;
        out[j * out_stride] = last > best ? last : best;
    }
    *too_large += over;
}

static int read_sets(PyObject *sequence, Py_ssize_t df_columns, SetSpec **out, Py_ssize_t *count) {
    PyObject *fast = PySequence_Fast(sequence, "sets must be a sequence");
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    SetSpec *sets = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof(SetSpec));
    if (sets == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t column, num_answers;
        double baseline;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, j), "nnd", &column, &num_answers,
                              &baseline)) {
            goto fail;
        }
        if (column < 0 || column >= df_columns || num_answers < 1 ||
            num_answers > (Py_ssize_t)UINT32_MAX || !(baseline > 0.0)) {
            PyErr_SetString(PyExc_ValueError,
                            "each set needs a df column in the table, answers and a baseline > 0");
            goto fail;
        }
        sets[j].column = column;
        sets[j].num_answers = (double)num_answers;
        sets[j].baseline = baseline;
        sets[j].most = (uint32_t)num_answers;
    }
    Py_DECREF(fast);
    *out = sets;
    *count = n;
    return 0;
fail:
    Py_DECREF(fast);
    PyMem_Free(sets);
    return -1;
}

static int read_skipped(PyObject *text, Skipped *skipped) {
    if (!PyUnicode_Check(text) || STR_READY(text) < 0) {
        PyErr_SetString(PyExc_TypeError, "skipped must be a str");
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (n > MAX_SKIPPED) {
        PyErr_SetString(PyExc_ValueError, "too many skipped characters");
        return -1;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    memset(skipped->bmp, 0, sizeof(skipped->bmp));
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t cp = (uint32_t)PyUnicode_READ(kind, data, i);
        skipped->codepoints[i] = cp;
        if (cp < BMP) {
            skipped->bmp[cp >> 3] |= (uint8_t)(1u << (cp & 7));
        }
    }
    skipped->count = n;
    return 0;
}

/* Copies answer[:201] of every answer (with the GIL held) so the walk can run without it. */
static int copy_answers(PyObject *fast, Py_ssize_t count, uint32_t *cps, Py_ssize_t *kept) {
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *answer = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyUnicode_Check(answer) || STR_READY(answer) < 0) {
            PyErr_Format(PyExc_TypeError, "answer %zd is not a str", i);
            return -1;
        }
        Py_ssize_t length = PyUnicode_GET_LENGTH(answer);
        Py_ssize_t n = length < KEPT ? length : KEPT;
        int kind = PyUnicode_KIND(answer);
        const void *data = PyUnicode_DATA(answer);
        uint32_t *row = cps + (size_t)i * KEPT;
        for (Py_ssize_t p = 0; p < n; p++) {
            row[p] = (uint32_t)PyUnicode_READ(kind, data, p);
        }
        kept[i] = n;
    }
    return 0;
}

static PyObject *measure(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *nodes_obj, *sets_obj, *answers_obj, *skipped_obj, *fluency_obj, *truth_obj;
    Py_ssize_t stride;
    if (!PyArg_ParseTuple(args, "OnOOOOO", &nodes_obj, &stride, &sets_obj, &answers_obj,
                          &skipped_obj, &fluency_obj, &truth_obj)) {
        return NULL;
    }
    Py_buffer nodes = {0}, fluency_view = {0}, truth_view = {0};
    SetSpec *sets = NULL;
    Py_ssize_t set_count = 0;
    PyObject *answers = NULL;
    uint32_t *cps = NULL;
    Py_ssize_t *kept = NULL;
    Scratch *scratch = NULL;
    int64_t *gains = NULL;
    uint32_t *root_children = NULL;
    PyObject *result = NULL;
    Skipped skipped;

    if (PyObject_GetBuffer(nodes_obj, &nodes, PyBUF_C_CONTIGUOUS) < 0) {
        goto done;
    }
    if (stride < 3 || stride > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(uint32_t) ||
        nodes.len % (Py_ssize_t)(stride * sizeof(uint32_t)) != 0 ||
        nodes.len / (Py_ssize_t)(stride * sizeof(uint32_t)) < 2 ||
        nodes.len / (Py_ssize_t)(stride * sizeof(uint32_t)) - 1 > (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "nodes is not a table of rows of `stride` uint32");
        goto done;
    }
    if (read_sets(sets_obj, stride - 2, &sets, &set_count) < 0 ||
        read_skipped(skipped_obj, &skipped) < 0) {
        goto done;
    }
    answers = PySequence_Fast(answers_obj, "answers must be a sequence");
    if (answers == NULL) {
        goto done;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(answers);
    if (PyObject_GetBuffer(fluency_obj, &fluency_view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0 ||
        PyObject_GetBuffer(truth_obj, &truth_view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        goto done;
    }
    Py_ssize_t wanted = set_count * count * (Py_ssize_t)sizeof(double);
    if (fluency_view.len != wanted || truth_view.len != wanted) {
        PyErr_SetString(PyExc_ValueError, "outputs must hold len(sets) * len(answers) doubles");
        goto done;
    }
    cps = PyMem_Malloc((size_t)(count > 0 ? count : 1) * KEPT * sizeof(uint32_t));
    kept = PyMem_Malloc((size_t)(count > 0 ? count : 1) * sizeof(Py_ssize_t));
    scratch = PyMem_Malloc(sizeof(Scratch));
    gains = PyMem_Malloc((size_t)(set_count > 0 ? set_count : 1) * FLUENCY_WINDOW * sizeof(int64_t));
    root_children = PyMem_Malloc(sizeof(uint32_t) * BMP);
    if (cps == NULL || kept == NULL || scratch == NULL || gains == NULL || root_children == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (copy_answers(answers, count, cps, kept) < 0) {
        goto done;
    }
    Trie trie = {(const uint32_t *)nodes.buf,
                 (uint32_t)(nodes.len / (Py_ssize_t)(stride * sizeof(uint32_t)) - 1), stride,
                 root_children};
    double *fluency_out = (double *)fluency_view.buf;
    double *truth_out = (double *)truth_view.buf;
    Py_ssize_t too_large = 0;
    Py_BEGIN_ALLOW_THREADS;
    index_root(&trie);
    for (Py_ssize_t i = 0; i < count; i++) {
        const uint32_t *row = cps + (size_t)i * KEPT;
        Py_ssize_t length = kept[i] < FLUENCY_WINDOW ? kept[i] : FLUENCY_WINDOW;
        fluency(&trie, sets, set_count, row, length, scratch, gains, fluency_out + i, count,
                &too_large);
        /* after fluency: it reuses the 3-grams fluency's walk found */
        truthfulness(&trie, sets, set_count, row, kept[i], &skipped, scratch, truth_out + i,
                     count, &too_large);
    }
    Py_END_ALLOW_THREADS;
    result = PyLong_FromSsize_t(too_large);
done:
    if (nodes.obj) {
        PyBuffer_Release(&nodes);
    }
    if (fluency_view.obj) {
        PyBuffer_Release(&fluency_view);
    }
    if (truth_view.obj) {
        PyBuffer_Release(&truth_view);
    }
    Py_XDECREF(answers);
    PyMem_Free(sets);
    PyMem_Free(cps);
    PyMem_Free(kept);
    PyMem_Free(scratch);
    PyMem_Free(gains);
    PyMem_Free(root_children);
    return result;
}

/*
 * compensated_sum(iterable): CPython 3.12's sum() of floats (Neumaier's compensated summation),
 * as hyoka/pfgen/_pysum.py writes it in Python, which stays the fallback and the test oracle:
 * each value is float(value), the compensation is added only when it is non-zero and finite.
 * Compiled without fused multiply-add (setup.py), every step rounds as Python's float does.
 */
static PyObject *compensated_sum(PyObject *self, PyObject *iterable) {
    (void)self;
    PyObject *iterator = PyObject_GetIter(iterable);
    if (iterator == NULL) {
        return NULL;
    }
    double total = 0.0;
    double compensation = 0.0;
    PyObject *item;
    while ((item = PyIter_Next(iterator)) != NULL) {
        double x;
        if (PyFloat_CheckExact(item)) {
            x = PyFloat_AS_DOUBLE(item);
        } else {
            PyObject *converted = PyNumber_Float(item); /* float(value) */
            if (converted == NULL) {
                Py_DECREF(item);
                Py_DECREF(iterator);
                return NULL;
            }
            x = PyFloat_AsDouble(converted);
            Py_DECREF(converted);
        }
        Py_DECREF(item);
        double t = total + x;
        if (fabs(total) >= fabs(x)) {
            compensation += (total - t) + x;
        } else {
            compensation += (x - t) + total;
        }
        total = t;
    }
    Py_DECREF(iterator);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (compensation != 0.0 && isfinite(compensation)) {
        total += compensation;
    }
    return PyFloat_FromDouble(total);
}

static PyMethodDef methods[] = {
    {"measure", measure, METH_VARARGS,
     "measure(nodes, stride, sets, answers, skipped, fluency_out, truthfulness_out): fill the "
     "outputs with each answer's Fluency and Truthfulness against each set; how many document "
     "frequencies read exceeded their set's size (0 unless the table is damaged)."},
    {"helpfulness", hyoka_helpfulness, METH_VARARGS,
     "helpfulness(rules, answers): each answer's Helpfulness and missed rules, when every "
     "rule is a literal (_helpfulness.c)."},
    {"compensated_sum", compensated_sum, METH_O,
     "compensated_sum(iterable): CPython 3.12's sum() of floats (hyoka.pfgen._pysum)."},
    {"checksum", (PyCFunction)(void (*)(void))hyoka_checksum, METH_VARARGS | METH_KEYWORDS,
     "checksum(buffer, portable=False): three CRC-32C of the buffer's three lanes, 12 bytes "
     "(_checksum.c); the check of the pfgen index cache's arrays."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ngram_kernel",
    "pfgen-bench scoring in C: Fluency and Truthfulness walked over a question's combined trie "
    "(ngram_trie.py), Helpfulness of literal rules (keywords.py).",
    -1,
    methods,
};

PyMODINIT_FUNC PyInit__ngram_kernel(void) {
    hyoka_checksum_init();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "FLUENCY_WINDOW", FLUENCY_WINDOW) < 0 ||
        PyModule_AddIntConstant(m, "TRUTHFULNESS_WINDOW", TRUTHFULNESS_WINDOW) < 0 ||
        PyModule_AddIntConstant(m, "MAX_NGRAM", MAX_NGRAM) < 0 ||
        PyModule_AddIntConstant(m, "TRUTHFULNESS_NGRAM", TRUTHFULNESS_NGRAM) < 0 ||
        PyModule_AddObject(m, "TRUTHFULNESS_SATURATION",
                           PyFloat_FromDouble(TRUTHFULNESS_SATURATION)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
