"""Drop-in with FastChat's own scripts (issue 22): the prompts ``gen_api_answer.py`` sends,
the headline ``show_result.py`` prints, the judge requests ``gen_judgment.py`` makes, and
the files where those scripts look for them.

Every expectation is built here from upstream's rule (read in lm-sys/FastChat and
pfnet-research/pfmt-bench-fin-ja, written down in our words) and the real question and
judgment files in ``../shared/data``, never from hyoka's own code; each request is the one
a real local OpenAI-compatible server received.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from replay_judge_server import ReplayJudge

MT = SHARED_DATA / "mt-bench"


@pytest.fixture(autouse=True)
def _environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))


def _questions(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "question.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _hyoka(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


# -- 3. pairwise: log probabilities only for the prob method --------------------------------


def _answer_files(folder: Path, models: tuple[str, ...]) -> list[str]:
    """Two-turn answers of ``models`` to the first MT-bench question, FastChat's format."""
    folder.mkdir(parents=True, exist_ok=True)
    first = _questions(MT)[0]
    paths = []
    for model in models:
        path = folder / f"{model}.jsonl"
        record = {"question_id": first["question_id"], "answer_id": model, "model_id": model,
                  "choices": [{"index": 0, "turns": [f"{model} one", f"{model} two"]}],
                  "tstamp": 0.0}  # fmt: skip
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def _pairwise_bodies(tmp_path: Path, name: str, *flags: str) -> tuple[int, str, list[Any]]:
    a, b = _answer_files(tmp_path / "answers", ("model-a", "model-b"))
    with ReplayJudge({}, missing_reply="Both fine. [[C]]") as server:
        code, out = _hyoka(
            "mtbench", "judge", "--bench", "mt-bench", "--mode", "pairwise", "-j",
            "openai/gpt-4", "--base-url", server.base_url, "--no-cache", "--limit", "1",
            "-a", a, "-a", b, "--output-dir", str(tmp_path / name), *flags,
        )  # fmt: skip
    return code, out, [request.body for request in server.received]


def test_pairwise_asks_for_logprobs_only_for_the_prob_method(tmp_path: Path) -> None:
    """FastChat's pairwise judge call is model, messages, n, temperature 0, max_tokens:
    by default (bs2, FastChat's rule: games that disagree are a tie) no log probabilities
    are asked for; ``prob`` (alone or in ``all``) asks for the top 20."""
    code, out, plain = _pairwise_bodies(tmp_path, "default")
    assert code == 0, out
    assert len(plain) == 4  # two turns, two games each
    for body in plain:
        assert "logprobs" not in body and "top_logprobs" not in body
        assert (body["temperature"], body["max_tokens"]) == (0.0, 2048)
    assert "methods:bs2" in out
    for method in ("prob", "all"):
        code, out, asked = _pairwise_bodies(tmp_path, method, "--method", method)
        # this server returns no log probabilities: prob alone has no verdict to give
        assert code == (1 if method == "prob" else 0), out
        assert len(asked) == 4
        assert {(body["logprobs"], body["top_logprobs"]) for body in asked} == {(True, 20)}
