"""Re-judging the published ELYZA-tasks-100 answers with a judge that replays gpt-4-turbo-preview.

Lightblue's Shaberi (v1) published gpt-4-turbo-preview judgments of 24 models
(``elyza-tasks-100/judgments/gpt-4-turbo-preview``: each row the task, the model's answer
and the score). The judge's replies are not kept, only the scores ``int(reply)`` gave (and
``None`` where ``int`` failed). So the replaying server is keyed by the prompt *upstream's
own code* builds for each row: ``get_elyza_prompt`` compiled from the pinned
``evaluation_datasets_config.py`` (that one pure function, nothing else of the file is
run), and answers with the published score as the judge's whole reply (an unreadable reply
where upstream recorded ``None``). hyoka must then send every prompt byte for byte as
upstream built it, as one user message at temperature 0 with 1024 tokens, and record the
published score for every row; a prompt hyoka built differently gets no reply that holds
a score.

Four prompts are undecidable: two models gave the same answer to a task and upstream's
judge scored the one prompt differently; they are counted, not compared.
"""

from __future__ import annotations

import ast
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, elyza_data
from hyoka.cli.main import app
from replay_judge_server import ReplayedRequest, ReplayJudge

PUBLISHED = SHARED_DATA / "elyza-tasks-100" / "judgments" / "gpt-4-turbo-preview"
#: the judge's reply where upstream recorded ``None`` (``int()`` could not read it)
UNREADABLE = "採点できません"


def _upstream_prompt_builder(source: Path) -> Any:
    """Upstream's ``get_elyza_prompt``, compiled alone from the pinned file."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    (function,) = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "get_elyza_prompt"
    ]
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module([function], []), str(source), "exec"), namespace)
    return namespace["get_elyza_prompt"]


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _task_ids() -> dict[str, int]:
    """Task text -> id (its row, from 0), as hyoka numbers the tasks."""
    rows = _rows(PUBLISHED / "gpt-4-turbo-preview.json")
    return {row["Question"]: number for number, row in enumerate(rows)}


def _reply(score: float | None) -> str:
    return UNREADABLE if score is None else str(int(score))


@dataclass
class Replay:
    same: int = 0
    mismatches: list[str] = field(default_factory=list)
    undecidable: int = 0
    #: of ``same``: the published ``None`` scores, recorded as -1
    unreadable: int = 0
    requests: list[ReplayedRequest] = field(default_factory=list)


def _rejudge(models: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Replay:
    data = elyza_data()
    build = _upstream_prompt_builder(data / "elyza-tasks-100" / "evaluation_datasets_config.py")
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    ids = _task_ids()
    recording: dict[str, list[str]] = defaultdict(list)
    published: dict[str, dict[int, tuple[str, float | None]]] = {}
    for path in sorted(PUBLISHED.glob("*.json")):
        for row in _rows(path):
            recording[build(row)].append(_reply(row["score"]))
    answers = tmp_path / "answers"
    answers.mkdir()
    for model in models:
        by_task: dict[int, tuple[str, float | None]] = {}
        lines = []
        for row in _rows(PUBLISHED / f"{model}.json"):
            task = ids[row["Question"]]
            if task in by_task:  # Qwen1.5-72B-Chat's row 0 is there twice, scored alike
                assert by_task[task] == (build(row), row["score"])
                continue
            by_task[task] = (build(row), row["score"])
            choice = {"index": 0, "turns": [row["ModelAnswer"]]}
            lines.append({"question_id": task, "model_id": model, "choices": [choice]})
        assert sorted(by_task) == list(range(100))
        published[model] = by_task
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        (answers / f"{model}.jsonl").write_text(text, encoding="utf-8")
    output = tmp_path / "judgments"
    with ReplayJudge(dict(recording)) as judge:
        args = ["mtbench", "judge", "--bench", "elyza-tasks-100"]
        args += ["-j", "openai/gpt-4-turbo-preview", "--base-url", judge.base_url]
        args += ["--no-cache", "--concurrency", "16", "--output-dir", str(output)]
        for model in models:
            args += ["-a", str(answers / f"{model}.jsonl")]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    replay = Replay(requests=list(judge.received))
    for model in models:
        ours = {line["question_id"]: line for line in _rows(output / f"{model}.jsonl")}
        assert sorted(ours) == list(range(100))
        for task, (prompt, score) in published[model].items():
            mine = ours[task]
            assert mine["user_prompt"] == prompt  # byte for byte as upstream built it
            assert mine["judge"] == ["gpt-4-turbo-preview", "elyza-v1"]
            if len(set(recording[prompt])) > 1:
                replay.undecidable += 1
                continue
            expected = -1 if score is None else score
            if mine["score"] == expected and isinstance(mine["score"], int):
                replay.same += 1
                replay.unreadable += score is None
            else:
                replay.mismatches.append(f"{model} task {task}: ours {mine['score']!r}, {score!r}")
    print(
        f"\nreplayed gpt-4-turbo-preview on {len(models)} model(s): the published score on "
        f"{replay.same} of {replay.same + len(replay.mismatches)} decidable tasks "
        f"({replay.undecidable} undecidable), {len(replay.requests)} judge requests"
    )
    return replay


def _assert_sent_as_upstream(replay: Replay, tasks: int) -> None:
    """One request per task, one user message, no system message, temperature 0, 1024 tokens."""
    assert len(replay.requests) == tasks
    assert all(r.recorded for r in replay.requests)
    assert {(r.system_prompt, r.temperature, r.max_tokens) for r in replay.requests} == {
        (None, 0.0, 1024)
    }
    assert {len(r.body["messages"]) for r in replay.requests} == {1}


def test_one_model_with_an_unreadable_reply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qwen1.5-32B-Chat: 100 tasks, one published ``None`` (recorded as -1)."""
    replay = _rejudge(["Qwen__Qwen1.5-32B-Chat"], tmp_path, monkeypatch)
    assert not replay.mismatches, replay.mismatches
    assert replay.same + replay.undecidable == 100
    assert replay.unreadable == 1
    _assert_sent_as_upstream(replay, 100)


@pytest.mark.slow
def test_published_scores_of_all_24_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """All 24 published models, 2,400 tasks: every decidable score equal."""
    models = sorted(path.stem for path in PUBLISHED.glob("*.json"))
    assert len(models) == 24
    replay = _rejudge(models, tmp_path, monkeypatch)
    assert not replay.mismatches, replay.mismatches[:10]
    assert replay.same + replay.undecidable == 2400
    assert replay.unreadable == 3
    _assert_sent_as_upstream(replay, 2400)
