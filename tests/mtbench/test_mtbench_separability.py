"""The separability line under a single-grading leaderboard: arena-hard's share of model
pairs told apart, from the very draws the rows' 95% intervals are read from."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from _shared import SHARED_DATA
from hyoka.mtbench import (
    Bench,
    IntervalSettings,
    build_leaderboard,
    display_name,
    judgment_files,
    render,
)
from hyoka.stats import ScoreDraws, separability

PUBLISHED = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_single"
SETTINGS = IntervalSettings(resamples=300, seed=7)


@pytest.fixture(scope="module")
def bench() -> Bench:
    return Bench.load("pfmt-fin", SHARED_DATA)


def _draws_read_here(path: Path, settings: IntervalSettings) -> np.ndarray:
    """One model's bootstrap draws rebuilt from its judgment file alone: each question's
    value is the mean of its rated turns (one trial: the inner level draws that one value),
    then the questions drawn with replacement, one seeded generator for both levels."""
    turns: dict[int, list[float]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["score"] != -1:
            turns[record["question_id"]].append(float(record["score"]))
    values = [np.array([np.mean(scores)]) for _q, scores in sorted(turns.items())]
    rng = np.random.default_rng(settings.seed)
    count = settings.resamples
    inner = np.stack(
        [v[rng.integers(0, len(v), size=(count, len(v)))].mean(axis=1) for v in values], axis=1
    )
    picks = rng.integers(0, len(values), size=(count, len(values)))
    draws: np.ndarray = np.take_along_axis(inner, picks, axis=1).mean(axis=1)
    return draws


def test_the_line_is_stats_separability_of_the_rows_own_draws(bench: Bench) -> None:
    board = build_leaderboard(bench, judgment_files([PUBLISHED]))
    rows = json.loads(render(board, "json", interval=SETTINGS))
    files = {}
    for path in PUBLISHED.iterdir():
        model = json.loads(path.open(encoding="utf-8").readline())["model"]
        files[display_name(model, bench)] = path  # the name its row shows
    columns = [_draws_read_here(files[row["model"]], SETTINGS) for row in rows]
    # the draws rebuilt here are the rows' own: their percentiles are each row's interval
    for row, draws in zip(rows, columns, strict=True):
        low, high = np.quantile(draws, [0.025, 0.975])
        assert (row["interval"]["low"], row["interval"]["high"]) == (low, high)
    ranking = ScoreDraws(
        tuple(row["model"] for row in rows),
        np.array([row["overall"] for row in rows]),
        np.stack(columns, axis=1),
    )
    expected = separability(ranking, 0.95)
    assert 0 < expected < 1  # nine models: some pairs told apart, some not
    (shared,) = {json.dumps(row["separability"]) for row in rows}  # the table's, in every row
    assert json.loads(shared) == {
        "value": expected,
        "pairs": 36,
        "confidence": 0.95,
        "resamples": 300,
        "seed": 7,
        "method": "two-level-bootstrap/0.95/resamples-300/seed-7",
    }
    line = (
        f"separability: {round(expected * 100)}% of the 36 model pairs are told apart at 95% "
        "(intervals that do not overlap)"
    )
    markdown = render(board, "md", interval=SETTINGS)
    assert markdown.count(line) == 1
    # the signature names the draws' settings
    assert "|interval:two-level-bootstrap/0.95/resamples-300/seed-7" in markdown
    assert f"# {line}\n" in render(board, "csv", interval=SETTINGS)


def test_one_model_has_nothing_to_separate_and_incomplete_rows_do_not_count(
    bench: Bench, tmp_path: Path
) -> None:
    folder = tmp_path / "judgments"
    folder.mkdir()
    shutil.copy(PUBLISHED / "gpt-4.jsonl", folder / "gpt-4.jsonl")
    alone = build_leaderboard(bench, judgment_files([folder]))
    assert "separability" not in render(alone, "md", interval=SETTINGS)
    assert "separability" not in render(alone, "csv", interval=SETTINGS)
    assert json.loads(render(alone, "json", interval=SETTINGS))[0]["separability"] is None
    # a second model judged on half its turns is no pair either: still no line
    lines = (PUBLISHED / "claude-2.1.jsonl").read_text(encoding="utf-8").splitlines()
    (folder / "claude-2.1.jsonl").write_text("\n".join(lines[:360]) + "\n", encoding="utf-8")
    board = build_leaderboard(bench, judgment_files([folder]))
    assert len(board.incomplete()) == 1
    assert "separability" not in render(board, "md", interval=SETTINGS)
    assert {row["separability"] for row in json.loads(render(board, "json"))} == {None}
