"""Scoring whole runs: read trials, score every answer, write ``result.json`` atomically.

Many runs are scored together, question by question: the answers of every run to one
question are de-duplicated (API models at temperature 0 repeat themselves) and measured in
one array pass, and questions are spread over worker processes. Each run is then aggregated
on its own. Measurements are the same under either float summation (``_pysum``); only the
aggregation differs, so finding the summation that reproduces a run's earlier result.json
costs one more cheap aggregation, never a second measurement.

Over a tree of runs, ``iter_score_runs`` streams instead: one run per task in forked
workers, each of which reads, scores, aggregates and writes its run and sends back only a
small ``RunReport``, yielded as soon as its run is done and dropped by the caller once
printed, so memory is bounded by the workers and not by the number of runs.

The summation of a run is chosen by evidence: when its folder already holds a result.json,
the summation that reproduces that file exactly (compensated is tried first, then
sequential); otherwise, or when neither reproduces it, compensated, as current Python sums.
``--summation`` forces one. A run whose ``result.json`` already records the same input and
benchmark hashes is skipped, as upstream does, unless forced; a write is a rename, so an
existing ``result.json`` is never left half-written, and one that cannot be read is never
replaced.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from hyoka._gc_pause import gc_paused
from hyoka.errors import DataError, HyokaError, InputError
from hyoka.pfgen import _json_text as json_text
from hyoka.pfgen._measure import Progress, measure_answers
from hyoka.pfgen._pysum import Summation
from hyoka.pfgen._workers import can_fork, imap_forked
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.compare import same_results
from hyoka.pfgen.provenance import SumFrom, run_signature, signature_of, with_signature
from hyoka.pfgen.result import ScoredAnswer, build_result
from hyoka.pfgen.scorer import Measurement, QuestionScorer
from hyoka.pfgen.summary import RunSummary, result_problem
from hyoka.signature import SIGNATURE_KEY, Signature
from hyoka.store import atomic_write_text, pfgen_runs

#: Fields that say which input a result belongs to rather than what it computed; choosing a
#: summation compares the rest, so a re-packed trials file still finds its summation.
_IDENTITY_FIELDS = ("input_hash", "metadata_hash", "config", SIGNATURE_KEY)

__all__ = [
    "Progress",
    "RunOutcome",
    "RunReport",
    "ScoredAnswers",
    "each_run",
    "iter_score_runs",
    "measure_answers",
    "score_answers",
    "score_run",
    "score_runs",
    "summation_by_evidence",
]


@dataclass(frozen=True)
class RunOutcome:
    """What happened to one run: its folder, its result, and how the result was made.

    ``source`` is the answers scored: a trials file, or the folder of ``trial_*.jsonl``
    parts (``pfgen_runs.source_name``), so that a command can name what it scored.
    ``signature`` is ``None`` only for an upstream result.json left as it was (skipped).
    ``previous`` is the run's result.json as it was before (``None`` when it had none);
    ``note`` says why the summation could not be chosen by evidence, when it could not.
    """

    folder: Path
    source: Path
    result: dict[str, Any]
    skipped: bool
    signature: Signature | None
    summation: Summation | None
    previous: dict[str, Any] | None = None
    note: str | None = None


@dataclass
class _PendingRun:
    trials: pfgen_runs.TrialsInput
    grouped: dict[str, list[dict[str, Any]]]
    previous: dict[str, Any] | None
    config: dict[str, Any] | None


def score_run(
    source: Path,
    benchmark: PfgenBenchmark,
    *,
    force: bool = False,
    write: bool = True,
    summation: Summation | None = None,
    workers: int | None = None,
) -> RunOutcome:
    """Score one run (a trials file or run folder); raises on bad input."""
    ((_, outcome),) = score_runs(
        [source], benchmark, force=force, write=write, summation=summation, workers=workers
    )
    if isinstance(outcome, HyokaError):
        raise outcome
    return outcome


def score_runs(
    sources: Sequence[Path],
    benchmark: PfgenBenchmark,
    *,
    force: bool = False,
    write: bool = True,
    summation: Summation | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    recorded_config: bool = False,
) -> list[tuple[Path, RunOutcome | HyokaError]]:
    """Score many runs; a run with bad input gets its error and the others still get scored.

    ``summation`` forces one float summation for every run; by default each run gets the one
    its earlier result.json was made with (see the module's docstring). ``progress(done,
    total)`` is called as questions are measured. ``recorded_config`` takes each run's
    settings from its earlier result.json rather than from config.json, as checking that
    result does: config.json may have been edited since.
    """
    with gc_paused():  # every object made here is acyclic (see ``hyoka._gc_pause``)
        return _score_runs(
            sources, benchmark, force, write, summation, workers, progress, recorded_config
        )


def _score_runs(
    sources: Sequence[Path],
    benchmark: PfgenBenchmark,
    force: bool,
    write: bool,
    summation: Summation | None,
    workers: int | None,
    progress: Progress | None,
    recorded_config: bool,
) -> list[tuple[Path, RunOutcome | HyokaError]]:
    outcomes: dict[int, RunOutcome | HyokaError] = {}
    pending: dict[int, _PendingRun] = {}
    for number, source in enumerate(sources):
        try:
            run = _prepare(source, benchmark, recorded_config)
            if not force and _up_to_date(run, benchmark.metadata_hash):
                assert run.previous is not None
                outcomes[number] = _skipped(run)
                continue
            pending[number] = run
        except HyokaError as exc:
            outcomes[number] = exc

    wanted: dict[str, dict[str, None]] = {}
    for run in pending.values():
        for question_id, records in run.grouped.items():
            wanted.setdefault(question_id, {}).update(_distinct_answers(records))
    measured = measure_answers(benchmark, wanted, workers, progress)

    for number, run in pending.items():
        try:
            outcomes[number] = _finish(run, benchmark, measured, summation, write)
        except HyokaError as exc:
            outcomes[number] = exc
    return [(source, outcomes[number]) for number, source in enumerate(sources)]


Result = TypeVar("Result")


@dataclass(frozen=True)
class RunReport:
    """What ``iter_score_runs`` reports of one run: its headline numbers, whether it was
    skipped as up to date, the answers scored (``RunOutcome.source``), and a note. All that
    crosses back from a worker: the result itself (every question's samples, a few hundred
    KB with the earlier result) stays in the worker that wrote it."""

    folder: Path
    source: Path
    summary: RunSummary
    skipped: bool
    note: str | None = None


def iter_score_runs(
    sources: Sequence[Path],
    benchmark: PfgenBenchmark,
    *,
    roots: Mapping[Path, Path] | None = None,
    force: bool = False,
    write: bool = True,
    summation: Summation | None = None,
    workers: int | None = None,
    recorded_config: bool = False,
) -> Iterator[tuple[Path, RunReport | HyokaError]]:
    """``score_runs`` as a stream: each run's report as soon as that run is done (see
    ``each_run``), so that a caller can print it and let it go.

    Each worker reads, scores, aggregates and writes its own runs and sends back only the
    ``RunReport`` (summarised under ``roots[source]``, the folder the user named; see
    ``RunSummary.model``). An up-to-date result.json too broken to summarise is an error.
    """

    def score_one(source: Path, inner_workers: int | None) -> RunReport | HyokaError:
        ((_, outcome),) = score_runs(
            [source], benchmark, force=force, write=write, summation=summation,
            workers=inner_workers, recorded_config=recorded_config,
        )  # fmt: skip
        if isinstance(outcome, HyokaError):
            return outcome
        root = roots.get(source) if roots is not None else None
        try:
            summary = RunSummary.from_result(outcome.folder, outcome.result, root)
        except InputError as exc:  # a number outside its range, named with its file
            return exc
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            where = outcome.folder / pfgen_runs.RESULT_FILE
            return InputError(f"{where}: not a pfgen-bench result ({exc!r})")
        return RunReport(outcome.folder, outcome.source, summary, outcome.skipped, outcome.note)

    return each_run(sources, benchmark, score_one, workers)


def each_run(
    sources: Sequence[Path],
    benchmark: PfgenBenchmark,
    work: Callable[[Path, int | None], Result],
    workers: int | None = None,
) -> Iterator[tuple[Path, Result]]:
    """``(source, work(source, inner_workers))`` for every run, as each finishes.

    Several runs are spread over forked workers, one run per task (``imap_forked``), the
    largest first: the scorers are loaded once here and inherited, at most a few runs are in
    flight, and each result is yielded in the order the runs finish. ``work`` then gets
    ``inner_workers=1`` (a worker forks no workers of its own). A single run, or
    ``workers=1``, is worked here with all the ``workers``: one big run still spreads its
    questions over processes.
    A ``HyokaError`` that ``work`` returns comes back as an error of the same kind.
    """
    count = min(workers or os.cpu_count() or 1, len(sources))
    if count <= 1 or not can_fork():
        for source in sources:
            yield source, work(source, workers)
        return
    benchmark.scorers(benchmark.questions)  # built once, here: every worker inherits them

    def in_worker(source: Path) -> Result:
        return _portable(work(source, 1))

    # the largest runs first, so that the last ones to finish are small and no worker idles
    # long while another scores a 100-trial run (runs range from 1 to 100 trials)
    yield from imap_forked(sorted(sources, key=_input_bytes, reverse=True), in_worker, count)


def _input_bytes(source: Path) -> int:
    """The size of a run's trials on disk: how long scoring it takes, roughly."""
    own = pfgen_runs.run_source(source) if source.is_dir() else source
    parts = [] if own is None else pfgen_runs.trial_parts(own) if own.is_dir() else [own]
    try:
        return sum(part.stat().st_size for part in parts)
    except OSError:
        return 0  # reading it will say why


def _portable(value: Result) -> Result:
    """``value``, with an error replaced by a plain one of its kind and message: errors
    with their own constructor arguments cannot be sent back from a worker process."""
    if not isinstance(value, HyokaError) or type(value) in (HyokaError, InputError, DataError):
        return value
    kind = next(k for k in (InputError, DataError, HyokaError) if isinstance(value, k))
    plain: Any = kind(str(value))
    result: Result = plain
    return result


def _prepare(source: Path, benchmark: PfgenBenchmark, recorded_config: bool) -> _PendingRun:
    trials = pfgen_runs.read_trials(source)
    grouped = benchmark.group_by_question(trials)
    previous = pfgen_runs.read_result(trials.folder)
    recorded = previous.get("config") if previous is not None else None
    if recorded_config and previous is not None and "config" in previous:
        config = recorded if isinstance(recorded, dict) else None
    elif recorded_config and previous is not None:
        # scoring writes the config whenever the run has a config.json: a result without one
        # beside a config.json was stripped of it, which checking it must find
        config = pfgen_runs.read_config(trials.folder)
    else:
        config = pfgen_runs.read_config(trials.folder)
        if config is None and isinstance(recorded, dict):
            # rescoring a run whose config.json is gone: keep the settings its result recorded
            config = recorded
    return _PendingRun(trials, grouped, previous, config)


def _skipped(run: _PendingRun) -> RunOutcome:
    assert run.previous is not None
    signature = signature_of(run.previous, run.trials.result_path)
    stored = signature.get("sum") if signature is not None else None
    summation = Summation(stored) if stored in set(Summation) else None
    trials = run.trials
    return RunOutcome(
        trials.folder, trials.source, run.previous, True, signature, summation, run.previous
    )


def _finish(
    run: _PendingRun,
    benchmark: PfgenBenchmark,
    measured: dict[str, dict[str, Measurement]],
    forced: Summation | None,
    write: bool,
) -> RunOutcome:
    note = None
    if forced is not None:
        summation, sum_from = forced, SumFrom.FLAG
        result = _aggregate(run, benchmark, _answer_scores(run, benchmark, measured, forced))
    elif run.previous is None:
        summation, sum_from = Summation.COMPENSATED, SumFrom.DEFAULT
        result = _aggregate(run, benchmark, _answer_scores(run, benchmark, measured, summation))
    else:
        summation, sum_from, result, _ = _by_evidence(run, benchmark, measured, run.previous)
        if sum_from is SumFrom.DEFAULT:
            same = all(run.previous.get(k) == result[k] for k in ("input_hash", "metadata_hash"))
            why = "is reproduced by neither summation" if same else "is of other answers or data"
            note = f"{run.trials.result_path}: the earlier result {why}; summed compensated"
    signature = run_signature(
        metadata_hash=benchmark.metadata_hash,
        summation=summation,
        sum_from=sum_from,
        config=run.config,
        questions=len(run.grouped),
    )
    result = with_signature(result, signature)
    if write:
        path = run.trials.result_path
        atomic_write_text(path, json_text.dumps(result, indent=2, ensure_ascii=False))
    return RunOutcome(
        run.trials.folder,
        run.trials.source,
        result,
        False,
        signature,
        summation,
        previous=run.previous,
        note=note,
    )


@dataclass(frozen=True)
class _Scored:
    """A run's answers scored under one summation, question by question."""

    summation: Summation
    by_question: dict[str, list[ScoredAnswer]]


def _answer_scores(
    run: _PendingRun,
    benchmark: PfgenBenchmark,
    measured: dict[str, dict[str, Measurement]],
    summation: Summation,
) -> _Scored:
    """Every answer of the run with its score under ``summation``; an answer repeated
    (greedy decoding) is finished once."""
    by_question: dict[str, list[ScoredAnswer]] = {}
    for question_id, records in run.grouped.items():
        scorer = benchmark.scorer(question_id)
        values = measured[question_id]
        distinct = list(_distinct_answers(records))
        scores = scorer.finish_many([values[a] for a in distinct], summation)
        finished = dict(zip(distinct, scores, strict=True))
        by_question[question_id] = [(r, finished[r["answer"]]) for r in records]
    return _Scored(summation, by_question)


def _by_evidence(
    run: _PendingRun,
    benchmark: PfgenBenchmark,
    measured: dict[str, dict[str, Measurement]],
    previous: dict[str, Any],
) -> tuple[Summation, SumFrom, dict[str, Any], _Scored]:
    """``summation_by_evidence`` over the run's answers, finished once: trying the other
    summation only re-sums their averages. Also the answers under the summation chosen."""
    first = _answer_scores(run, benchmark, measured, Summation.COMPENSATED)
    tried: dict[Summation, _Scored] = {}

    def aggregate(summation: Summation) -> dict[str, Any]:
        tried[summation] = _resummed(first, summation)
        return _aggregate(run, benchmark, tried[summation])

    summation, sum_from, result = summation_by_evidence(previous, aggregate)
    return summation, sum_from, result, tried[summation]


def _resummed(scored: _Scored, summation: Summation) -> _Scored:
    """``scored`` under ``summation``: the answers are not finished again, only their
    averages summed the other way (``QuestionScorer.resum``), each distinct score once."""
    if summation is scored.summation:
        return scored
    by_question: dict[str, list[ScoredAnswer]] = {}
    for question_id, answers in scored.by_question.items():
        # by the score's identity: a repeated answer's records share one score
        # (``_answer_scores``)
        distinct = {id(score): score for _, score in answers}
        resummed = QuestionScorer.resum_many(list(distinct.values()), summation)
        if all(map(operator.is_, resummed, distinct.values())):
            by_question[question_id] = answers  # one or two sets: nothing to re-sum
            continue
        again = dict(zip(distinct, resummed, strict=True))
        by_question[question_id] = [(record, again[id(score)]) for record, score in answers]
    return _Scored(summation, by_question)


def _distinct_answers(records: list[dict[str, Any]]) -> dict[str, None]:
    return dict.fromkeys(r["answer"] for r in records)


def _aggregate(run: _PendingRun, benchmark: PfgenBenchmark, scored: _Scored) -> dict[str, Any]:
    """The run's result.json from its scored answers (without its signature)."""
    return build_result(
        scored.by_question,
        input_hash=run.trials.input_hash,
        metadata_hash=benchmark.metadata_hash,
        config=run.config,
        summation=scored.summation,
    )


@dataclass(frozen=True)
class ScoredAnswers:
    """A run as ``pfgen score`` scores it, with every answer's score kept: ``outcome`` is
    what ``score_run(write=False)`` returns, ``answers`` each question's answers (input
    order) scored under the summation of that outcome."""

    outcome: RunOutcome
    answers: dict[str, list[ScoredAnswer]]


def score_answers(
    source: Path, benchmark: PfgenBenchmark, *, workers: int | None = None
) -> ScoredAnswers:
    """Score one run without writing, keeping each answer's score (for pages that show
    answers and resample them). The run's numbers are ``score_run``'s: an up-to-date
    ``result.json`` as it stands, else a rescoring with the summation chosen by evidence.
    A ``result.json`` that records this run's hashes but is broken is rescored here rather
    than refused, since nothing is written."""
    run = _prepare(source, benchmark, recorded_config=False)
    if not run.grouped:
        raise InputError(f"{source}: no answers")
    wanted = {q: _distinct_answers(records) for q, records in run.grouped.items()}
    measured = measure_answers(benchmark, wanted, workers, None)
    try:
        fresh = _up_to_date(run, benchmark.metadata_hash)
    except InputError:
        fresh = False
    outcome = _skipped(run) if fresh else _finish(run, benchmark, measured, None, write=False)
    summation = outcome.summation
    if summation is None:  # an upstream result.json kept as it is: the summation it used
        scored = _by_evidence(run, benchmark, measured, outcome.result)[3]
        return ScoredAnswers(outcome, scored.by_question)
    return ScoredAnswers(outcome, _answer_scores(run, benchmark, measured, summation).by_question)


def summation_by_evidence(
    previous: dict[str, Any], aggregate: Callable[[Summation], dict[str, Any]]
) -> tuple[Summation, SumFrom, dict[str, Any]]:
    """The summation whose result reproduces ``previous``'s numbers, tried in that order.

    ``aggregate(summation)`` builds the result under a summation; identity fields (hashes,
    config, signature) are left out of the comparison. Neither reproducing it gives
    compensated, with ``SumFrom.DEFAULT``.
    """
    first: dict[str, Any] | None = None
    for summation in (Summation.COMPENSATED, Summation.SEQUENTIAL):
        result = aggregate(summation)
        if same_results(previous, result, ignore=_IDENTITY_FIELDS):
            return summation, SumFrom.RESULT_JSON, result
        first = first or result
    assert first is not None
    return Summation.COMPENSATED, SumFrom.DEFAULT, first


def _up_to_date(run: _PendingRun, metadata_hash: str) -> bool:
    """Whether the run's result.json is a result of these answers and this data.

    One that records the same hashes but is not a whole result is an error, not something
    to replace silently: it says it is this run's result, so only ``--force`` replaces it.
    """
    previous = run.previous
    if previous is None:
        return False
    same_input = previous.get("input_hash") == run.trials.input_hash
    if not (same_input and previous.get("metadata_hash") == metadata_hash):
        return False
    problem = result_problem(previous)
    if problem is not None:
        raise InputError(
            f"{run.trials.result_path}: records this run's hashes but cannot be kept as its "
            f"result: {problem}; "
            "rescore with `force` to replace it"
        )
    return True
