"""Pairwise judging of two models' answers, turn by turn, in both orders (seed 001 on seed 004).

Each turn of each dialogue is judged twice with the benchmark's own pair prompts, filled in
as upstream fills them (``str.format``): game 1 shows ``model_1`` as assistant A, game 2
shows ``model_2`` as A. Turn 2 uses the multi-turn prompts (the whole dialogue of each
model); the reference categories use the pair-math prompts with the reference answer. The
prompts ask for reasons first and ``[[A]]``/``[[B]]``/``[[C]]`` last, so the verdict is
read as "verdict-after-reasons" by the judge engine (``hyoka.judge.verdict_probs``), and
the two games become one verdict per method by the engine's own rules (``prob``: the
verdict probabilities averaged over both games; ``bs1``: disagreement is invalid; ``bs2``:
disagreement is a tie; see ``hyoka.judge.pairwise``).

The single-grading rules carry over: an answer that is empty ("No answer") or in the wrong
language ("Incorrect language") loses to a valid answer without a judge call, and two
such answers tie; the record names the rule and the model it struck. Records are appended
as they finish (resumable: a (question, turn, model pair) already in the file, in either
order, is skipped), every judge call goes through the response cache with a sample key
naming the dialogue, the turn and the models in the order shown, so game 2 of (X, Y) and
game 1 of (Y, X) are one cached call. Every record names the judge model and its settings;
resuming into a file another judge (or the same one with other settings) wrote is refused,
since its turns would count as done. Every prompt is built and every rule applied before
the first judge call, so bad input (a reference answer missing, say) costs nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka._aio import gather_or_cancel
from hyoka._atomic import atomic_write_text
from hyoka._jsonl import append_record, drop_partial_tail, read_records
from hyoka.errors import InputError
from hyoka.judge.pairwise import (
    METHODS,
    TOP_LOGPROBS,
    Method,
    combine,
    prob_verdict,
    xy_probabilities,
)
from hyoka.judge.verdict_probs import VerdictOutput, parse_verdict, verdict_probabilities
from hyoka.mtbench.bench import Bench, Question
from hyoka.mtbench.judge import DEFAULT_JUDGE, ruled_out
from hyoka.mtbench.langcheck import Check, LidModel
from hyoka.mtbench.pair_records import (
    G1_WINNER,
    G2_WINNER,
    PairJudgeSettings,
    PairJudgmentRecord,
)
from hyoka.mtbench.records import AnswerRecord
from hyoka.providers.client import ModelClient
from hyoka.providers.types import Choice, GenerationRequest, Message, SamplingParams, Usage

#: the benchmark's pair prompts give reasons, then the verdict
OUTPUT: VerdictOutput = "verdict-after-reasons"

#: (question_id, turn, the two models in either order): what a record settles
DoneKey = tuple[int, int, frozenset[str]]


@dataclass(frozen=True)
class Match:
    """Two models whose answers are compared; ``model_1`` is assistant A in game 1."""

    model_1: str
    answers_1: dict[int, AnswerRecord]
    model_2: str
    answers_2: dict[int, AnswerRecord]


@dataclass(frozen=True)
class Turn:
    """One turn of one match, ready to judge: its prompts and the rules that decide it."""

    match: Match
    question: Question
    turn: int
    prompt_name: str
    #: game 1's user prompt (model_1 as A), game 2's (model_2 as A)
    prompts: tuple[str, str]
    #: ``model_1``/``model_2`` -> why its answer cannot win; empty: the judge decides
    rules: dict[str, str]


@dataclass
class PairPlan:
    output: Path
    judge_name: str = DEFAULT_JUDGE
    #: PROVIDER/MODEL of the judge as given with -j; default: the client's provider
    judge: str | None = None
    base_url: str | None = None
    methods: tuple[Method, ...] = METHODS
    lang_check: Check = "upstream"
    lid_model: LidModel = "lite"
    max_tokens: int = 2048
    limit: int | None = None

    @property
    def wants_probs(self) -> bool:
        return "prob" in self.methods

    @property
    def params(self) -> SamplingParams:
        """Temperature 0 (seed 001); top-20 log probabilities only when ``prob`` is wanted."""
        return SamplingParams(
            temperature=0.0,
            max_tokens=self.max_tokens,
            logprobs=self.wants_probs,
            top_logprobs=TOP_LOGPROBS if self.wants_probs else None,
        )

    def settings(self, client: ModelClient) -> PairJudgeSettings:
        """What each record says of its judge, and what a resumed file must match."""
        provider = client.provider
        return PairJudgeSettings(
            judge=self.judge or f"{provider.name}/{provider.model}",
            base_url=self.base_url or provider.base_url,
            temperature=0.0,  # as ``params`` asks
            max_tokens=self.max_tokens,
            top_logprobs=self.params.top_logprobs,
        )


@dataclass
class PairReport:
    judged: int = 0
    done_before: int = 0
    #: turns a rule decided without a judge call
    ruled: int = 0
    judge_calls: int = 0
    #: games whose reply held no verdict letter (FastChat's "error")
    no_verdict: int = 0
    usage: Usage = field(default_factory=Usage)


def check_judge(client: ModelClient, methods: Sequence[Method]) -> None:
    """``prob`` needs log probabilities: refuse a judge without them before any call."""
    provider = client.provider
    if "prob" in methods and not provider.supports_logprobs:
        raise InputError(
            f"--method prob needs a judge that returns log probabilities; "
            f"{provider.name}/{provider.model} does not (use --method bs1 or bs2)"
        )


def pair_prompt_name(bench: Bench, question: Question, turn: int) -> str:
    """``pair-v2`` (``pair-math-v1`` for the reference categories), ``-multi-turn`` for turn 2."""
    base = "pair-math-v1" if question.category in bench.spec.reference_categories else "pair-v2"
    return base if turn == 1 else f"{base}-multi-turn"


def pair_user_prompt(
    bench: Bench, question: Question, answer_a: AnswerRecord, answer_b: AnswerRecord, turn: int
) -> str:
    """The pair prompt's template filled in with A's and B's answers, as upstream does."""
    fields = {
        "answer_a": answer_a.turns[0],
        "answer_b": answer_b.turns[0],
        "answer_a_1": answer_a.turns[0],
        "answer_a_2": answer_a.turns[1],
        "answer_b_1": answer_b.turns[0],
        "answer_b_2": answer_b.turns[1],
    }
    return bench.fill_prompt(pair_prompt_name(bench, question, turn), question, fields)


def rule_verdict(rule_1: str | None, rule_2: str | None) -> str:
    """The verdict (A = model_1 wins) when at least one answer was ruled out."""
    if rule_1 is not None and rule_2 is not None:
        return "C"
    return "B" if rule_1 is not None else "A"


def prepare_turn(plan: PairPlan, bench: Bench, match: Match, question: Question, turn: int) -> Turn:
    """Both games' prompts and the rules' findings: all a turn needs but the judge."""
    qid = question.question_id
    answer_1, answer_2 = match.answers_1[qid], match.answers_2[qid]
    prompts = (
        pair_user_prompt(bench, question, answer_1, answer_2, turn),
        pair_user_prompt(bench, question, answer_2, answer_1, turn),
    )
    rules: dict[str, str] = {}
    for which, answer in (("model_1", answer_1), ("model_2", answer_2)):
        why = ruled_out(bench, question, turn, answer.turns[turn - 1], plan.lang_check,
                        plan.lid_model)  # fmt: skip
        if why is not None:
            rules[which] = why
    return Turn(match, question, turn, pair_prompt_name(bench, question, turn), prompts, rules)


def _ruled_record(settings: PairJudgeSettings, plan: PairPlan, task: Turn) -> PairJudgmentRecord:
    verdict = rule_verdict(task.rules.get("model_1"), task.rules.get("model_2"))
    reason = "; ".join(f"{which}: {why}" for which, why in task.rules.items())
    return PairJudgmentRecord(
        question_id=task.question.question_id,
        model_1=task.match.model_1,
        model_2=task.match.model_2,
        g1_winner=G1_WINNER[verdict],
        g2_winner=G1_WINNER[verdict],  # a rule's winner does not depend on the order
        judge=(plan.judge_name, task.prompt_name),
        g1_user_prompt=task.prompts[0],
        g1_judgment=reason,
        g2_user_prompt=task.prompts[1],
        g2_judgment=reason,
        turn=task.turn,
        tstamp=time.time(),
        verdicts=dict.fromkeys(plan.methods, verdict),
        rule=task.rules,
        judge_settings=settings,
    )


async def judge_turn(
    client: ModelClient, plan: PairPlan, settings: PairJudgeSettings, bench: Bench, task: Turn
) -> PairJudgmentRecord:
    """Both games of one turn (or the rule that decides it) and every method's verdict."""
    if task.rules:
        return _ruled_record(settings, plan, task)
    qid, turn, match = task.question.question_id, task.turn, task.match
    prompt = bench.prompt(task.prompt_name)
    shown = ((match.model_1, match.model_2), (match.model_2, match.model_1))
    requests = [
        GenerationRequest(
            messages=(
                Message(role="system", content=prompt.system_prompt),
                Message(role="user", content=text),
            ),
            params=plan.params,
        )
        for text in task.prompts
    ]
    responses = await gather_or_cancel(
        client.generate(request, sample_key=f"mtbench-pair:{qid}:{turn}:{a}:{b}")
        for request, (a, b) in zip(requests, shown, strict=True)
    )
    return PairJudgmentRecord(
        question_id=qid,
        model_1=match.model_1,
        model_2=match.model_2,
        judge=(plan.judge_name, task.prompt_name),
        g1_user_prompt=task.prompts[0],
        g2_user_prompt=task.prompts[1],
        turn=turn,
        tstamp=time.time(),
        usage=responses[0].usage + responses[1].usage,
        judge_settings=settings,
        **read_games([r.choices[0] if r.choices else None for r in responses], plan.methods),
    )


def read_games(choices: Sequence[Choice | None], methods: Sequence[Method]) -> dict[str, Any]:
    """The record's fields that two games' replies decide: each game's winner and reply, and
    every method's verdict (A = model_1 wins) with the probabilities it rests on."""
    wants_probs = "prob" in methods
    replies: list[str] = []
    letters: list[str | None] = []
    read: dict[str, dict[str, float]] = {}
    status: dict[str, str] = {}
    for game, choice in zip(("g1", "g2"), choices, strict=True):
        reply = choice.text if choice is not None else ""
        replies.append(reply)
        letters.append(parse_verdict(reply, OUTPUT))
        if wants_probs:
            probs = verdict_probabilities(choice.logprobs if choice else None, OUTPUT)
            status[game] = probs.status
            if probs.probs is not None:
                read[game] = probs.probs
    verdicts: dict[str, str | None] = {}
    if wants_probs:
        verdicts["prob"] = None
        if "g1" in read and "g2" in read:
            read["mean"] = xy_probabilities(read["g1"], read["g2"])
            verdicts["prob"] = prob_verdict(read["mean"])
    both = combine(letters[0], letters[1])
    verdicts.update((method, both[method]) for method in ("bs1", "bs2") if method in methods)
    return {
        "g1_winner": G1_WINNER[letters[0]],
        "g2_winner": G2_WINNER[letters[1]],
        "g1_judgment": replies[0],
        "g2_judgment": replies[1],
        "verdicts": verdicts,
        "probabilities": read if wants_probs else None,
        "prob_status": status if wants_probs else None,
    }


def read_pair_judgments(path: Path) -> list[PairJudgmentRecord]:
    if not path.exists():
        return []
    return [record for _number, record in read_records(path, PairJudgmentRecord)]


def done_keys(
    path: Path,
    methods: Sequence[Method],
    settings: PairJudgeSettings | None = None,
    judge_name: str | None = None,
) -> set[DoneKey]:
    """What ``path`` already settles. A record lacking a wanted method's verdict (judged
    without log probabilities, say), or judged by another judge, under another judge name or
    with other settings (when ``settings``/``judge_name`` are given) is an error: its turns
    would count as done, and judging them again would count them twice."""
    done: set[DoneKey] = set()
    if not path.exists():
        return done
    for number, record in read_records(path, PairJudgmentRecord):
        if settings is not None:
            _check_judge_of(path, number, record, settings, judge_name)
        missing = [method for method in methods if method not in record.verdicts]
        if missing:
            raise InputError(
                f"{path}:{number}: judged without the {', '.join(missing)} verdict(s); "
                "choose another --output-dir or leave that --method out"
            )
        done.add((record.question_id, record.turn, record.models))
    return done


def _check_judge_of(
    path: Path,
    number: int,
    record: PairJudgmentRecord,
    settings: PairJudgeSettings,
    judge_name: str | None,
) -> None:
    where = f"{path}:{number}"
    advice = "choose another --output-dir (or --judge-name) to judge into a new file"
    if record.judge_settings is None:
        raise InputError(
            f"{where}: the record names no judge model or settings (a FastChat file, or one "
            f"from before hyoka recorded them), so it cannot be resumed with {settings.judge}; "
            f"{advice}"
        )
    differs = record.judge_settings.differences(settings)
    if judge_name is not None and record.judge[0] != judge_name:
        differs.insert(0, f"judge name {record.judge[0]!r} vs {judge_name!r}")
    if differs:
        raise InputError(
            f"{where}: judged by another judge or with other settings "
            f"(in the file vs now: {'; '.join(differs)}); {advice}"
        )


def match_keys(match: Match, questions: Sequence[Question]) -> list[DoneKey]:
    pair = frozenset((match.model_1, match.model_2))
    return [(q.question_id, turn, pair) for q in questions for turn in (1, 2)]


async def judge_matches(
    client: ModelClient,
    plan: PairPlan,
    bench: Bench,
    matches: Sequence[Match],
    progress: Callable[[], None] | None = None,
) -> PairReport:
    """Judge every turn of every match not yet in ``plan.output``, appending as they finish."""
    check_judge(client, plan.methods)
    questions = bench.questions[: plan.limit or None]
    for match in matches:
        if match.model_1 == match.model_2:
            raise InputError(f"{match.model_1!r} compared with itself: give two different models")
        for model, answers in ((match.model_1, match.answers_1), (match.model_2, match.answers_2)):
            missing = [q.question_id for q in questions if q.question_id not in answers]
            if missing:
                raise InputError(f"{model}: no answer to question_id {missing[0]}")
            short = [q.question_id for q in questions if len(answers[q.question_id].turns) < 2]
            if short:
                raise InputError(f"{model}: question_id {short[0]} has fewer than two turns")
    settings = plan.settings(client)
    drop_partial_tail(plan.output)
    done = done_keys(plan.output, plan.methods, settings, plan.judge_name)
    report = PairReport()
    todo: list[Turn] = []
    for match in matches:
        for question in questions:
            for turn in (1, 2):
                key = (question.question_id, turn, frozenset((match.model_1, match.model_2)))
                if key in done:
                    report.done_before += 1
                else:
                    done.add(key)  # the same pair named twice is judged once
                    # every prompt and rule now, so bad input stops the run before any call
                    todo.append(prepare_turn(plan, bench, match, question, turn))

    async def one(task: Turn) -> None:
        record = await judge_turn(client, plan, settings, bench, task)
        append_record(plan.output, record)
        report.judged += 1
        if record.rule:
            report.ruled += 1
        else:
            report.judge_calls += 2
            report.no_verdict += (record.g1_winner == "error") + (record.g2_winner == "error")
        report.usage = report.usage + record.usage
        if progress is not None:
            progress()

    await gather_or_cancel(one(task) for task in todo)
    if report.judged:
        _sort(plan.output)
    return report


def _sort(path: Path) -> None:
    """By model pair, then question and turn: a file that reads like upstream's."""
    records = read_pair_judgments(path)
    records.sort(key=lambda r: (r.model_1, r.model_2, r.question_id, r.turn))
    lines = [_line(r.model_dump(mode="json")) for r in records]
    atomic_write_text(path, "".join(lines))


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False) + "\n"
