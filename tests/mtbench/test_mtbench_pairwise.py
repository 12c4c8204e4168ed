"""``mtbench judge --mode pairwise``: prompts, rules, FastChat's pair format, a judge.

The games' verdicts, winners and probabilities are asserted exactly through a scripted judge
(``scripted/PATH``) whose replies and letter probabilities the test states; the real SmolLM2
judge keeps one test of the wiring (records, fields, counts), whatever it writes.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, embedded_judge, needs
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.judge import (
    JudgePlan,
    JudgeReport,
    JudgeSettings,
    Method,
    PairwiseJudging,
    Task,
    lacks_methods,
    pairwise_settings,
    run_judging,
)
from hyoka.judge.pairwise import (
    METHODS,
    combine,
    prob_verdict,
    rule_verdict,
    xy_probabilities,
)
from hyoka.judge.verdict_probs import parse_verdict
from hyoka.mtbench import Bench, PairsJudged, judge_bench, load_answers
from hyoka.mtbench.judge import BenchJudging
from hyoka.mtbench.pair_summary import (
    length_controlled,
    method_counts,
    no_logprobs,
    turn_label,
)
from hyoka.mtbench.pairwise import (
    Match,
    make_matches,
    pair_prompt_name,
    pair_user_prompt,
    plan_matches,
    read_pair_lines,
    turn_lengths,
)
from hyoka.mtbench.records import (
    G1_WINNER,
    G2_WINNER,
    AnswerChoice,
    AnswerRecord,
    PairJudgmentLine,
    pair_line,
)
from hyoka.mtbench.variant import PinnedFile, Variant
from hyoka.providers import Message, load_provider
from hyoka.providers.client import ModelClient, ResponseCache
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.providers.types import Choice, TokenLogprob, TopLogprob
from hyoka.stats import (
    MIRROR,
    BaselineVerdict,
    StyleCounts,
    StyledBattle,
    length_controlled_winrates,
    rate_with_style,
)
from hyoka.store import manifest_path

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
MODEL_X, MODEL_Y = "claude-2.1", "meta-llama_Meta-Llama-3-70B"
FASTCHAT_FIELDS = {
    "question_id", "model_1", "model_2", "g1_winner", "g2_winner", "judge", "g1_user_prompt",
    "g1_judgment", "g2_user_prompt", "g2_judgment", "turn", "tstamp",
}  # fmt: skip
MAX_TOKENS = 48


@pytest.fixture(scope="module")
def bench() -> Bench:
    return Bench.load("pfmt-fin", SHARED_DATA)


def _answers(model: str, turns: dict[int, tuple[str, str]]) -> dict[int, AnswerRecord]:
    return {
        qid: AnswerRecord(
            question_id=qid, model_id=model, choices=(AnswerChoice(index=0, turns=pair),)
        )
        for qid, pair in turns.items()
    }


@dataclass(frozen=True)
class PairPlan:
    """What these tests vary between runs; ``_made`` turns it into the engine's plan."""

    output: Path
    judge_name: str = "gpt-4o-mini"
    judge: str = EMBEDDED_MODEL
    base_url: str | None = None
    methods: tuple[Method, ...] = METHODS
    max_tokens: int = 2048
    limit: int | None = None


def _made(plan: PairPlan, bench: Bench, matches: list[Match]) -> JudgePlan[PairJudgmentLine]:
    settings = pairwise_settings(plan.judge, plan.base_url, plan.max_tokens, plan.methods)
    how = BenchJudging(plan.judge_name, limit=plan.limit)
    return plan_matches(bench, matches, settings, plan.output, how, plan.methods)


def _run(client: ModelClient, plan: PairPlan, bench: Bench, matches: list[Match]) -> JudgeReport:
    return asyncio.run(run_judging(client, _made(plan, bench, matches)))


def read_pair_judgments(path: Path) -> list[PairJudgmentLine]:
    return read_pair_lines(path)


def read_games(choices: list[Choice], methods: tuple[Method, ...]) -> dict[str, Any]:
    """The fields of the FastChat line two games' replies make (xy = game 1)."""
    prompts = tuple((Message(role="user", content=f"game {g}"),) for g in (1, 2))
    task = Task(
        id="t", key="t", label="t", models=("m1", "m2"), prompts=prompts,
        sample_keys=("a", "b"), input_hash=None,
    )  # fmt: skip
    protocol = PairwiseJudging(
        JudgeSettings(judge="j"), "p", "1", methods=methods, output="verdict-after-reasons"
    )
    record = protocol.judgment(task, choices)
    line = pair_line(record, question_id=1, turn=1, judge=("j", "p"), user_prompts=("", ""))
    return line.model_dump()


# -- prompts -----------------------------------------------------------------------------


def test_prompt_names_follow_turn_and_category(bench: Bench) -> None:
    by_id = bench.by_id
    writing = next(q for q in bench.questions if q.category == "writing")
    math = next(q for q in bench.questions if q.category == "math")
    assert [pair_prompt_name(bench, by_id[q.question_id], t) for q in (writing, math)
            for t in (1, 2)] == [
        "pair-v2", "pair-v2-multi-turn", "pair-math-v1", "pair-math-v1-multi-turn",
    ]  # fmt: skip


def test_user_prompts_place_each_answer_as_a_and_b(bench: Bench) -> None:
    math = next(q for q in bench.questions if q.category == "math")
    x = _answers("x", {math.question_id: ("X-ONE", "X-TWO")})[math.question_id]
    y = _answers("y", {math.question_id: ("Y-ONE", "Y-TWO")})[math.question_id]
    reference = bench.references[math.question_id].turns
    one = pair_user_prompt(bench, math, x, y, 1)
    assert one.index("X-ONE") < one.index("Y-ONE") and "X-TWO" not in one
    assert reference[0] in one and one.startswith(f"[ユーザーの質問]\n{math.turns[0]}\n")
    assert "[アシスタントAの回答の開始]\nX-ONE\n[アシスタントAの回答の終了]" in one
    two = pair_user_prompt(bench, math, y, x, 2)
    assert "### アシスタントA:\nY-ONE" in two and "### アシスタントA:\nY-TWO" in two
    assert "### アシスタントB:\nX-TWO" in two and reference[1] in two
    assert two.count(math.turns[1]) == 3  # the reference's dialogue and both assistants'


# -- rules -------------------------------------------------------------------------------


def test_rule_verdicts() -> None:
    assert rule_verdict(None, "No answer") == "A"
    assert rule_verdict("Incorrect language", None) == "B"
    assert rule_verdict("No answer", "Incorrect language") == "C"


def test_rules_decide_without_a_judge_call(bench: Bench, tmp_path: Path) -> None:
    """As upstream's pairwise games: only a missing answer decides without the judge (an
    English answer still beats an empty one: the language rule is single grading's)."""
    english = "FOR IMMEDIATE RELEASE: the bank launches a new fund for retail investors."
    japanese = "金融機関向けの新商品について、概要と特徴を説明します。"
    x = _answers("x", {0: ("", japanese), 1: (english, "")})
    y = _answers("y", {0: (japanese, ""), 1: ("", "  ")})
    plan = PairPlan(output=tmp_path / "pair.jsonl", judge_name="judge", limit=2)
    # a judge that is never asked: every turn is decided by a rule
    client = ModelClient(load_provider(EMBEDDED_MODEL), cache=None)
    report = _run(client, plan, bench, [Match("x", x, "y", y)])
    assert (report.judged, report.ruled, report.judge_calls) == (4, 4, 0)
    assert client.stats.requests == 0
    lines = [json.loads(line) for line in plan.output.read_text(encoding="utf-8").splitlines()]
    assert set(lines[0]) >= FASTCHAT_FIELDS
    every = ("prob", "bs1", "bs2")
    got = [
        (r["question_id"], r["turn"], r["g1_winner"], r["g2_winner"], r["rule"], r["verdicts"])
        for r in lines
    ]
    assert got == [
        (0, 1, "model_2", "model_2", {"model_1": "No answer"}, dict.fromkeys(every, "B")),
        (0, 2, "model_1", "model_1", {"model_2": "No answer"}, dict.fromkeys(every, "A")),
        (1, 1, "model_1", "model_1", {"model_2": "No answer"}, dict.fromkeys(every, "A")),
        (1, 2, "tie", "tie", {"model_1": "No answer", "model_2": "No answer"},
         dict.fromkeys(every, "C")),
    ]  # fmt: skip
    assert lines[0]["g1_judgment"] == "model_1: No answer"
    assert lines[1]["judge"] == ["judge", "pair-v2-multi-turn"]
    # the prompts are those the judge would have seen, x first in game 1, y first in game 2
    assert lines[0]["g1_user_prompt"] == pair_user_prompt(bench, bench.questions[0], x[0], y[0], 1)
    assert lines[0]["g2_user_prompt"] == pair_user_prompt(bench, bench.questions[0], y[0], x[0], 1)
    # resumable: the same pair, in either order, is done
    again = _run(client, plan, bench, [Match("y", y, "x", x)])
    assert (again.judged, again.done_before) == (0, 4)
    counts = method_counts(read_pair_judgments(plan.output), ("bs2",))["bs2"]
    assert (counts["x"].wins, counts["x"].losses, counts["x"].ties) == (2, 1, 1)
    assert (counts["y"].win_rate, counts["y"].adjusted_win_rate) == (0.25, 0.375)


# -- the judge in the records, resuming, bad input before any call ---------------------------

ENGLISH = "FOR IMMEDIATE RELEASE: the bank launches a new fund for retail investors."
JAPANESE = "金融機関向けの新商品について、概要と特徴を説明します。"


def _ruled_only_run(bench: Bench, plan: PairPlan) -> tuple[JudgeReport, ModelClient]:
    """Dialogue 0 with x's answers empty: both turns decided by the rule, no judge call
    (the judge the plan names, at its server, is never asked)."""
    x = _answers("x", {0: ("", "")})
    y = _answers("y", {0: (JAPANESE, JAPANESE)})
    server = {} if plan.base_url is None else {"base_url": plan.base_url}
    client = ModelClient(load_provider(plan.judge, **server), cache=None)
    return _run(client, plan, bench, [Match("x", x, "y", y)]), client


def test_records_name_the_judge_and_refuse_another_judge_or_settings(
    bench: Bench, tmp_path: Path
) -> None:
    output = tmp_path / "judge_pair.jsonl"
    plan = PairPlan(
        output=output, judge_name="judge", judge="openai/judge-a",
        base_url="http://127.0.0.1:9/v1", max_tokens=512, limit=1,
    )  # fmt: skip
    report, client = _ruled_only_run(bench, plan)
    assert (report.judged, report.ruled, client.stats.requests) == (2, 2, 0)
    lines = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [line["judge_settings"] for line in lines] == [
        {"judge": "openai/judge-a", "base_url": "http://127.0.0.1:9/v1", "temperature": 0.0,
         "max_tokens": 512, "top_logprobs": 20, "repeats": 1, "aggregate": "mean"},
    ] * 2  # fmt: skip
    again, client = _ruled_only_run(bench, plan)
    assert (again.judged, again.done_before) == (0, 2)
    before = output.read_bytes()
    refused: list[tuple[dict[str, Any], str]] = [
        ({"judge": "openai/judge-b"}, 'judge.judge: "openai/judge-a" vs "openai/judge-b"'),
        ({"max_tokens": 1024}, "judge.max_tokens: 512 vs 1024"),
        ({"base_url": "http://127.0.0.1:8/v1"},
         'judge.base_url: "http://127.0.0.1:9/v1" vs "http://'),
        ({"judge_name": "other"}, 'judge_name: "judge" vs "other"'),
    ]  # fmt: skip
    for change, difference in refused:
        with pytest.raises(InputError) as caught:
            _ruled_only_run(bench, replace(plan, **change))
        message = str(caught.value)
        assert message.startswith(f"{output} holds another run's records")
        assert difference in message and "choose another output" in message
    assert output.read_bytes() == before  # nothing judged, nothing written
    # fewer methods than the file holds: its verdicts serve, nothing to judge
    fewer, _client = _ruled_only_run(bench, replace(plan, methods=("bs2",)))
    assert (fewer.judged, fewer.done_before) == (0, 2)
    assert output.read_bytes() == before


def test_settings_ask_logprobs_only_for_prob(bench: Bench, tmp_path: Path) -> None:
    output = tmp_path / "pair.jsonl"
    _ruled_only_run(bench, PairPlan(output=output, methods=("bs1", "bs2"), limit=1))
    record = read_pair_judgments(output)[0]
    assert record.judge_settings == JudgeSettings(
        judge=EMBEDDED_MODEL, base_url=None, temperature=0.0, max_tokens=2048, top_logprobs=None
    )


def test_records_without_a_judge_read_but_do_not_resume(bench: Bench, tmp_path: Path) -> None:
    """FastChat's files (and hyoka's from before the judge was recorded) load and count;
    judging into one cannot tell whose verdicts it would mix with, so it is refused, and
    the file is left as it is."""
    path = tmp_path / "gpt-4_pair.jsonl"
    record = _fastchat("model_1", "model_1").model_copy(update={"verdicts": {"bs2": "A"}})
    path.write_text(json.dumps(record.model_dump(mode="json")) + "\n", encoding="utf-8")
    (read,) = read_pair_judgments(path)
    assert read.judge_settings is None and read.outcome().verdicts.get("bs2") == "A"
    before = path.read_bytes()
    with pytest.raises(InputError, match=r"gpt-4_pair\.jsonl exists and was not written by hyoka"):
        _ruled_only_run(bench, PairPlan(output=path, judge_name="gpt-4", limit=1))
    assert path.read_bytes() == before


def test_a_missing_reference_stops_the_run_before_any_judge_call(
    bench: Bench, tmp_path: Path
) -> None:
    writing = next(q for q in bench.questions if q.category == "writing")
    math = next(q for q in bench.questions if q.category == "math")
    references = {k: v for k, v in bench.references.items() if k != math.question_id}
    broken = replace(bench, questions=(writing, math), references=references)
    answers = {q.question_id: (JAPANESE, JAPANESE) for q in (writing, math)}
    match = Match("x", _answers("x", answers), "y", _answers("y", answers))
    output = tmp_path / "pair.jsonl"
    client = ModelClient(load_provider(EMBEDDED_MODEL), cache=None)
    with pytest.raises(InputError, match=f"no reference answer for question_id {math.question_id}"):
        _run(client, PairPlan(output=output), broken, [match])
    assert client.stats.requests == 0 and not output.exists()
    one_turn = AnswerChoice(index=0, turns=(JAPANESE,))
    short = {writing.question_id: AnswerRecord(question_id=writing.question_id, model_id="y",
                                               choices=(one_turn,))}  # fmt: skip
    with pytest.raises(InputError, match=f"y: question_id {writing.question_id} has fewer"):
        _run(client, PairPlan(output=output), replace(bench, questions=(writing,)),
             [Match("x", match.answers_1, "y", short)])  # fmt: skip
    assert client.stats.requests == 0


# -- reading the two games' replies --------------------------------------------------------


def _choice(reason: str, letter: str, top: dict[str, float] | None) -> Choice:
    """A reasons-then-verdict reply; ``top``: the alternatives at the verdict letter."""
    text = f"{reason}[[{letter}]]"
    if top is None:
        return Choice(text=text)
    alternatives = tuple(TopLogprob(token=t, logprob=lp) for t, lp in top.items())
    steps = (
        TokenLogprob(token=reason, logprob=-0.1),
        TokenLogprob(token="[[", logprob=-0.01),
        TokenLogprob(token=letter, logprob=top[letter], top=alternatives),
        TokenLogprob(token="]]", logprob=-0.01),
    )
    return Choice(text=text, logprobs=steps)


def test_games_that_agree_name_the_same_model() -> None:
    # game 1 shows model_1 as A, game 2 as B: [[A]] then [[B]] both say model_1
    g1 = _choice("Aの方が正確です。", "A", {"A": -0.2, "B": -1.8, " C": -3.0})
    g2 = _choice("Bの方が正確です。", "B", {"B": -0.5, "A": -1.2})
    fields = read_games([g1, g2], ("prob", "bs1", "bs2"))
    assert (fields["g1_winner"], fields["g2_winner"]) == ("model_1", "model_1")
    assert fields["verdicts"] == {"prob": "A", "bs1": "A", "bs2": "A"}
    assert fields["prob_status"] == {"g1": "ok", "g2": "ok"}
    mean = fields["probabilities"]["mean"]
    assert mean["A"] == pytest.approx((math.exp(-0.2) + math.exp(-0.5)) / 2)
    assert mean["B"] == pytest.approx((math.exp(-1.8) + math.exp(-1.2)) / 2)
    assert mean["C"] == pytest.approx(math.exp(-3.0) / 2)
    assert fields["g1_judgment"] == "Aの方が正確です。[[A]]"


def test_games_that_disagree_by_method() -> None:
    # both games say "A": position bias; prob follows the more confident game
    g1 = _choice("理由。", "A", {"A": -0.1, "B": -2.5})
    g2 = _choice("理由。", "A", {"A": -1.0, "B": -0.5})
    fields = read_games([g1, g2], ("prob", "bs1", "bs2"))
    assert (fields["g1_winner"], fields["g2_winner"]) == ("model_1", "model_2")
    assert fields["verdicts"] == {"prob": "A", "bs1": None, "bs2": "C"}
    # without log probabilities there is no prob verdict; a game without [[X]] is an error
    fields = read_games([Choice(text="理由。[[B]]"), Choice(text="わかりません")], METHODS)
    assert (fields["g1_winner"], fields["g2_winner"]) == ("model_2", "error")
    assert fields["verdicts"] == {"prob": None, "bs1": None, "bs2": None}
    assert fields["prob_status"] == {"g1": "no-logprobs", "g2": "no-logprobs"}
    # only the methods asked for, and no probabilities unless prob is one of them
    fields = read_games([Choice(text="[[C]]"), Choice(text="[[C]]")], ("bs2",))
    assert (fields["verdicts"], fields["probabilities"], fields["prob_status"]) == (
        {"bs2": "C"}, None, None,
    )  # fmt: skip
    assert (fields["g1_winner"], fields["g2_winner"]) == ("tie", "tie")


# -- format, summary, bad input ------------------------------------------------------------


def _fastchat(g1: str, g2: str) -> PairJudgmentLine:
    return PairJudgmentLine.model_validate(
        {"question_id": 81, "model_1": "a", "model_2": "b", "g1_winner": g1, "g2_winner": g2,
         "judge": ["gpt-4", "pair-v2"], "g1_user_prompt": "", "g1_judgment": "", "turn": 1,
         "g2_user_prompt": "", "g2_judgment": "", "tstamp": 1.0}
    )  # fmt: skip


def test_fastchat_records_read_as_fastchat_counts_them() -> None:
    agree, disagree = _fastchat("model_1", "model_1"), _fastchat("model_1", "model_2")
    error = _fastchat("error", "model_1")
    assert [r.outcome().verdicts.get("bs2") for r in (agree, disagree, error)] == ["A", "C", None]
    assert [r.outcome().verdicts.get("bs1") for r in (agree, disagree, error)] == ["A", None, None]
    assert agree.outcome().verdicts.get("prob") is None
    counts = method_counts([agree, disagree, error, _fastchat("tie", "tie")], ("bs2",))["bs2"]
    a = counts["a"]
    assert (a.wins, a.losses, a.ties, a.invalid) == (1, 0, 2, 1)
    assert a.adjusted_win_rate == pytest.approx(2 / 3)


def test_records_without_a_wanted_method_do_not_count_as_done(bench: Bench, tmp_path: Path) -> None:
    record = _fastchat("model_1", "tie").model_copy(update={"verdicts": {"bs2": "A"}})
    assert lacks_methods(record.verdicts, ("bs2",)) is None
    assert lacks_methods(record.verdicts, ("prob", "bs2")) == (
        "has no prob verdict (it was judged for bs2)"
    )
    output = tmp_path / "pair.jsonl"
    _ruled_only_run(bench, PairPlan(output=output, methods=("bs2",), limit=1))
    with pytest.raises(InputError, match=r"pair\.jsonl:1: question 0 turn 1 of x vs y has no prob"):
        _ruled_only_run(bench, PairPlan(output=output, methods=("prob", "bs2"), limit=1))


def test_matches_all_pairs_or_against_a_baseline() -> None:
    files = [(Path(f"{m}.jsonl"), _answers(m, {0: ("a", "b")})) for m in ("p", "q", "r")]
    assert [(m.model_1, m.model_2) for m in make_matches(files, None)] == [
        ("p", "q"), ("p", "r"), ("q", "r"),
    ]  # fmt: skip
    assert [(m.model_1, m.model_2) for m in make_matches(files, "q")] == [("p", "q"), ("r", "q")]
    with pytest.raises(InputError, match="`baseline` 'z' is none of"):
        make_matches(files, "z")
    with pytest.raises(InputError, match="at least two `answers`"):
        make_matches(files[:1], None)
    with pytest.raises(InputError, match=r"p\.jsonl: a second answer file of 'p'"):
        make_matches([files[0], files[0]], None)


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["mtbench", "judge", *args])
    return result.exit_code, result.output


def test_cli_refuses_bad_flags_and_prob_without_logprobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    x, y = (str(FIN / "model_answer" / f"{m}.jsonl") for m in (MODEL_X, MODEL_Y))
    code, text = _cli("-j", EMBEDDED_MODEL, "-a", x, "--mode", "pair")
    assert code == 2 and "'pair' is not one of" in text
    code, text = _cli("-j", EMBEDDED_MODEL, "-a", x, "--method", "bs1")
    assert code == 1
    assert "--baseline, --method and --control-features are for --mode pairwise" in text
    code, text = _cli("-j", EMBEDDED_MODEL, "-a", x, "-a", y, "--mode", "pairwise",
                      "--method", "bs3", "--limit", "1")  # fmt: skip
    assert code == 2 and "'bs3' is not one of" in text
    needs("anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-that-is-never-sent")
    code, text = _cli("-j", "anthropic/claude-3-5-haiku-latest", "--base-url", "http://127.0.0.1:9",
                      "-a", x, "-a", y, "--mode", "pairwise", "--limit", "1",
                      "--output-dir", str(tmp_path), "--method", "all")  # fmt: skip
    assert code == 1 and "--method prob needs a judge that returns log probabilities" in text
    assert not list(tmp_path.iterdir())


# -- a judge on published answers: scripted for the numbers, SmolLM2 for the wiring -------

# claude-2.1 against the Llama-3-70B base model on two extraction dialogues. Two of the
# four turns are decided by the rule on the published answers: the base model left turn 2
# of both dialogues empty. Turn 1 of each goes to the judge, in both orders (claude-2.1's
# answers to 108 are tables that single grading's language check rules out, but upstream's
# pairwise games check no language).
DIALOGUES = (108, 110)
#: per dialogue, the scripted judge's reply to game 1 (claude-2.1 as assistant A) and to
#: game 2 (the other way round), with its probabilities of the letters. 108: both games
#: prefer claude-2.1; 110: both say A, whoever is A (position bias).
GAMES = {
    108: (
        ("一つ目の回答の方が具体的です。[[A]]", {"A": 0.8, "B": 0.15, "C": 0.05}),
        ("二つ目の回答の方が具体的です。[[B]]", {"A": 0.2, "B": 0.7, "C": 0.1}),
    ),
    110: (
        ("最初の回答が良いです。[[A]]", {"A": 0.6, "B": 0.3, "C": 0.1}),
        ("最初の回答が良いです。[[A]]", {"A": 0.5, "B": 0.4, "C": 0.1}),
    ),
}
#: what seed 001's and FastChat's rules make of ``GAMES``: winners, then prob, bs1, bs2
EXPECTED = {
    108: (("model_1", "model_1"), {"prob": "A", "bs1": "A", "bs2": "A"}),
    110: (("model_1", "model_2"), {"prob": "A", "bs1": None, "bs2": "C"}),
}


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pair-cache")


@pytest.fixture(scope="module")
def two_dialogues(bench: Bench) -> Bench:
    return replace(bench, questions=tuple(bench.by_id[qid] for qid in DIALOGUES))


@pytest.fixture(scope="module")
def published(bench: Bench) -> Match:
    x, y = (load_answers(FIN / "model_answer" / f"{m}.jsonl", bench) for m in (MODEL_X, MODEL_Y))
    return Match(MODEL_X, x, MODEL_Y, y)


@pytest.fixture(scope="module")
def judge_spec(bench: Bench, published: Match, tmp_path_factory: pytest.TempPathFactory) -> str:
    """``scripted/PATH`` answering each game's exact user prompt as ``GAMES`` says."""
    rules = []
    for qid, games in GAMES.items():
        x, y = published.answers_1[qid], published.answers_2[qid]
        for (a, b), (reply, probs) in zip(((x, y), (y, x)), games, strict=True):
            prompt = pair_user_prompt(bench, bench.by_id[qid], a, b, 1)
            alternatives = {letter: math.log(p) for letter, p in probs.items()}
            rules.append({"prompt": prompt, "reply": reply, "alternatives": alternatives})
    path = tmp_path_factory.mktemp("judge") / "judge.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules), "utf-8")
    return f"scripted/{path}"


@pytest.fixture(scope="module")
def judge_client(judge_spec: str, cache_dir: Path) -> ModelClient:
    return ModelClient(load_provider(judge_spec), cache=ResponseCache(cache_dir), concurrency=1)


def _plan(output: Path, client: ModelClient) -> PairPlan:
    judge = f"{client.provider.name}/{client.provider.model}"
    return PairPlan(output=output, judge_name="smol", judge=judge, max_tokens=MAX_TOKENS)


@pytest.fixture(scope="module")
def judged(
    two_dialogues: Bench,
    published: Match,
    judge_client: ModelClient,
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[PairJudgmentLine], Path]:
    output = tmp_path_factory.mktemp("judged") / "smol_pair.jsonl"
    before = judge_client.stats.requests
    report = _run(judge_client, _plan(output, judge_client), two_dialogues, [published])
    assert (report.judged, report.ruled, report.judge_calls) == (4, 2, 4)
    assert judge_client.stats.requests - before == 4
    # the scripted judge counts a character as a token
    replies = [reply for games in GAMES.values() for reply, _ in games]
    assert report.usage.completion_tokens == sum(len(reply) for reply in replies)
    return read_pair_judgments(output), output


def _check_pair_records(
    bench: Bench, published: Match, output: Path, records: list[PairJudgmentLine]
) -> None:
    """What every FastChat pair line carries, whatever the judge said."""
    lines = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [(r["question_id"], r["turn"]) for r in lines] == [
        (r.question_id, r.turn) for r in records
    ]
    for line, record in zip(lines, records, strict=True):
        assert set(line) >= FASTCHAT_FIELDS
        assert (line["model_1"], line["model_2"]) == (MODEL_X, MODEL_Y)
        question = bench.by_id[record.question_id]
        assert line["judge"] == ["smol", pair_prompt_name(bench, question, record.turn)]
        x, y = published.answers_1[question.question_id], published.answers_2[question.question_id]
        assert record.g1_user_prompt == pair_user_prompt(bench, question, x, y, record.turn)
        assert record.g2_user_prompt == pair_user_prompt(bench, question, y, x, record.turn)
        assert set(record.verdicts) == {"prob", "bs1", "bs2"}
        if record.turn == 2:  # the base model left every turn 2 empty: the rule decides
            assert (record.rule, record.g1_winner, record.g2_winner, record.verdicts) == (
                {"model_2": "No answer"}, "model_1", "model_1",
                {"prob": "A", "bs1": "A", "bs2": "A"},
            )  # fmt: skip
            assert record.usage.prompt_tokens == 0
            continue
        assert record.rule is None and record.usage.completion_tokens > 0
        assert record.g1_judgment and record.g2_judgment  # the judge's own words
        assert record.prob_status is not None and set(record.prob_status) == {"g1", "g2"}
        # the winners and baselines are what the rules make of the judge's words
        g1 = parse_verdict(record.g1_judgment, "verdict-after-reasons")
        g2 = parse_verdict(record.g2_judgment, "verdict-after-reasons")
        assert record.g1_winner == G1_WINNER[g1] and record.g2_winner == G2_WINNER[g2]
        assert {k: record.verdicts[k] for k in ("bs1", "bs2")} == combine(g1, g2)


def test_games_write_fastchat_pair_records(
    bench: Bench, published: Match, judged: tuple[list[PairJudgmentLine], Path]
) -> None:
    records, output = judged
    _check_pair_records(bench, published, output, records)
    assert [(r.question_id, r.turn) for r in records] == [(108, 1), (108, 2), (110, 1), (110, 2)]
    assert [r.judge[1] for r in records] == ["pair-v2", "pair-v2-multi-turn"] * 2
    for record in (records[0], records[2]):
        (g1, g1_probs), (g2, g2_probs) = GAMES[record.question_id]
        winners, verdicts = EXPECTED[record.question_id]
        assert (record.g1_judgment, record.g2_judgment) == (g1, g2)
        assert (record.g1_winner, record.g2_winner) == winners
        assert record.verdicts == verdicts
        assert record.prob_status == {"g1": "ok", "g2": "ok"}
        assert record.probabilities is not None
        assert record.probabilities["g1"] == pytest.approx(g1_probs)
        assert record.probabilities["g2"] == pytest.approx(g2_probs)
        assert record.probabilities["mean"] == xy_probabilities(
            record.probabilities["g1"], record.probabilities["g2"]
        )
        assert record.verdicts["prob"] == prob_verdict(record.probabilities["mean"])


@pytest.fixture
def real_judged(
    bench: Bench, published: Match, tmp_path: Path
) -> Iterator[tuple[list[PairJudgmentLine], Path]]:
    """Dialogue 108 by the real SmolLM2 in process: turn 1 in both orders, turn 2 by rule."""
    provider = embedded_judge()
    client = ModelClient(provider, cache=None, concurrency=1)
    one = replace(bench, questions=(bench.by_id[DIALOGUES[0]],))
    output = tmp_path / "smol_pair.jsonl"
    plan = replace(_plan(output, client), max_tokens=16)
    report = _run(client, plan, one, [published])
    assert (report.judged, report.ruled, report.judge_calls, client.stats.requests) == (2, 1, 2, 2)
    yield read_pair_judgments(output), output
    asyncio.run(provider.aclose())


def test_real_smollm2_judge_wiring(
    bench: Bench, published: Match, real_judged: tuple[list[PairJudgmentLine], Path]
) -> None:
    records, output = real_judged
    _check_pair_records(bench, published, output, records)
    assert [(r.question_id, r.turn) for r in records] == [(108, 1), (108, 2)]
    assert records[0].judge_settings is not None
    assert records[0].judge_settings.judge == EMBEDDED_MODEL
    assert records[0].prob_status is not None
    assert set(records[0].prob_status.values()) <= {"ok", "no-verdict"}


def _other(name: str) -> str:
    """A winner or side named from the other side's point of view."""
    return {"model_1": "model_2", "model_2": "model_1"}.get(name, name)


def test_games_map_to_models_both_ways(
    two_dialogues: Bench,
    published: Match,
    judge_client: ModelClient,
    judged: tuple[list[PairJudgmentLine], Path],
    tmp_path: Path,
) -> None:
    records, _output = judged
    # the same pair the other way round: game 2 of (X, Y) is game 1 of (Y, X), one cached
    # call each, and every verdict is the mirror image
    swapped = Match(MODEL_Y, published.answers_2, MODEL_X, published.answers_1)
    output = tmp_path / "swapped.jsonl"
    before, hits = judge_client.stats.requests, judge_client.stats.cache_hits
    _run(judge_client, _plan(output, judge_client), two_dialogues, [swapped])
    assert judge_client.stats.requests == before
    assert judge_client.stats.cache_hits - hits == 4  # two judged turns, two games each
    for mine, theirs in zip(records, read_pair_judgments(output), strict=True):
        assert (theirs.model_1, theirs.model_2) == (MODEL_Y, MODEL_X)
        assert (theirs.g1_winner, theirs.g2_winner) == (
            _other(mine.g2_winner), _other(mine.g1_winner),
        )  # fmt: skip
        for method, letter in mine.verdicts.items():
            assert theirs.verdicts[method] == (None if letter is None else MIRROR[letter])
        if mine.rule:
            assert theirs.rule == {_other(side): why for side, why in mine.rule.items()}
        else:
            assert (theirs.g1_judgment, theirs.g2_judgment) == (
                mine.g2_judgment, mine.g1_judgment,
            )  # fmt: skip
            assert theirs.probabilities is not None and mine.probabilities is not None
            assert theirs.probabilities.get("g1") == mine.probabilities.get("g2")
    # what the mirror maps is real: claude-2.1 wins 108 from both sides, 110 splits
    swapped_records = read_pair_judgments(output)
    assert [r.verdicts["prob"] for r in (records[0], swapped_records[0])] == ["A", "B"]
    assert [r.verdicts["bs2"] for r in (records[2], swapped_records[2])] == ["C", "C"]


def test_resumes_after_a_torn_write_from_the_cache(
    two_dialogues: Bench,
    published: Match,
    judge_client: ModelClient,
    judged: tuple[list[PairJudgmentLine], Path],
    tmp_path: Path,
) -> None:
    records, output = judged
    lines = output.read_text(encoding="utf-8").splitlines(keepends=True)
    resumed = tmp_path / "resumed.jsonl"
    manifest_path(resumed).write_bytes(manifest_path(output).read_bytes())
    # dialogue 108 done; dialogue 110's turn 1 cut short mid-write, turn 2 never started
    resumed.write_text("".join(lines[:2]) + lines[2][:50], encoding="utf-8")
    before, hits = judge_client.stats.requests, judge_client.stats.cache_hits
    report = _run(judge_client, _plan(resumed, judge_client), two_dialogues, [published])
    assert (report.done_before, report.judged, report.ruled, report.judge_calls) == (2, 2, 1, 2)
    assert judge_client.stats.requests == before  # the two games again, from the cache
    assert judge_client.stats.cache_hits - hits == 2
    assert [r.model_dump(exclude={"tstamp"}) for r in read_pair_judgments(resumed)] == [
        r.model_dump(exclude={"tstamp"}) for r in records
    ]


# -- the command line ---------------------------------------------------------------------


def test_cli_judges_prints_the_table_and_costs_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dialogue 0: the Llama-3-70B instruct model answered neither turn, so both turns are
    decided by the rule and the judge (never loaded) is not called."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    instruct = "meta-llama_Meta-Llama-3-70B-Instruct"
    args = [
        "-j", EMBEDDED_MODEL, "--mode", "pairwise", "--baseline", instruct,
        "-a", str(FIN / "model_answer" / f"{MODEL_X}.jsonl"),
        "-a", str(FIN / "model_answer" / f"{instruct}.jsonl"),
        "--limit", "1", "--judge-name", "smol", "--output-dir", str(tmp_path),
        "--price-in", "0.15", "--price-out", "0.6", "--method", "bs2",
    ]  # fmt: skip
    code, text = _cli(*args)
    assert code == 0, text
    assert "2 turn(s) judged, 0 already done: 2 decided by a rule" in text
    assert "0 judge call(s), 0 from cache, 0 without a verdict" in text
    assert "tokens: 0 in, 0 out; cost $0.0000" in text
    # the terminal is narrow: each row of the table is shown sideways, field by field
    pairs = [line.split("│")[1:-1] for line in text.splitlines() if line.startswith("│")]
    fields = [(key.strip(), value.strip()) for key, value in pairs]
    rows = [dict(fields[start : start + 9]) for start in range(0, 18, 9)]
    # then the two models' Bradley–Terry ratings, raw and style-controlled, five fields each
    rated = [dict(fields[start : start + 5]) for start in range(18, len(fields), 5)]
    assert [(r["method"], r["model"], r["games"]) for r in rated] == [
        ("bs2", MODEL_X, "2"), ("bs2", instruct, "2"),
    ]  # fmt: skip
    # against the baseline, two verdicts are too few to tell length from the model: n/a
    assert rows == [
        {"method": "bs2", "model": MODEL_X, "wins": "2", "losses": "0", "ties": "0",
         "invalid": "0", "win rate": "1.000", "adjusted": "1.000", "length-controlled": "n/a"},
        {"method": "bs2", "model": instruct, "wins": "0", "losses": "2", "ties": "0",
         "invalid": "0", "win rate": "0.000", "adjusted": "0.000", "length-controlled": "-"},
    ]  # fmt: skip
    out = read_pair_judgments(tmp_path / "smol_pair.jsonl")
    assert [(r.model_1, r.model_2, r.g1_winner, r.verdicts) for r in out] == [
        (MODEL_X, instruct, "model_1", {"bs2": "A"})
    ] * 2
    code, text = _cli(*args)
    assert code == 0 and "0 turn(s) judged, 2 already done" in text
    # the library call is the command (issue 30): its result is what --json prints
    done = judge_bench(
        EMBEDDED_MODEL, [FIN / "model_answer" / f"{MODEL_X}.jsonl",
                         FIN / "model_answer" / f"{instruct}.jsonl"],
        mode="pairwise", baseline=instruct, limit=1, judge_name="smol", output_dir=tmp_path,
        price_in=0.15, price_out=0.6, method="bs2",
    )  # fmt: skip
    assert isinstance(done, PairsJudged) and done.report.done_before == 2
    assert [(c.model, c.wins, c.losses) for c in done.counts["bs2"].values()] == [
        (MODEL_X, 2, 0), (instruct, 0, 2),
    ]  # fmt: skip
    shown = CliRunner().invoke(app, ["mtbench", "judge", *args, "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout) == done.to_json()
    assert done.to_json()["methods"]["bs2"][0]["win_rate"] == 1.0
    # the same file with another judge budget: refused before any call, file untouched
    before = (tmp_path / "smol_pair.jsonl").read_bytes()
    code, text = _cli(*args, "--max-tokens", "64")
    assert code == 1 and "holds another run's records" in text
    assert "judge.max_tokens: 2048 vs 64" in " ".join(text.split())
    assert (tmp_path / "smol_pair.jsonl").read_bytes() == before


def test_cli_warns_of_games_without_logprobs_and_counts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bench: Bench
) -> None:
    """A finished file whose judge server dropped log probabilities in three games: the
    resumed run calls nothing, and lists those turns loudly."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    settings = pairwise_settings(EMBEDDED_MODEL, None, 2048, METHODS)
    qid = bench.questions[0].question_id
    output = tmp_path / "smol_pair.jsonl"
    # the run the command below makes: its prompts and manifest make the file its own
    files = [FIN / "model_answer" / f"{m}.jsonl" for m in (MODEL_X, MODEL_Y)]
    matches = make_matches([(f, load_answers(f, bench)) for f in files], None)
    plan = plan_matches(bench, matches, settings, output, BenchJudging("smol", limit=1))
    shown = {task.id: [p[-1].content for p in task.prompts] for task in plan.tasks}
    statuses = [{"g1": "no-logprobs", "g2": "ok"}, {"g1": "no-logprobs", "g2": "no-logprobs"}]
    records = [
        PairJudgmentLine(
            question_id=qid,
            model_1=MODEL_X,
            model_2=MODEL_Y,
            g1_winner="model_1",
            g2_winner="model_1",
            judge=("smol", "pair-v2"),
            turn=turn,
            verdicts={"prob": None, "bs1": "A", "bs2": "A"},
            prob_status=status,
            judge_settings=settings,
            g1_user_prompt=shown[f"{qid}/{turn}/{MODEL_X} vs {MODEL_Y}"][0],
            g2_user_prompt=shown[f"{qid}/{turn}/{MODEL_X} vs {MODEL_Y}"][1],
        )
        for turn, status in zip((1, 2), statuses, strict=True)
    ]
    assert [(turn_label(r, games)) for r, games in no_logprobs(records)] == [
        f"{qid}/1 {MODEL_X} vs {MODEL_Y} (g1)", f"{qid}/2 {MODEL_X} vs {MODEL_Y} (g1+g2)",
    ]  # fmt: skip
    manifest_path(output).write_text(plan.run.manifest().model_dump_json(), encoding="utf-8")
    output.write_text(
        "".join(json.dumps(r.model_dump(mode="json")) + "\n" for r in records), encoding="utf-8"
    )
    code, text = _cli(
        "-j", EMBEDDED_MODEL, "--mode", "pairwise", "--judge-name", "smol", "--limit", "1",
        "-a", str(FIN / "model_answer" / f"{MODEL_X}.jsonl"),
        "-a", str(FIN / "model_answer" / f"{MODEL_Y}.jsonl"), "--output-dir", str(tmp_path),
        "--method", "all",
    )  # fmt: skip
    flat = " ".join(text.split())
    assert code == 0, text
    assert "0 turn(s) judged, 2 already done" in flat
    assert (
        "warning: 3 game(s) in 2 turn(s) came back without log probabilities, so without a "
        f"prob verdict: {qid}/1 {MODEL_X} vs {MODEL_Y} (g1), {qid}/2" in flat
    )
    assert "0 without a verdict, 3 without log probabilities (in the file)" in flat
    assert "length-controlled" not in flat  # every pair meets: no baseline to control against


# -- length control against the baseline -----------------------------------------------

#: the baseline's answer lengths, per dialogue and turn; ``varied`` is sometimes longer and
#: sometimes shorter by varied amounts, ``padded`` always longer by about 1,000 characters
LC_BASE = {qid: (30 + 7 * qid, 40 + 3 * qid) for qid in range(5)}
LC_VARIED = {qid: (30 + 7 * qid + d1, 40 + 3 * qid + d2) for qid, (d1, d2) in
             enumerate([(12, -9), (-20, 5), (3, -15), (-6, 25), (18, -2)])}  # fmt: skip
LC_PADDED = {qid: (a + 1000 + qid, b + 1003 - qid) for qid, (a, b) in LC_BASE.items()}
#: the scripted judge's letter probabilities for the longer answer, the shorter, a tie
LONGER, SHORTER, TIE = 0.8, 0.15, 0.05


def _written(model: str, sizes: dict[int, tuple[int, int]], folder: Path) -> Path:
    """An answer file of ``model`` whose answer to each turn has the given length."""
    path = folder / f"{model}.jsonl"
    lines = [
        {"question_id": qid, "model_id": model,
         "choices": [{"index": 0, "turns": ["回" * pair[0], "答" * pair[1]]}]}
        for qid, pair in sizes.items()
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), "utf-8")
    return path


def test_cli_shows_the_length_controlled_rate_against_the_baseline_beside_the_raw_rates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bench: Bench
) -> None:
    """A scripted judge that always prefers the longer answer, in both games: each model's
    length-controlled rate against the baseline is ``stats.length_controlled_winrates`` on
    the same verdicts and characters, per method; ``n/a`` for the model whose answers are
    always far longer (the length effect is not identified); raw rates as before."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    sizes = {"base": LC_BASE, "varied": LC_VARIED, "padded": LC_PADDED}
    files = {model: _written(model, turns, tmp_path) for model, turns in sizes.items()}
    answers = {model: load_answers(path, bench, complete=False) for model, path in files.items()}
    rules = []
    for model in ("varied", "padded"):
        for qid in LC_BASE:
            for turn in (1, 2):
                for a, b in ((model, "base"), (model, "base")[::-1]):
                    first = sizes[a][qid][turn - 1] > sizes[b][qid][turn - 1]
                    probs = {"A": LONGER if first else SHORTER, "B": SHORTER if first else LONGER}
                    rules.append({
                        "prompt": pair_user_prompt(
                            bench, bench.by_id[qid], answers[a][qid], answers[b][qid], turn
                        ),
                        "reply": "長い方が良いです。[[A]]" if first else "長い方が良いです。[[B]]",
                        "alternatives": {k: math.log(p) for k, p in {**probs, "C": TIE}.items()},
                    })  # fmt: skip
    script = tmp_path / "judge.jsonl"
    script.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules), "utf-8")
    args = ["-j", f"scripted/{script}", "--mode", "pairwise", "--baseline", "base",
            "--limit", "5", "--judge-name", "longer", "--output-dir", str(tmp_path / "out"),
            "--method", "all"]  # fmt: skip
    args += [arg for path in files.values() for arg in ("-a", str(path))]
    code, text = _cli(*args)
    assert code == 0, text
    everything = text.splitlines()
    end = everything.index(next(line for line in everything if line.startswith("└")))
    lines, rated = everything[:end], everything[end + 1 :]
    header = next([c.strip() for c in line.split("┃")[1:-1]] for line in lines if "┃" in line)
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    assert header[-3:] == ["win rate", "adjusted", "length-controlled"]
    table = {(row[0], row[1]): dict(zip(header, row, strict=True)) for row in rows}
    # what the judge said, computed here: the longer answer wins every turn, in both games;
    # under prob its share is P(longer) + P(tie)/2 of the two games' averaged probabilities
    share = {"prob": LONGER + TIE / 2, "bs1": 1.0, "bs2": 1.0}
    for method in ("prob", "bs1", "bs2"):
        verdicts = [
            BaselineVerdict(
                model, f"{qid}/{turn}",
                share[method] if mine > theirs else 1.0 - share[method], mine, theirs,
                group=str(qid),  # both turns of a question drawn together
            )
            for model in ("varied", "padded") for qid in LC_BASE for turn in (1, 2)
            for mine, theirs in [(sizes[model][qid][turn - 1], LC_BASE[qid][turn - 1])]
        ]  # fmt: skip
        expected = length_controlled_winrates(verdicts, baseline="base").by_model()
        varied = table[(method, "varied")]
        assert varied["length-controlled"] == expected["varied"].controlled.format()
        # under bs1/bs2 every verdict is a whole win of the longer answer: the length splits
        # wins from losses, no maximum-likelihood fit exists, and the library says n/a
        assert math.isfinite(expected["varied"].controlled.estimate) == (method == "prob")
        assert table[(method, "padded")]["length-controlled"] == "n/a"
        assert math.isnan(expected["padded"].controlled.estimate)
        assert table[(method, "base")]["length-controlled"] == "-"
        # the raw counts and rates beside it, as they were: varied is longer on 5 turns of 10
        assert [varied[k] for k in ("wins", "losses", "ties", "invalid", "win rate")] == [
            "5", "5", "0", "0", "0.500",
        ]  # fmt: skip
        assert [table[(method, "padded")][k] for k in ("wins", "win rate")] == ["10", "1.000"]
    signature = length_controlled_winrates(verdicts, baseline="base").signature.line
    assert f"signature: {signature}" in text and "kind:length-controlled-winrate" in signature
    # the interval draws questions (both turns together), as every two-turn statistic does
    assert "|resample:question|" in signature
    assert "length-controlled: a model's win rate against base" in text
    # beside them, every model's Bradley–Terry rating raw and style-controlled: the
    # library's rate_with_style on the same battles (one per judged turn, model_1's share)
    columns = next([c.strip() for c in line.split("┃")[1:-1]] for line in rated if "┃" in line)
    assert columns == ["method", "model", "rating", "style-controlled", "games"]
    shown = [[c.strip() for c in line.split("│")[1:-1]] for line in rated if line.startswith("│")]
    for method in ("prob", "bs1", "bs2"):
        battles = [
            StyledBattle(
                model, "base", share[method] if mine > theirs else 1.0 - share[method],
                StyleCounts(mine, 0, 0, 0), StyleCounts(theirs, 0, 0, 0), group=str(qid),
            )
            # in the file's order: by model pair, then question and turn
            for model in ("padded", "varied") for qid in LC_BASE for turn in (1, 2)
            for mine, theirs in [(sizes[model][qid][turn - 1], LC_BASE[qid][turn - 1])]
        ]  # fmt: skip
        expected_bt = rate_with_style(battles)
        # under bs1/bs2 the longer answer won every whole verdict: padded, always longer,
        # never loses, so neither fit has a maximum: raw and controlled ratings (and γ,
        # which grows with them) are n/a with that reason, never where the fit stopped
        whole = method != "prob"
        assert expected_bt.controlled.separated == whole
        assert (expected_bt.raw.no_maximum is not None) == whole
        na = "n/a: no finite maximum (padded never loses)"
        assert [row[1:] for row in shown if row[0] == method] == [
            [raw.model,
             na if whole else f"{raw.rating:.1f} [{raw.low:.1f}, {raw.high:.1f}]",
             na if whole else f"{ctl.rating:.1f} [{ctl.low:.1f}, {ctl.high:.1f}]",
             str(raw.games)]
            for raw, ctl in expected_bt.rows()
        ]  # fmt: skip
        # the judge rewards length (no Markdown varied): γ_length > 0, its interval too
        gamma = expected_bt.controlled.coefficients
        assert list(gamma) == ["length"]
        assert math.isnan(gamma["length"].estimate) if whole else gamma["length"].low > 0
        assert f"{method}: {expected_bt.coefficients_line()}" in text
        for fit in ("raw: ratings", "style-controlled ratings"):
            line = f"{method}: {fit} n/a: no finite maximum (padded never loses)"
            assert (line in text) == whole
    assert f"signature: {expected_bt.controlled.signature.line}" in text
    assert "kind:style-controlled-bt|features:length,markdown|" in text
    assert "|resample:question|" in expected_bt.controlled.signature.line


def test_length_control_reads_the_baseline_on_either_side(bench: Bench) -> None:
    """A benchmark that sorts each pair's models (ja-vicuna-qa) may show the baseline as
    ``model_1``: the model's share is then the mirror of ``model_1``'s, the same rate.
    Lengths are the characters the judge is shown (a variant's answer cut applied)."""
    sizes = {"base": LC_BASE, "varied": LC_VARIED}
    answers = {m: _answers(m, {q: ("あ" * a, "い" * b) for q, (a, b) in t.items()})
               for m, t in sizes.items()}  # fmt: skip
    matches = [Match("varied", answers["varied"], "base", answers["base"])]
    lengths = turn_lengths(bench, matches)
    assert lengths[(3, 2, "varied")] == LC_VARIED[3][1] and lengths[(3, 2, "base")] == LC_BASE[3][1]
    pin = PinnedFile("q.jsonl", "0" * 64)
    cut = replace(bench, variant=Variant("cut", 1, "a test", pin, pin, pin, answer_cut=40))
    assert turn_lengths(cut, matches)[(3, 2, "base")] == 40 < LC_BASE[3][1]
    mean = {"A": 0.7, "B": 0.2, "C": 0.1}  # the winner's, the loser's, a tie's probability
    lines, mirrored = [], []
    verdicts: dict[str, list[BaselineVerdict]] = {"prob": [], "bs2": []}
    for qid in LC_BASE:
        for turn in (1, 2):
            mine, theirs = LC_VARIED[qid][turn - 1], LC_BASE[qid][turn - 1]
            won = mine > theirs
            probs = mean if won else {"A": mean["B"], "B": mean["A"], "C": mean["C"]}
            letter = "A" if won else "B"
            lines.append(_pair("varied", "base", qid, turn, letter, probs))
            mirror = {"A": probs["B"], "B": probs["A"], "C": probs["C"]}
            mirrored.append(_pair("base", "varied", qid, turn, MIRROR[letter], mirror))
            for method, share in (("prob", 0.7 + 0.1 / 2), ("bs2", 1.0)):
                verdicts[method].append(BaselineVerdict(
                    "varied", f"{qid}/{turn}", share if won else 1.0 - share, mine, theirs,
                    group=str(qid),
                ))  # fmt: skip
    one = length_controlled(lines, ("prob", "bs2"), "base", lengths)
    other = length_controlled(mirrored, ("prob", "bs2"), "base", lengths)
    for method in ("prob", "bs2"):
        expected = length_controlled_winrates(verdicts[method], baseline="base")
        assert one[method].signature == other[method].signature == expected.signature
        (want,) = expected.rates
        for found in (one, other):
            (rate,) = found[method].rates
            assert rate.model == "varied" and rate.verdicts == 10
            for name in ("raw", "controlled", "length_coefficient"):
                got, wanted = getattr(rate, name), getattr(want, name)
                assert [got.estimate, got.low, got.high] == pytest.approx(
                    [wanted.estimate, wanted.low, wanted.high], abs=1e-12, nan_ok=True
                )


def _pair(
    model_1: str, model_2: str, qid: int, turn: int, letter: str, mean: dict[str, float]
) -> PairJudgmentLine:
    """A judged turn whose verdict is ``letter`` under every method (A = ``model_1``)."""
    return PairJudgmentLine(
        model_1=model_1, model_2=model_2, question_id=qid, turn=turn, judge=("j", "pair-v2"),
        g1_winner="tie", g2_winner="tie", verdicts={"prob": letter, "bs2": letter},
        probabilities={"mean": mean},
    )  # fmt: skip
