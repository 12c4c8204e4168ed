"""Trials: every dialogue answered N times, every answer judged, and a leaderboard that says
how sure its means are (issue 19, items 6 and 1-Swallow).

The judge is the scripted one (``scripted/PATH``): each answer's rating follows from the
script, so every number below is known before the run. The kill test needs a judge that
holds its reply while the process is killed: a local server on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, data_with_sources
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.metaeval import read_single_grades
from hyoka.metaeval.judge_scores import read_single_folders
from hyoka.mtbench import Bench
from hyoka.mtbench.records import TrialsJudgmentLine, merge_trials
from hyoka.stats import two_level_interval
from replay_judge_server import ReplayJudge
from wire_servers import OpenAIServer

#: swallow-evaluation's fields of a ``_single`` line (``play_a_match_single``), no others
SWALLOW_FIELDS = {"question_id", "model", "judge", "user_prompt", "judgment", "score", "turn",
                  "tstamp"}  # fmt: skip


def _rating(question: int, turn: int, trial: int) -> int:
    """The rating the script gives: different by question, turn and trial."""
    return (question * 3 + turn * 2 + trial * 5) % 10 + 1


def _answers(path: Path, ids: list[int], trials: int) -> None:
    """An answer file of model ``m``: choice ``i`` of question ``q`` answers ``ans-q-i`` then
    ``second-q-i`` (texts a script can tell apart)."""
    lines = [
        {"question_id": q, "model_id": "m", "choices": [
            {"index": i, "turns": [f"ans-{q}-{i}", f"second-{q}-{i}"]} for i in range(trials)
        ]}
        for q in ids
    ]  # fmt: skip
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _script(path: Path, ids: list[int], trials: int) -> Path:
    """Turn-2 prompts hold both answers, so their rules come first (first match wins)."""
    rules = [
        {"contains": f"second-{q}-{i}\n", "reply": f"評価: [[{_rating(q, 2, i)}]]"}
        for q in ids for i in range(trials)
    ] + [
        {"contains": f"ans-{q}-{i}\n", "reply": f"評価: [[{_rating(q, 1, i)}]]"}
        for q in ids for i in range(trials)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rules), encoding="utf-8")
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _judge(tmp_path: Path, bench: str, variant: list[str], trials: int, limit: int) -> Path:
    ids = [q.question_id for q in Bench.load(bench, SHARED_DATA, *variant[1:]).questions][:limit]
    answers = tmp_path / "m.jsonl"
    _answers(answers, ids, trials)
    script = _script(tmp_path / "script.jsonl", ids, trials)
    out = tmp_path / "judged"
    args = ["mtbench", "judge", "--bench", bench, *variant, "-j", f"scripted/{script}"]
    args += ["-a", str(answers), "--limit", str(limit), "--output-dir", str(out), "--no-cache"]
    result = CliRunner().invoke(app, [*args, "--data-dir", str(SHARED_DATA)])
    assert result.exit_code == 0, result.output
    if trials > 1:  # in the judgments' signature; one trial signs as before trials existed
        assert f"|trials:{trials}" in result.output
    else:
        assert "|trials:" not in result.output
    return out / "m.jsonl"


def _board(judged: Path, bench: str, variant: list[str], *extra: str) -> list[dict[str, Any]]:
    args = ["mtbench", "leaderboard", "--bench", bench, *variant, "--judgments", str(judged)]
    result = CliRunner().invoke(
        app, [*args, "--format", "json", *extra, "--data-dir", str(SHARED_DATA)]
    )
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def test_three_trials_are_judged_one_fastchat_line_each_and_the_interval_is_stats(
    tmp_path: Path,
) -> None:
    """MT-bench answers with 3 choices: each turn of each choice judged once, on its own
    answer, one FastChat line each naming its ``trial``; the row's interval is
    ``stats.two_level_interval`` on the same draws: per question, one value per trial (the
    mean of its two turns), the settings asked for."""
    judged = _judge(tmp_path, "mt-bench", [], trials=3, limit=4)
    lines = _lines(judged)
    assert len(lines) == 4 * 2 * 3
    for line in lines:
        q, turn, trial = line["question_id"], line["turn"], line["trial"]
        assert line["score"] == _rating(q, turn, trial)
        assert f"ans-{q}-{trial}\n" in line["user_prompt"]
        assert set(line) == SWALLOW_FIELDS | {"trial"}
    rows = _board(judged, "mt-bench", [], "--resamples", "500", "--seed", "7")
    row = rows[0]
    assert row["trials"] == 3 and row["judged_turns"] == 24
    groups = [
        np.array([(_rating(q, 1, i) + _rating(q, 2, i)) / 2 for i in range(3)])
        for q in sorted({line["question_id"] for line in lines})
    ]
    estimate = float(np.mean([g.mean() for g in groups]))
    expected = two_level_interval(groups, estimate, resamples=500, seed=7)
    interval = row["interval"]
    assert (interval["estimate"], interval["low"], interval["high"]) == (
        expected.estimate, expected.low, expected.high,
    )  # fmt: skip
    assert interval["resamples"] == 500 and interval["seed"] == 7
    assert row["overall"] == pytest.approx(estimate)  # every turn rated: Avg. is that mean
    assert expected.low < expected.high  # questions and trials differ: a real width
    # turn 1 alone: one value per trial, the turn-1 rating
    turn1 = [np.array([float(_rating(q, 1, i)) for i in range(3)]) for q in (81, 82, 83, 84)]
    alone = two_level_interval(turn1, float(np.mean(turn1)), resamples=500, seed=7)
    assert (row["turn1"]["interval"]["low"], row["turn1"]["interval"]["high"]) == (
        alone.low, alone.high,
    )  # fmt: skip


def test_one_trial_the_interval_is_over_questions_only(tmp_path: Path) -> None:
    """One answer per dialogue: FastChat's lines exactly (no ``trial``), and an interval
    whose inner level has one value per question (the draws over questions alone)."""
    judged = _judge(tmp_path, "mt-bench", [], trials=1, limit=5)
    lines = _lines(judged)
    assert len(lines) == 10 and all(set(line) == SWALLOW_FIELDS for line in lines)
    row = _board(judged, "mt-bench", [])[0]
    groups = [np.array([(_rating(q, 1, 0) + _rating(q, 2, 0)) / 2]) for q in range(81, 86)]
    expected = two_level_interval(groups, float(np.mean(groups)))
    assert (row["interval"]["low"], row["interval"]["high"]) == (expected.low, expected.high)
    md = CliRunner().invoke(
        app,
        ["mtbench", "leaderboard", "--bench", "mt-bench", "--judgments", str(judged),
         "--data-dir", str(SHARED_DATA)],
    )  # fmt: skip
    assert "(with one trial, over questions only)" in md.stdout
    assert "|interval:two-level-bootstrap/0.95/resamples-2000/seed-0" in md.stdout


def _calculate_averages(scores: list[list[float]]) -> tuple[float, float]:
    """swallow-evaluation ``show_result.py``'s ``calculate_averages``, as its lines say: a
    questions x trials array, -1 left out per trial, the per-trial means' mean and sample
    standard deviation."""
    array = np.array(scores, dtype=float)
    valid = array != -1
    per_trial = np.where(valid, array, 0).sum(axis=0) / valid.sum(axis=0)
    return float(np.mean(per_trial)), float(np.std(per_trial, ddof=1))


def test_swallow_lines_hold_every_trial_as_upstream_writes_them(tmp_path: Path) -> None:
    """``--variant swallow``: one line per turn with upstream's fields only, ``score``,
    ``judgment`` and ``user_prompt`` lists in choice order; the leaderboard's Swallow figure
    is what upstream's ``calculate_averages`` makes of those lines."""
    variant = ["--variant", "swallow"]
    judged = _judge(tmp_path, "jmt-bench", variant, trials=5, limit=3)
    lines = _lines(judged)
    assert len(lines) == 3 * 2
    for line in lines:
        assert set(line) == SWALLOW_FIELDS
        q, turn = line["question_id"], line["turn"]
        assert line["score"] == [_rating(q, turn, i) for i in range(5)]
        assert line["judgment"] == [f"評価: [[{_rating(q, turn, i)}]]" for i in range(5)]
        assert [f"ans-{q}-{i}\n" in p for i, p in enumerate(line["user_prompt"])] == [True] * 5
        assert line["judge"][1].startswith("single-")  # [judge name, prompt name]
        assert line["judge"][1].endswith("-multi-turn") == (turn == 2)
    row = _board(judged, "jmt-bench", variant)[0]
    score, stdev = _calculate_averages([line["score"] for line in lines])
    assert row["swallow"]["score"] == pytest.approx(score)
    assert row["swallow"]["stdev"] == pytest.approx(stdev)
    assert row["swallow"]["trials"] == 5
    turn2 = _calculate_averages([line["score"] for line in lines if line["turn"] == 2])
    assert (row["turn2"]["swallow"]["score"], row["turn2"]["swallow"]["stdev"]) == pytest.approx(
        turn2
    )
    check = CliRunner().invoke(app, ["mtbench", "verify", "--bench", "jmt-bench", str(judged)])
    assert check.exit_code == 0 and "reproduced exactly (6 lines" in check.output
    md = CliRunner().invoke(
        app,
        ["mtbench", "leaderboard", "--bench", "jmt-bench", *variant, "--judgments",
         str(judged), "--data-dir", str(SHARED_DATA)],
    )  # fmt: skip
    assert "| Model | Avg. | 95% CI | Swallow |" in md.stdout
    assert "swallow-evaluation show_result.py's score ± stdev" in md.stdout


def test_swallow_cells_are_the_mean_of_per_trial_means_and_fastchat_pools_on_request(
    tmp_path: Path,
) -> None:
    """``--variant swallow`` computes each category cell as swallow-evaluation's
    ``show_result.py`` does (``calculate_averages`` over the category's lines: per trial
    the mean of its rated turns, then the mean over trials), not FastChat's pooled mean:
    with unrated replies in one trial the two differ. ``--headline turn-mean`` gives
    FastChat's pooled cells instead, and each table signs its rule."""
    ids = [q.question_id for q in Bench.load("jmt-bench", SHARED_DATA, "swallow").questions][:2]
    answers = tmp_path / "m.jsonl"
    _answers(answers, ids, 5)
    script = _script(tmp_path / "script.jsonl", ids, 5)
    # trial 0: one rated turn of each turn (a turn-1 hole holds its turn 2 too: that
    # prompt shows the turn-1 answer)
    unrated = {(ids[0], 1, 0), (ids[0], 2, 0)}
    rules = [json.loads(line) for line in script.read_text(encoding="utf-8").splitlines()]
    holes = [
        {"contains": f"{'second' if t == 2 else 'ans'}-{q}-{i}\n", "reply": "no rating here"}
        for q, t, i in sorted(unrated, key=lambda k: -k[1])  # turn 2 first, as above
    ]
    script.write_text("".join(json.dumps(r) + "\n" for r in holes + rules), encoding="utf-8")
    out = tmp_path / "judged"
    args = ["mtbench", "judge", "--bench", "jmt-bench", "--variant", "swallow", "-j"]
    args += [f"scripted/{script}", "-a", str(answers), "--limit", "2", "--output-dir", str(out)]
    judged = CliRunner().invoke(app, [*args, "--no-cache", "--data-dir", str(SHARED_DATA)])
    assert judged.exit_code == 0, judged.output
    lines = _lines(out / "m.jsonl")
    assert sum(score == -1 for line in lines for score in line["score"]) == 2
    (category,) = {q.category for q in Bench.load("jmt-bench", SHARED_DATA, "swallow").questions
                   if q.question_id in ids}  # fmt: skip
    variant = ["--variant", "swallow"]
    own = _board(out / "m.jsonl", "jmt-bench", variant)[0]
    pooled = _board(out / "m.jsonl", "jmt-bench", variant, "--headline", "turn-mean")[0]
    for turn, key in ((None, None), (1, "turn1"), (2, "turn2")):
        scores = [line["score"] for line in lines if turn is None or line["turn"] == turn]
        upstream, _stdev = _calculate_averages(scores)
        flat = [s for row in scores for s in row if s != -1]
        cells = own if key is None else own[key]
        fastchat = pooled if key is None else pooled[key]
        assert cells["categories"][category] == pytest.approx(upstream)
        assert fastchat["categories"][category] == pytest.approx(sum(flat) / len(flat))
        assert upstream != pytest.approx(sum(flat) / len(flat))  # the rules differ here
    assert own["overall"] == pytest.approx(own["swallow"]["score"])
    assert (own["headline"], pooled["headline"]) == ("swallow-trials", "turn-mean")
    md = CliRunner().invoke(
        app,
        ["mtbench", "leaderboard", "--bench", "jmt-bench", *variant, "--judgments",
         str(out / "m.jsonl"), "--data-dir", str(SHARED_DATA)],
    )  # fmt: skip
    assert md.exit_code == 0, md.output
    assert "|headline:swallow-trials" in md.stdout
    assert "per trial the mean of its rated turns, then the mean over the trials" in md.stdout


class StallingJudge(ReplayJudge):
    """Replies at once to the first ``after`` requests, then holds every reply until
    ``release`` is set (at most a minute): a run stops mid-way, a call in flight."""

    def __init__(self, after: int, **kwargs: Any) -> None:
        super().__init__({}, **kwargs)
        self.after = after
        self.release = threading.Event()
        #: requests come in so far (``received`` lists one only once it is answered)
        self.count = 0
        self._count_lock = threading.Lock()

    def reply_to(self, body: Mapping[str, Any], path: str = "") -> str | None:
        with self._count_lock:
            self.count += 1
            late = self.count > self.after
        if late:
            self.release.wait(60)
        return super().reply_to(body, path)


def _find(prompt: str) -> list[str] | None:
    for i in range(5):
        if f"second-1-{i}\n" in prompt:
            return [f"[[{_rating(1, 2, i)}]]"]
    for i in range(5):
        if f"ans-1-{i}\n" in prompt:
            return [f"[[{_rating(1, 1, i)}]]"]
    return None


def test_a_killed_swallow_run_resumes_per_trial_and_ends_as_an_uninterrupted_one(
    tmp_path: Path,
) -> None:
    """A real ``hyoka mtbench judge --variant swallow`` process killed (SIGKILL) after 4 of
    its 10 trial-turns: the file keeps those 4 as one-trial lines; the same command asks
    the judge for the 6 others only, and leaves the file an uninterrupted run leaves."""
    answers = tmp_path / "m.jsonl"
    _answers(answers, [1], 5)
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "HYOKA_DATA_DIR": str(SHARED_DATA),
           "HYOKA_CACHE_DIR": str(tmp_path / "cache")}  # fmt: skip

    def command(base_url: str, out: Path) -> list[str]:
        return [
            sys.executable, "-m", "hyoka", "mtbench", "judge", "--bench", "jmt-bench",
            "--variant", "swallow", "-j", "openai/gpt-4o-2024-08-06", "--base-url", base_url,
            "-a", str(answers), "--limit", "1", "--concurrency", "1", "--no-cache",
            "--output-dir", str(out),
        ]  # fmt: skip

    killed = tmp_path / "killed" / "m.jsonl"
    judge = StallingJudge(4, find=_find)
    with judge:
        run = subprocess.Popen(
            command(judge.base_url, killed.parent), env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while judge.count < 5 or len(_lines(killed)) < 4:
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "no 4 judgments in 60 s"
            time.sleep(0.05)
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=30)
        judge.release.set()
        kept = _lines(killed)
        assert len(kept) == 4 and all(len(line["score"]) == 1 for line in kept)
        assert sorted(line["trials"][0] for line in kept) == [0, 1, 2, 3]  # turn 1, in order
        asked = judge.count
        again = subprocess.run(
            command(judge.base_url, killed.parent), env=env, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert judge.count - asked == 6  # only the trials not in the file
    with ReplayJudge({}, find=_find) as fresh:
        whole = tmp_path / "whole" / "m.jsonl"
        once = subprocess.run(
            command(fresh.base_url, whole.parent), env=env, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
        assert once.returncode == 0, once.stderr

    def content(path: Path) -> list[dict[str, Any]]:
        return [{k: v for k, v in line.items() if k != "tstamp"} for line in _lines(path)]

    assert content(killed) == content(whole)
    assert [line["score"] for line in _lines(killed)] == [
        [_rating(1, turn, i) for i in range(5)] for turn in (1, 2)
    ]


def test_generate_trials_with_seeds_and_cache_keys_per_choice(tmp_path: Path) -> None:
    """``--trials 2 --seed 5``: each dialogue asked twice per turn, choice ``i`` with seed
    5 + ``i``; one line per dialogue with both choices; the count in the signature and in
    the file's identity (another count does not continue it)."""
    answers = tmp_path / "m.jsonl"
    runner = CliRunner()
    with ReplayJudge({}, missing_reply="An answer.") as model:
        args = ["mtbench", "generate", "--bench", "mt-bench", "-m", "openai/m", "--base-url"]
        args += [model.base_url, "--limit", "2", "--trials", "2", "--seed", "5", "--no-cache"]
        args += ["--data-dir", str(data_with_sources())]
        made = runner.invoke(app, [*args, "--output", str(answers)])
        assert made.exit_code == 0, made.output
        assert "|trials:2" in made.output
        assert len(model.received) == 2 * 2 * 2
        seeds = sorted(r.body["seed"] for r in model.received)
        assert seeds == [5, 5, 5, 5, 6, 6, 6, 6]
        again = runner.invoke(app, [*args, "--output", str(answers)])
        assert again.exit_code == 0 and "0 dialogue(s) answered, 2 already done" in again.output
        other = [("3" if a == "2" and args[i - 1] == "--trials" else a) for i, a in enumerate(args)]
        refused = runner.invoke(app, [*other, "--output", str(answers)])
    assert refused.exit_code == 1 and "trials: 2 vs 3" in refused.stderr
    records = _lines(answers)
    assert [len(r["choices"]) for r in records] == [2, 2]
    assert [[c["index"] for c in r["choices"]] for r in records] == [[0, 1], [0, 1]]


@pytest.mark.slow
def test_generate_trials_on_the_embedded_model(tmp_path: Path, llama_base_url: str) -> None:
    """The embedded model (served by the session's llama.cpp server, already loaded)
    through ``--trials 2``: one line per dialogue holding two choices of two turns each,
    and a second run with nothing left to do (what the model writes decides nothing)."""
    answers = tmp_path / "m.jsonl"
    args = ["mtbench", "generate", "--bench", "mt-bench", "-m", "openai/smollm2", "--limit", "1"]
    args += ["--base-url", llama_base_url]
    args += ["--trials", "2", "--max-tokens", "8", "--seed", "1", "--output", str(answers)]
    args += ["--data-dir", str(data_with_sources())]
    env = {"HYOKA_CACHE_DIR": str(tmp_path / "cache")}
    made = CliRunner().invoke(app, args, env=env)
    assert made.exit_code == 0, made.output
    (record,) = _lines(answers)
    assert [c["index"] for c in record["choices"]] == [0, 1]
    assert all(len(c["turns"]) == 2 for c in record["choices"])
    again = CliRunner().invoke(app, args, env=env)
    assert again.exit_code == 0 and "1 already done" in again.output


def test_swallow_generates_its_five_trials_by_default_and_signs_any_other_count(
    tmp_path: Path,
) -> None:
    """``--variant swallow`` answers each dialogue 5 times unless told otherwise; one
    answer under it is signed ``trials:1`` (the variant's label alone would read as 5)."""
    runner = CliRunner()
    common = ["mtbench", "generate", "--bench", "jmt-bench", "--variant", "swallow"]
    common += ["-m", "openai/m", "--limit", "1", "--no-cache"]
    common += ["--data-dir", str(data_with_sources())]
    with ReplayJudge({}, missing_reply="回答です。") as model:
        five = runner.invoke(
            app, [*common, "--base-url", model.base_url, "--output", str(tmp_path / "a.jsonl")]
        )
        one = runner.invoke(
            app,
            [*common, "--base-url", model.base_url, "--trials", "1",
             "--output", str(tmp_path / "b.jsonl")],
        )  # fmt: skip
    assert five.exit_code == 0 and one.exit_code == 0, five.output + one.output
    assert "|trials:5" in five.output and "|trials:1" in one.output
    assert [len(r["choices"]) for r in _lines(tmp_path / "a.jsonl")] == [5]
    assert len(model.received) == 5 * 2 + 1 * 2


def test_a_swallow_file_left_unmerged_is_merged_by_the_next_run_without_a_call(
    tmp_path: Path,
) -> None:
    """A run killed after its last trial line but before the merge leaves one-trial lines:
    the same command judges nothing again and leaves upstream's lines."""
    variant = ["--variant", "swallow"]
    judged = _judge(tmp_path, "jmt-bench", variant, trials=5, limit=1)
    merged = judged.read_text(encoding="utf-8")
    split = [
        {**line, "user_prompt": [p], "judgment": [j], "score": [s], "trials": [i]}
        for line in _lines(judged)
        for i, (p, j, s) in enumerate(
            zip(line["user_prompt"], line["judgment"], line["score"], strict=True)
        )
    ]
    judged.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in split), "utf-8")
    script = tmp_path / "script.jsonl"
    args = ["mtbench", "judge", "--bench", "jmt-bench", *variant, "-j", f"scripted/{script}"]
    args += ["-a", str(tmp_path / "m.jsonl"), "--limit", "1", "--output-dir", str(judged.parent)]
    again = CliRunner().invoke(app, [*args, "--no-cache", "--data-dir", str(SHARED_DATA)])
    assert again.exit_code == 0, again.output
    assert "0 turn(s) judged, 10 already done" in again.output
    assert "0 judge call(s)" in again.output
    assert judged.read_text(encoding="utf-8") == merged


def test_an_answer_file_with_two_trial_counts_is_one_error_line(tmp_path: Path) -> None:
    """Dialogues answered a different number of times would mix means over different
    trials: refused at the line, before any call."""
    answers = tmp_path / "m.jsonl"
    _answers(answers, [81], 3)
    two = [{"index": i, "turns": ["a", "b"]} for i in range(2)]
    line = json.dumps({"question_id": 82, "model_id": "m", "choices": two})
    answers.write_text(answers.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    args = ["mtbench", "judge", "--bench", "mt-bench", "-j", "openai/gpt-4", "-a", str(answers)]
    result = CliRunner().invoke(
        app, [*args, "--limit", "2", "--output-dir", str(tmp_path / "o"), "--data-dir",
              str(SHARED_DATA)],
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {answers}:2: question_id 82 has 2 choice(s), 3 earlier in the file (one "
        "trial count per answer file)\n"
    )


def test_every_trials_answer_is_judged_after_its_thinking(tmp_path: Path) -> None:
    """An answer file made elsewhere whose every choice opens its turns with a ``<think>``
    block: each trial's judge prompt holds that choice's answer only, never its thinking
    (the thinking rule reads every choice, not the first one alone)."""
    ids = [q.question_id for q in Bench.load("mt-bench", SHARED_DATA).questions][:1]
    answers = tmp_path / "m.jsonl"
    _answers(answers, ids, trials=2)
    lines = _lines(answers)
    for line in lines:
        for choice in line["choices"]:
            choice["turns"] = [f"<think>思考-{turn}</think>\n\n{turn}" for turn in choice["turns"]]
    answers.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    script = _script(tmp_path / "script.jsonl", ids, trials=2)
    out = tmp_path / "judged"
    args = ["mtbench", "judge", "--bench", "mt-bench", "-j", f"scripted/{script}", "-a"]
    args += [str(answers), "--limit", "1", "--output-dir", str(out), "--no-cache"]
    result = CliRunner().invoke(app, [*args, "--data-dir", str(SHARED_DATA)])
    assert result.exit_code == 0, result.output
    judged = _lines(out / "m.jsonl")
    assert sorted(line["trial"] for line in judged) == [0, 0, 1, 1]
    for line in judged:
        q, turn, trial = line["question_id"], line["turn"], line["trial"]
        assert "<think>" not in line["user_prompt"] and "思考" not in line["user_prompt"]
        assert f"ans-{q}-{trial}\n" in line["user_prompt"]
        assert line["score"] == _rating(q, turn, trial)


#: swallow-evaluation's fields in the order its ``play_a_match_single`` writes them
SWALLOW_ORDER = ["question_id", "model", "judge", "user_prompt", "judgment", "score", "turn",
                 "tstamp"]  # fmt: skip


def _swallow_judged_by(server: OpenAIServer, tmp_path: Path) -> list[dict[str, Any]]:
    """``--variant swallow`` of one dialogue answered five times (its trials), judged by
    ``openai/gpt-4o`` on ``server``: the merged lines."""
    ids = [q.question_id for q in Bench.load("jmt-bench", SHARED_DATA, "swallow").questions]
    tmp_path.mkdir()
    answers = tmp_path / "m.jsonl"
    _answers(answers, ids[:1], trials=5)
    out = tmp_path / "judged"
    args = ["mtbench", "judge", "--bench", "jmt-bench", "--variant", "swallow", "-j"]
    args += ["openai/gpt-4o", "--base-url", server.base_url, "-a", str(answers), "--limit"]
    args += ["1", "--output-dir", str(out), "--no-cache", "--data-dir", str(SHARED_DATA)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return _lines(out / "m.jsonl")


def test_swallow_lines_keep_each_trials_served_snapshot_and_thinking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judge that thinks aloud and names a dated snapshot: each merged swallow line keeps
    both per trial, as a FastChat line keeps them for its one judgment (``served_models``
    and ``thinking`` lists in choice order, after upstream's fields); a judge that does
    neither leaves upstream's line, its fields and nothing else, in upstream's order."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with OpenAIServer() as server:
        server.serves = lambda _number: "gpt-4o-2024-08-06"
        server.thinking = "考える"
        server.reply_to_all = "評価: [[7]]"
        lines = _swallow_judged_by(server, tmp_path / "thinking")
    assert len(lines) == 2
    for line in lines:
        assert list(line) == [*SWALLOW_ORDER, "served_models", "thinking"]
        assert line["score"] == [7] * 5
        assert line["served_models"] == [["gpt-4o-2024-08-06"]] * 5
        assert line["thinking"] == ["<think>考える</think>\n\n"] * 5
        first, *_, last = TrialsJudgmentLine.model_validate(line).per_trial()
        assert (first.served_models, last.thinking) == (
            ("gpt-4o-2024-08-06",),
            "<think>考える</think>\n\n",
        )
    with OpenAIServer() as server:
        server.reply_to_all = "評価: [[7]]"
        plain = _swallow_judged_by(server, tmp_path / "plain")
    assert [list(line) for line in plain] == [SWALLOW_ORDER] * 2


def test_merged_swallow_lines_keep_the_ids_json_type() -> None:
    """Per-trial lines read back with a string ``question_id`` (as upstream's 2023 question
    file gives them) merge into a line that writes it as a string again."""
    line = {"question_id": "81", "model": "m", "judge": ["j", "single-v1"], "turn": 1}
    parts = [
        TrialsJudgmentLine.model_validate(
            {**line, "user_prompt": [f"p{i}"], "judgment": ["[[5]]"], "score": [5], "trials": [i]}
        )
        for i in (1, 0)
    ]
    (merged,) = merge_trials(parts, 2)
    written = json.loads(merged.model_dump_json())
    assert written["question_id"] == "81" and written["user_prompt"] == ["p0", "p1"]
    assert [s.model_dump()["question_id"] for s in merged.per_trial()] == ["81", "81"]


def test_a_row_whose_interval_is_not_of_its_avg_says_what_it_is_of(tmp_path: Path) -> None:
    """Turn 2 of question 81 unrated: "Avg." is FastChat's mean of the 3 rated turns
    ((6 + 9 + 1) / 3 = 5.33), the interval's mean is of the question means
    ((6 + (9 + 1) / 2) / 2 = 5.50): the Markdown and CSV notes say so for that row (the
    per-turn tables agree with their Avg. and get no note), JSON keeps the estimate."""
    ids = [81, 82]
    answers = tmp_path / "m.jsonl"
    _answers(answers, ids, trials=1)
    script = _script(tmp_path / "script.jsonl", ids, trials=1)
    unrated = json.dumps({"contains": "second-81-0\n", "reply": "評価できません。"})
    script.write_text(unrated + "\n" + script.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "judged"
    args = ["mtbench", "judge", "--bench", "mt-bench", "-j", f"scripted/{script}", "-a"]
    args += [str(answers), "--limit", "2", "--output-dir", str(out), "--no-cache"]
    result = CliRunner().invoke(app, [*args, "--data-dir", str(SHARED_DATA)])
    assert result.exit_code == 0, result.output
    assert sorted(line["score"] for line in _lines(out / "m.jsonl")) == [-1, 1, 6, 9]
    (row,) = _board(out / "m.jsonl", "mt-bench", [])
    assert row["overall"] == pytest.approx(16 / 3)
    assert row["interval"]["estimate"] == pytest.approx(5.5)
    note = "m: 95% CI: interval of the mean of question means, 5.50 (Avg. 5.33)"
    board = ["mtbench", "leaderboard", "--bench", "mt-bench", "--judgments", str(out / "m.jsonl")]
    for fmt, line in (("md", note), ("csv", f"# {note}")):
        shown = CliRunner().invoke(app, [*board, "--format", fmt, "--data-dir", str(SHARED_DATA)])
        assert shown.exit_code == 0, shown.output
        assert [x for x in shown.stdout.splitlines() if "interval of the mean" in x] == [line]


def test_pairwise_judging_refuses_an_answer_file_of_several_trials(tmp_path: Path) -> None:
    """FastChat's run_judge_pair compares choices[0] only: a file of three trials judged
    pairwise would leave two of them out in silence, so it is one error line before any
    call (the judge named could not even be reached)."""
    ids = [q.question_id for q in Bench.load("mt-bench", SHARED_DATA).questions][:2]
    one, three = tmp_path / "one.jsonl", tmp_path / "three.jsonl"
    _answers(three, ids, 3)
    _answers(one, ids, 1)
    one.write_text(one.read_text(encoding="utf-8").replace('"m"', '"n"'), encoding="utf-8")
    args = ["mtbench", "judge", "--bench", "mt-bench", "--mode", "pairwise", "-j", "openai/x"]
    args += ["-a", str(one), "-a", str(three), "--limit", "2", "--data-dir", str(SHARED_DATA)]
    result = CliRunner().invoke(app, [*args, "--output-dir", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {three}: question_id {ids[0]} holds 3 choices (trials): pairwise judging "
        "compares the first answer only, as FastChat's run_judge_pair does; single grading "
        "(--mode single) judges every trial\n"
    )
    assert not (tmp_path / "o").exists()


def _meta(folder: Path) -> tuple[int, str, str]:
    args = ["judge", "meta", "--single", str(folder), "--format", "json", "--resamples", "5"]
    args += ["--data-dir", str(SHARED_DATA)]
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


def test_judge_meta_reads_trial_lines_as_one_grade_per_trial(tmp_path: Path) -> None:
    """Lines of a ``--trials 3`` run are three grades of a turn, one per trial: read as
    such by ``single_grades`` (judge meta and agreement), never as "a second, different
    grade of the same turn"."""
    judged = _judge(tmp_path, "mt-bench", [], trials=3, limit=2)
    grades = read_single_grades(judged.parent).grades
    assert grades == {
        (str(q), turn, "m", trial): float(_rating(q, turn, trial))
        for q in (81, 82) for turn in (1, 2) for trial in range(3)
    }  # fmt: skip
    code, out, err = _meta(judged.parent)
    assert code == 0, err
    assert "a second" not in err and json.loads(out)


def test_swallow_list_lines_are_refused_by_agreement_and_one_grade_per_trial_in_meta(
    tmp_path: Path,
) -> None:
    """Agreement between two judges reads one grade a line and refuses swallow-evaluation's
    lists in one line saying what they are; ``judge meta`` reads each trial's grade of such
    a line as its own item (trials are other answers, so never repeats of one grade)."""
    judged = _judge(tmp_path, "jmt-bench", ["--variant", "swallow"], trials=5, limit=1)
    with pytest.raises(InputError, match=r"m\.jsonl:1: score is a list: a swallow-evaluation"):
        read_single_grades(judged.parent)
    lines = [json.loads(text) for text in judged.read_text(encoding="utf-8").splitlines()]
    expected = {
        f"{line['question_id']}/{line['turn']}" + (f"/{trial}" if trial else ""): score
        for line in lines
        for trial, score in enumerate(line["score"])
    }
    assert len(expected) == 5 * len(lines) == 10
    table = read_single_folders([judged.parent], SHARED_DATA)
    assert dict(zip((table.items[i] for i in table.item), table.score, strict=True)) == expected
    templates = {line["judge"][1] for line in lines}
    assert set(table.templates) == templates and len(templates) == 2  # turn 1, turn 2
    code, out, err = _meta(judged.parent)
    assert code == 0, err
    row, *per_template = json.loads(out)["rows"]
    assert {r["template"] for r in per_template} == templates and row["template"] == "(all)"
    assert (row["judgments"], row["repeats"], row["repeat_sd"]) == (10, 0, None)
