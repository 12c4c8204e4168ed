"""ELYZA-tasks-100 end to end: generate, judge, leaderboard, and its rules as upstream's.

The embedded model answers three tasks; a scripted judge (``scripted/PATH``) grades them
by rules keyed on each task's text, so the leaderboard's numbers follow from the script
alone. The replies exercise Shaberi v1's reading, Python's ``int(reply)``: ``5`` is 5,
`` ３\\n`` (spaces and a full-width digit, which ``int`` reads) is 3, ``4点`` is no rating.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import ELYZA_PROMPT_FIXTURE, SHARED_DATA, elyza_data
from hyoka.cli.main import app
from hyoka.data import manifest as data_manifest
from hyoka.errors import DataError
from hyoka.judge.rating import ELYZA_V1, find_rating
from hyoka.mtbench import Bench, generate_bench
from hyoka.mtbench.shaberi import SHABERI_FIELDS, fstring_template
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.store import read_manifest


@pytest.mark.parametrize(
    "reply",
    ["5", " 4\n", "３", "+2", "1_0", "-1", "0", "5点", "4.0", "", "評価: 5", "5 5", "٣"],
)
def test_elyza_v1_reads_a_reply_as_pythons_int_does(reply: str) -> None:
    try:
        expected: int | None = int(reply)
    except ValueError:
        expected = None
    match = find_rating(reply, ELYZA_V1)
    assert (None if match is None else match.written) == expected


def test_the_judge_prompt_is_read_from_upstreams_function_without_running_it(
    tmp_path: Path,
) -> None:
    source = b'x = 1\ndef get_p(row):\n    q = row["Question"]\n    return f"""Q {{}} {q}\n"""\n'
    path = tmp_path / "config.py"
    assert fstring_template(path, source, "get_p", SHABERI_FIELDS) == "Q {{}} {question}\n"
    called = b'def get_p(row):\n    return f"{len(row)}"\n'
    with pytest.raises(DataError, match=r"config\.py:2: get_p\(\) formats something other"):
        fstring_template(path, called, "get_p", SHABERI_FIELDS)
    with pytest.raises(DataError, match=r"config\.py: no single function get_p\(\)"):
        fstring_template(path, b"def other(): pass\n", "get_p", SHABERI_FIELDS)


def test_elyza_end_to_end_on_smollm2_and_a_scripted_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = elyza_data(tmp_path / "data")
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    bench = Bench.load("elyza-tasks-100", data)
    assert len(bench.questions) == 100 and bench.spec.turns == 1
    runner = CliRunner()
    answers = tmp_path / "smollm2.jsonl"
    args = ["mtbench", "generate", "--bench", "elyza-tasks-100", "-m", EMBEDDED_MODEL]
    args += ["--limit", "3", "--max-tokens", "16", "--name", "smollm2", "--output", str(answers)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert [r["question_id"] for r in records] == [0, 1, 2]
    assert all(len(r["choices"][0]["turns"]) == 1 for r in records)
    again = runner.invoke(app, [*args, "--json"])  # resumed: what the run did, as JSON
    assert again.exit_code == 0, again.output
    shown = json.loads(again.stdout)
    assert (shown["generated"], shown["done_before"], shown["requests"]) == (0, 3, 0)
    assert shown["answer_file"] == str(answers) and shown["signature"]["line"]
    done = generate_bench(EMBEDDED_MODEL, bench="elyza-tasks-100", limit=3, max_tokens=16,
                          name="smollm2", output=answers)  # fmt: skip
    assert done.to_json() == shown  # the library call is the command

    script = tmp_path / "judge.jsonl"
    rules = [
        {"contains": bench.questions[0].turns[0], "reply": "5"},
        {"contains": bench.questions[1].turns[0], "reply": " ３\n"},
        {"contains": bench.questions[2].turns[0], "reply": "4点"},
    ]
    script.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules))
    judged = tmp_path / "judgments"
    args = ["mtbench", "judge", "--bench", "elyza-tasks-100", "-j", f"scripted/{script}"]
    args += ["--judge-name", "scripted", "-a", str(answers), "--limit", "3"]
    args += ["--output-dir", str(judged)]
    verdict = runner.invoke(app, args)
    assert verdict.exit_code == 0, verdict.output
    assert "rating:elyza-v1" in verdict.stdout and "elyza-tasks-100" in verdict.stdout
    out = judged / "smollm2.jsonl"
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["question_id"], r["turn"], r["judge"], r["score"]) for r in lines] == [
        (0, 1, ["scripted", "elyza-v1"], 5),
        (1, 1, ["scripted", "elyza-v1"], 3),
        (2, 1, ["scripted", "elyza-v1"], -1),
    ]
    again = runner.invoke(app, [*args, "--json"])  # what the run did, as JSON (resumed)
    assert again.exit_code == 0, again.output
    shown = json.loads(again.stdout)
    assert (shown["mode"], shown["judged"], shown["done_before"]) == ("single", 0, 3)
    assert shown["outputs"] == [{"answers": str(answers), "output": str(out)}]
    assert shown["signature"]["line"] in verdict.stdout and shown["dry_run"] is True
    # the prompt carries the task's own grading criteria and its reference answer
    assert bench.questions[0].eval_aspect and bench.questions[0].reference
    assert bench.questions[0].eval_aspect in lines[0]["user_prompt"]
    assert bench.questions[0].reference[0] in lines[0]["user_prompt"]
    # every setting that changes the numbers is in the judgment manifest
    manifest = read_manifest(out)
    assert manifest is not None
    signature = json.dumps(manifest.signature)
    for setting in ("elyza-tasks-100", "elyza-v1", bench.data_sha256[:8]):
        assert setting in signature
    # a prompt file other than upstream's is signed by its own hash, never as upstream's
    own = hashlib.sha256(ELYZA_PROMPT_FIXTURE.read_bytes()).hexdigest()
    (pinned,) = [
        f.sha256
        for f in data_manifest("elyza-tasks-100").files
        if f.path == "elyza-tasks-100/evaluation_datasets_config.py"
    ]
    assert f"elyza-tasks-100-judge-prompts@{own[:8]}" in signature
    assert own != pinned and pinned[:8] not in signature

    board = runner.invoke(
        app,
        ["mtbench", "leaderboard", "--bench", "elyza-tasks-100", "--judgments", str(judged),
         "--format", "json"],
    )  # fmt: skip
    assert board.exit_code == 0, board.output
    (row,) = json.loads(board.stdout)
    assert row["model"] == "smollm2"
    assert row["overall"] == 4.0 and row["categories"] == {"tasks": 4.0}
    assert (row["judged_turns"], row["unrated_turns"], row["complete"]) == (3, 1, False)
    assert "turn2" not in row


def test_pairwise_is_refused_in_one_line_where_the_benchmark_has_no_pair_prompt(
    tmp_path: Path,
) -> None:
    """ELYZA-tasks-100 grades single only: ``--mode pairwise`` is one line naming why (it
    was a KeyError traceback from filling a single prompt as a pair one)."""
    data = elyza_data(tmp_path / "data")
    files = []
    for model in ("a", "b"):
        path = tmp_path / f"{model}.jsonl"
        lines = [
            {"question_id": i, "model_id": model, "choices": [{"index": 0, "turns": ["答え"]}]}
            for i in range(100)
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        files += ["-a", str(path)]
    result = CliRunner().invoke(
        app,
        ["mtbench", "judge", "--bench", "elyza-tasks-100", "--mode", "pairwise",
         "-j", "scripted/none.jsonl", "--data-dir", str(data), *files,
         "--output-dir", str(tmp_path / "o")],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "has no pairwise judge prompt" in result.output
    assert "Traceback" not in result.output


def test_answers_are_generated_without_the_judge_prompt_file(tmp_path: Path) -> None:
    """Answering reads the tasks only: a data directory holding ELYZA-tasks-100's tasks but
    not Shaberi's ``evaluation_datasets_config.py`` (the judge prompt, fetched only for
    judging) generates; judging it then names the missing file."""
    shared = SHARED_DATA / "elyza-tasks-100"
    folder = tmp_path / "data" / "elyza-tasks-100"
    folder.mkdir(parents=True)
    (folder / "judgments").symlink_to(shared / "judgments")  # the tasks: a judged file
    script = tmp_path / "model.jsonl"
    script.write_text('{"reply": "答え"}\n', encoding="utf-8")
    answers = tmp_path / "answers.jsonl"
    args = ["mtbench", "generate", "--bench", "elyza-tasks-100", "-m", f"scripted/{script}"]
    args += ["--limit", "2", "--no-cache", "--data-dir", str(tmp_path / "data")]
    result = CliRunner().invoke(app, [*args, "--name", "m", "--output", str(answers)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert [(r["question_id"], r["choices"][0]["turns"]) for r in lines] == [
        (0, ["答え"]),
        (1, ["答え"]),
    ]
    judge = ["mtbench", "judge", "--bench", "elyza-tasks-100", "-j", f"scripted/{script}"]
    judge += ["-a", str(answers), "--limit", "2", "--data-dir", str(tmp_path / "data")]
    refused = CliRunner().invoke(app, [*judge, "--output-dir", str(tmp_path / "judged")])
    assert refused.exit_code == 1
    assert f"{folder / 'evaluation_datasets_config.py'} not found" in refused.output
