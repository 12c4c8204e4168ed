"""Maintainer check: ``--variant shaberi-2025`` reproduces Shaberi's published 2025 ELYZA scores.

    python benchmarks/shaberi_replay.py --upstream CLONE [--data-dir DATA_DIR]

CLONE is any clone of shisa-ai/shaberi holding commit f8cd7a0 (bare or not: it is read with
``git show``); DATA_DIR holds ``elyza-tasks-100`` as ``hyoka data fetch`` lays it out (the
tasks; default ``$HYOKA_DATA_DIR``). Nothing of upstream is copied into the repository: the
script reads, at that commit, ``evaluation_datasets_config.py`` (checked against the SHA-256
the data manifest pins for the variant) and the gpt-5.1-2025-11-13 judgment files of
ELYZA-tasks-100 that keep the judge's reply (``judge_output``) on every row.

Each row is then judged twice. Upstream's own ``elyza_evaluator`` (its functions compiled
alone, the judge call replaced by the stored reply) gives the score its code reads from
that reply; hyoka's ``mtbench judge --variant shaberi-2025`` is run against a local server
that answers each prompt upstream's ``get_elyza_prompt`` builds with the stored reply, so
hyoka must send every prompt byte for byte as upstream built it and read every reply as
upstream read it. Upstream keeps the first reply only: where its code re-asked the judge
(``_fallback_score_from_analysis``), the re-ask's reply is not published, so the server
answers the re-ask prompt upstream's code builds with ``FINAL SCORE: <published score>``;
those rows are counted apart, and a re-ask hyoka sends where upstream did not gets no reply.
Where two models gave one answer to a task (one prompt) and the judge replied differently,
the row is undecidable: counted, not compared. The script prints the counts and exits
non-zero on any difference.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import importlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from hyoka.cli.main import app
from hyoka.data import manifest
from hyoka.data.paths import resolve_data_dir
from hyoka.judge.rating import SHABERI_2025, find_rating
from hyoka.mtbench import Bench
from hyoka.mtbench.judge import answer_fields

TESTS = Path(__file__).resolve().parents[1] / "tests"
COMMIT = "f8cd7a040397cf37b2cd23ef224cfc97095ef756"
JUDGE = "gpt-5.1-2025-11-13"
FOLDER = f"data/judgements/judge_{JUDGE}/elyza__ELYZA-tasks-100"
CONFIG = "evaluation_datasets_config.py"
VARIANT_FILE = "elyza-tasks-100/variants/shaberi-2025/evaluation_datasets_config.py"
#: upstream's functions the evaluator needs, compiled alone (nothing else of the file runs)
#: a judge reply without a score, to see the re-ask prompt upstream's code builds for a row
UNSCORED = "  講評のみ、{点}なし。\n"
FUNCTIONS = (
    "_shorten_for_log", "_extract_question_id", "_extract_answer_snippet", "_log_no_score",
    "_fallback_score_from_analysis", "get_elyza_prompt", "elyza_evaluator",
)  # fmt: skip


def git(upstream: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(upstream), *args], capture_output=True, check=True
    ).stdout


@dataclass
class Upstream:
    """What upstream's code does with one row and its stored reply."""

    prompt: str
    score: int | None
    #: the re-ask prompt it sent, ``None`` where the reply held a score
    reask: str | None
    #: the re-ask prompt it sends when the reply holds no score (``UNSCORED``)
    forced_reask: str


def evaluator(source: bytes) -> Callable[[dict[str, Any]], Upstream]:
    """Upstream's ``elyza_evaluator`` with the judge call answered from the row: the stored
    ``judge_output`` first, ``FINAL SCORE: <published score>`` to a re-ask."""
    tree = ast.parse(source.decode("utf-8"))
    chosen: list[ast.stmt] = [
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in FUNCTIONS
    ]
    assert len(chosen) == len(FUNCTIONS), "upstream's file lacks a function the evaluator needs"
    namespace: dict[str, Any] = {"re": re}
    exec(compile(ast.Module(chosen, []), CONFIG, "exec"), namespace)

    def run(row: dict[str, Any]) -> Upstream:
        sent: list[str] = []

        def get_model_response(messages: list[dict[str, str]], _model: str) -> str:
            (message,) = messages
            sent.append(message["content"])
            return first if len(sent) == 1 else f"FINAL SCORE: {row['score']}"

        namespace["get_model_response"] = get_model_response
        with contextlib.redirect_stdout(io.StringIO()):  # its "NO SCORE FOUND" log lines
            first = str(row["judge_output"])
            result = namespace["elyza_evaluator"](row, JUDGE)
            done = sent[:]
            sent.clear()
            first = UNSCORED
            namespace["elyza_evaluator"](row, JUDGE)
        return Upstream(done[0], result["score"], done[1] if len(done) > 1 else None, sent[1])

    return run


@dataclass
class Counts:
    rows: int = 0
    same: int = 0
    differ: list[str] = field(default_factory=list)
    upstream_differs_from_published: list[str] = field(default_factory=list)
    reasked_upstream: int = 0
    reasked_hyoka: int = 0
    prompts_as_upstream: int = 0
    reasks_as_upstream: int = 0
    unrecorded_requests: int = 0
    #: rows whose prompt another model's row shares with another stored reply
    undecidable: int = 0
    #: the rating form that read each stored reply (hyoka's reading)
    forms: Counter[str] = field(default_factory=Counter)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", type=Path, required=True, help="a clone of shisa-ai/shaberi")
    parser.add_argument("--data-dir", type=Path, default=None)
    args = parser.parse_args()
    data = resolve_data_dir(args.data_dir)
    source = git(args.upstream, "show", f"{COMMIT}:{CONFIG}")
    (pinned,) = [f for f in manifest("elyza-tasks-100").files if f.path == VARIANT_FILE]
    if hashlib.sha256(source).hexdigest() != pinned.sha256:
        print(f"error: {CONFIG} at {COMMIT[:7]} is not the file the manifest pins", file=sys.stderr)
        return 1
    build = evaluator(source)
    listing = git(args.upstream, "ls-tree", "--name-only", f"{COMMIT}:{FOLDER}").decode()
    files: dict[str, list[dict[str, Any]]] = {}
    for name in sorted(listing.split()):
        text = git(args.upstream, "show", f"{COMMIT}:{FOLDER}/{name}").decode("utf-8")
        rows = [json.loads(line) for line in text.split("\n") if line.strip()]
        if rows and all(isinstance(r.get("judge_output"), str) for r in rows):
            files[name.removesuffix(".json")] = rows
    print(f"{len(files)} judgment files with a stored reply on every row at {COMMIT[:7]}")

    sys.path.insert(0, str(TESTS))
    replay_server = importlib.import_module("replay_judge_server")

    counts = Counts()
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        folder = work / "data" / "elyza-tasks-100"
        (folder / "variants" / "shaberi-2025").mkdir(parents=True)
        for name in ("judgments", "LICENSE"):
            (folder / name).symlink_to(data / "elyza-tasks-100" / name)
        (folder / "variants" / "shaberi-2025" / CONFIG).write_bytes(source)
        tasks_file = folder / "judgments" / "gpt-4-turbo-preview" / "gpt-4-turbo-preview.json"
        tasks = [json.loads(line) for line in tasks_file.read_text("utf-8").split("\n") if line]
        ids = {row["Question"]: number for number, row in enumerate(tasks)}
        recording: dict[str, set[str]] = {}
        expected: dict[tuple[str, int], tuple[dict[str, Any], Upstream]] = {}
        (work / "answers").mkdir()
        for model, rows in files.items():
            lines = []
            for row in rows:
                task = ids[row["Question"]]
                if (model, task) in expected:
                    continue  # a repeated row: the first is the one judged
                done = build(row)
                expected[model, task] = (row, done)
                recording.setdefault(done.prompt, set()).add(row["judge_output"])
                if done.reask is not None:
                    recording.setdefault(done.reask, set()).add(f"FINAL SCORE: {row['score']}")
                choice = {"index": 0, "turns": [row["ModelAnswer"]]}
                lines.append({"question_id": task, "model_id": model, "choices": [choice]})
            text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
            (work / "answers" / f"{model}.jsonl").write_text(text, encoding="utf-8")
        os.environ["HYOKA_DATA_DIR"] = str(work / "data")
        os.environ["HYOKA_CACHE_DIR"] = str(work / "cache")
        output = work / "judgments"
        # a prompt two models share (the same answer) replied to differently: undecidable
        replies = {prompt: min(texts) for prompt, texts in recording.items()}
        with replay_server.ReplayJudge(replies, missing_reply="(no recording)") as judge:
            argv = ["mtbench", "judge", "--bench", "elyza-tasks-100", "--variant", "shaberi-2025"]
            argv += ["-j", f"openai/{JUDGE}", "--base-url", judge.base_url, "--no-cache"]
            argv += ["--concurrency", "16", "--output-dir", str(output)]
            for model in files:
                argv += ["-a", str(work / "answers" / f"{model}.jsonl")]
            result = CliRunner().invoke(app, argv)
        if result.exit_code != 0:
            print(result.output, file=sys.stderr)
            return 1
        reasks = {done.reask for _, done in expected.values() if done.reask is not None}
        counts.unrecorded_requests = sum(not r.recorded for r in judge.received)
        counts.reasked_hyoka = sum(r.user_prompt in reasks for r in judge.received)
        bench = Bench.load("elyza-tasks-100", work / "data", "shaberi-2025")
        for model in files:
            path = output / f"{model}.jsonl"
            ours = {
                line["question_id"]: line for line in map(json.loads, path.open(encoding="utf-8"))
            }
            for (name, task), (row, done) in expected.items():
                if name != model:
                    continue
                counts.rows += 1
                mine = ours[task]
                question = bench.by_id[task]
                reask = bench.reask(question, answer_fields(bench, [row["ModelAnswer"]]))
                assert reask is not None
                (message,) = reask.messages(UNSCORED)
                counts.reasks_as_upstream += message.content == done.forced_reask
                match = find_rating(row["judge_output"], SHABERI_2025)
                counts.forms[match.form if match is not None else "none (re-ask)"] += 1
                if len(recording[done.prompt]) > 1:
                    counts.undecidable += 1
                    counts.prompts_as_upstream += mine["user_prompt"] == done.prompt
                    continue
                counts.prompts_as_upstream += mine["user_prompt"] == done.prompt
                counts.reasked_upstream += done.reask is not None
                published = -1 if row["score"] is None else row["score"]
                if done.score != row["score"]:
                    counts.upstream_differs_from_published.append(
                        f"{model} task {task}: upstream's code {done.score!r}, published "
                        f"{row['score']!r}"
                    )
                if mine["score"] == published:
                    counts.same += 1
                else:
                    counts.differ.append(
                        f"{model} task {task}: hyoka {mine['score']!r}, published {published!r}"
                    )
    print(
        f"{counts.rows} rows of {len(files)} models: hyoka's score = the published score on "
        f"{counts.same} of {counts.rows - counts.undecidable} decidable rows "
        f"({len(counts.differ)} differ; {counts.undecidable} undecidable: two models gave the "
        f"same answer and the judge two replies); prompts byte for byte as upstream's "
        f"get_elyza_prompt builds them: {counts.prompts_as_upstream}; re-ask prompts (for a reply "
        f"without a score) as its _fallback_score_from_analysis builds them: "
        f"{counts.reasks_as_upstream}; upstream's code re-asked "
        f"{counts.reasked_upstream} rows (their re-ask replies are not published: answered "
        f"with the published score), hyoka re-asked {counts.reasked_hyoka} with the same "
        f"prompt; requests without a recording: {counts.unrecorded_requests}; upstream's "
        f"code on the stored reply != published score: "
        f"{len(counts.upstream_differs_from_published)}"
    )
    print(
        "stored replies by the form that read them: "
        + ", ".join(f"{form} {n}" for form, n in counts.forms.most_common())
    )
    for line in (counts.differ + counts.upstream_differs_from_published)[:20]:
        print(f"  {line}")
    ok = (
        not counts.differ
        and counts.prompts_as_upstream == counts.rows
        and counts.reasks_as_upstream == counts.rows
        and counts.reasked_hyoka == counts.reasked_upstream
        and not counts.unrecorded_requests
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
