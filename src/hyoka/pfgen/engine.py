"""Which engine walks the n-grams of Fluency and Truthfulness: the compiled kernel or numpy.

The kernel (``_ngram_kernel.c``, built by ``pip install`` where a C compiler is found) walks
each question's combined trie (``ngram_trie``); the numpy engine (``ngram_metrics``) walks
each reference set's sorted keys. Both give the same floats bit for bit (the kernel mirrors
numpy's every operation, and ``tests/pfgen/test_pfgen_kernel.py`` compares them on random answers
and on every public run), so the engine is not part of any result's signature: it changes
how fast a number is made, never the number.

The kernel is used when it imports; otherwise numpy, with one note per process. The
environment variable ``HYOKA_PFGEN_ENGINE`` forces one (``kernel`` or ``numpy``); a forced
kernel that cannot load is an error, never a silent fallback.
"""

from __future__ import annotations

import importlib
import os
import warnings
from array import array
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from hyoka.errors import DataError, HyokaWarning, InputError
from hyoka.pfgen.ngram_metrics import TRUTHFULNESS_SKIPPED
from hyoka.pfgen.ngram_trie import DF_COLUMNS_START

if TYPE_CHECKING:
    from hyoka.pfgen.ngram_trie import QuestionTrie

#: Names the engine to force: ``kernel`` or ``numpy``; unset or empty, the kernel if it loads.
ENGINE_ENV = "HYOKA_PFGEN_ENGINE"
KERNEL = "kernel"
NUMPY = "numpy"

#: Answers per call of the kernel: it copies each call's answers (804 bytes each) before
#: walking them without the GIL, so a million answers are walked a slice at a time.
KERNEL_CHUNK = 1 << 14


class DamagedIndexError(DataError):
    """A reference index that cannot be what was built from its question: bytes that fail
    their check when first read (a cache entry that rotted on disk, ``index_cache``), or a
    number no build makes (a count of answers larger than its set, a value outside its
    metric's range). Nothing is scored with it; one that came from the cache is removed and
    rebuilt (``QuestionScorer.measure``)."""


_kernel: ModuleType | None = None
_kernel_problem: str | None = None
_noted = False


def kernel_module() -> ModuleType | None:
    """The compiled kernel, imported once, or None where it is not built (whatever
    ``HYOKA_PFGEN_ENGINE`` says: its compensated sum serves either engine, ``_pysum``)."""
    global _kernel, _kernel_problem
    if _kernel is None and _kernel_problem is None:
        try:
            _kernel = importlib.import_module("hyoka.pfgen._ngram_kernel")
        except ImportError as exc:
            _kernel_problem = str(exc) or type(exc).__name__
    return _kernel


def _required_kernel() -> ModuleType:
    kernel = kernel_module()
    if kernel is None:
        raise InputError(f"the compiled kernel does not load ({_kernel_problem})")
    return kernel


def use_kernel() -> bool:
    """Whether this process walks with the kernel (see the module docstring)."""
    global _noted
    forced = os.environ.get(ENGINE_ENV, "").strip()
    if forced == NUMPY:
        return False
    if forced not in ("", KERNEL):
        raise InputError(f"{ENGINE_ENV}={forced!r}: use {KERNEL!r} or {NUMPY!r}")
    if kernel_module() is not None:
        return True
    if forced == KERNEL:
        raise InputError(
            f"{ENGINE_ENV}={KERNEL} but the compiled kernel does not load ({_kernel_problem}): "
            "reinstall hyoka where a C compiler is found, or unset it"
        )
    if not _noted:
        _noted = True
        warnings.warn(
            "pfgen scoring runs on the numpy engine (same numbers, several times slower): "
            "the compiled kernel is not built; reinstall hyoka where a C compiler is found",
            HyokaWarning,
            stacklevel=2,
        )
    return False


#: A Helpfulness rule as the kernel reads it: (kind 0 literal / 1 and / 2 or, name, literal, parts).
RuleNode = tuple[int, str | None, str | None, tuple["RuleNode", ...]]


def kernel_helpfulness(
    rules: tuple[tuple[RuleNode, float], ...], answers: Sequence[str]
) -> tuple[list[float], list[list[tuple[str, float]]]]:
    """Helpfulness of every answer to literal ``rules`` (``keywords.helpfulness``'s fast path):
    the scores and, per answer, the (name, factor) of each rule missed at the chosen cut."""
    scores, missed = _required_kernel().helpfulness(rules, answers)
    return scores, missed


def kernel_values(
    trie: QuestionTrie,
    sets: Sequence[tuple[int, float]],
    answers: Sequence[str],
    where: str = "the question",
) -> tuple[list[list[float]], list[list[float]]]:
    """Fluency and Truthfulness of every answer against some sets of ``trie``.

    ``sets`` gives, per output row, the set's column in the trie and its Fluency baseline;
    the result holds one row per set and one value per answer, as the numpy engine's
    ``fluency_values`` / ``truthfulness_values`` give them set by set (``.tolist()``).
    The kernel writes into plain ``array('d')`` buffers: this path never imports numpy.
    A count of answers larger than its set (which only a damaged trie holds) is a
    ``DamagedIndexError`` naming ``where``, not a number.
    """
    kernel = _required_kernel()
    specs = [(column, trie.num_answers[column], baseline) for column, baseline in sets]
    fluency_rows: list[list[float]] = [[] for _ in sets]
    truth_rows: list[list[float]] = [[] for _ in sets]
    for start in range(0, len(answers), KERNEL_CHUNK):
        part = answers[start : start + KERNEL_CHUNK]
        size = len(sets) * len(part)
        fluency = array("d", bytes(8 * size))
        truthfulness = array("d", bytes(8 * size))
        too_large = kernel.measure(
            trie.table,
            DF_COLUMNS_START + trie.set_count,
            specs,
            part,
            TRUTHFULNESS_SKIPPED,
            fluency,
            truthfulness,
        )
        if too_large:
            raise DamagedIndexError(
                f"{where}: its reference index counts more answers holding an n-gram than its "
                f"set has ({too_large} such counts read): the index is damaged; nothing was "
                "scored with it"
            )
        for row in range(len(sets)):  # the kernel's rows: one set each, one value per answer
            cells = slice(row * len(part), (row + 1) * len(part))
            fluency_rows[row].extend(fluency[cells])
            truth_rows[row].extend(truthfulness[cells])
    return fluency_rows, truth_rows
