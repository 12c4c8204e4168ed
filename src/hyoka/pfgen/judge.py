"""``hyoka pfgen judge``: grade a pfgen run's answers with an LLM judge (seed 000, section 4.2).

The judge sees each answer with its question and the question's hand-written sample answer
(``questions.jsonl``) as the reference, through the ``pfgen-single`` template by default.
Judgments go beside the run, in ``<run>/judge/<judge-slug>/judgments.jsonl`` (append-only,
resumable), with ``summary.json`` holding the run's mean judge score, which is what
``hyoka pfgen correlate`` sets against the run's pfgen score.

Answers are taken per question in the order the trials file lists them; ``per_question``
keeps the first N of each (the paper's comparison needs a mean per model, not every trial).
An item's id is ``<question id>#<position>`` (``Q07#0``), stable across re-runs.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import DataError, HyokaError, InputError
from hyoka.judge import (
    GRADING,
    Answer,
    Connection,
    JudgedBy,
    JudgeSettings,
    JudgeTemplate,
    JudgeWatcher,
    JudgmentRecord,
    SingleItem,
    SingleRun,
    judge_plans,
    judged_by,
    load_template,
    plan_single,
    read_answers,
    read_judgments,
    run_judge,
    summarise,
)
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.provenance import data_id
from hyoka.providers import DEFAULT_THINKING, ThinkingRule
from hyoka.signature import SIGNATURE_KEY, Signature
from hyoka.store import atomic_write_text, path_under, pfgen_runs

JUDGE_FOLDER = "judge"
JUDGMENTS_FILE = "judgments.jsonl"
SUMMARY_FILE = "summary.json"
DEFAULT_TEMPLATE = "pfgen-single"


@dataclass(frozen=True)
class PfgenJudgeInput:
    """The answers of one run chosen for judging, and where its judgments go."""

    run: Path
    model: str
    items: list[SingleItem]
    question_ids: dict[str, str]  # item id -> question id

    def folder(self, judge: str) -> Path:
        return path_under(self.run / JUDGE_FOLDER, judge, what="`judge`")


def _run_model(run: Path) -> str:
    """The model a run's config.json names; the folder's name when it names none."""
    try:
        data = pfgen_runs.read_config(run)
    except HyokaError:
        return run.name
    model = data.get("model") if data else None
    return str(model) if model else run.name


def collect_items(
    run_dir: Path,
    benchmark: PfgenBenchmark,
    *,
    per_question: int | None = None,
    limit: int | None = None,
) -> PfgenJudgeInput:
    """The first ``per_question`` answers to each of the first ``limit`` questions of a run."""
    sources = pfgen_runs.find_runs(run_dir)
    if len(sources) != 1:
        raise InputError(f"{run_dir}: holds {len(sources)} runs; judge one run folder at a time")
    trials = pfgen_runs.read_trials(sources[0])
    samples = {sample.question: sample.answer for sample in benchmark.sample_answers()}
    grouped = {
        qid: [record["answer"] for record in records]
        for qid, records in benchmark.group_by_question(trials).items()
    }
    items: list[SingleItem] = []
    question_ids: dict[str, str] = {}
    model = _run_model(trials.folder)
    for qid in sorted(grouped)[: limit or None]:
        info = benchmark.questions[qid]
        reference = samples.get(info.question)
        if reference is None:
            raise DataError(f"{benchmark.folder}: no sample answer for {qid} in questions.jsonl")
        for position, answer in enumerate(grouped[qid][: per_question or None]):
            item = SingleItem(
                id=f"{qid}#{position}",
                question=info.question,
                answer=answer,
                reference=reference,
                model=model,
            )
            items.append(item)
            question_ids[item.id] = qid
    return PfgenJudgeInput(run=trials.folder, model=model, items=items, question_ids=question_ids)


def run_answers(
    run_dir: Path,
    benchmark: PfgenBenchmark,
    *,
    per_question: int | None = None,
    limit: int | None = None,
) -> dict[str, Answer]:
    """A run's answers as a pairwise answer file: ids ``Q07#0``, sample answers as references.

    Two runs line up when they hold the same number of answers per question (the same
    trials), which is what ``hyoka judge pairwise RUN_X RUN_Y`` needs.
    """
    chosen = collect_items(run_dir, benchmark, per_question=per_question, limit=limit)
    return {
        item.id: Answer(
            id=item.id,
            question=item.question,
            answer=item.answer,
            reference=item.reference,
            model=item.model,
            category=None,
        )
        for item in chosen.items
    }


def answer_reader(
    per_question: int | None, data_dir: Path | None
) -> Callable[[Path], dict[str, Answer]]:
    """How ``hyoka judge pairwise`` reads each side: an answer file (JSONL) as it is, a
    folder as a pfgen run (the benchmark loaded once, if needed)."""
    benchmarks: list[PfgenBenchmark] = []

    def read(path: Path) -> dict[str, Answer]:
        if not path.is_dir():
            if per_question is not None:
                raise InputError(f"`per_question` applies to pfgen run folders, not {path}")
            return read_answers(path)
        if not benchmarks:
            benchmarks.append(PfgenBenchmark.load(data_dir))
        return run_answers(path, benchmarks[0], per_question=per_question)

    return read


def summary_json(
    chosen: PfgenJudgeInput,
    records: Sequence[JudgmentRecord],
    judge: str,
    template: JudgeTemplate,
    signature: Signature | None = None,
) -> dict[str, Any]:
    """The run's judge summary over the chosen items (what ``pfgen correlate`` reads), with
    the signature of how its numbers were produced."""
    overall = summarise(records, chosen.question_ids)
    by_question: dict[str, list[float]] = {}
    for item_id, score in overall.per_item.items():
        if score >= 0:
            by_question.setdefault(chosen.question_ids[item_id], []).append(score)
    return {
        "judge": judge,
        "template": template.name,
        "template_version": template.version,
        "mean": overall.mean,
        "n": overall.n,
        "failures": overall.failures,
        "per_question": {q: statistics.fmean(s) for q, s in sorted(by_question.items())},
        # items with no judgment yet (``--batch``: their requests wait in a batch): a
        # summary with any is partial, its mean not the run's (read as such by correlate)
        "pending": sum(item.id not in overall.per_item for item in chosen.items),
        SIGNATURE_KEY: None if signature is None else signature.to_json(),
    }


def summary_judge(summary: Path, judge: str) -> JudgedBy:
    """The judge that answered the judgments a ``summary.json`` sums up: what the hyoka
    manifest of the judgments file beside it records (``judge.judged_by``), else
    ``judge``, the name the summary gives."""
    return judged_by(summary.parent / JUDGMENTS_FILE, [judge])


def write_summary(
    chosen: PfgenJudgeInput,
    judge: str,
    template: JudgeTemplate,
    signature: Signature | None = None,
    records: Sequence[JudgmentRecord] | None = None,
) -> tuple[Path, dict[str, Any]]:
    """Write ``summary.json`` beside the run's judgments (atomically), from ``records``: the
    lines the judging run handed back (``Judged.lines``); read from the file when not given."""
    folder = chosen.folder(judge)
    if records is None:
        records = read_judgments(folder / JUDGMENTS_FILE)
    summary = summary_json(chosen, records, judge, template, signature)
    path = folder / SUMMARY_FILE
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    return path, summary


@dataclass(frozen=True)
class PfgenJudged:
    """A pfgen run graded by a judge: the grading (``run``), and the run's ``summary.json``
    (``summary``: where it was written; ``data``: what it holds)."""

    run: SingleRun
    summary: Path
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """``summary.json``'s fields, then the grading's (``SingleRun.to_json``), then the
        summary's path as ``summary``."""
        return {**self.data, **self.run.to_json(), "summary": str(self.summary)}


def judge_pfgen_run(
    result_dir: Path,
    judge: str,
    *,
    per_question: int | None = None,
    limit: int | None = None,
    template: str = DEFAULT_TEMPLATE,
    repeats: int = GRADING.repeats,
    aggregate: str = GRADING.aggregate,
    temperature: float = GRADING.temperature,
    max_tokens: int = GRADING.max_tokens,
    max_attempts: int = GRADING.max_attempts,
    thinking: ThinkingRule = DEFAULT_THINKING,
    data_dir: Path | None = None,
    connection: Connection | None = None,
    price_in: float = 0.0,
    price_out: float = 0.0,
    watcher: JudgeWatcher | None = None,
) -> PfgenJudged:
    """Grade the answers of the run in ``result_dir`` 1-10 against the questions' sample
    answers with ``judge`` (the first ``per_question`` answers of each question, of the
    first ``limit`` questions, when given), into ``<run>/judge/<judge>/judgments.jsonl``,
    resuming what it holds; then write the run's ``summary.json`` beside it."""
    connection = connection or Connection()
    chosen_template = load_template(template)
    settings = JudgeSettings.for_judge(
        judge, base_url=connection.base_url, temperature=temperature, max_tokens=max_tokens,
        repeats=repeats, aggregate=aggregate, thinking=thinking,
    )  # fmt: skip
    benchmark = PfgenBenchmark.load(data_dir)
    chosen = collect_items(result_dir, benchmark, per_question=per_question, limit=limit)
    output = chosen.folder(judge) / JUDGMENTS_FILE
    plan = plan_single(
        chosen.items, chosen_template, settings, output, benchmark="pfgen",
        data=data_id(benchmark.metadata_hash), max_attempts=max_attempts,
    )  # fmt: skip
    client = connection.connect(judge)
    if watcher is not None:
        watcher.planned(output)
    report, (judged,) = judge_plans(client, [(f"judging {chosen.model}", plan)], watcher=watcher)
    signature = judged.run.signature()
    summary_path, data = write_summary(chosen, judge, chosen_template, signature, judged.lines)
    overall = summarise(judged.lines, chosen.question_ids)
    run = SingleRun(
        output, overall, report, client.stats, signature, run_judge(judged.run), price_in,
        price_out,
    )  # fmt: skip
    return PfgenJudged(run, summary_path, data)
