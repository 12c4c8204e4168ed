"""Scoring answers to one question: Fluency, Truthfulness, Helpfulness and their average.

The numbers and their rounding follow the reference implementation to the last bit
(pfgen-spec.md §3), because the public leaderboard was made with it: each reference set's
share of Fluency and Truthfulness is rounded to 6 decimals, Helpfulness to 5, the average to 5.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import repeat
from operator import add, truediv
from typing import Any

from hyoka.errors import DataError
from hyoka.pfgen._pysum import Summation, float_sum, plain_sum_is_compensated, summing
from hyoka.pfgen.engine import DamagedIndexError, kernel_values, use_kernel
from hyoka.pfgen.keywords import HelpfulnessResult, helpfulness
from hyoka.pfgen.ngram_index import NgramIndex
from hyoka.pfgen.ngram_metrics import fluency_ceiling, fluency_values, truthfulness_values
from hyoka.pfgen.ngram_trie import QuestionTrie, TrieColumn
from hyoka.pfgen.questions import QuestionInfo


@dataclass(frozen=True)
class ReferenceSet:
    """One named set of reference answers, indexed, with its Fluency baseline.

    ``trie`` is the question's combined trie and this set's column in it, where one was
    built or loaded with the set (``with_trie``): the kernel engine walks that instead of
    ``index``, which then is never read.
    """

    name: str
    index: NgramIndex
    baseline: float
    trie: TrieColumn | None = field(default=None, compare=False, repr=False)

    @classmethod
    def build(cls, name: str, answers: Sequence[str], where: str = "") -> ReferenceSet:
        index = NgramIndex.build(answers)
        total = 0.0
        for value in fluency_values(index, answers, 1.0).tolist():
            total += value  # left to right, as the reference accumulates it
        baseline = total / len(answers)
        if not baseline > 0:
            raise DataError(f"{where}: reference set '{name}' has no usable answers (baseline 0)")
        return cls(name=name, index=index, baseline=baseline)


def with_trie(sets: Sequence[ReferenceSet], trie: QuestionTrie | None = None) -> list[ReferenceSet]:
    """The sets of one question linked to their combined trie (built from them if not given)."""
    trie = trie or QuestionTrie.build([s.index for s in sets])
    return [replace(s, trie=TrieColumn(trie, k)) for k, s in enumerate(sets)]


@dataclass(frozen=True)
class AnswerScore:
    """The scores of one answer, each reference set's share kept apart as upstream does.

    ``fluency``/``truthfulness`` map a reference set to its share (the set's value divided by
    the number of sets, rounded to 6 decimals); their sums are the metrics themselves.
    ``missed`` lists the Helpfulness rules (name, factor) unmet at the chosen cut.
    """

    fluency_shares: dict[str, float]
    truthfulness_shares: dict[str, float]
    helpfulness: float
    missed: list[tuple[str, float]]
    average: float

    @property
    def fluency(self) -> float:
        return float_sum(self.fluency_shares.values())

    @property
    def truthfulness(self) -> float:
        return float_sum(self.truthfulness_shares.values())

    def to_upstream(self) -> dict[str, Any]:
        """The per-answer ``scores`` object of upstream result files, keys in their order."""
        return {
            "fluency": dict(self.fluency_shares),
            "fluency_discount": 1.0,
            "truthfulness": dict(self.truthfulness_shares),
            "helpfulness": self.helpfulness,
            "helpfulness_results": [list(m) for m in self.missed],
            "average": self.average,
        }


@dataclass(frozen=True)
class Measurement:
    """One answer's unrounded per-set values and Helpfulness: the same under any summation."""

    fluency: tuple[float, ...]
    truthfulness: tuple[float, ...]
    helpfulness: HelpfulnessResult


class QuestionScorer:
    """Scores any number of answers to one question against all of its reference sets.

    ``rebuild``, where the sets came from the index cache: what builds them again from the
    question file (and caches them again), should they turn out damaged when first walked
    (``DamagedIndexError``: bytes that fail their check, or a number no build makes): the
    scorer then walks the rebuilt sets instead, once. ``source``: the file they came from,
    named where their numbers are impossible and nothing can rebuild them."""

    def __init__(
        self,
        info: QuestionInfo,
        sets: Sequence[ReferenceSet],
        rebuild: Callable[[], Sequence[ReferenceSet]] | None = None,
        source: str | None = None,
    ) -> None:
        if not sets:
            raise DataError(f"question {info.question_id} has no reference sets")
        self.info = info
        self.sets = tuple(sets)
        self._names = tuple(s.name for s in self.sets)
        self._trie: tuple[QuestionTrie, list[int]] | None = None
        self._rebuild = rebuild
        self._source = source

    @property
    def set_names(self) -> tuple[str, ...]:
        return self._names

    def measure(self, answers: Sequence[str]) -> list[Measurement]:
        """The unrounded values of many answers: all sets in one walk of the question's trie
        (the compiled kernel), or set by set in one array pass (numpy); the same floats.
        Every value is checked against its metric's range (``_within``)."""
        try:
            return self._measure(answers)
        except DamagedIndexError:
            if self._rebuild is None:
                raise
            rebuilt = tuple(self._rebuild())
            if [s.name for s in rebuilt] != list(self._names):
                raise
            self.sets, self._trie, self._rebuild, self._source = rebuilt, None, None, None
            return self._measure(answers)

    def _measure(self, answers: Sequence[str]) -> list[Measurement]:
        where = f"question {self.info.question_id}"
        if self._source is not None:
            where += f" (reference index {self._source})"
        if use_kernel():
            trie, columns = self._question_trie()
            specs = [(c, s.baseline) for c, s in zip(columns, self.sets, strict=True)]
            fluency, truth = kernel_values(trie, specs, answers, where)
        else:
            fluency = [fluency_values(s.index, answers, s.baseline).tolist() for s in self.sets]
            truth = [truthfulness_values(s.index, answers).tolist() for s in self.sets]
        for s, fluency_row, truth_row in zip(self.sets, fluency, truth, strict=True):
            ceiling = fluency_ceiling(s.index.num_answers, s.baseline)
            _within(fluency_row, ceiling, f"{where}: Fluency against reference set {s.name!r}")
            _within(truth_row, 1.0, f"{where}: Truthfulness against reference set {s.name!r}")
        helpful = helpfulness(self.info.rules, answers)
        # one row per set -> one tuple per answer (``zip(*rows)``, no per-answer loop here)
        return [
            _measurement(f, t, h)
            for f, t, h in zip(
                zip(*fluency, strict=True), zip(*truth, strict=True), helpful, strict=True
            )
        ]

    def _question_trie(self) -> tuple[QuestionTrie, list[int]]:
        """The trie these sets came with and their columns in it; built once from their
        indexes when they came without one (or from different questions' tries)."""
        if self._trie is None:
            links = [s.trie for s in self.sets if s.trie is not None]
            if len(links) == len(self.sets) and len({id(link.trie) for link in links}) == 1:
                self._trie = links[0].trie, [link.column for link in links]
            else:
                built = QuestionTrie.build([s.index for s in self.sets])
                self._trie = built, list(range(len(self.sets)))
        return self._trie

    def finish(self, measured: Measurement, summation: Summation) -> AnswerScore:
        """Round as upstream does; only the average depends on the summation (and, with one
        or two sets, not even that: ``plain_sum_is_compensated``)."""
        count = len(self._names)
        fluency = [round(v / count, 6) for v in measured.fluency]
        truth = [round(v / count, 6) for v in measured.truthfulness]
        helpful = round(measured.helpfulness.score, 5)
        total = _share_sum(fluency, summation) + _share_sum(truth, summation)
        average = round((total + helpful) / 3, 5)
        return AnswerScore(
            dict(zip(self._names, fluency, strict=True)),
            dict(zip(self._names, truth, strict=True)),
            helpful,
            measured.helpfulness.missed,
            average,
        )

    def finish_many(
        self, measured: Sequence[Measurement], summation: Summation
    ) -> list[AnswerScore]:
        """``[finish(m, summation) for m in measured]``, the same floats, column by column:
        each step is one comprehension (or ``map`` of a built-in) over all the answers with
        Python's own ``round``, ``/``, ``+`` and sums in upstream's order, and no call of a
        Python function per answer; scoring a run spends most of its time after measuring
        here otherwise."""
        if not measured:
            return []
        names = self._names
        fluency, truth, helpful, averages = self._finished_columns(measured, summation)
        return [
            _answer_score(
                dict(zip(names, f, strict=True)),
                dict(zip(names, t, strict=True)),
                h,
                m.helpfulness.missed,
                a,
            )
            for f, t, h, m, a in zip(
                zip(*fluency, strict=True),
                zip(*truth, strict=True),
                helpful,
                measured,
                averages,
                strict=True,
            )
        ]

    def averages(self, measured: Sequence[Measurement], summation: Summation) -> list[float]:
        """``[s.average for s in finish_many(measured, summation)]``, the same floats,
        without building the scores: all that a run's score needs (``result.trials_score``)
        when a run is scored many ways and only its score is kept."""
        if not measured:
            return []
        return self._finished_columns(measured, summation)[3]

    def _finished_columns(
        self, measured: Sequence[Measurement], summation: Summation
    ) -> tuple[list[list[float]], list[list[float]], list[float], list[float]]:
        """The rounded Fluency and Truthfulness shares (one row per set), the rounded
        Helpfulness and the average of every answer, as ``finish`` rounds and sums them."""
        count = len(self._names)
        fluency = _rounded_shares([m.fluency for m in measured], count)
        truth = _rounded_shares([m.truthfulness for m in measured], count)
        helpful = [round(m.helpfulness.score, 5) for m in measured]
        averages = [
            round((f + t + h) / 3, 5)  # (fluency sum + truthfulness sum) + Helpfulness
            for f, t, h in zip(
                _column_sums(fluency, summation),
                _column_sums(truth, summation),
                helpful,
                strict=True,
            )
        ]
        return fluency, truth, helpful, averages

    def score(
        self, answers: Sequence[str], summation: Summation = Summation.COMPENSATED
    ) -> list[AnswerScore]:
        return self.finish_many(self.measure(answers), summation)

    @staticmethod
    def resum(score: AnswerScore, summation: Summation) -> AnswerScore:
        """``score`` (as ``finish`` made it) with its average summed by ``summation``:
        ``finish(m, s) == resum(finish(m, t), s)``, since the rounded shares and Helpfulness
        do not depend on the summation. Trying the other summation on a run costs this; with
        one or two sets nothing (the same score: ``plain_sum_is_compensated``)."""
        fluency, truth = score.fluency_shares, score.truthfulness_shares
        if plain_sum_is_compensated(len(fluency)) and plain_sum_is_compensated(len(truth)):
            return score
        total = _share_sum(fluency.values(), summation) + _share_sum(truth.values(), summation)
        average = round((total + score.helpfulness) / 3, 5)
        return AnswerScore(fluency, truth, score.helpfulness, score.missed, average)

    @staticmethod
    def resum_many(scores: Sequence[AnswerScore], summation: Summation) -> list[AnswerScore]:
        """``[resum(s, summation) for s in scores]``, the same floats, in maps of built-ins
        (as ``finish_many``); ``scores`` themselves where all have one or two sets."""
        fluency = [s.fluency_shares for s in scores]
        truth = [s.truthfulness_shares for s in scores]
        if all(map(plain_sum_is_compensated, map(len, fluency))) and all(
            map(plain_sum_is_compensated, map(len, truth))
        ):
            return list(scores)
        helpful = [s.helpfulness for s in scores]
        add_up = summing(summation)
        totals = map(
            add, map(add_up, map(dict.values, fluency)), map(add_up, map(dict.values, truth))
        )
        averages = map(round, map(truediv, map(add, totals, helpful), repeat(3)), repeat(5))
        return list(
            map(_answer_score, fluency, truth, helpful, [s.missed for s in scores], averages)
        )


def _within(values: list[float], ceiling: float, what: str) -> None:
    """``values`` all in [0, ``ceiling``], or a ``DamagedIndexError``: only a damaged
    reference index gives a value outside the range of its metric, and an average made of it
    would be outside the average's (a run scored far above 1)."""
    total = sum(values, 0.0)  # NaN where any value is
    if not values or (min(values) >= 0.0 and max(values) <= ceiling and total == total):
        return
    bad = next(v for v in values if not 0.0 <= v <= ceiling)
    raise DamagedIndexError(
        f"{what} is {bad!r} for an answer, outside its range [0, {ceiling:.6g}]: the index "
        "is damaged; nothing was scored with it"
    )


def _share_sum(shares: Collection[float], summation: Summation) -> float:
    """``float_sum(shares, summation)``: one or two shares (most questions have one or three
    sets) add alike under both summations, so C's built-in ``sum`` adds them (compensated on
    CPython >= 3.12, left to right before: the same here)."""
    if plain_sum_is_compensated(len(shares)):
        return sum(shares, 0.0)
    return float_sum(shares, summation)


def _rounded_shares(values: list[tuple[float, ...]], count: int) -> list[list[float]]:
    """Each set's shares of every answer (one row per set): ``round(value / count, 6)``."""
    if any(len(row) != count for row in values):
        raise ValueError(f"a measurement of another number of sets than {count}")
    return [[round(v / count, 6) for v in column] for column in zip(*values, strict=True)]


def _column_sums(rows: list[list[float]], summation: Summation) -> Iterator[float]:
    """``float_sum`` of each answer's shares (one per row), answer by answer."""
    if plain_sum_is_compensated(len(rows)):
        return map(sum, zip(*rows, strict=True), repeat(0.0))
    return map(summing(summation), zip(*rows, strict=True))


# Built by the hundred thousand (one of each per distinct answer of a run), these frozen
# dataclasses are made here without their generated ``__init__``, whose ``object.__setattr__``
# per field costs 0.7 us of the 1 us: the same objects, every field set in their ``__dict__``
# (``tests/pfgen/test_pfgen_finish.py`` checks they equal the ones ``__init__`` makes, field
# for field).
_new = object.__new__


def _answer_score(
    fluency: dict[str, float],
    truth: dict[str, float],
    helpful: float,
    missed: list[tuple[str, float]],
    average: float,
) -> AnswerScore:
    score = _new(AnswerScore)
    fields = score.__dict__
    fields["fluency_shares"] = fluency
    fields["truthfulness_shares"] = truth
    fields["helpfulness"] = helpful
    fields["missed"] = missed
    fields["average"] = average
    return score


def _measurement(
    fluency: tuple[float, ...], truth: tuple[float, ...], helpful: HelpfulnessResult
) -> Measurement:
    measured = _new(Measurement)
    fields = measured.__dict__
    fields["fluency"] = fluency
    fields["truthfulness"] = truth
    fields["helpfulness"] = helpful
    return measured
