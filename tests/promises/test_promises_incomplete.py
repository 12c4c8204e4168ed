"""Incomplete is said wherever a score is shown (issue 17, #13).

A pfgen run that misses questions scores numbers that are not comparable with a whole run's:
``pfgen score`` (table, warning and JSON), the leaderboards and every report page that shows
its score say "incomplete", and no leaderboard ranks it among whole runs.
"""

from __future__ import annotations

import json
import lzma
import re
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, writable_run_copy
from hyoka.cli.main import app
from hyoka.report import ReportOptions, build_report

SMALL = "openai/chatgpt-o1/9a61e92"  # one trial of 50 answers
QUESTIONS = SHARED_DATA / "pfgen-bench" / "data"


def _question(qid: str) -> str:
    text: str = json.loads((QUESTIONS / f"{qid}.json").read_text(encoding="utf-8"))["question"]
    return text


def _run_without(target: Path, best: int | None = None, drop: str | None = None) -> Path:
    """A copy of a real public run, unscored, holding the answers to its ``best`` best
    scored questions or to all but question ``drop``."""
    folder = writable_run_copy(SMALL, target)
    lines = lzma.decompress((folder / "trials.jsonl.xz").read_bytes()).decode().splitlines()
    if drop is not None:
        left_out = _question(drop)
        lines = [line for line in lines if json.loads(line)["question"] != left_out]
    if best is not None:
        scored = json.loads((folder / "result.json").read_text(encoding="utf-8"))["questions"]
        ranked = sorted(scored.values(), key=lambda q: -q["score"])
        kept = {q["question"] for q in ranked[:best]}
        lines = [line for line in lines if json.loads(line)["question"] in kept]
    (folder / "trials.jsonl.xz").unlink()
    (folder / "result.json").unlink()
    (folder / "trials.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return folder


@pytest.mark.usefixtures("hyoka_env")
def test_pfgen_score_says_a_run_missing_a_question_is_incomplete(tmp_path: Path) -> None:
    run = _run_without(tmp_path / "runs", drop="Q01")
    shown = CliRunner().invoke(app, ["pfgen", "score", str(run)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    row = next(line for line in shown.stdout.splitlines() if "chatgpt-o1" in line)
    assert "[incomplete: 49 of 50 questions]" in row
    assert f"warning: {run}: incomplete: 49 of 50 questions" in " ".join(shown.stderr.split())
    as_json = CliRunner().invoke(app, ["pfgen", "score", str(run), "--json"])
    assert as_json.exit_code == 0, as_json.output
    (record,) = json.loads(as_json.stdout)
    assert (record["complete"], record["questions"], record["incomplete"]) == (
        False,
        49,
        "incomplete: 49 of 50 questions",
    )


@pytest.mark.usefixtures("hyoka_env")
def test_a_whole_run_is_not_called_incomplete(tmp_path: Path) -> None:
    run = _run_without(tmp_path / "runs")
    as_json = CliRunner().invoke(app, ["pfgen", "score", str(run), "--json"])
    (record,) = json.loads(as_json.stdout)
    assert (record["complete"], record["questions"], record["incomplete"]) == (True, 50, None)
    assert "incomplete" not in as_json.stderr


def _rows(page: str) -> list[list[str]]:
    """The leaderboard table's rows as cell texts (tags dropped)."""
    body = page.split('id="leaderboard"', 1)[1].split("</table>", 1)[0]
    rows = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        if cells:
            rows.append([unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells])
    return rows


def test_the_report_leaderboard_never_ranks_an_incomplete_run(
    tmp_path: Path, index_cache_dir: Path
) -> None:
    """5 of 50 questions answered: the run's score beats the public run's, yet it is listed
    unranked and marked on the leaderboard, the index and its own page."""
    public = tmp_path / "public"
    writable_run_copy(SMALL, public)
    mine = _run_without(tmp_path / "mine", best=5)
    (mine / "config.json").write_text(json.dumps({"model": "me/five", "mode": "chat"}))
    options = ReportOptions(data_dir=SHARED_DATA, cache_dir=index_cache_dir, public_dir=public)
    out = tmp_path / "site"
    build_report([mine], out, options)
    rows = _rows((out / "pfgen" / "index.html").read_text(encoding="utf-8"))
    by_model = {row[1].split()[0]: row for row in rows}
    assert by_model["openai/chatgpt-o1"][0] == "1"
    five = by_model["me/five"]
    assert five[0] == "N/A"
    assert "[incomplete: 5 of 50 questions]" in five[1]
    assert float(five[3]) > float(by_model["openai/chatgpt-o1"][3])  # would lead otherwise
    index = unescape((out / "index.html").read_text(encoding="utf-8"))
    assert "me/five (chat) [incomplete: 5 of 50 questions]" in index
    (run_page,) = (out / "pfgen" / "runs").glob("me_five*.html")
    page = unescape(run_page.read_text(encoding="utf-8"))
    assert "5 (incomplete: 5 of 50 questions)" in page


def test_the_judge_page_marks_an_incomplete_run(tmp_path: Path) -> None:
    """pfgen score against a judge's: the incomplete run's point says so."""
    from hyoka.report.judge_pages import judge_page

    runs = [
        "openai/chatgpt-o1/9a61e92",
        "openai/chatgpt-4o-latest/c275a7b",
        "tokyotech-llm/Llama-3-Swallow-8B-v0.1/98f12b9",
    ]
    for number, run in enumerate(runs):
        folder = tmp_path / run
        folder.mkdir(parents=True)
        result = json.loads(
            (SHARED_DATA / "pfgen-bench" / "results" / run / "result.json").read_text()
        )
        if number == 0:
            result["questions"] = dict(list(result["questions"].items())[:5])
        (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
        summary = folder / "judge" / "j" / "summary.json"
        summary.parent.mkdir(parents=True)
        summary.write_text(json.dumps({"judge": "j", "mean": 5.0 + number}), encoding="utf-8")
    page = judge_page([tmp_path], [], seed=0)
    assert page is not None
    assert "openai/chatgpt-o1 (qa) [incomplete: 5 of 50 questions]" in unescape(page)
    assert unescape(page).count("incomplete") == 1
