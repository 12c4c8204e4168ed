"""Two real judges (gpt-4o, gpt-4o-mini) on pfmt-bench-fin-ja, turned into preferences.

The published judgments grade the same answers 1–10. The command turns each judge's grades
into pairwise preferences and measures how the judges agree; this test recounts everything
from the raw files with its own few lines and checks Cohen's kappa with statsmodels.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app

needs("statsmodels")
from statsmodels.stats.inter_rater import (  # type: ignore[import-untyped]  # noqa: E402
    cohens_kappa as sm_cohens_kappa,
)

PFMT = SHARED_DATA / "pfmt-bench-fin-ja"
JUDGMENTS = PFMT / "model_judgment"


def _raw(folder: Path) -> dict[tuple[int, int, str], int]:
    scores = {}
    for path in folder.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            scores[(row["question_id"], row["turn"], row["model"])] = row["score"]
    return scores


def _independent_count() -> dict[str, Any]:
    big, mini = _raw(JUDGMENTS / "gpt-4o_single"), _raw(JUDGMENTS / "gpt-4o-mini_single")
    category = {
        json.loads(line)["question_id"]: json.loads(line)["category"]
        for line in (PFMT / "question.jsonl").read_text(encoding="utf-8").splitlines()
    }
    models = sorted({m for *_, m in big} & {m for *_, m in mini})
    joint = np.zeros((3, 3), dtype=int)
    per_category: Counter[tuple[str, bool]] = Counter()
    dropped = 0

    def sign(s: dict[tuple[int, int, str], int], key: tuple[int, int], x: str, y: str) -> int:
        a, b = s[(*key, x)], s[(*key, y)]
        return 0 if a > b else 1 if a < b else 2

    for key in {(q, t) for q, t, _ in big}:
        for x, y in combinations(models, 2):
            if -1 in (big[(*key, x)], big[(*key, y)], mini[(*key, x)], mini[(*key, y)]):
                dropped += 1
                continue
            a, b = sign(big, key, x, y), sign(mini, key, x, y)
            joint[a, b] += 1
            per_category[(category[key[0]], a == b)] += 1
    return {"models": models, "joint": joint, "per_category": per_category, "dropped": dropped}


@pytest.fixture(scope="module")
def command_output() -> dict[str, Any]:
    result = CliRunner().invoke(
        app,
        [
            "judge",
            "agreement",
            "--single",
            str(JUDGMENTS / "gpt-4o_single"),
            "--single",
            str(JUDGMENTS / "gpt-4o-mini_single"),
            "--json",
            "--resamples",
            "300",
        ],
    )
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def test_real_judges_agree_as_counted_independently(command_output: dict[str, Any]) -> None:
    out, expected = command_output, _independent_count()
    joint = expected["joint"]
    assert out["judges"] == ["gpt-4o", "gpt-4o-mini"]
    assert out["models"] == expected["models"] and len(out["models"]) == 9
    assert out["models_left_out"] == {"gpt-4o": ["gpt-4o"], "gpt-4o-mini": []}
    assert out["comparisons_left_out_for_failed_grades"] == expected["dropped"] > 0
    assert out["n_items"] == joint.sum() == 360 * 2 * 36 - expected["dropped"]
    matrix = out["confusion"]["matrices"]["gpt-4o-mini"]["gpt-4o"]
    assert [row[:3] for row in matrix] == joint.tolist()
    assert [row[3] for row in matrix] == [0, 0, 0]
    (pair,) = out["pairs"]
    kappa = sm_cohens_kappa(joint, return_results=False)
    assert pair["cohen_kappa"]["estimate"] == pytest.approx(kappa, abs=1e-12)
    share = np.trace(joint) / joint.sum()
    assert out["concordance"]["gpt-4o-mini"]["estimate"] == pytest.approx(share)
    assert pair["agreement"]["estimate"] == pytest.approx(share)
    ci = pair["cohen_kappa"]
    assert ci["low"] < ci["estimate"] < ci["high"]


def test_real_per_category_breakdown(command_output: dict[str, Any]) -> None:
    counts = _independent_count()["per_category"]
    categories = sorted({c for c, _ in counts})
    assert sorted(command_output["by_category"]) == categories and len(categories) == 12
    for name in categories:
        hits, misses = counts[(name, True)], counts[(name, False)]
        sub = command_output["by_category"][name]
        assert sub["n_items"] == hits + misses
        assert sub["concordance"]["gpt-4o-mini"]["estimate"] == pytest.approx(
            hits / (hits + misses)
        )


def test_broken_judgment_line_is_named(tmp_path: Path) -> None:
    for name in ("gpt-4o_single", "gpt-4o-mini_single"):
        (tmp_path / name).mkdir()
        shutil.copy(JUDGMENTS / name / "gpt-4.jsonl", tmp_path / name / "gpt-4.jsonl")
        shutil.copy(JUDGMENTS / name / "claude-2.1.jsonl", tmp_path / name / "claude-2.1.jsonl")
    broken = tmp_path / "gpt-4o-mini_single" / "gpt-4.jsonl"
    lines = broken.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[4])
    row["score"] = 11
    lines[4] = json.dumps(row, ensure_ascii=False)
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["judge", "agreement", "--single", str(tmp_path / "gpt-4o_single")]
    result = CliRunner().invoke(app, [*args, "--single", str(tmp_path / "gpt-4o-mini_single")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{broken}:5: score 11.0 outside 0..10" in "".join(result.stderr.splitlines())
    lines[4] = "{"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, [*args, "--single", str(tmp_path / "gpt-4o-mini_single")])
    assert f"{broken}:5: not valid JSON" in "".join(result.stderr.splitlines())
    # two real judges over two models: the command works on a small copy, too
    shutil.copy(JUDGMENTS / "gpt-4o-mini_single" / "gpt-4.jsonl", broken)
    result = CliRunner().invoke(app, [*args, "--single", str(tmp_path / "gpt-4o-mini_single")])
    assert result.exit_code == 0, result.output


def test_judgment_files_are_read_as_the_store_reads_logs(tmp_path: Path) -> None:
    """Not UTF-8: one line naming the file; an identical repeat (a concatenated or re-run
    file): dropped with a warning line; a different grade of the same turn: both lines named."""
    for name in ("gpt-4o_single", "gpt-4o-mini_single"):
        (tmp_path / name).mkdir()
        for model in ("gpt-4", "claude-2.1"):
            shutil.copy(JUDGMENTS / name / f"{model}.jsonl", tmp_path / name / f"{model}.jsonl")
    target = tmp_path / "gpt-4o-mini_single" / "gpt-4.jsonl"
    original = target.read_text(encoding="utf-8")
    args = ["judge", "agreement", "--json", "--resamples", "10"]
    args += ["--single", str(tmp_path / "gpt-4o_single")]
    args += ["--single", str(tmp_path / "gpt-4o-mini_single")]
    clean = CliRunner().invoke(app, args)
    assert clean.exit_code == 0, clean.output

    target.write_bytes(original.encode("utf-8") + b"\x80\n")
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.strip() == f"error: {target}: not UTF-8 text"

    first = original.splitlines()[0]
    target.write_text(original + first + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"warning: {target}: 1 identical duplicate line(s) dropped"
    assert json.loads(result.stdout) == json.loads(clean.stdout)

    row = json.loads(first)
    row["score"] = 10 if row["score"] != 10 else 1
    total = len(original.splitlines())
    target.write_text(original + json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    message = "".join(result.stderr.splitlines())
    assert f"{target}:{total + 1}: a second, different record" in message
    assert "(first at line 1)" in message


def test_a_single_grade_line_is_one_type_to_every_reader(tmp_path: Path) -> None:
    """``judge agreement``, ``judge meta`` and the leaderboard read a FastChat single-grading
    line as one type (``mtbench.SingleJudgmentLine``): a line naming its judge without the
    prompt, as no FastChat file does, is refused by all three in the same words (agreement
    and judge meta read their own looser line before, and took it)."""
    folder = tmp_path / "gpt-4o-mini_single"
    folder.mkdir()
    source = (JUDGMENTS / "gpt-4o-mini_single" / "gpt-4.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in source.splitlines()]
    rows[1]["judge"] = rows[1]["judge"][0]
    broken = folder / "gpt-4.jsonl"
    broken.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    why = f"error: {broken}:2: not a SingleGradingLine record (SingleJudgmentLine.judge: "
    runs = [
        ["judge", "agreement", "--single", str(folder), "--single",
         str(JUDGMENTS / "gpt-4o_single")],
        ["judge", "meta", "--single", str(folder), "--resamples", "20"],
        ["mtbench", "leaderboard", "--bench", "pfmt-fin", "--judgments", str(broken),
         "--data-dir", str(SHARED_DATA)],
    ]  # fmt: skip
    for args in runs:
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 1, (args, result.output)
        assert result.stderr.startswith(why), (args, result.stderr)
