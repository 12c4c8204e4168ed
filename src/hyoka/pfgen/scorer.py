"""Scoring answers to one question: Fluency, Truthfulness, Helpfulness and their average.

The numbers and their rounding follow the reference implementation to the last bit
(pfgen-spec.md §3), because the public leaderboard was made with it: each reference set's
share of Fluency and Truthfulness is rounded to 6 decimals, Helpfulness to 5, the average to 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hyoka.errors import DataError
from hyoka.pfgen._pysum import Summation, float_sum
from hyoka.pfgen.keywords import helpfulness
from hyoka.pfgen.ngram_index import NgramIndex
from hyoka.pfgen.ngram_metrics import fluency_values, truthfulness_values
from hyoka.pfgen.questions import QuestionInfo


@dataclass(frozen=True)
class ReferenceSet:
    """One named set of reference answers, indexed, with its Fluency baseline."""

    name: str
    index: NgramIndex
    baseline: float

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


class QuestionScorer:
    """Scores any number of answers to one question against all of its reference sets."""

    def __init__(self, info: QuestionInfo, sets: Sequence[ReferenceSet]) -> None:
        if not sets:
            raise DataError(f"question {info.question_id} has no reference sets")
        self.info = info
        self.sets = tuple(sets)

    def score(
        self, answers: Sequence[str], summation: Summation = Summation.COMPENSATED
    ) -> list[AnswerScore]:
        count = len(self.sets)
        fluency = [fluency_values(s.index, answers, s.baseline).tolist() for s in self.sets]
        truth = [truthfulness_values(s.index, answers).tolist() for s in self.sets]
        helpful = helpfulness(self.info.rules, answers)
        names = [s.name for s in self.sets]
        scores: list[AnswerScore] = []
        for i, h in enumerate(helpful):
            fluency_shares = {n: round(fluency[k][i] / count, 6) for k, n in enumerate(names)}
            truth_shares = {n: round(truth[k][i] / count, 6) for k, n in enumerate(names)}
            rounded_help = round(h.score, 5)
            average = round(
                (
                    float_sum(fluency_shares.values(), summation)
                    + float_sum(truth_shares.values(), summation)
                    + rounded_help
                )
                / 3,
                5,
            )
            scores.append(
                AnswerScore(fluency_shares, truth_shares, rounded_help, h.missed, average)
            )
        return scores
