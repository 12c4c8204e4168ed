"""Pairwise judging of two models' answers, turn by turn, in both orders (seed 001 on seed 004).

Each turn of each dialogue is one task of the judging engine's pairwise protocol
(``hyoka.judge.pairwise``), with the benchmark's own pair prompts filled in as upstream
fills them: game 1 shows ``model_1`` as assistant A, game 2 shows ``model_2`` as A. Turn 2
uses the multi-turn prompts (the whole dialogue of each model); the reference categories
use the pair-math prompts with the reference answer. The prompts ask for reasons first and
``[[A]]``/``[[B]]``/``[[C]]`` last, so the verdict is read as "verdict-after-reasons", and
the two games become one verdict per method by the protocol's rules (``prob``, ``bs1``,
``bs2``).

The benchmark's pairwise rules decide some games without a judge call: for
pfmt-bench-fin-ja, as upstream, an empty answer loses to a given one and two empty answers
tie (upstream checks no language in pairwise games); MT-bench has no such rule. The line
names the rule and the model it struck. Lines are FastChat's ``_pair`` format written from
the engine's record; a (question, turn, model pair) already in the file, in either order, is done.
Every judge call goes through the response cache with a sample key naming the dialogue,
the turn and the models in the order shown, so game 2 of (X, Y) and game 1 of (Y, X) are
one cached call.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hyoka.errors import InputError
from hyoka.judge import (
    METHODS,
    SIDES,
    FileFormat,
    JudgePlan,
    JudgeSettings,
    JudgmentRecord,
    Method,
    PairwiseJudging,
    Task,
    inputs_hash,
    lacks_methods,
    read_lines,
    user_prompt_of,
)
from hyoka.mtbench.bench import Bench, numbered
from hyoka.mtbench.judge import BenchJudging, TurnInfo, messages_of
from hyoka.mtbench.question_formats import Question
from hyoka.mtbench.records import AnswerRecord, PairJudgmentLine, pair_line
from hyoka.mtbench.spec import PairModels
from hyoka.providers import parse_model_string
from hyoka.stats import StyleCounts

#: (question_id, turn, the two models in either order): what a line settles
DoneKey = tuple[int, int, frozenset[str]]
#: (question_id, turn, model) -> characters of that model's answer to that turn
TurnLengths = Mapping[tuple[int, int, str], int]
#: (question_id, turn, model) -> the style of that model's answer to that turn
TurnStyles = Mapping[tuple[int, int, str], StyleCounts]


@dataclass(frozen=True)
class Match:
    """Two models whose answers are compared; ``model_1`` is assistant A in game 1."""

    model_1: str
    answers_1: Mapping[int, AnswerRecord]
    model_2: str
    answers_2: Mapping[int, AnswerRecord]


def make_matches(
    answers: Sequence[tuple[Path, Mapping[int, AnswerRecord]]],
    baseline: str | None,
    order: PairModels = "given",
) -> list[Match]:
    """The comparisons the answer files ask for, in the order given: every pair of them
    (FastChat's pairwise-all), or each model against ``baseline`` (pairwise-baseline: the
    model is ``model_1``, the baseline ``model_2``). ``order="sorted"`` (a benchmark's
    ``pair_models``) makes the alphabetically smaller name ``model_1`` in every pair, as
    ja-vicuna-qa-benchmark's sorted combinations do."""
    matches = _matches(answers, baseline)
    if order == "given":
        return matches
    return [
        m if m.model_1 < m.model_2 else Match(m.model_2, m.answers_2, m.model_1, m.answers_1)
        for m in matches
    ]


def _matches(
    answers: Sequence[tuple[Path, Mapping[int, AnswerRecord]]], baseline: str | None
) -> list[Match]:
    by_model: dict[str, Mapping[int, AnswerRecord]] = {}
    for path, by_id in answers:
        refuse_trials(path, ((qid, len(a.choices)) for qid, a in by_id.items()), SINGLE_GRADES_ALL)
        model = next(iter(by_id.values())).model_id
        if model in by_model:
            raise InputError(f"{path}: a second answer file of {model!r}")
        by_model[model] = by_id
    if len(by_model) < 2:
        raise InputError("`mode` pairwise needs at least two `answers` files")
    if baseline is None:
        return [
            Match(one, by_model[one], two, by_model[two])
            for one, two in itertools.combinations(by_model, 2)
        ]
    if baseline not in by_model:
        raise InputError(
            f"`baseline` {baseline!r} is none of the answer files' models: {', '.join(by_model)}"
        )
    return [
        Match(model, by_id, baseline, by_model[baseline])
        for model, by_id in by_model.items()
        if model != baseline
    ]


#: what judges every trial of an answer file pairwise judging refuses
SINGLE_GRADES_ALL = "single grading (`mode` single) judges every trial"


def refuse_trials(path: Path, choices: Iterable[tuple[object, int]], advice: str) -> None:
    """Refuse an answer file whose answers hold several choices (``mtbench generate
    --trials N``): a pairwise judgment compares one answer per question, as FastChat's
    ``run_judge_pair`` compares ``choices[0]`` only, so the other trials would be left out
    in silence. ``advice`` ends the message: what to do instead."""
    for qid, count in choices:
        if count > 1:
            raise InputError(
                f"{path}: question_id {qid} holds {count} choices (trials): pairwise judging "
                f"compares the first answer only, as FastChat's run_judge_pair does; {advice}"
            )


def pair_prompt_name(bench: Bench, question: Question, turn: int) -> str:
    """``pair-v2`` (``pair-math-v1`` for the reference categories), ``-multi-turn`` for turn 2."""
    return bench.spec.judge_prompt_name(question.category, turn, pairwise=True)


def pair_user_prompt(
    bench: Bench, question: Question, answer_a: AnswerRecord, answer_b: AnswerRecord, turn: int
) -> str:
    """The pair prompt's template filled in with A's and B's answers, as upstream does
    (each answer turn cut as the variant says, as for single grading)."""
    cut = bench.variant.cut if bench.variant is not None else str
    turns_a, turns_b = [cut(t) for t in answer_a.turns], [cut(t) for t in answer_b.turns]
    fields = {
        "answer_a": turns_a[0],
        "answer_b": turns_b[0],
        **numbered("answer_a", turns_a),
        **numbered("answer_b", turns_b),
    }
    return bench.fill_prompt(pair_prompt_name(bench, question, turn), question, fields)


def turn_styles(bench: Bench, matches: Sequence[Match]) -> dict[tuple[int, int, str], StyleCounts]:
    """The style (characters, Markdown headers, lists, bold) of every model's answer to
    every turn in ``matches``, as the judge is shown it (the variant's cut applied): what
    the style-controlled ratings hold equal."""
    cut = bench.variant.cut if bench.variant is not None else str
    styles: dict[tuple[int, int, str], StyleCounts] = {}
    for match in matches:
        for model, answers in ((match.model_1, match.answers_1), (match.model_2, match.answers_2)):
            for qid, answer in answers.items():
                for turn, text in enumerate(answer.turns, start=1):
                    styles[(qid, turn, model)] = StyleCounts.of(cut(text))
    return styles


def turn_lengths(bench: Bench, matches: Sequence[Match]) -> dict[tuple[int, int, str], int]:
    """Characters of every model's answer to every turn in ``matches``, as the judge is
    shown it (the variant's cut applied): the lengths a length-controlled win rate
    against the baseline controls for (characters, as ``stats.length_control`` counts)."""
    return {key: style.chars for key, style in turn_styles(bench, matches).items()}


def _check_answers(match: Match, questions: Sequence[Question], turns: int) -> None:
    if match.model_1 == match.model_2:
        raise InputError(f"{match.model_1!r} compared with itself: give two different models")
    for model, answers in ((match.model_1, match.answers_1), (match.model_2, match.answers_2)):
        missing = [q.question_id for q in questions if q.question_id not in answers]
        if missing:
            raise InputError(f"{model}: no answer to question_id {missing[0]}")
        short = [q.question_id for q in questions if len(answers[q.question_id].turns) < turns]
        if short:
            raise InputError(f"{model}: question_id {short[0]} has fewer than {turns} turn(s)")


def read_pair_lines(path: Path) -> list[PairJudgmentLine]:
    """Every line of a ``_pair`` judgment file (FastChat's or hyoka's), one per turn and
    model pair."""
    return read_lines(path, PairJudgmentLine, _pair_key)


def _pair_key(line: PairJudgmentLine) -> DoneKey:
    return (line.question_id, line.turn, line.models)


def _pair_order(line: PairJudgmentLine) -> tuple[str, str, int, int]:
    """By model pair, then question and turn: a file that reads like upstream's."""
    return (line.model_1, line.model_2, line.question_id, line.turn)


#: (question_id, model_1, model_2) -> upstream's own fields of that pair line
Extras = Mapping[tuple[int, str, str], Mapping[str, object]]


def _upstream_fields(bench: Bench, matches: Sequence[Match], judge: str) -> Extras:
    """ja-vicuna-qa-benchmark's fields beside FastChat's: the question and both answers
    (turn 1), the judge model's name and the prompt's name, as its ``MatchPair.play``
    writes them."""
    _provider, judge_model = parse_model_string(judge, flag="`judge`")
    extras: dict[tuple[int, str, str], Mapping[str, object]] = {}
    for match in matches:
        for question in bench.questions:
            qid = question.question_id
            if qid not in match.answers_1 or qid not in match.answers_2:
                continue
            extras[(qid, match.model_1, match.model_2)] = {
                "question": question.turns[0],
                "answer_1": match.answers_1[qid].turns[0],
                "answer_2": match.answers_2[qid].turns[0],
                "judge_model": judge_model,
                "judge_prompt": pair_prompt_name(bench, question, 1),
            }
    return extras


def _pair_format(
    judge_name: str,
    turns: Mapping[str, TurnInfo],
    methods: Sequence[Method],
    extras: Extras | None = None,
) -> FileFormat[PairJudgmentLine]:
    def write(record: JudgmentRecord, task: Task) -> PairJudgmentLine:
        info = turns[task.id]
        user = (user_prompt_of(task.prompts[0]), user_prompt_of(task.prompts[1]))
        line = pair_line(
            record, question_id=info.written_id, turn=info.turn,
            judge=(judge_name, info.prompt_name), user_prompts=user,
        )  # fmt: skip
        if extras is None:
            return line
        more = extras[(info.question_id, line.model_1, line.model_2)]
        return PairJudgmentLine.model_validate({**line.model_dump(), **more})

    def differs(stored: PairJudgmentLine, task: Task) -> str | None:
        shown = (user_prompt_of(task.prompts[0]), user_prompt_of(task.prompts[1]))
        if (stored.model_1, stored.model_2) != task.models:
            shown = (shown[1], shown[0])  # the same pair judged the other way round
        if (stored.g1_user_prompt, stored.g2_user_prompt) != shown:
            return "was judged on other answers or another question"
        return lacks_methods(stored.verdicts, methods)

    return FileFormat(
        PairJudgmentLine, key=_pair_key, write=write, differs=differs, order=_pair_order
    )


def _turn_task(
    bench: Bench, how: BenchJudging, match: Match, question: Question, turn: int, name: str
) -> Task:
    """One turn of one match: both games' prompts (``model_1`` as A in game 1) and the
    rules' findings on each answer."""
    qid, m1, m2 = question.question_id, match.model_1, match.model_2
    one, two = match.answers_1[qid], match.answers_2[qid]
    g1 = pair_user_prompt(bench, question, one, two, turn)
    g2 = pair_user_prompt(bench, question, two, one, turn)
    found = [
        how.ruled_out(bench, question, turn, a.turns[turn - 1], pairwise=True) for a in (one, two)
    ]
    key = f"mtbench-pair:{qid}:{turn}"
    return Task(
        id=f"{qid}/{turn}/{m1} vs {m2}", key=(qid, turn, frozenset((m1, m2))),
        label=f"question {qid} turn {turn} of {m1} vs {m2}", models=(m1, m2),
        prompts=(messages_of(bench, name, g1), messages_of(bench, name, g2)),
        # named by the models in the order shown: game 2 of (X, Y) is game 1 of (Y, X)
        sample_keys=(f"{key}:{m1}:{m2}", f"{key}:{m2}:{m1}"),
        input_hash=inputs_hash(g1),
        rules={side: why for side, why in zip(SIDES, found, strict=True) if why},
    )  # fmt: skip


def plan_matches(
    bench: Bench,
    matches: Sequence[Match],
    settings: JudgeSettings,
    output: Path,
    how: BenchJudging,
    methods: Sequence[Method] = METHODS,
) -> JudgePlan[PairJudgmentLine]:
    """The run that judges every turn of every match into ``output`` (FastChat's ``_pair``
    lines): every prompt built and every rule applied now, before any call."""
    if bench.variant is not None and bench.variant.trials > 1:
        # swallow-evaluation's run_judge_pair compares choices[0] only: a pairwise number
        # signed with the variant's trials would claim trials it never judged
        raise InputError(
            f"`variant` {bench.variant.name}: its {bench.variant.trials} trials are judged "
            "with `mode` single (upstream's pairwise judging compares first answers only)"
        )
    questions = how.questions(bench)
    first = pair_prompt_name(bench, questions[0], bench.turns[0]) if questions else None
    if first is not None and bench.prompt(first).type != "pairwise":  # ELYZA grades single only
        raise InputError(f"`mode` pairwise: {bench.spec.title} has no pairwise judge prompt")
    for match in matches:
        _check_answers(match, questions, max(bench.turns))
    tasks: list[Task] = []
    turns: dict[str, TurnInfo] = {}
    for match in matches:
        for question in questions:
            for turn in bench.turns:
                name = pair_prompt_name(bench, question, turn)
                task = _turn_task(bench, how, match, question, turn, name)
                tasks.append(task)
                turns[task.id] = TurnInfo(question.question_id, turn, name, question.written_id)
    verdict = bench.spec.pair_verdict
    run = how.run(
        bench, "mtbench-pair", settings, methods=tuple(methods),
        verdict=None if verdict == "verdict-after-reasons" else verdict,
    )  # fmt: skip
    protocol = PairwiseJudging(
        settings, "judge_prompts", run.template.rpartition("@")[2], methods=methods,
        output=verdict,
    )  # fmt: skip
    extras = (
        _upstream_fields(bench, matches, settings.judge)
        if bench.spec.upstream_pair_fields
        else None
    )
    fmt = _pair_format(how.judge_name, turns, methods, extras)
    return JudgePlan(output, run, protocol, fmt, tuple(tasks))
