"""The ELYZA-tasks-100 leaderboard of Shaberi's 24 published gpt-4-turbo-preview judgment files.

Expected values are recomputed here from the raw rows with the standard library alone, as
Shaberi's results notebook computes them (``results_vizualization.ipynb``: each file read
with pandas, ``score.mean()`` per model): every row counts, Qwen1.5-72B-Chat's repeated
first task too, and a ``null`` score (upstream's ``int(reply)`` failed) is left out.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from _shared import ELYZA_PUBLISHED as PUBLISHED
from _shared import SHARED_DATA, shaberi_raw_means
from hyoka.cli.main import app
from hyoka.errors import HyokaWarning
from hyoka.mtbench import BenchBoard, bench_leaderboard


def _leaderboard(*args: str) -> Result:
    return CliRunner().invoke(app, ["mtbench", "leaderboard", "--bench", "elyza-tasks-100", *args])


def test_shaberi_files_give_shaberis_mean_per_model_with_unrated_and_repeats_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    expected = shaberi_raw_means()
    assert len(expected) == 24
    result = _leaderboard("--format", "json")  # the published files are the default
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert {row["model"] for row in rows} == set(expected)
    for row in rows:
        mean, nulls, repeated = expected[row["model"]]
        assert row["overall"] == float(mean) and row["categories"] == {"tasks": float(mean)}
        assert (row["unrated_turns"], row["repeated_rows"]) == (nulls, repeated)
        assert (row["judged_turns"], row["complete"]) == (100, True)
        fields = row["signature"]["fields"]
        assert (fields["kind"], fields["bench"]) == ("shaberi-single", "elyza-tasks-100")
        assert fields["judge"] == "gpt-4-turbo-preview" and row["signature_differs"] == []
    assert [row["overall"] for row in rows] == sorted((r["overall"] for r in rows), reverse=True)
    # the real figures: 3 unparsable replies, one repeated row, best and worst as published
    assert sum(n for _, n, _ in expected.values()) == 3
    assert expected["Qwen/Qwen1.5-72B-Chat"] == (Fraction(384, 101), 0, 1)
    assert (rows[0]["model"], rows[-1]["model"]) == ("gpt-4-turbo-preview", "augmxnt/shisa-7b-v1")
    assert (rows[0]["overall"], rows[-1]["overall"]) == (4.47, 1.86)
    # the table says how it was produced and marks each row that is not like the others
    md = _leaderboard()
    assert md.exit_code == 0, md.output
    text = md.stdout
    assert re.search(
        r"\| Qwen/Qwen1\.5-72B-Chat \(1 repeated\) \| 3\.80 \| \[[\d.]+, [\d.]+\] \| 3\.80 \|", text
    )
    assert re.search(
        r"\| lightblue/ao-karasu-72B \(1 unrated\) \| 3\.60 \| \[[\d.]+, [\d.]+\] \| 3\.60 \|", text
    )
    assert "signature: hyoka:" in text and "kind:shaberi-single" in text
    assert "Shaberi's mean score" in text
    assert "1 turn(s) judged again in its file" in md.stderr
    # --json prints what --format json does, and the library call hands back the same
    as_json = _leaderboard("--json")
    assert as_json.exit_code == 0 and as_json.stdout == result.stdout
    with pytest.warns(HyokaWarning, match="1 turn\\(s\\) judged again in its file"):
        board = bench_leaderboard("elyza-tasks-100", fmt="json")
    assert isinstance(board, BenchBoard) and board.to_json() == rows
    table = bench_leaderboard("elyza-tasks-100")  # a table has the same JSON
    assert isinstance(table, BenchBoard) and table.text == md.stdout and table.to_json() == rows


def test_a_shaberi_file_in_upstreams_layout_and_bad_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    source = PUBLISHED / "gpt-3.5-turbo-0125.json"
    folder = tmp_path / "judge_gpt-4-turbo-preview" / "elyza__ELYZA-tasks-100"
    folder.mkdir(parents=True)
    good = folder / source.name
    good.symlink_to(source)
    result = _leaderboard("--judgments", str(folder), "--format", "json")
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    assert row["signature"]["fields"]["judge"] == "gpt-4-turbo-preview"
    assert row["overall"] == float(shaberi_raw_means()["gpt-3.5-turbo-0125"][0])

    lines = source.read_text(encoding="utf-8").splitlines()
    other = json.loads(lines[3]) | {"Question": "これはELYZA-tasks-100の問題ではない"}
    bad = tmp_path / "other-task.json"
    bad.write_text("\n".join([*lines[:3], json.dumps(other, ensure_ascii=False)]) + "\n")
    result = _leaderboard("--judgments", str(bad))
    assert result.exit_code == 1
    assert f"{bad}:4: the Question is not one of ELYZA-tasks-100's tasks" in result.stderr
    wrong = tmp_path / "bad-score.json"
    row0 = json.loads(lines[0]) | {"score": "five"}
    wrong.write_text(json.dumps(row0, ensure_ascii=False) + "\n", encoding="utf-8")
    result = _leaderboard("--judgments", str(wrong))
    assert result.exit_code == 1
    assert f"{wrong}:1: not a ShaberiJudgment record" in result.stderr
