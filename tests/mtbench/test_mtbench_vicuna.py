"""Japanese Vicuna QA as a benchmark definition: one-turn questions, its own prompts and
rules, single grading end to end (judge, leaderboard, verify) with a scripted judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.judge import parse_verdict
from hyoka.mtbench import Bench, definition, load_answers
from hyoka.mtbench.pairwise import pair_user_prompt
from replay_judge_server import ReplayJudge

ANSWERS = SHARED_DATA / "ja-vicuna-qa" / "model_answer"


def test_the_definition_loads_80_one_turn_questions_and_four_prompts() -> None:
    bench = Bench.load("ja-vicuna-qa", SHARED_DATA)
    assert len(bench.questions) == 80 and {len(q.turns) for q in bench.questions} == {1}
    assert set(bench.prompts) == {"pair", "pair-math", "single", "single-math"}
    assert sorted(bench.references) == list(range(61, 71))
    coding = bench.by_id[61]
    assert coding.category == "coding"
    assert bench.spec.judge_prompt_name(coding.category, 1, pairwise=True) == "pair-math"
    assert bench.spec.judge_prompt_name("fermi", 1) == "single"


def test_fastchat_token_order_decides_not_the_last_verdict() -> None:
    """Upstream tests ``[[A]]`` in the reply, then ``[[B]]``, then ``[[C]]``: the first
    *token* of that order present wins wherever it stands, where hyoka's own rule reads the
    last ``[[X]]``; only the ASCII spellings count."""
    assert definition("ja-vicuna-qa").pair_verdict == "fastchat-tokens"
    reply = "[[B]]ではなく[[C]]"
    assert parse_verdict(reply, "fastchat-tokens") == "B"
    assert parse_verdict(reply, "verdict-after-reasons") == "C"
    assert parse_verdict("[[C]]とも言えますが[[A]]", "fastchat-tokens") == "A"
    assert parse_verdict("［［A］］", "fastchat-tokens") is None
    assert parse_verdict("［［A］］", "verdict-after-reasons") == "A"
    assert parse_verdict("引き分け", "fastchat-tokens") is None


def test_pair_math_prompts_carry_the_reference() -> None:
    """pair-math (coding and math) shows upstream's GPT-4 reference, then A's and B's answers."""
    bench = Bench.load("ja-vicuna-qa", SHARED_DATA)
    one = load_answers(ANSWERS / "cyberagent--calm2-7b-chat" / "results.jsonl", bench)[70]
    two = load_answers(ANSWERS / "openai--text-davinci-003" / "results.jsonl", bench)[70]
    prompt = pair_user_prompt(bench, bench.by_id[70], one, two, 1)
    reference = bench.references[70].turns[0]
    assert prompt.index(reference) < prompt.index(one.turns[0]) < prompt.rindex(two.turns[0])


def test_single_grading_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every question graded once with the single/single-math prompts, one complete
    leaderboard row of one table, and the file verifies by the benchmark's rules."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    with ReplayJudge({}, missing_reply="簡潔で正確です。[[rating: 7]]") as judge:
        args = ["mtbench", "judge", "--bench", "ja-vicuna-qa", "-j", "openai/gpt-4"]
        args += ["--base-url", judge.base_url, "--output-dir", str(out)]
        args += ["-a", str(ANSWERS / "cyberagent--calm2-7b-chat" / "results.jsonl")]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "rating:ja-vicuna-qa" in result.output
    names = {r.system_prompt for r in judge.received}
    assert len(judge.received) == 80 and len(names) == 1
    lines = [
        json.loads(x) for x in (out / "cyberagent--calm2-7b-chat.jsonl").read_text().splitlines()
    ]
    assert {tuple(line["judge"]) for line in lines} == {
        ("gpt-4", "single"),
        ("gpt-4", "single-math"),
    }
    assert {(line["score"], line["turn"]) for line in lines} == {(7, 1)}
    board = CliRunner().invoke(app, ["mtbench", "leaderboard", "--bench", "ja-vicuna-qa",
                                     "--judgments", str(out)])  # fmt: skip
    assert board.exit_code == 0, board.output
    assert "incomplete" not in board.output and "Turn 2" not in board.output
    assert "| cyberagent--calm2-7b-chat | 7.00 |" in board.output
    verified = CliRunner().invoke(
        app, ["mtbench", "verify", str(out / "cyberagent--calm2-7b-chat.jsonl")]
    )
    assert (
        verified.exit_code == 0 and "reproduced exactly (80 lines; ja-vicuna-qa" in verified.output
    )


def _upstream_win_rate(lines: list[dict[str, str]], model: str) -> tuple[float, float]:
    """ja-vicuna-qa-benchmark ``show_result.py``'s ``calculate_win_rate`` (128a862), as its
    lines say, for ``model``: a tie where either game is one or they disagree, else the
    agreed winner (``model_2`` where neither is ``model_1``); every pair in the
    denominator. Its win rate and adjusted win rate."""
    wins = ties = 0
    for line in lines:
        one, two = line["g1_winner"], line["g2_winner"]
        if "tie" in (one, two) or one != two:
            ties += 1
        elif line["model_1" if one == "model_1" else "model_2"] == model:
            wins += 1
    return wins / len(lines), (wins + ties / 2) / len(lines)


def test_pairwise_win_rates_keep_every_pair_in_the_denominator_as_upstream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four published questions judged in pairs, two of them with replies holding no
    verdict: the win rates are ja-vicuna-qa-benchmark's (every pair counted: one game
    without a verdict a tie, two a win of ``model_2``), signed ``every-line``; FastChat's
    rule (``--headline turn-mean``) leaves those pairs out instead."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    davinci, rinna = "openai--text-davinci-003", "rinna--japanese-gpt-neox-3.6b-instruction-ppo"
    bench = Bench.load("ja-vicuna-qa", SHARED_DATA)
    published = (ANSWERS / davinci / "results.jsonl").read_text(encoding="utf-8")
    first = {
        a["question_id"]: a["choices"][0]["turns"][0]
        for a in map(json.loads, published.splitlines())
    }
    questions = list(bench.questions)[:4]
    shown_first = "[アシスタントAの答えの始まり]\n"

    def rule(text: str, reply: str) -> dict[str, str]:
        return {"contains": text, "reply": reply}

    q1, q2, q3, q4 = questions
    rules = [  # first match wins: the game showing davinci first, then the other game
        rule(q1.turns[0], "判定なし"),  # neither game has a verdict
        rule(shown_first + first[q2.question_id][:40], "[[A]]"),
        rule(q2.turns[0], "判定なし"),  # one game without a verdict
        *[rule(shown_first + first[q.question_id][:40], "[[A]]") for q in (q3, q4)],
        *[rule(q.turns[0], "[[B]]") for q in (q3, q4)],  # both games: davinci wins
    ]
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules))

    def judge(out: Path, *extra: str) -> dict[str, object]:
        args = ["mtbench", "judge", "--bench", "ja-vicuna-qa", "--mode", "pairwise"]
        args += ["-j", f"scripted/{script}", "--limit", "4", "--output-dir", str(out)]
        args += ["-a", str(ANSWERS / davinci / "results.jsonl")]
        args += ["-a", str(ANSWERS / rinna / "results.jsonl"), "--json", *extra]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        done: dict[str, object] = json.loads(result.stdout)
        return done

    own = judge(tmp_path / "own")
    (written,) = (tmp_path / "own").glob("*_pair.jsonl")
    lines = [json.loads(x) for x in written.read_text(encoding="utf-8").splitlines()]
    assert [(x["model_1"], x["g1_winner"], x["g2_winner"]) for x in lines] == [
        (davinci, "error", "error"), (davinci, "model_1", "error"),
        (davinci, "model_1", "model_1"), (davinci, "model_1", "model_1"),
    ]  # fmt: skip
    rows = {row["model"]: row for row in own["methods"]["bs2"]}  # type: ignore[index]
    assert (rows[rinna]["wins"], rows[rinna]["ties"], rows[rinna]["losses"]) == (1, 1, 2)
    assert (rows[rinna]["win_rate"], rows[rinna]["adjusted_win_rate"]) == _upstream_win_rate(
        lines, rinna
    )
    assert (rows[davinci]["win_rate"], rows[davinci]["adjusted_win_rate"]) == (0.5, 0.625)
    assert own["headline"] == "every-line"
    fastchat = judge(tmp_path / "fastchat", "--headline", "turn-mean")
    rows = {row["model"]: row for row in fastchat["methods"]["bs2"]}  # type: ignore[index]
    assert (rows[rinna]["invalid"], rows[rinna]["win_rate"], rows[davinci]["win_rate"]) == (
        2, 0.0, 1.0,
    )  # fmt: skip
    assert fastchat["headline"] == "turn-mean"


def test_single_grades_average_every_line_with_minus_one_as_upstream(tmp_path: Path) -> None:
    """ja-vicuna-qa-benchmark's ``show_result.py`` averages the scores of every line it
    reads, a reply without a rating (-1) included: four questions graded 7, 7, 7 and
    none give 5.00 (``every-line``), and FastChat's 7.00 with ``--headline turn-mean``."""
    bench = Bench.load("ja-vicuna-qa", SHARED_DATA)
    unrated = bench.questions[0].turns[0]
    script = tmp_path / "script.jsonl"
    rules = [{"contains": unrated, "reply": "評価できません"}, {"reply": "良い。[[7]]"}]
    script.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules))
    out = tmp_path / "out"
    args = ["mtbench", "judge", "--bench", "ja-vicuna-qa", "-j", f"scripted/{script}"]
    args += ["--limit", "4", "--output-dir", str(out), "--data-dir", str(SHARED_DATA)]
    args += ["-a", str(ANSWERS / "cyberagent--calm2-7b-chat" / "results.jsonl")]
    judged = CliRunner().invoke(app, args)
    assert judged.exit_code == 0, judged.output
    board = ["mtbench", "leaderboard", "--bench", "ja-vicuna-qa", "--judgments", str(out)]
    board += ["--format", "json", "--data-dir", str(SHARED_DATA)]
    own = json.loads(CliRunner().invoke(app, board).stdout)[0]
    assert (own["overall"], own["unrated_turns"], own["headline"]) == (5.0, 1, "every-line")
    fastchat = CliRunner().invoke(app, [*board, "--headline", "turn-mean"])
    row = json.loads(fastchat.stdout)[0]
    assert (row["overall"], row["headline"]) == (7.0, "turn-mean")
