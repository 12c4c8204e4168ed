"""Re-judging ELYZA-tasks-100's published answers with a judge that replays gpt-4-turbo-preview.

Lightblue's Shaberi (v1) published gpt-4-turbo-preview judgments of 24 models
(``elyza-tasks-100/judgments/gpt-4-turbo-preview``: each row the task, the model's answer
and the score). The judge's replies are not kept, only the scores ``int(reply)`` gave (and
``None`` where ``int`` failed). So the replaying server is keyed by the prompt the data
directory's own ``evaluation_datasets_config.py`` builds for each row with its
``get_elyza_prompt`` (that one pure function compiled alone, nothing else of the file
run), and answers with the published score as the judge's whole reply (an unreadable
reply where upstream recorded ``None``). hyoka must then send every prompt byte for byte
as that function builds it, as one user message at temperature 0 with 1024 tokens, and
record the published score for every row; a prompt built differently gets no reply that
holds a score.

The tests run it with hyoka's stand-in prompt file (``tests/fixtures/elyza-prompt``): the
reader's exactness and the scoring. ``benchmarks/elyza_upstream_prompt.py`` runs it with
upstream's own file, fetched by ``hyoka data fetch elyza-tasks-100``.

Some prompts are undecidable: two models gave the same answer to a task and upstream's
judge scored the one prompt differently; they are counted, not compared.
"""

from __future__ import annotations

import ast
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from hyoka.cli.main import app
from replay_judge_server import ReplayedRequest, ReplayJudge

#: the judge's reply where upstream recorded ``None`` (``int()`` could not read it)
UNREADABLE = "採点できません"


def published_judgments(data: Path) -> Path:
    """The folder of the 24 published gpt-4-turbo-preview judgment files."""
    return data / "elyza-tasks-100" / "judgments" / "gpt-4-turbo-preview"


def prompt_builder(source: Path) -> Any:
    """The file's ``get_elyza_prompt``, compiled alone (nothing else of the file is run)."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    (function,) = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "get_elyza_prompt"
    ]
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module([function], []), str(source), "exec"), namespace)
    return namespace["get_elyza_prompt"]


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _task_ids(published: Path) -> dict[str, int]:
    """Task text -> id (its row, from 0), as hyoka numbers the tasks."""
    tasks = rows(published / "gpt-4-turbo-preview.json")
    return {row["Question"]: number for number, row in enumerate(tasks)}


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


def rejudge(models: list[str], data: Path, work: Path) -> Replay:
    """Re-judge ``models``' published answers with ``hyoka mtbench judge`` against a server
    keyed by the prompts the data directory's own prompt file builds (``HYOKA_DATA_DIR``
    must name ``data``; ``work`` is an empty folder for the answers and judgments)."""
    build = prompt_builder(data / "elyza-tasks-100" / "evaluation_datasets_config.py")
    published_dir = published_judgments(data)
    ids = _task_ids(published_dir)
    recording: dict[str, list[str]] = defaultdict(list)
    published: dict[str, dict[int, tuple[str, float | None]]] = {}
    for path in sorted(published_dir.glob("*.json")):
        for row in rows(path):
            recording[build(row)].append(_reply(row["score"]))
    answers = work / "answers"
    answers.mkdir()
    for model in models:
        by_task: dict[int, tuple[str, float | None]] = {}
        lines = []
        for row in rows(published_dir / f"{model}.json"):
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
    output = work / "judgments"
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
        ours = {line["question_id"]: line for line in rows(output / f"{model}.jsonl")}
        assert sorted(ours) == list(range(100))
        for task, (prompt, score) in published[model].items():
            mine = ours[task]
            assert mine["user_prompt"] == prompt  # byte for byte as the prompt file builds it
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


def assert_sent_as_upstream(replay: Replay, tasks: int) -> None:
    """One request per task, one user message, no system message, temperature 0, 1024 tokens."""
    assert len(replay.requests) == tasks
    assert all(r.recorded for r in replay.requests)
    assert {(r.system_prompt, r.temperature, r.max_tokens) for r in replay.requests} == {
        (None, 0.0, 1024)
    }
    assert {len(r.body["messages"]) for r in replay.requests} == {1}
