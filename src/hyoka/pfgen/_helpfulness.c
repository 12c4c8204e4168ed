/*
 * Helpfulness of many answers to one question, in C: the same scores and missed rules as the
 * Python and numpy path of hyoka/pfgen/keywords.py (its `helpfulness`, which stays the oracle
 * and the path for rules that are regular expressions), operation for operation
 * (pfgen-spec.md section 3).
 *
 * helpfulness(rules, answers) -> (scores, missed)
 *   rules:   tuple of (node, factor), one per top-level rule in file order; a node is
 *            (kind, name, literal, parts): kind 0 for a literal "t" rule (literal: str),
 *            1 for "and", 2 for "or" (parts: a tuple of nodes); name: str or None;
 *            factor: an int or a float. Exact tuples, str, int and float only: nothing the
 *            call reads can run Python code, so what it borrows stays alive.
 *   answers: sequence of str; each rule is searched in the answer's first 200 characters
 *   scores:  list of float, one per answer
 *   missed:  list of lists of (name, factor) tuples, the factor objects themselves
 *
 * A literal rule ends where str.find finds it, plus its length (9999 when absent); "and" takes
 * the first part with the latest end, "or" the first with the earliest, as max()/min() pick.
 * Each cut c in 0..150 of the answer starts at 1 - max(c - 100, 0) / 50 and is multiplied by
 * the factor of every rule ending after it, rule by rule; cuts longer than the answer are
 * -inf; the chosen cut is numpy's argmax over the reversed cuts (the longest of the best, a
 * NaN first). Compiled without fused multiply-add (setup.py), so every float is numpy's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

#include "_kernel.h"

#define HELPFULNESS_WINDOW 200
#define LONGEST_CUT 150
#define NOT_FOUND 9999
#define KIND_LITERAL 0
#define KIND_AND 1
#define KIND_OR 2
/* the deepest rule tree read: keywords.KERNEL_RULE_DEPTH, whose deeper trees never come here */
#define MAX_DEPTH 32

typedef struct Node {
    int kind;
    PyObject *name;    /* borrowed from the rules; NULL when None */
    PyObject *literal; /* borrowed; literal rules only */
    Py_ssize_t literal_length;
    struct Node *parts;
    Py_ssize_t part_count;
} Node;

typedef struct {
    Node node;
    PyObject *factor_object; /* borrowed: the rule's factor as given, put into `missed` */
    double factor;
} Rule;

static void free_node(Node *node) {
    for (Py_ssize_t i = 0; i < node->part_count; i++) {
        free_node(&node->parts[i]);
    }
    PyMem_Free(node->parts);
    node->parts = NULL;
    node->part_count = 0;
}

static int read_node(PyObject *spec, Node *node, int depth) {
    memset(node, 0, sizeof(Node));
    PyObject *name, *literal, *parts;
    int kind;
    if (depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "rule tree too deep");
        return -1;
    }
    if (!PyTuple_CheckExact(spec) || !PyArg_ParseTuple(spec, "iOOO", &kind, &name, &literal, &parts)) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "a rule node is (kind, name, literal, parts)");
        }
        return -1;
    }
    if (name != Py_None && !PyUnicode_CheckExact(name)) {
        PyErr_SetString(PyExc_TypeError, "a rule's name must be a str or None");
        return -1;
    }
    node->kind = kind;
    node->name = name == Py_None ? NULL : name;
    if (kind == KIND_LITERAL) {
        if (!PyUnicode_CheckExact(literal)) {
            PyErr_SetString(PyExc_TypeError, "a literal rule needs a str");
            return -1;
        }
        node->literal = literal;
        node->literal_length = PyUnicode_GET_LENGTH(literal);
        return 0;
    }
    if (kind != KIND_AND && kind != KIND_OR) {
        PyErr_SetString(PyExc_ValueError, "a rule's kind is 0 (literal), 1 (and) or 2 (or)");
        return -1;
    }
    /* a tuple, as every container here: immutable, so the references borrowed from it stay
       alive for the whole call (the caller holds the rules) */
    if (!PyTuple_CheckExact(parts) || PyTuple_GET_SIZE(parts) < 1) {
        PyErr_SetString(PyExc_TypeError, "an 'and' or 'or' rule needs a tuple of parts");
        return -1;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(parts);
    node->parts = PyMem_Calloc((size_t)count, sizeof(Node));
    if (node->parts == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        node->part_count = i + 1; /* so that free_node frees what was read */
        if (read_node(PyTuple_GET_ITEM(parts, i), &node->parts[i], depth + 1) < 0) {
            free_node(node);
            return -1;
        }
    }
    return 0;
}

/* Where `node` is first satisfied in text[:window], and the name to report (borrowed). */
static Py_ssize_t node_end(const Node *node, PyObject *text, Py_ssize_t window, PyObject **name,
                           int *failed) {
    if (node->kind == KIND_LITERAL) {
        Py_ssize_t at = PyUnicode_Find(text, node->literal, 0, window, 1);
        if (at == -2) {
            *failed = 1;
            return NOT_FOUND;
        }
        *name = node->name != NULL ? node->name : node->literal;
        return at >= 0 ? at + node->literal_length : NOT_FOUND;
    }
    Py_ssize_t chosen = 0;
    PyObject *chosen_name = NULL;
    for (Py_ssize_t i = 0; i < node->part_count; i++) {
        PyObject *part_name = NULL;
        Py_ssize_t end = node_end(&node->parts[i], text, window, &part_name, failed);
        if (*failed) {
            return NOT_FOUND;
        }
        /* max()/min() keep the first of equal keys */
        if (i == 0 || (node->kind == KIND_AND ? end > chosen : end < chosen)) {
            chosen = end;
            chosen_name = part_name;
        }
    }
    *name = node->name != NULL ? node->name : chosen_name;
    return chosen;
}

/* The over-length entry's name, f"{over}字超過", as keywords.py writes it. */
static PyObject *over_length_name(Py_ssize_t over) {
    static PyObject *suffix = NULL; /* kept for the life of the process */
    if (suffix == NULL) {
        suffix = PyUnicode_FromString("\xe5\xad\x97\xe8\xb6\x85\xe9\x81\x8e"); /* 字超過 */
        if (suffix == NULL) {
            return NULL;
        }
    }
    PyObject *number = PyUnicode_FromFormat("%zd", over);
    if (number == NULL) {
        return NULL;
    }
    PyObject *name = PyUnicode_Concat(number, suffix);
    Py_DECREF(number);
    return name;
}

/* The (name, factor) tuples of the rules unmet at `cut`, and the over-length entry. */
static PyObject *missed_at(const Rule *rules, Py_ssize_t rule_count, const Py_ssize_t *ends,
                           PyObject *const *names, Py_ssize_t cut, double score) {
    PyObject *missed = PyList_New(0);
    if (missed == NULL) {
        return NULL;
    }
    for (Py_ssize_t r = 0; r < rule_count; r++) {
        if (cut < ends[r]) {
            PyObject *pair = PyTuple_Pack(2, names[r], rules[r].factor_object);
            if (pair == NULL || PyList_Append(missed, pair) < 0) {
                Py_XDECREF(pair);
                Py_DECREF(missed);
                return NULL;
            }
            Py_DECREF(pair);
        }
    }
    if (cut > 100 && score > 0) {
        PyObject *name = over_length_name(cut - 100);
        PyObject *factor = name == NULL ? NULL : PyFloat_FromDouble(1.0 - (double)(cut - 100) / 50.0);
        PyObject *pair = factor == NULL ? NULL : PyTuple_Pack(2, name, factor);
        Py_XDECREF(name);
        Py_XDECREF(factor);
        if (pair == NULL || PyList_Append(missed, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(missed);
            return NULL;
        }
        Py_DECREF(pair);
    }
    return missed;
}

/* The chosen cut of one answer and its value, from its rules' ends. */
static Py_ssize_t best_cut(const Rule *rules, Py_ssize_t rule_count, const Py_ssize_t *ends,
                           Py_ssize_t length, double *score) {
    double values[LONGEST_CUT + 1];
    for (Py_ssize_t cut = 0; cut <= LONGEST_CUT; cut++) {
        double value = 1.0 - (double)(cut > 100 ? cut - 100 : 0) / 50.0;
        for (Py_ssize_t r = 0; r < rule_count; r++) {
            if (cut < ends[r]) {
                value = value * rules[r].factor;
            }
        }
        values[cut] = cut <= length ? value : -INFINITY;
    }
    Py_ssize_t chosen = -1;
    for (Py_ssize_t cut = LONGEST_CUT; cut >= 0; cut--) { /* argmax of the reversed values */
        if (isnan(values[cut])) {
            chosen = cut; /* numpy's argmax stops at the first NaN */
            break;
        }
        if (chosen < 0 || values[cut] > values[chosen]) {
            chosen = cut;
        }
    }
    *score = values[chosen];
    return chosen;
}

/* One answer's score and missed rules, put at `i` of `scores` and `missed`; -1 on error. */
static int score_answer(const Rule *rules, Py_ssize_t rule_count, Py_ssize_t *ends,
                        PyObject **names, PyObject *text, Py_ssize_t i, PyObject *scores,
                        PyObject *missed) {
    if (!PyUnicode_Check(text) || STR_READY(text) < 0) {
        PyErr_Format(PyExc_TypeError, "answer %zd is not a str", i);
        return -1;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    Py_ssize_t window = length < HELPFULNESS_WINDOW ? length : HELPFULNESS_WINDOW;
    int failed = 0;
    for (Py_ssize_t r = 0; r < rule_count; r++) {
        ends[r] = node_end(&rules[r].node, text, window, &names[r], &failed);
        if (failed) {
            return -1;
        }
    }
    double score;
    Py_ssize_t cut = best_cut(rules, rule_count, ends, window, &score);
    PyObject *value = PyFloat_FromDouble(score);
    if (value == NULL) {
        return -1;
    }
    PyList_SET_ITEM(scores, i, value);
    PyObject *unmet = missed_at(rules, rule_count, ends, names, cut, score);
    if (unmet == NULL) {
        return -1;
    }
    PyList_SET_ITEM(missed, i, unmet);
    return 0;
}

PyObject *hyoka_helpfulness(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *rules_obj, *answers_obj;
    if (!PyArg_ParseTuple(args, "OO", &rules_obj, &answers_obj)) {
        return NULL;
    }
    PyObject *rules_held = NULL, *answers = NULL, *scores = NULL, *missed = NULL, *result = NULL;
    Rule *rules = NULL;
    Py_ssize_t *ends = NULL;
    PyObject **names = NULL;
    Py_ssize_t rule_count = 0, read = 0;

    if (!PyTuple_CheckExact(rules_obj)) {
        PyErr_SetString(PyExc_TypeError, "rules must be a tuple");
        return NULL;
    }
    rules_held = Py_NewRef(rules_obj);
    answers = PySequence_Tuple(answers_obj); /* a tuple of its own: nothing can shrink it */
    if (answers == NULL) {
        goto done;
    }
    rule_count = PyTuple_GET_SIZE(rules_held);
    Py_ssize_t slots = rule_count > 0 ? rule_count : 1;
    rules = PyMem_Calloc((size_t)slots, sizeof(Rule));
    ends = PyMem_Calloc((size_t)slots, sizeof(Py_ssize_t));
    names = PyMem_Calloc((size_t)slots, sizeof(PyObject *));
    if (rules == NULL || ends == NULL || names == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; read < rule_count; read++) {
        PyObject *node, *factor;
        PyObject *item = PyTuple_GET_ITEM(rules_held, read);
        if (!PyTuple_CheckExact(item) || !PyArg_ParseTuple(item, "OO", &node, &factor)) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "a rule is (node, factor)");
            }
            goto done;
        }
        /* an int or a float, whose conversion runs no Python code */
        if (!PyFloat_CheckExact(factor) && !PyLong_CheckExact(factor)) {
            PyErr_SetString(PyExc_TypeError, "a rule's factor must be an int or a float");
            goto done;
        }
        rules[read].factor = PyFloat_AsDouble(factor);
        if (rules[read].factor == -1.0 && PyErr_Occurred()) {
            goto done;
        }
        rules[read].factor_object = factor;
        if (read_node(node, &rules[read].node, 0) < 0) {
            goto done;
        }
    }
    Py_ssize_t count = PyTuple_GET_SIZE(answers);
    scores = PyList_New(count);
    missed = PyList_New(count);
    if (scores == NULL || missed == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (score_answer(rules, rule_count, ends, names, PyTuple_GET_ITEM(answers, i), i, scores,
                         missed) < 0) {
            goto done;
        }
    }
    result = PyTuple_Pack(2, scores, missed);
done:
    for (Py_ssize_t r = 0; r < read && rules != NULL; r++) {
        free_node(&rules[r].node);
    }
    PyMem_Free(rules);
    PyMem_Free(ends);
    PyMem_Free(names);
    Py_XDECREF(rules_held);
    Py_XDECREF(answers);
    Py_XDECREF(scores);
    Py_XDECREF(missed);
    return result;
}
