"""Aggregating scored answers into ``result.json``, number for number as upstream does.

The repeated rounding, the order of summation and the sample picks are all part of the
published numbers (pfgen-spec.md §4); the comments below say where each one comes from.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from hyoka.pfgen._pysum import Summation, float_sum
from hyoka.pfgen.scorer import AnswerScore

ScoredAnswer = tuple[dict[str, Any], AnswerScore]
SAMPLE_RANKS = (0.0, 0.25, 0.5, 0.75, 1.0)


def mean_std(values: Sequence[float], ndigits: int, summation: Summation) -> tuple[float, float]:
    """Mean and population standard deviation, each rounded."""
    mean = float_sum(values, summation) / len(values)
    std = math.sqrt(float_sum([(x - mean) ** 2 for x in values], summation) / len(values))
    return round(mean, ndigits), round(std, ndigits)


def build_result(
    by_question: Mapping[str, list[ScoredAnswer]],
    *,
    input_hash: str,
    metadata_hash: str,
    config: dict[str, Any] | None,
    summation: Summation,
) -> dict[str, Any]:
    """The upstream ``result.json`` object for one run.

    ``by_question`` maps question ids to (input record, score) pairs in input-file order.
    """
    data = dict(sorted(by_question.items()))
    result: dict[str, Any] = {"input_hash": input_hash, "metadata_hash": metadata_hash}
    if config is not None:
        result["config"] = config
    result["num_trials"] = min(len(answers) for answers in data.values())
    averages = {q: [s.average for _, s in answers] for q, answers in data.items()}
    result["score"], result["score_std"] = trials_score(averages, summation)
    lengths = [float(len(r["answer"])) for answers in data.values() for r, _ in answers]
    result["length"], result["length_std"] = mean_std(lengths, 1, summation)

    totals: dict[str, Any] = {"fluency": {}, "truthfulness": {}}
    questions: dict[str, Any] = {}
    for question_id, answers in data.items():
        # best first; the sort is stable, so equal averages keep input order
        ranked = sorted(answers, key=lambda item: item[1].average, reverse=True)
        means = _question_means(ranked, summation)
        for metric in ("fluency", "truthfulness"):
            for name, value in means[metric].items():
                previous = totals[metric].get(name, 0.0)
                totals[metric][name] = round(previous + value / len(data), 5)
        for metric in ("helpfulness", "average"):
            totals[metric] = round(totals.get(metric, 0.0) + means[metric] / len(data), 5)
        entry: dict[str, Any] = {"question": ranked[0][0]["question"]}
        entry["score"], entry["score_std"] = mean_std([s.average for _, s in ranked], 4, summation)
        lengths = [float(len(r["answer"])) for r, _ in ranked]
        entry["length"], entry["length_std"] = mean_std(lengths, 1, summation)
        entry["scores"] = means
        entry["samples"] = _samples(ranked)
        questions[question_id] = entry
    result["scores"] = totals
    result["questions"] = questions
    return result


def trials_score(
    averages: Mapping[str, Sequence[float]], summation: Summation
) -> tuple[float, float]:
    """A run's ``score`` and ``score_std`` from each question's answers' averages (input
    order): ``build_result``'s, the same floats, for callers that need no more of the
    result (a run scored many ways). Upstream takes each trial's mean over the questions
    (in sorted order), then their mean and deviation."""
    per_question = [averages[q] for q in sorted(averages)]
    trial_means = [
        float_sum(trial, summation) / len(trial) for trial in zip(*per_question, strict=False)
    ]
    return mean_std(trial_means, 4, summation)


def _question_means(ranked: list[ScoredAnswer], summation: Summation) -> dict[str, Any]:
    count = len(ranked)
    first = ranked[0][1]
    means: dict[str, Any] = {"fluency": {}, "truthfulness": {}}
    for name in first.fluency_shares:
        shares = [s.fluency_shares[name] for _, s in ranked]
        means["fluency"][name] = round(float_sum(shares, summation) / count, 5)
    for name in first.truthfulness_shares:
        shares = [s.truthfulness_shares[name] for _, s in ranked]
        means["truthfulness"][name] = round(float_sum(shares, summation) / count, 5)
    means["helpfulness"] = round(
        float_sum([s.helpfulness for _, s in ranked], summation) / count, 5
    )
    means["average"] = round(float_sum([s.average for _, s in ranked], summation) / count, 5)
    return means


def _samples(ranked: list[ScoredAnswer]) -> list[dict[str, Any]]:
    """The answers at the best, quartile, median and worst ranks (each index once)."""
    samples: list[dict[str, Any]] = []
    seen: set[int] = set()
    for rank in SAMPLE_RANKS:
        index = round(rank * (len(ranked) - 1))
        if index in seen:
            continue
        seen.add(index)
        record, score = ranked[index]
        sample = {k: v for k, v in record.items() if k != "question"}
        sample["scores"] = score.to_upstream()
        samples.append(sample)
    return samples
