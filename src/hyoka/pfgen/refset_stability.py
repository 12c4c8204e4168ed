"""The stability experiment of seeds 000/002 §5.1: score runs with one reference set alone.

pfgen-bench scores an answer against every reference set of its question and averages over
the sets (the "ensemble"). The papers ask whether the benchmark depends on the model that
generated a set, by scoring the runs with a single set and correlating. Here "the score with
set k" is defined as the exact benchmark score (pfgen-spec.md §3–4, every rounding
included) of a benchmark in which each question that has a set k is scored against that
set alone (K = 1); a question without a set k (the published data has questions with only
P, or only the retrieval-assisted R) keeps its own sets, so every variant scores all 50
questions. ``common_only`` instead keeps just the questions that have every compared set,
for the ensemble too.

Each distinct answer is measured once, with the existing exact scorer, against all its
question's sets (the per-set values are what the ensemble averages); the variants only
re-aggregate those values, so the whole experiment costs one ensemble rescoring.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from hyoka.data import resolve_data_dir
from hyoka.errors import InputError
from hyoka.pfgen._measure import measure_answers
from hyoka.pfgen._pysum import Summation
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.provenance import data_id
from hyoka.pfgen.result import ScoredAnswer, build_result, trials_score
from hyoka.pfgen.runs import summation_by_evidence
from hyoka.pfgen.scorer import Measurement, QuestionScorer
from hyoka.pfgen.summary import RunSummary
from hyoka.signature import SIGNATURE_KEY, Signature, SignatureType
from hyoka.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, Correlation, correlate
from hyoka.store import pfgen_runs

ENSEMBLE = "ensemble"
KIND = "pfgen-stability"
DEFAULT_SETS = ("P", "S", "T")
#: The correlations' intervals: 95% percentile intervals over runs drawn with replacement.
CONFIDENCE = 0.95
_T = TypeVar("_T")


@dataclass(frozen=True, kw_only=True)
class StabilitySignature(SignatureType):
    """How the experiment was made: the benchmark data (the hash over every question file,
    reference sets included), the sets compared, which questions count, how many runs, the
    summation (each run summed as its result.json was, else compensated), and how the
    correlations' intervals were drawn (bootstrap resamples of the runs, confidence, seed).

    numpy's version is recorded: the correlations' intervals come from its seeded random
    ``Generator``, whose streams numpy may change between versions; the scores themselves
    are pfgen's exact ones, which no package changes."""

    kind: ClassVar[str] = KIND
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    data: str
    sets: tuple[str, ...]
    common_only: bool
    runs: int
    sum: str
    resamples: int
    confidence: float
    seed: int


@dataclass(frozen=True)
class StabilityRun:
    label: str
    folder: Path
    #: variant name ("ensemble", "P", …) -> the run's benchmark score under that variant
    scores: dict[str, float]
    #: the score in the run's own result.json, if it has one
    published: float | None


@dataclass(frozen=True)
class StabilityReport:
    sets: tuple[str, ...]
    common_only: bool
    questions: dict[str, int]
    runs: list[StabilityRun]
    correlations: dict[tuple[str, str], Correlation]
    signature: Signature

    @property
    def ensemble_matches_published(self) -> int:
        return sum(1 for r in self.runs if r.published == r.scores[ENSEMBLE])

    def to_json(self) -> dict[str, Any]:
        return {
            SIGNATURE_KEY: self.signature.to_json(),
            "sets": list(self.sets),
            "common_only": self.common_only,
            "questions_scored_with_set_alone": self.questions,
            "runs": [
                {"run": r.label, "folder": str(r.folder), "published": r.published, **r.scores}
                for r in self.runs
            ],
            "ensemble_matches_published": self.ensemble_matches_published,
            "correlations": [
                {"first": a, "second": b, **c.to_json()} for (a, b), c in self.correlations.items()
            ],
        }


def refset_stability(
    sources: Sequence[Path],
    benchmark: PfgenBenchmark,
    *,
    sets: Sequence[str] = DEFAULT_SETS,
    common_only: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> StabilityReport:
    """Score every run under the ensemble and under each single set; correlate them all."""
    if len(sources) < 3:
        raise InputError(f"need at least 3 runs to correlate, got {len(sources)}")
    scorers = benchmark.scorers(benchmark.questions)
    available = {name for s in scorers.values() for name in s.set_names}
    unknown = [s for s in sets if s not in available]
    if unknown or len(set(sets)) < 2:
        raise InputError(
            f"`sets` needs two or more of the reference sets {sorted(available)}, got {list(sets)}"
        )
    if common_only:
        questions = [q for q, s in scorers.items() if all(k in s.set_names for k in sets)]
    else:
        questions = list(scorers)
    if not questions:
        raise InputError(f"no question has all of the sets {list(sets)}")
    runs = [_read_run(source, benchmark, set(questions)) for source in sources]
    wanted: dict[str, dict[str, None]] = {}
    for _, grouped, _ in runs:
        for qid, records in grouped.items():
            wanted.setdefault(qid, {}).update(dict.fromkeys(r["answer"] for r in records))
    measured = measure_answers(benchmark, wanted, workers, progress)

    variants = {ENSEMBLE: None, **{k: k for k in sets}}
    results: list[StabilityRun] = []
    for trials, grouped, published in runs:
        aggregate = partial(_aggregate, grouped, scorers, measured)
        # the summation of the run's own result.json, when one of the two reproduces it
        summation = Summation.COMPENSATED
        scores: dict[str, float] = {}
        if published is not None:
            summation, _, ensemble = summation_by_evidence(published, aggregate)
            scores[ENSEMBLE] = float(ensemble["score"])  # the result under ``summation``
        for variant, only in variants.items():
            if variant not in scores:  # a variant's score alone, not its whole result
                averages = _averages(grouped, scorers, measured, summation, only)
                scores[variant] = float(trials_score(averages, summation)[0])
        label = _label(trials.folder, published)
        results.append(StabilityRun(label, trials.folder, scores, _score(published)))
    names = list(variants)
    correlations = {
        (a, b): correlate(
            [r.scores[a] for r in results],
            [r.scores[b] for r in results],
            resamples=resamples,
            confidence=CONFIDENCE,
            seed=seed,
        )
        for a, b in combinations(names, 2)
    }
    counts = {k: sum(1 for q in questions if k in scorers[q].set_names) for k in sets}
    signature = stability_signature(
        benchmark.metadata_hash, sets, common_only, len(results), resamples=resamples, seed=seed
    )
    return StabilityReport(tuple(sets), common_only, counts, results, correlations, signature)


def stability_signature(
    metadata_hash: str,
    sets: Sequence[str],
    common_only: bool,
    runs: int,
    *,
    resamples: int,
    seed: int,
) -> Signature:
    """The experiment's ``StabilitySignature``."""
    return StabilitySignature(
        data=data_id(metadata_hash),
        sets=tuple(sets),
        common_only=common_only,
        runs=runs,
        sum="as-published",
        resamples=resamples,
        confidence=CONFIDENCE,
        seed=seed,
    ).signature()


def _aggregate(
    grouped: dict[str, list[dict[str, Any]]],
    scorers: dict[str, QuestionScorer],
    measured: dict[str, dict[str, Measurement]],
    summation: Summation,
    only: str | None = None,
) -> dict[str, Any]:
    """A run's result under one variant (``only`` one set, or the ensemble) and summation."""
    by_question = _scored(grouped, scorers, measured, summation, only)
    return build_result(
        by_question, input_hash="", metadata_hash="", config=None, summation=summation
    )


def _scored(
    grouped: dict[str, list[dict[str, Any]]],
    scorers: dict[str, QuestionScorer],
    measured: dict[str, dict[str, Measurement]],
    summation: Summation,
    only: str | None,
) -> dict[str, list[ScoredAnswer]]:
    """Every answer of a run with its score under one variant and summation."""
    finish = partial(QuestionScorer.finish_many, summation=summation)
    scored = _each_answer(grouped, scorers, measured, only, finish)
    return {q: list(zip(grouped[q], scores, strict=True)) for q, scores in scored.items()}


def _averages(
    grouped: dict[str, list[dict[str, Any]]],
    scorers: dict[str, QuestionScorer],
    measured: dict[str, dict[str, Measurement]],
    summation: Summation,
    only: str | None,
) -> dict[str, list[float]]:
    """Each answer's average under one variant and summation: ``_scored``'s averages,
    without the scores themselves (all that a variant's score needs)."""
    averages = partial(QuestionScorer.averages, summation=summation)
    return _each_answer(grouped, scorers, measured, only, averages)


def _each_answer(
    grouped: dict[str, list[dict[str, Any]]],
    scorers: dict[str, QuestionScorer],
    measured: dict[str, dict[str, Measurement]],
    only: str | None,
    finish: Callable[[QuestionScorer, list[Measurement]], list[_T]],
) -> dict[str, list[_T]]:
    """``finish`` of each question's answers (input order) under one variant: each distinct
    answer finished once, all of a question's in one call."""
    by_question: dict[str, list[_T]] = {}
    for qid, records in grouped.items():
        scorer, pick = _variant(scorers[qid], only)
        values = measured[qid]
        distinct = list(dict.fromkeys(r["answer"] for r in records))
        finished = dict(
            zip(distinct, finish(scorer, [pick(values[a]) for a in distinct]), strict=True)
        )
        by_question[qid] = [finished[r["answer"]] for r in records]
    return by_question


def _variant(
    scorer: QuestionScorer, only: str | None
) -> tuple[QuestionScorer, Callable[[Measurement], Measurement]]:
    """The scorer of one variant and how to cut an ensemble measurement down to it."""
    if only is None or only not in scorer.set_names:
        return scorer, _identity
    position = scorer.set_names.index(only)
    single = QuestionScorer(scorer.info, [scorer.sets[position]])

    def pick(m: Measurement) -> Measurement:
        return Measurement((m.fluency[position],), (m.truthfulness[position],), m.helpfulness)

    return single, pick


def _identity(m: Measurement) -> Measurement:
    return m


def _read_run(
    source: Path, benchmark: PfgenBenchmark, questions: set[str]
) -> tuple[pfgen_runs.TrialsInput, dict[str, list[dict[str, Any]]], dict[str, Any] | None]:
    trials = pfgen_runs.read_trials(source)
    grouped = benchmark.group_by_question(trials, keep=questions)
    if not grouped:
        raise InputError(f"{source}: no answers to the compared questions")
    try:
        published = pfgen_runs.read_result(trials.folder)
    except InputError:
        published = None  # an unreadable result.json only means no published score
    return trials, grouped, published


def _label(folder: Path, result: dict[str, Any] | None) -> str:
    """The run's model and mode as its ``result.json`` names them; the folder where it has
    none, or one that is no usable pfgen result (only the label depends on it)."""
    if result is None:
        return str(folder)
    try:
        summary = RunSummary.from_result(folder, result)
    except (InputError, KeyError, TypeError, ValueError):
        return str(folder)
    incomplete = f" [{summary.incomplete}]" if summary.incomplete else ""
    return f"{summary.model} ({summary.mode}){incomplete}"


def _score(result: dict[str, Any] | None) -> float | None:
    value = (result or {}).get("score")
    return float(value) if isinstance(value, int | float) else None


def stability_of(
    results_dir: Path | None = None,
    *,
    sets: Sequence[str] = DEFAULT_SETS,
    common_only: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    workers: int | None = None,
    data_dir: Path | None = None,
    found: Callable[[int], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[StabilityReport, PfgenBenchmark]:
    """``refset_stability`` of the runs under ``results_dir`` (default: the published
    sample in the data directory), as ``hyoka pfgen stability`` runs it (``found`` hears
    how many runs there are, ``progress`` the answers measured); with the benchmark it
    scored them with (its question count says what a set alone covers)."""
    folder = results_dir or resolve_data_dir(data_dir) / "pfgen-bench" / "results"
    sources = pfgen_runs.find_runs(folder)
    if found is not None:
        found(len(sources))
    benchmark = PfgenBenchmark.load(data_dir)
    report = refset_stability(
        sources, benchmark, sets=sets, common_only=common_only, resamples=resamples,
        seed=seed, workers=workers, progress=progress,
    )  # fmt: skip
    return report, benchmark
