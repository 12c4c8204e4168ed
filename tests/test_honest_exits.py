"""A judge run in which no grade came back exits 1 with one summary line, after its totals.

The judge is a real local HTTP server (``ReplayJudge``) that answers every call with a reply
holding no ``[[rating]]``; the answers are the published pfmt-bench-fin-ja ones.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from replay_judge_server import ReplayJudge

ANSWERS = SHARED_DATA / "pfmt-bench-fin-ja" / "model_answer" / "claude-2.1.jsonl"


def _judge(base_url: str, out: Path) -> list[str]:
    args = [
        "mtbench", "judge", "-j", "openai/gpt-4o-mini", "-a", str(ANSWERS), "--limit", "1",
        "--base-url", base_url, "--no-cache", "--lang-check", "script",
        "--output-dir", str(out), "--data-dir", str(SHARED_DATA),
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    return [str(result.exit_code), result.stdout, result.stderr]


def test_mtbench_judge_with_no_rating_at_all_exits_1(tmp_path: Path, hyoka_env: None) -> None:
    with ReplayJudge({}, missing_reply="A fine answer, I think.") as judge:
        code, stdout, stderr = _judge(judge.base_url, tmp_path / "none")
    assert code == "1", stdout + stderr
    assert "2 turn(s) judged" in stdout and "2 without a rating" in stdout  # totals first
    (line,) = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert line.startswith(
        "error: no grade: openai/gpt-4o-mini wrote no rating in any reply (graded 0, failures 2)"
    )
    with ReplayJudge({}, missing_reply="Rating: [[7]]") as judge:
        code, stdout, stderr = _judge(judge.base_url, tmp_path / "rated")
    assert code == "0" and "error:" not in stderr, stdout + stderr
