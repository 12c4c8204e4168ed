"""Promise: every judged number the command line shows names the judge that answered, and a
scripted judge's numbers are called a dry run wherever they are shown.

Before: the report's pages said so (``judge.judged_by``), but no command did. ``hyoka judge
single`` (text and ``--json``), ``judge pairwise``, ``mtbench judge``, ``mtbench
leaderboard`` (md, csv, json), ``judge rankings``, ``pfgen correlate`` and ``judge meta``
printed a script's grades as any model's; only the signature's judge field gave it away,
and ``judge meta`` named such a file's judge by its label (``--judge-name gpt-4o-mini``),
a judge that never answered.

Now each names the judge beside its numbers (``judged by: ...``; JSON ``judged_by``), a
script's numbers marked ``(dry run)`` (JSON ``"dry_run": true``); a file without hyoka's
manifest names the judge its lines give, as the report does.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import PFGEN_RESULTS, SHARED_DATA, needs
from hyoka.cli.main import app

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
VICUNA = SHARED_DATA / "ja-vicuna-qa" / "model_answer"
RAKUDA = SHARED_DATA / "rakuda"
#: how a scripted judge is named wherever its numbers are shown
DRY = "(dry run: replies read from a script, not a model's judgment)"


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def _ok(*args: str) -> Result:
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    return result


def _script(path: Path, reply: str) -> tuple[str, str]:
    """A script replying ``reply`` to everything: its judge spec and its digest."""
    path.write_text(json.dumps({"reply": reply}, ensure_ascii=False) + "\n", "utf-8")
    return f"scripted/{path}", hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _judged_by(judge: str, pin: str) -> dict[str, Any]:
    return {"judge": judge, "script": pin, "served": [], "recorded": True, "dry_run": True}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _answers(folder: Path) -> tuple[str, str]:
    files = []
    for model, answer in (("x", "東京です。"), ("y", "大阪です。")):
        path = folder / f"{model}.jsonl"
        line = {"id": "q1", "question": "日本の首都は?", "answer": answer, "model": model,
                "reference": "東京です。"}  # fmt: skip
        path.write_text(json.dumps(line, ensure_ascii=False) + "\n", "utf-8")
        files.append(str(path))
    return files[0], files[1]


def test_judge_single_calls_a_scripts_grades_a_dry_run_in_text_and_json(env: Path) -> None:
    x, _y = _answers(env)
    judge, pin = _script(env / "s.jsonl", "評価: [[9]]")
    text = _ok("judge", "single", x, "-j", judge, "--output", str(env / "a.jsonl"))
    assert "Judge summary (dry run)" in text.stdout
    lines = text.stdout.splitlines()
    assert lines[-2] == f"judged by: {judge}, script {pin} {DRY}"
    assert lines[-1].startswith("signature: ") and f"judge-script:{pin}" in lines[-1]
    shown = json.loads(_ok("judge", "single", x, "-j", judge, "--json").stdout)
    assert shown["dry_run"] is True and shown["mean"] == 9.0
    assert shown["judged_by"] == _judged_by(judge, pin)


def test_a_model_judges_grades_are_no_dry_run(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same line for a model (a loopback OpenAI server): named, not a dry run."""
    needs("openai")
    from wire_servers import OpenAIServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    x, _y = _answers(env)
    with OpenAIServer() as server:
        server.reply_to_all = "評価: [[6]]"
        args = ["judge", "single", x, "-j", "openai/judge-model", "--base-url", server.base_url]
        shown = json.loads(_ok(*args, "--json").stdout)
        text = _ok(*args)
    assert shown["dry_run"] is False and shown["judged_by"]["judge"] == "openai/judge-model"
    assert "judged by: openai/judge-model\n" in text.stdout and "dry run" not in text.stdout


def test_judge_pairwise_calls_a_scripts_verdicts_a_dry_run(env: Path) -> None:
    x, y = _answers(env)
    judge, pin = _script(env / "s.jsonl", "[[A]]")
    args = ["judge", "pairwise", x, y, "-j", judge, "--method", "bs2"]
    text = _ok(*args, "--output", str(env / "p.jsonl"))
    assert "X = x, Y = y: 1 pair(s) (dry run)" in text.stdout
    assert f"judged by: {judge}, script {pin} {DRY}\nsignature: " in text.stdout
    shown = json.loads(_ok(*args, "--output", str(env / "p.jsonl"), "--json").stdout)
    assert shown["judge"] == judge and shown["dry_run"] is True
    assert shown["judged_by"] == _judged_by(judge, pin)


@pytest.fixture
def fin_judged(env: Path) -> tuple[Path, str, str]:
    """One pfmt-bench-fin-ja question of gpt-4's answers graded by a script labelled
    ``gpt-4o-mini``: the judgment file, the judge, its script's digest."""
    judge, pin = _script(env / "s.jsonl", "評価: [[9]]")
    out = env / "o"
    made = _ok("mtbench", "judge", "-a", str(FIN / "model_answer" / "gpt-4.jsonl"), "-j", judge,
               "--judge-name", "gpt-4o-mini", "--output-dir", str(out), "--limit", "1",
               "--lang-check", "script")  # fmt: skip
    # beside the totals, before the signature (the last line)
    assert made.stdout.splitlines()[-2] == f"judged by: {judge}, script {pin} {DRY}"
    return out / "gpt-4.jsonl", judge, pin


def test_mtbench_leaderboard_marks_a_scripts_rows_in_every_format(
    fin_judged: tuple[Path, str, str],
) -> None:
    path, judge, pin = fin_judged
    board = ["mtbench", "leaderboard", "--judgments", str(path), "--no-per-turn"]
    md = _ok(*board, "--format", "md").stdout
    assert "| gpt-4 (incomplete, dry run) | 9.00 |" in md
    assert f"\njudged by: {judge}, script {pin} {DRY}\n" in md
    csv = _ok(*board, "--format", "csv").stdout
    assert 'both,"gpt-4 (incomplete, dry run)",9.00,' in csv
    assert f"\n# judged by: {judge}, script {pin} {DRY}\n" in csv
    (row,) = json.loads(_ok(*board, "--format", "json").stdout)
    assert row["dry_run"] is True and row["judged_by"] == [_judged_by(judge, pin)]


def test_a_published_file_names_the_judge_its_lines_give(env: Path) -> None:
    """No manifest: the name the lines give, said to be only a name; no dry run."""
    path = FIN / "model_judgment" / "gpt-4o-mini_single" / "gpt-4.jsonl"
    board = ["mtbench", "leaderboard", "--judgments", str(path), "--no-per-turn"]
    (row,) = json.loads(_ok(*board, "--format", "json").stdout)
    assert row["dry_run"] is False
    assert row["judged_by"] == [
        {"judge": "gpt-4o-mini", "script": None, "served": [], "recorded": False,
         "dry_run": False}
    ]  # fmt: skip
    md = _ok(*board).stdout
    assert "judged by: gpt-4o-mini (the name the judgments give; no hyoka manifest" in md
    assert "dry run" not in md


def test_mtbench_pairwise_judge_calls_a_scripts_verdicts_a_dry_run(env: Path) -> None:
    judge, pin = _script(env / "s.jsonl", "[[A]]")
    args = ["mtbench", "judge", "--mode", "pairwise", "-j", judge, "--limit", "1",
            "--lang-check", "script", "--output-dir", str(env / "o")]  # fmt: skip
    for model in ("gpt-4", "gpt-4o"):
        args += ["-a", str(FIN / "model_answer" / f"{model}.jsonl")]
    made = _ok(*args).stdout
    assert "pairwise verdicts: 2 turn(s) compared (dry run)" in made
    assert made.splitlines()[-2] == f"judged by: {judge}, script {pin} {DRY}"


def test_rakuda_judge_and_leaderboard_call_a_scripts_ranking_a_dry_run(env: Path) -> None:
    judge, pin = _script(env / "pair.jsonl", "1")
    out = env / "rakuda"
    args = ["mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches", "4",
            "-j", judge, "--judge-name", "gpt-4", "--output-dir", str(out)]  # fmt: skip
    for model in ("claude-2", "rinna-3.6b-sft"):
        args += ["-a", str(RAKUDA / "answers" / f"{model}.jsonl")]
    made = _ok(*args).stdout
    assert made.splitlines()[-2] == f"judged by: {judge}, script {pin} {DRY}"
    board = ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(out),
             "--rounds", "5"]  # fmt: skip
    for fmt in ("md", "csv"):  # under the table (CSV: a note line)
        shown = _ok(*board, "--format", fmt).stdout
        assert f"judged by: {judge}, script {pin} {DRY}\n" in shown
    ranked = json.loads(_ok(*board, "--format", "json").stdout)
    assert ranked["dry_run"] is True and ranked["judged_by"] == [_judged_by(judge, pin)]


@pytest.fixture
def vicuna_judged(env: Path) -> tuple[Path, str, str]:
    """Three Japanese Vicuna QA models graded on every question by a script."""
    judge, pin = _script(env / "s.jsonl", "評価: [[9]]")
    out = env / "vq"
    args = ["mtbench", "judge", "--bench", "ja-vicuna-qa", "-j", judge, "--judge-name",
            "gpt-4", "--output-dir", str(out)]  # fmt: skip
    for model in ("cyberagent--calm2-7b-chat", "openai--text-davinci-003",
                  "rinna--japanese-gpt-neox-3.6b-instruction-ppo"):  # fmt: skip
        args += ["-a", str(VICUNA / model / "results.jsonl")]
    _ok(*args)
    return out, judge, pin


def test_judge_rankings_and_curve_call_a_scripts_ranking_a_dry_run(
    vicuna_judged: tuple[Path, str, str],
) -> None:
    out, judge, pin = vicuna_judged
    base = ["--bench", "ja-vicuna-qa", "--resamples", "50"]
    both = ["judge", "rankings", "--judgments", str(out), "--judgments", str(out), *base]
    md = _ok(*both).stdout
    assert f"Ranking: {out} (dry run)\nReference: {out} (dry run)\n" in md
    assert f"\n{out}: judged by {judge}, script {pin} {DRY}\n" in md
    csv = _ok(*both, "--format", "csv").stdout
    assert f"\njudged by (ranking),{judge},dry run\n" in csv
    shown = json.loads(_ok(*both, "--format", "json").stdout)
    assert shown["dry_run"] == {"ranking": True, "reference": True}
    assert shown["judged_by"]["ranking"] == [_judged_by(judge, pin)]
    curve = _ok("judge", "curve", "--judgments", str(out), *base, "--sizes", "40,80").stdout
    assert curve.startswith(f"Ranking: {out} (dry run) (3 models, 80 questions)\n")


def test_pfgen_correlate_calls_a_scripts_judge_scores_a_dry_run(env: Path) -> None:
    """pfgen judge with a script that rates three copied runs 4, 6 and 9, then correlate:
    its table, judge line and JSON say whose scores these are."""
    runs = [
        "llm-jp/llm-jp-13b-instruct-full-jaster-v1.0/c55d748",
        "CohereForAI/c4ai-command-r-plus/0171fdc",
        "llm-jp/llm-jp-3-13b-instruct2/d879644",
    ]
    results = env / "results"
    script = env / "judge.jsonl"
    judge = f"scripted/{script}"
    for run, grade in zip(runs, (4, 6, 9), strict=True):
        shutil.copytree(PFGEN_RESULTS / run, results / run)
        script.write_text(json.dumps({"reply": f"評価: [[{grade}]]"}) + "\n", "utf-8")
        _ok("pfgen", "judge", str(results / run), "-j", judge, "--per-question", "1",
            "--limit", "1", "--json")  # fmt: skip
    text = _ok("pfgen", "correlate", str(results), "--resamples", "50").stdout
    assert "pfgen-bench vs " in text and "(3 models) (dry run)" in text
    assert f"judged by: {judge}, script " in text and DRY in text
    shown = json.loads(
        _ok("pfgen", "correlate", str(results), "--resamples", "50", "--json").stdout
    )
    assert shown["dry_run"] is True and len(shown["judged_by"]) == 3
    # each run was graded by its own script (edited between runs): each named by its digest
    pins = [judged["script"] for judged in shown["judged_by"]]
    assert len(set(pins)) == 3 and all(j["judge"] == judge for j in shown["judged_by"])


def test_judge_meta_names_the_judge_that_answered_not_its_label(
    fin_judged: tuple[Path, str, str], env: Path
) -> None:
    """Folder b holds a file a script graded under the label gpt-4o-mini (with its
    manifest, which names its benchmark: the suite); folder a the published gpt-4o-mini
    file (no manifest: a suite named by its folder)."""
    path, judge, _pin = fin_judged
    meta = env / "meta"
    (meta / "a").mkdir(parents=True)
    shutil.copy(FIN / "model_judgment" / "gpt-4o-mini_single" / "gpt-4.jsonl", meta / "a")
    shutil.copytree(path.parent, meta / "b")
    args = ["judge", "meta", "--single", str(meta / "a"), "--single", str(meta / "b")]
    md = _ok(*args, "--resamples", "50").stdout
    fin = "pfmt-bench-fin-ja"
    assert f"| {fin} | {judge} (dry run) | (all) |" in md
    assert "| a | gpt-4o-mini | (all) |" in md and f"| {fin} | gpt-4o-mini |" not in md
    rows = json.loads(_ok(*args, "--resamples", "50", "--format", "json").stdout)["rows"]
    assert {(row["suite"], row["judge"], row["dry_run"]) for row in rows} == {
        ("a", "gpt-4o-mini", False),
        (fin, judge, True),
    }
    csv = _ok(*args, "--resamples", "50", "--format", "csv").stdout.splitlines()
    header = csv[0].split(",")
    assert "dry_run" in header
    flags = {line.split(",")[header.index("suite")]: line.split(",")[header.index("dry_run")]
             for line in csv[1:]}  # fmt: skip
    assert flags == {"a": "False", fin: "True"}
