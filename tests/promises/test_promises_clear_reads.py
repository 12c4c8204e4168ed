"""Promise: an input file that is odd but readable is read, and one that is not is refused
in one line naming the file, the line and why, never with a traceback.

Each check runs a real ``hyoka`` command on published data (``../shared/data``) changed in
the one way it is about: a byte-order mark before a judgment file's first line, an
expression nested too deeply for Python's parser in the judge prompt's Python file, a
Rakuda verdict out of range.
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, elyza_data
from hyoka.cli.main import app

PUBLISHED = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_single"


def _hyoka(*args: str) -> Result:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
        return CliRunner().invoke(app, list(args))


def _leaderboard(path: Path) -> Result:
    return _hyoka("mtbench", "leaderboard", "--judgments", str(path), "--format", "csv")


def test_a_judgment_file_that_starts_with_a_byte_order_mark_is_read_as_without(
    tmp_path: Path,
) -> None:
    """A UTF-8 BOM (as Windows editors write) at the start of a JSON Lines file is read
    past: the leaderboard is the published file's, digit for digit."""
    published = PUBLISHED / "gpt-4.jsonl"
    marked = tmp_path / "gpt-4.jsonl"
    marked.write_bytes(codecs.BOM_UTF8 + published.read_bytes())
    plain, read = _leaderboard(published), _leaderboard(marked)
    assert plain.exit_code == 0, plain.output
    assert read.exit_code == 0, read.output
    assert read.stdout == plain.stdout
    assert "both,gpt-4,8.37," in read.stdout  # the paper's Table 1


def test_a_byte_order_mark_inside_a_file_is_named_with_its_line(tmp_path: Path) -> None:
    """Two files joined: the second's mark stands at the start of a line, where no
    parser reads it as white space; the error says what it is."""
    lines = (PUBLISHED / "gpt-4.jsonl").read_bytes().splitlines(keepends=True)
    joined = tmp_path / "gpt-4.jsonl"
    joined.write_bytes(b"".join(lines[:3]) + codecs.BOM_UTF8 + b"".join(lines[3:]))
    result = _leaderboard(joined)
    assert result.exit_code == 1
    assert f"{joined}:4: starts with a byte-order mark (U+FEFF)" in result.stderr
    assert "Traceback" not in result.output


def test_label_files_written_by_excel_read_as_without_the_mark(tmp_path: Path) -> None:
    """Excel's "CSV UTF-8" starts with a BOM: the first header is still ``item``, in a CSV
    table as in a JSON Lines file; ``judge agreement`` says the same of both."""
    human = "item,rater,label\n" + "".join(
        f"i{i},{rater},{label}\n"
        for rater, labels in (("r1", "AABCA"), ("r2", "ABBCA"))
        for i, label in enumerate(labels)
    )
    auto = "".join(
        json.dumps({"item": f"i{i}", "verdict": v}) + "\n" for i, v in enumerate("AABCB")
    )
    outputs = []
    for mark in (b"", codecs.BOM_UTF8):
        folder = tmp_path / ("marked" if mark else "plain")
        folder.mkdir()
        (folder / "human.csv").write_bytes(mark + human.encode())
        (folder / "auto.jsonl").write_bytes(mark + auto.encode())
        result = _hyoka(
            "judge", "agreement", "--human", str(folder / "human.csv"),
            "--auto", str(folder / "auto.jsonl"), "--json", "--resamples", "50",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        outputs.append(json.loads(result.stdout))
    assert outputs[1] == outputs[0]


@pytest.mark.parametrize("nested", ["a" + "[0]" * 5000, "-" * 10000 + "1"])
def test_a_judge_prompt_file_nested_too_deeply_is_one_line_naming_it(
    tmp_path: Path, nested: str
) -> None:
    """Shaberi's judge prompt is read from a Python file with ``ast``, never run; an
    expression nested past what CPython's parser takes (it raises ``RecursionError``, or
    ``MemoryError`` for its own stack) is a data error naming the file."""
    data = elyza_data(tmp_path / "data")
    prompt = data / "elyza-tasks-100" / "evaluation_datasets_config.py"
    prompt.write_text(prompt.read_text(encoding="utf-8") + f"\nx = {nested}\n", "utf-8")
    answers = tmp_path / "answers.jsonl"
    answers.write_text("{}\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HYOKA_DATA_DIR", str(data))
        result = CliRunner().invoke(
            app,
            ["mtbench", "judge", "--bench", "elyza-tasks-100", "-j", "scripted/none.jsonl",
             "-a", str(answers)],
        )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert result.stderr == f"error: {prompt}: not readable Python (nested too deeply to parse)\n"


def test_a_rakuda_verdict_out_of_range_is_named_with_its_line(tmp_path: Path) -> None:
    judgments = tmp_path / "gpt-4_pair.jsonl"
    verdicts = [1, 3, 4, 2]
    questions = (SHARED_DATA / "rakuda" / "questions.jsonl").read_text("utf-8").splitlines()
    judgments.write_text(
        "".join(
            json.dumps({"question_id": json.loads(question)["question_id"], "model1_id": "a",
                        "model2_id": "b", "winner": winner, "judge": ["gpt-4", "pair-ja"]})
            + "\n"
            for question, winner in zip(questions, verdicts, strict=False)
        ),
        encoding="utf-8",
    )  # fmt: skip
    result = _hyoka("mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(judgments))
    assert result.exit_code == 1, result.output
    assert result.stderr == f"error: {judgments}:3: winner 4 is not 1, 2, 3 or error\n"


def test_toml_files_that_start_with_a_byte_order_mark_are_read_as_without(
    tmp_path: Path,
) -> None:
    """A UTF-8 BOM at the start of a TOML file (a judge template, a rule file, a settings
    file) is read past as in the JSON readers: ``tomllib`` alone calls it an invalid
    statement."""
    from importlib import resources

    from wire_servers import OpenAIServer

    def marked(text: str, name: str) -> Path:
        path = tmp_path / name
        path.write_bytes(codecs.BOM_UTF8 + text.encode("utf-8"))
        return path

    packaged = resources.files("hyoka") / "judge" / "templates" / "single-ref.toml"
    template = marked(packaged.read_text("utf-8"), "mine.toml")
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        json.dumps({"id": "q1", "question": "1+1は？", "answer": "2です。", "reference": "2"})
        + "\n",
        "utf-8",
    )
    with OpenAIServer() as server:
        server.reply_to_all = "正しい。Rating: [[9]]"
        judged = _hyoka("judge", "single", str(answers), "-j", "openai/judge", "--base-url",
                        server.base_url, "--no-cache", "-t", str(template), "--json")  # fmt: skip
    assert judged.exit_code == 0, judged.output
    assert json.loads(judged.stdout)["mean"] == 9

    work = tmp_path / "work"
    data = SHARED_DATA / "pfgen-bench" / "data"
    assert _hyoka("refset", "import", str(data), str(work), "-q", "Q01").exit_code == 0
    rules = marked('[[rewrite]]\nquestion = "Q01"\nname = "times"\npattern = "回"\n'
                   'replace = "度"\n', "rules.toml")  # fmt: skip
    normalised = _hyoka("refset", "normalise", str(work), "-q", "Q01", "--rules", str(rules))
    assert normalised.exit_code == 0, normalised.output
    audit = (work / "02-normalised" / "audit.jsonl").read_text("utf-8").splitlines()
    assert json.loads(audit[0])["reason"] == "rewrite:times"

    example = resources.files("hyoka") / "examples" / "refset" / "generate-example.toml"
    settings = marked(example.read_text("utf-8"), "gen.toml")
    planned = _hyoka("refset", "plan", str(settings), "--no-calibration", "--workers", "3",
                     "--utilisation", "0.5", "--data-dir", str(SHARED_DATA))  # fmt: skip
    assert planned.exit_code == 0, planned.output
    assert "14,599" in planned.output  # as the file without the mark plans it
