"""Why an answer scored what it scored: the pfgen metrics taken apart, character by character.

A pfgen score is three numbers; a model team wants to know *where* in the answer they came
from. The explanation answers that with the scorer's own pieces, never a second
implementation of the metrics (a re-implementation drifts and then explains a score that
was never given):

- Truthfulness: per character, the largest document frequency of the 3-grams covering it
  (the very array ``truthfulness_values`` averages). A character whose support is below
  saturation (0.5% of a set's answers) pulls Truthfulness down: a likely hallucination.
- Fluency: the prefix length at which ``S(L)·d(L)`` peaks (from the same per-prefix gains
  ``fluency_values`` sums), and the share of the answer covered by 10-grams frequent in the
  reference set (the long, fluent stretches Fluency rewards).
- Length: where the length discount starts (100 characters) and reaches zero (150).
- Helpfulness: each keyword rule, where in the answer it was met, or that it was missed.
- The nearest reference answers (most shared character 3-grams), for contrast.

The headline numbers are the scorer's own (``QuestionScorer.score``), so the explanation
always agrees with the score.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from hyoka.errors import DataError
from hyoka.pfgen._codepoints import CODEPOINT_BITS, CodepointBatch, encode
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.keywords import HELPFULNESS_WINDOW, NOT_FOUND, helpfulness
from hyoka.pfgen.ngram_metrics import (
    _POSITION_BITS,
    FLUENCY_WINDOW,
    TRUTHFULNESS_SATURATION,
    TRUTHFULNESS_SKIPPED,
    TRUTHFULNESS_WINDOW,
    _covering_support,
    _first_occurrence_gains,
    fluency_values,
    length_discount,
    truthfulness_values,
)
from hyoka.pfgen.questions import QuestionFile
from hyoka.pfgen.scorer import AnswerScore, QuestionScorer, ReferenceSet

#: Where the length discount starts (characters) and where it reaches zero.
DISCOUNT_START = 100
DISCOUNT_ZERO = 150
#: A 10-gram counts as frequent when this share of a set's answers contain it: the same
#: 0.5% at which a 3-gram's Truthfulness support saturates.
FREQUENT_SHARE = 1.0 / TRUTHFULNESS_SATURATION
FLUENCY_NGRAM = 10
#: n-gram length used to find the nearest reference answers.
NEAREST_NGRAM = 3
NEAREST_COUNT = 3


@dataclass(frozen=True)
class SetExplanation:
    """One reference set's view of the answer (values before the 1/K share and rounding).

    ``weak[i]`` is True where character i of the answer is counted by Truthfulness and its
    3-gram support is below saturation; ``support[i]`` is that support as a share of full
    (0..1; 1 for skipped characters and characters past the window, which never count).
    ``frequent[i]`` is True where a 10-gram frequent in this set covers character i.
    """

    name: str
    answers: int
    fluency: float
    truthfulness: float
    best_prefix: int
    support: tuple[float, ...]
    weak: tuple[bool, ...]
    frequent: tuple[bool, ...]

    @property
    def frequent_share(self) -> float:
        return sum(self.frequent) / len(self.frequent) if self.frequent else 0.0


@dataclass(frozen=True)
class RuleOutcome:
    """A Helpfulness rule: its name, weight, where it was first met (None: not met)."""

    name: str
    importance: float
    end: int | None
    met: bool


@dataclass(frozen=True)
class NearestReference:
    set_name: str
    text: str
    similarity: float


@dataclass(frozen=True)
class Explanation:
    """Everything the report and the terminal show about one answer to one question."""

    question_id: str
    question: str
    answer: str
    score: AnswerScore
    sets: tuple[SetExplanation, ...]
    rules: tuple[RuleOutcome, ...]
    over_length: str | None
    nearest: tuple[NearestReference, ...]

    @property
    def length(self) -> int:
        return len(self.answer)

    @property
    def discount_start(self) -> int:
        return DISCOUNT_START

    @property
    def discount_zero(self) -> int:
        return DISCOUNT_ZERO

    @property
    def weak(self) -> tuple[bool, ...]:
        """Per character: weak in at least half of the reference sets (the consensus)."""
        if not self.sets:
            return tuple(False for _ in self.answer)
        votes = np.sum([s.weak for s in self.sets], axis=0)
        return tuple(bool(v * 2 >= len(self.sets)) for v in votes)

    @property
    def weak_share(self) -> float:
        counted = [c for c in self.answer[: TRUTHFULNESS_WINDOW - 2] if c not in _SKIPPED]
        if not counted:
            return 0.0
        return sum(self.weak[: TRUTHFULNESS_WINDOW - 2]) / len(counted)

    @property
    def frequent_share(self) -> float:
        """Mean over sets of the share of characters covered by frequent 10-grams."""
        return float(np.mean([s.frequent_share for s in self.sets])) if self.sets else 0.0

    def weak_spans(self) -> list[tuple[int, int]]:
        """Runs of weak characters as ``(start, end)`` offsets into the answer."""
        return _runs(self.weak)

    def to_json(self) -> dict[str, object]:
        return {
            "question_id": self.question_id,
            "answer": self.answer,
            "fluency": self.score.fluency,
            "truthfulness": self.score.truthfulness,
            "helpfulness": self.score.helpfulness,
            "average": self.score.average,
            "length": self.length,
            "weak_spans": self.weak_spans(),
            "frequent_share": self.frequent_share,
            "rules": [r.__dict__ for r in self.rules],
            "over_length": self.over_length,
            "nearest": [n.__dict__ for n in self.nearest],
        }


_SKIPPED = frozenset(TRUTHFULNESS_SKIPPED)


def _runs(flags: tuple[bool, ...]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for i, flag in enumerate((*flags, False)):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            spans.append((start, i))
            start = None
    return spans


def explain(
    benchmark: PfgenBenchmark,
    question_id: str,
    answer: str,
    *,
    references: ReferencePool | None = None,
) -> Explanation:
    """Explain ``answer`` to ``question_id`` (id or exact text) with the benchmark's scorer.

    ``references`` (``ReferencePool.of(reference_answers(...))``) saves re-reading and
    re-indexing the question's reference answers when many answers to it are explained.
    """
    return explain_many(benchmark, question_id, [answer], references=references)[0]


def explain_many(
    benchmark: PfgenBenchmark,
    question_id: str,
    answers: Sequence[str],
    *,
    references: ReferencePool | None = None,
) -> list[Explanation]:
    """Explain many answers to one question: each metric piece runs once over all of them,
    in the same array passes the scorer makes."""
    scorer = benchmark.scorer(question_id)
    info = scorer.info
    answers = list(answers)
    scores = scorer.score(answers)
    per_set = [_explain_set(s, answers) for s in scorer.sets]
    helped = helpfulness(info.rules, answers)
    pool = references
    if pool is None:
        pool = ReferencePool.of(reference_answers(benchmark, info.question_id))
    explanations = []
    for i, answer in enumerate(answers):
        rules, over_length = _rule_outcomes(scorer, answer, helped[i].missed)
        explanations.append(
            Explanation(
                question_id=info.question_id,
                question=info.question,
                answer=answer,
                score=scores[i],
                sets=tuple(explained[i] for explained in per_set),
                rules=rules,
                over_length=over_length,
                nearest=pool.nearest(answer),
            )
        )
    return explanations


def reference_answers(benchmark: PfgenBenchmark, question_id: str) -> dict[str, list[str]]:
    """The reference answer sets of a question, read from its file (not kept in the index)."""
    path = benchmark.folder / f"{question_id}.json"
    if not path.exists():
        raise DataError(f"{path}: question file not found")
    return QuestionFile.read(path).parse()[1]


def _split(values: npt.NDArray[Any], batch: CodepointBatch) -> list[npt.NDArray[Any]]:
    """A per-code-point array of a batch cut into one array per string."""
    return [
        values[start : start + n]
        for start, n in zip(batch.starts.tolist(), batch.lengths.tolist(), strict=True)
    ]


def _explain_set(reference: ReferenceSet, answers: list[str]) -> list[SetExplanation]:
    index = reference.index
    fluency = fluency_values(index, answers, reference.baseline).tolist()
    truthfulness = truthfulness_values(index, answers).tolist()
    prefixes = _best_prefixes(reference, answers)
    supports = _wrapped_supports(reference, answers)
    frequents = _frequent(reference, answers)
    out = []
    for i, answer in enumerate(answers):
        share = supports[i]
        counted = [
            c not in _SKIPPED and not np.isnan(v)
            for c, v in zip(answer, share.tolist(), strict=True)
        ]
        out.append(
            SetExplanation(
                name=reference.name,
                answers=index.num_answers,
                fluency=fluency[i],
                truthfulness=truthfulness[i],
                best_prefix=prefixes[i],
                support=tuple(
                    float(v) if k else 1.0 for v, k in zip(share.tolist(), counted, strict=True)
                ),
                weak=tuple(
                    bool(k and v < 1.0) for v, k in zip(share.tolist(), counted, strict=True)
                ),
                frequent=tuple(bool(c) for c in frequents[i].tolist()),
            )
        )
    return out


def _best_prefixes(reference: ReferenceSet, answers: list[str]) -> list[int]:
    """Per answer, the prefix length L at which Fluency's ``S(L)·d(L)`` peaks (0: nothing
    positive), from the per-prefix gains ``fluency_values`` sums."""
    texts = [a[:FLUENCY_WINDOW] for a in answers]
    chunk = 1 << reference.index.spare_bits(_POSITION_BITS)
    lengths = np.arange(1, FLUENCY_WINDOW + 1, dtype=np.int64)
    best: list[int] = []
    for first in range(0, len(texts), chunk):
        part = texts[first : first + chunk]
        batch = encode(part)
        gains = _first_occurrence_gains(reference.index, batch).reshape(len(part), FLUENCY_WINDOW)
        values = np.cumsum(gains, axis=1) * length_discount(lengths)[None, :]
        values[lengths[None, :] > batch.lengths[:, None]] = -np.inf
        peak = np.argmax(values, axis=1)
        peak_values = values[np.arange(len(part)), peak]
        best += [
            int(p) + 1 if v > 0 else 0
            for p, v in zip(peak.tolist(), peak_values.tolist(), strict=True)
        ]
    return best


def _wrapped_supports(reference: ReferenceSet, answers: list[str]) -> list[npt.NDArray[np.float64]]:
    """Per answer, per character: the covering 3-gram support as a share of saturation
    (0..1), computed on the wrapped ``^answer$`` exactly as Truthfulness sees it; NaN past
    the window (Truthfulness never looks there)."""
    wrapped = [f"^{a[: TRUTHFULNESS_WINDOW - 1]}$"[:TRUTHFULNESS_WINDOW] for a in answers]
    batch = encode(wrapped)
    support = _covering_support(reference.index, batch)
    share = np.minimum(1.0, support / reference.index.num_answers * TRUTHFULNESS_SATURATION)
    out = []
    for answer, row in zip(answers, _split(share, batch), strict=True):
        values = np.full(len(answer), np.nan)
        inside = min(len(answer), len(row) - 1)
        values[:inside] = row[1 : inside + 1]
        out.append(values)
    return out


def _frequent(reference: ReferenceSet, answers: list[str]) -> list[npt.NDArray[np.bool_]]:
    """Per answer, per character: covered by a 10-gram that at least 0.5% of the set's
    answers hold (only the first 200 characters, the ones Fluency reads)."""
    index = reference.index
    texts = [a[:FLUENCY_WINDOW] for a in answers]
    covered = [np.zeros(len(a), dtype=bool) for a in answers]
    batch = encode(texts)
    levels = index.lookup(batch, FLUENCY_NGRAM)
    if len(levels) < FLUENCY_NGRAM:
        return covered
    df = index.frequencies(FLUENCY_NGRAM, levels[-1])
    hits = df >= FREQUENT_SHARE * index.num_answers
    for i, row in enumerate(_split(hits, batch)):
        for start in np.flatnonzero(row).tolist():
            covered[i][start : start + FLUENCY_NGRAM] = True
    return covered


def _rule_outcomes(
    scorer: QuestionScorer, answer: str, scored_missed: list[tuple[str, float]]
) -> tuple[tuple[RuleOutcome, ...], str | None]:
    """Each rule met or missed at the cut Helpfulness chose (the scorer's own ``missed``,
    listed in rule order, then the over-length note)."""
    text = answer[:HELPFULNESS_WINDOW]
    missed = list(scored_missed)
    outcomes: list[RuleOutcome] = []
    for rule in scorer.info.rules:
        end, name = rule.end(text)
        entry = (name, rule.factor)
        was_missed = bool(missed) and missed[0] == entry
        if was_missed:
            missed.pop(0)
        outcomes.append(
            RuleOutcome(
                name=name,
                importance=1 - rule.factor,
                end=None if end == NOT_FOUND else end,
                met=not was_missed,
            )
        )
    over = missed[0][0] if missed else None  # the scorer's "N字超過" note, when present
    return tuple(outcomes), over


def _gram_keys(texts: list[str]) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64]]:
    """Every character 3-gram of ``texts`` packed into one uint64 (3 × 21 bits), with the
    number of the text it comes from."""
    batch = encode(texts)
    starts = np.flatnonzero(batch.remaining() >= NEAREST_NGRAM)
    points = batch.codepoints.astype(np.uint64)
    keys = np.zeros(len(starts), dtype=np.uint64)
    for offset in range(NEAREST_NGRAM):
        keys = (keys << np.uint64(CODEPOINT_BITS)) | points[starts + offset]
    return keys, batch.owner()[starts]


@dataclass(frozen=True)
class ReferencePool:
    """A question's distinct reference answers with a sorted index of their 3-grams, so
    finding the nearest ones for an answer is a few array operations."""

    entries: tuple[tuple[str, str], ...]  # (set name, text)
    sizes: npt.NDArray[np.int64]  # distinct 3-grams per entry
    keys: npt.NDArray[np.uint64]  # sorted (3-gram, entry) pairs, each once
    owners: npt.NDArray[np.int64]

    @classmethod
    def of(cls, references: dict[str, list[str]]) -> ReferencePool:
        first_set: dict[str, str] = {}
        for set_name, texts in references.items():
            for text in texts:
                first_set.setdefault(text, set_name)
        texts = list(first_set)
        raw_keys, raw_owners = _gram_keys(texts)
        # distinct (3-gram, entry) pairs sorted by 3-gram: rank the grams, pack rank and
        # entry into one integer, one more sort
        # (np.unique is avoided: numpy 2's hash-based path is slow on these keys)
        order = np.argsort(raw_keys)
        ordered = raw_keys[order]
        new = np.ones(len(ordered), dtype=bool)
        new[1:] = ordered[1:] != ordered[:-1]
        rank = np.empty(len(ordered), dtype=np.int64)
        rank[order] = np.cumsum(new) - 1
        width = max(len(texts), 1)
        pairs = np.sort(rank * width + raw_owners)
        first = np.ones(len(pairs), dtype=bool)
        first[1:] = pairs[1:] != pairs[:-1]
        pairs = pairs[first]
        keys, owners = ordered[new][pairs // width], pairs % width
        return cls(
            entries=tuple((first_set[t], t) for t in texts),
            sizes=np.bincount(owners, minlength=len(texts)).astype(np.int64),
            keys=keys,
            owners=owners,
        )

    def nearest(self, answer: str, count: int = NEAREST_COUNT) -> tuple[NearestReference, ...]:
        """The entries sharing the most 3-grams with ``answer`` (Jaccard), best first."""
        mine = np.sort(_gram_keys([answer])[0])
        if len(mine) > 1:
            mine = mine[np.concatenate(([True], mine[1:] != mine[:-1]))]
        if len(mine) == 0 or len(self.keys) == 0:
            return ()
        left = np.searchsorted(self.keys, mine, side="left")
        right = np.searchsorted(self.keys, mine, side="right")
        lengths = right - left
        total = int(lengths.sum())
        if total == 0:
            return ()
        run_starts = np.repeat(left - np.cumsum(lengths) + lengths, lengths)
        positions = run_starts + np.arange(total, dtype=np.int64)
        shared = np.bincount(self.owners[positions], minlength=len(self.entries))
        similarity = shared / (len(mine) + self.sizes - shared)
        order = np.lexsort((np.arange(len(self.entries)), -similarity))[:count]
        return tuple(
            NearestReference(self.entries[i][0], self.entries[i][1], float(similarity[i]))
            for i in order.tolist()
            if shared[i] > 0
        )


def nearest_references(
    answer: str, references: dict[str, list[str]], count: int = NEAREST_COUNT
) -> tuple[NearestReference, ...]:
    """The reference answers sharing the most character 3-grams with ``answer`` (Jaccard)."""
    return ReferencePool.of(references).nearest(answer, count)


def explanation_json(explanation: Explanation) -> str:
    return json.dumps(explanation.to_json(), ensure_ascii=False)
