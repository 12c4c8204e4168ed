"""Rakuda end to end on its published answers: match draw, judge, verdicts, ranking.

The judge is scripted (``scripted/PATH``) from the answers themselves: claude-2's answer
shown first wins (``...よって1``), shown second ties (``3``), and any other match is a tie, so
every verdict hyoka records follows from the script and upstream's reading (the last digit
of the reply). The ranking is then checked as what it claims to be: the maximum of
upstream's likelihood (every score equation holds) with a fitted first-position advantage.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.mtbench.rakuda import RakudaBench, draw_matches, judge_messages, read_verdict
from hyoka.stats import HomeMatch as Match
from hyoka.stats import fit_home_advantage as fit

RAKUDA = SHARED_DATA / "rakuda"
MODELS = ("claude-2", "rinna-3.6b-ppo", "line-3.6b-sft")


@pytest.mark.parametrize(
    ("reply", "winner"),
    [
        ("アシスタント1の方が優れています。\n1", 1),
        ("2つの回答を比べると、2", 2),
        ("どちらとも言えません。3", 3),
        ("1点目は良いが、総合的に2", 2),
        ("評価: １", 1),  # \d is any decimal digit, int() reads it
        ("4", "error"),
        ("判定できません", "error"),
        ("", "error"),
    ],
)
def test_the_verdict_is_the_last_digit_as_upstream_reads_it(reply: str, winner: object) -> None:
    assert read_verdict(reply) == winner


def test_the_draw_balances_models_and_never_repeats_a_match() -> None:
    questions = [f"q{i}" for i in range(40)]
    drawn = draw_matches(list(MODELS), questions, 12, seed=7)
    assert drawn == draw_matches(list(MODELS), questions, 12, seed=7)  # seeded
    assert len(set(drawn)) == 12
    # the model with the fewest matches plays next: no model falls more than 2 behind
    played = Counter(m for match in drawn for m in match[:2])
    assert sum(played.values()) == 24 and max(played.values()) - min(played.values()) <= 2
    # more matches than candidates: every ordered pair on every question, once
    assert len(draw_matches(list(MODELS[:2]), questions[:3], 100, seed=0)) == 6


def test_a_claude_judge_reads_the_system_prompt_in_the_user_message() -> None:
    bench = RakudaBench.load(SHARED_DATA)
    system, user = judge_messages(bench, "Q", "A1", "A2", claude=False)
    assert (system.role, system.content) == ("system", bench.prompt.system_prompt)
    assert user.content == bench.prompt.prompt_template.format(
        question="Q", answer_a="A1", answer_b="A2"
    )
    (only,) = judge_messages(bench, "Q", "A1", "A2", claude=True)
    assert only.content == f"[Instruction]\n{bench.prompt.system_prompt}\n\n{user.content}"


def _answers() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for model in MODELS:
        lines = (RAKUDA / "answers" / f"{model}.jsonl").read_text(encoding="utf-8").splitlines()
        rows = [json.loads(line) for line in lines]
        out[model] = {r["question_id"]: r["choices"][0]["turns"][0] for r in rows}
    return out


def _script(path: Path) -> None:
    rules = []
    for text in _answers()["claude-2"].values():
        rules.append({"contains": f"の回答の開始]\n{text}\n\n[アシスタント1", "reply": "よって1"})
        rules.append({"contains": f"の回答の開始]\n{text}\n\n[アシスタント2", "reply": "引き分け3"})
    rules.append({"reply": "同程度です。3"})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules))


def test_rakuda_end_to_end_with_a_scripted_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    script = tmp_path / "judge.jsonl"
    _script(script)
    out = tmp_path / "judgments"
    args = ["mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches", "30"]
    args += ["-j", f"scripted/{script}", "--judge-name", "gpt-4", "--output-dir", str(out)]
    for model in MODELS:
        args += ["-a", str(RAKUDA / "answers" / f"{model}.jsonl")]
    runner = CliRunner()
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "30 match(es) judged" in result.stdout
    assert "draw:pairwise-n:30:seed=0" in result.stdout
    assert "rating:verdict:last-digit" in result.stdout
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "0 match(es) judged, 30 already done" in again.stdout

    lines = [json.loads(line) for line in (out / "gpt-4_pair.jsonl").read_text().splitlines()]
    assert len(lines) == 30
    for line in lines:  # upstream's fields, and each verdict as the script decides it
        assert set(line) >= {"question_id", "model1_id", "model2_id", "winner", "judge"}
        assert set(line) >= {"prompt", "judgment", "turn", "tstamp"}
        assert line["judge"] == ["gpt-4", "pair-ja"] and line["turn"] == 1
        expected = 1 if line["model1_id"] == "claude-2" else 3
        assert line["winner"] == expected

    board = runner.invoke(
        app,
        ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(out),
         "--format", "json", "--rounds", "20"],
    )  # fmt: skip
    assert board.exit_code == 0, board.output
    ranking = json.loads(board.stdout)
    assert ranking["matches"] == 30 and ranking["bootstrap_rounds"] == 20
    assert ranking["ranking"][0]["model_id"] == "claude-2"
    for row in ranking["ranking"]:
        assert row["lower"] <= row["median"] <= row["upper"]
        assert row["one_sigma_plus"] == row["upper"] - row["median"]

    # the point fit is the likelihood's maximum: every score equation holds
    matches = [Match(r["model1_id"], r["model2_id"], {1: 1.0, 3: 0.5}[r["winner"]]) for r in lines]
    found = fit(matches)
    assert ranking["home_advantage"] == found.advantage
    to_logit = math.log(10) / 400
    alpha = found.advantage * to_logit
    beta = {m: (r - 1000) * to_logit for m, r in found.ratings.items()}
    assert abs(sum(beta.values())) < 1e-9  # strengths sum to 0
    residual: dict[str, float] = dict.fromkeys(beta, 0.0)
    home = 0.0
    for m in matches:
        left = m.score - 1 / (1 + math.exp(-(alpha + beta[m.first] - beta[m.second])))
        home += left
        residual[m.first] += left
        residual[m.second] -= left
    assert abs(home) < 1e-3
    assert all(abs(value) < 1e-3 for value in residual.values())


def test_flags_rakuda_does_not_use_are_refused_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from hyoka.cli.main import app

    board = CliRunner().invoke(
        app, ["mtbench", "leaderboard", "--bench", "rakuda", "--radar", str(tmp_path / "r.png")]
    )
    assert board.exit_code == 1 and "--bench rakuda does not take --radar" in board.output
    judged = CliRunner().invoke(
        app,
        ["mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches", "2",
         "-j", "scripted/x.jsonl", "-a", "x.jsonl", "--limit", "1"],
    )  # fmt: skip
    assert judged.exit_code == 1 and "--bench rakuda does not take --limit" in judged.output


def _json_types(lines: list[dict[str, object]]) -> set[tuple[str, str]]:
    return {(name, type(value).__name__) for line in lines for name, value in line.items()}


def _published_answers() -> list[dict[str, object]]:
    lines: list[dict[str, object]] = []
    for path in sorted((RAKUDA / "answers").glob("*.jsonl")):
        lines += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return lines


def test_generated_rakuda_answers_are_upstreams_lines_and_judge_and_rank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mtbench generate --bench rakuda`` answers every question once, as jrank's
    ``gen_api_model_answer.py`` asks (its system message, temperature 0.7, 1024 tokens) and
    writes (upstream's fields and id types, sorted by id); the file then judges against
    the published answers and ranks (the model here is the seeded server on 127.0.0.1)."""
    from wire_servers import OpenAIServer

    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    runner = CliRunner()
    answers = tmp_path / "ours.jsonl"
    args = ["mtbench", "generate", "--bench", "rakuda", "-m", "openai/ours", "--template",
            "chat", "--output", str(answers)]  # fmt: skip
    with OpenAIServer() as server:
        first = runner.invoke(app, [*args, "--base-url", server.base_url, "--limit", "3"])
        assert first.exit_code == 0, first.output
        rest = runner.invoke(app, [*args, "--base-url", server.base_url])
        assert rest.exit_code == 0, rest.output
        bodies = [r.body for r in server.received]
    assert "37 dialogue(s) answered, 3 already done" in rest.stdout
    assert "bench:rakuda" in rest.stdout and "system:rakuda-upstream" in rest.stdout
    assert len(bodies) == 40
    assert {(b["temperature"], b["max_tokens"]) for b in bodies} == {(0.7, 1024)}
    assert {b["messages"][0]["content"] for b in bodies} == {
        "あなたは役立つアシスタントです。日本語で答えてください。"
    }
    lines = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    questions = [json.loads(q) for q in (RAKUDA / "questions.jsonl").read_text().splitlines()]
    assert [line["question_id"] for line in lines] == sorted(q["question_id"] for q in questions)
    assert [line["model_id"] for line in lines] == ["ours"] * 40
    # every field upstream's generator writes, with the JSON type its published lines have
    assert {name for line in lines for name in line} == {
        "question_id", "answer_id", "model_id", "choices", "tstamp"
    }  # fmt: skip
    assert _json_types(lines) <= _json_types(_published_answers())

    script = tmp_path / "judge.jsonl"
    script.write_text(json.dumps({"reply": "3"}) + "\n", encoding="utf-8")
    out = tmp_path / "judgments"
    judged = runner.invoke(
        app,
        ["mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches", "12",
         "-j", f"scripted/{script}", "--judge-name", "gpt-4", "--output-dir", str(out),
         "-a", str(answers), "-a", str(RAKUDA / "answers" / "claude-2.jsonl")],
    )  # fmt: skip
    assert judged.exit_code == 0, judged.output
    assert "12 match(es) judged" in judged.stdout and "tie 12" in judged.stdout
    board = runner.invoke(
        app,
        ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(out),
         "--format", "json", "--rounds", "5"],
    )  # fmt: skip
    assert board.exit_code == 0, board.output
    ranking = json.loads(board.stdout)
    assert ranking["matches"] == 12
    assert {row["model_id"] for row in ranking["ranking"]} == {"ours", "claude-2"}


def test_upstream_layout_puts_answers_where_jrank_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """jrank's ``gen_judgment.py`` reads ``data/rakuda_v2/answers/<model>.jsonl``."""
    from wire_servers import OpenAIServer

    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    with OpenAIServer() as server:
        result = CliRunner().invoke(
            app,
            ["mtbench", "generate", "--bench", "rakuda", "-m", "openai/ours", "--base-url",
             server.base_url, "--limit", "1", "--layout", "upstream", "--results-dir",
             str(tmp_path / "data")],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (tmp_path / "data" / "rakuda_v2" / "answers" / "ours.jsonl").is_file()


@pytest.mark.slow
def test_the_embedded_model_answers_rakuda(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's command on the embedded model: one question, a few tokens."""
    from _shared import needs_embedded_model

    needs_embedded_model()
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(
        app,
        ["mtbench", "generate", "--bench", "rakuda", "--model", "llamacpp/smollm2",
         "--max-tokens", "4", "--limit", "1", "--results-dir", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (path,) = (tmp_path / "rakuda" / "model_answer").glob("*.jsonl")
    (line,) = [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines()]
    assert line["question_id"] == "LaSEuuNG54CdpH9KCxTnZ3"
    assert line["model_id"] == "HuggingFaceTB_SmolLM2-135M-Instruct"
    assert _json_types([line]) <= _json_types(_published_answers())


def test_an_answer_file_of_several_trials_is_refused_in_one_line(tmp_path: Path) -> None:
    """Rakuda's judge compares one answer per question (``run_judge_pair``: choices[0]): a
    file of ``mtbench generate --trials 2`` is one error line, not a silent first trial."""
    two = tmp_path / "two.jsonl"
    rows = [json.loads(line) for line in (RAKUDA / "answers" / "claude-2.jsonl").open()]
    for row in rows:
        row["choices"] = [row["choices"][0], {**row["choices"][0], "index": 1}]
    two.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    args = ["mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches", "2"]
    args += ["-j", "scripted/x.jsonl", "--output-dir", str(tmp_path / "o"), "-a", str(two)]
    args += ["-a", str(RAKUDA / "answers" / "rinna-3.6b-ppo.jsonl")]
    result = CliRunner().invoke(app, [*args, "--data-dir", str(SHARED_DATA)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {two}: question_id {rows[0]['question_id']} holds 2 choices (trials): "
        "pairwise judging compares the first answer only, as FastChat's run_judge_pair does; "
        "Rakuda has no single grading: answer it without --trials\n"
    )
    assert not (tmp_path / "o").exists()


def test_the_file_and_ranking_are_the_drawn_matches_whatever_the_cache_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same answers judged with a cold response cache and with one holding the first
    matches' replies (those come back first) make the same file, line for line in the
    order the matches were drawn (upstream plays them in that order), and so the same
    ranking to the last digit: its bootstrap draws rows by their place in the file."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    script = tmp_path / "judge.jsonl"
    _script(script)
    runner = CliRunner()
    answers = [
        arg for model in MODELS for arg in ("-a", str(RAKUDA / "answers" / f"{model}.jsonl"))
    ]

    def judged(cache: str, out: str, matches: int, seed: int = 0) -> Path:
        monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / cache))
        args = ["mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches"]
        args += [str(matches), "--seed", str(seed), "-j", f"scripted/{script}"]
        args += ["--judge-name", "gpt-4"]
        result = runner.invoke(app, [*args, "--output-dir", str(tmp_path / out), *answers])
        assert result.exit_code == 0, result.output
        return tmp_path / out

    def board(folder: Path) -> str:
        args = ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(folder)]
        shown = runner.invoke(app, [*args, "--format", "json", "--rounds", "20"])
        assert shown.exit_code == 0, shown.output
        return json.dumps(json.loads(shown.stdout)["ranking"])

    def drawn(folder: Path) -> list[tuple[str, str, str]]:
        rows = [json.loads(line) for line in (folder / "gpt-4_pair.jsonl").open()]
        return [(r["model1_id"], r["model2_id"], r["question_id"]) for r in rows]

    cold = judged("cold", "cold", 12)
    other = drawn(judged("warm", "other", 12, seed=5))  # their replies now cached
    warm = judged("warm", "warm", 12)
    questions = [q.question_id for q in RakudaBench.load(SHARED_DATA).questions]
    order = draw_matches(list(MODELS), questions, 12, seed=0)
    cached = [match in other for match in order]
    assert any(cached) and not all(cached) and cached != sorted(cached, reverse=True)
    assert drawn(cold) == drawn(warm) == order
    assert board(cold) == board(warm)
    # a run killed after its last line, before the file was put in order: the next run,
    # judging nothing, puts it in order
    path = warm / "gpt-4_pair.jsonl"
    path.write_text("".join(reversed(path.read_text("utf-8").splitlines(True))), "utf-8")
    assert drawn(judged("warm", "warm", 12)) == order
    assert board(warm) == board(cold)


def test_a_fit_runs_scipys_blas_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """L-BFGS-B's few-parameter steps call BLAS: where it runs them on several threads,
    its threads wait on each other longer than the work takes (500 bootstrap refits 4x
    slower on two cores). The fit holds scipy's BLAS to one thread, and only while it runs."""
    threadpoolctl = needs("threadpoolctl")
    needs("scipy.optimize")  # its BLAS loaded: the threads before are its own
    import hyoka.stats.home_advantage as home

    def blas_threads() -> set[int]:
        return {
            int(pool["num_threads"])
            for pool in threadpoolctl.threadpool_info()
            if pool["user_api"] == "blas" and "scipy" in pool["filepath"]
        }

    during: list[set[int]] = []
    likelihood = home._log_likelihood

    def watched(*args: Any) -> float:
        if not during:
            during.append(blas_threads())
        return likelihood(*args)

    monkeypatch.setattr(home, "_log_likelihood", watched)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):  # on any machine
        before = blas_threads()
        assert before == {2}
        fit([Match("a", "b", 1.0), Match("b", "a", 0.5), Match("a", "b", 0.0)])
        assert during == [{1}]
        assert blas_threads() == before  # set back after the fit
        # fits on two threads at once, the first ending first: the second had found one
        # thread and put it back for good when it ended
        first, second = home._one_blas_thread(), home._one_blas_thread()
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)
        assert blas_threads() == {1}  # the second still runs
        second.__exit__(None, None, None)
        assert blas_threads() == before
