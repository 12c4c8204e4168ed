"""``hyoka pfgen correlate`` on the 49 published pfgen runs.

No judge scores of these runs exist here, so the real numbers correlated are the runs' own
published component metrics (result.json): the overall score against Helpfulness and
against Fluency, through a plain table (the judge-free path). The result-folder path is
exercised with summary files in the layout ``hyoka pfgen judge`` writes, whose ``mean`` is
the run's published Truthfulness and whose judge is named ``metric/truthfulness`` so it
cannot pass for a judge; expected values come from scipy on the same numbers.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, needs
from hyoka.cli.main import app
from hyoka.pfgen import correlate_scores

needs("scipy")
import scipy.stats  # type: ignore[import-untyped]  # noqa: E402

RUNS = sorted(p.parent for p in PFGEN_RESULTS.rglob("result.json"))


def _published(folder: Path) -> dict[str, Any]:
    result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    scores = result["scores"]
    return {
        "model": str(folder.relative_to(PFGEN_RESULTS)),
        "score": result["score"],
        "fluency": sum(scores["fluency"].values()),
        "truthfulness": sum(scores["truthfulness"].values()),
        "helpfulness": scores["helpfulness"],
    }


def _correlate(*args: str) -> Any:
    return CliRunner().invoke(app, ["pfgen", "correlate", *args])


@pytest.mark.parametrize("other", ["helpfulness", "fluency"])
def test_table_of_published_metrics(tmp_path: Path, other: str) -> None:
    rows = [_published(run) for run in RUNS]
    table = tmp_path / "scores.csv"
    with table.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "pfgen_score", "judge_score"])
        writer.writerows([r["model"], r["score"], r[other]] for r in rows)
    needs("matplotlib")
    needs("plotly")
    plot = tmp_path / "plots" / "scatter"
    result = _correlate("--table", str(table), "--plot", str(plot), "--json", "--resamples", "500")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    x, y = [r["score"] for r in rows], [r[other] for r in rows]
    assert out["n"] == len(RUNS) == 49
    assert out["pearson"]["estimate"] == pytest.approx(scipy.stats.pearsonr(x, y).statistic)
    assert out["spearman"]["estimate"] == pytest.approx(scipy.stats.spearmanr(x, y).statistic)
    for name in ("pearson", "spearman"):
        assert out[name]["low"] <= out[name]["estimate"] <= out[name]["high"]
    png, html = Path(out["plots"][0]), Path(out["plots"][1])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = html.read_text(encoding="utf-8")
    assert "plotly" in page and rows[0]["model"].rsplit("/", 1)[-1] in page  # hover labels


def test_result_folders_with_judge_summaries(tmp_path: Path) -> None:
    picked = RUNS[::6]
    for run in picked:
        target = tmp_path / run.relative_to(PFGEN_RESULTS)
        target.mkdir(parents=True)
        shutil.copy(run / "result.json", target / "result.json")
        summary = target / "judge" / "metric_truthfulness" / "summary.json"
        summary.parent.mkdir(parents=True)
        mean = _published(run)["truthfulness"]
        summary.write_text(json.dumps({"judge": "metric/truthfulness", "mean": mean, "n": 50}))
    (tmp_path / "extra" / "x" / "abc1234").mkdir(parents=True)  # a run with no summary
    shutil.copy(RUNS[1] / "result.json", tmp_path / "extra" / "x" / "abc1234" / "result.json")
    result = _correlate(str(tmp_path), "--json", "--resamples", "200")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["judge"] == "metric/truthfulness"
    assert out["n"] == len(picked)
    # labelled by the model config.json names, not by the folders it was copied into
    extra_model = json.loads((RUNS[1] / "config.json").read_text(encoding="utf-8"))["model"]
    assert [r.split(" ")[0] for r in out["runs_without_judge"]] == [extra_model]
    x = [_published(r)["score"] for r in picked]
    y = [_published(r)["truthfulness"] for r in picked]
    assert out["pearson"]["estimate"] == pytest.approx(scipy.stats.pearsonr(x, y).statistic)
    found = correlate_scores(tmp_path, resamples=200)  # the library call is the command
    assert {**found.to_json(), "plots": []} == out
    assert _correlate(str(tmp_path), "--judge", "metric/truthfulness").exit_code == 0
    unknown = _correlate(str(tmp_path), "--judge", "openai/gpt-4o")
    assert unknown.exit_code == 1 and "no judge summaries by 'openai/gpt-4o'" in unknown.stderr


def test_runs_never_judged_say_so_and_how_to_judge_them(tmp_path: Path) -> None:
    """Runs with no judge summary at all: nothing was judged yet, which naming a judge
    cannot mend; the error says so and names the command that judges a run."""
    for run in RUNS[:2]:
        target = tmp_path / run.relative_to(PFGEN_RESULTS)
        target.mkdir(parents=True)
        shutil.copy(run / "result.json", target / "result.json")
    for args in ([], ["--judge", "openai/gpt-4o"]):
        error = _error(_correlate(str(tmp_path), *args))
        assert error == (
            f"error: {tmp_path}: none of its 2 run(s) has been judged yet (no judge/*/"
            "summary.json beside a result.json): judge them first with `hyoka pfgen judge "
            "RUN -j PROVIDER/MODEL`, or give --table\n"
        )


def _error(result: Any) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return str(result.stderr)


def test_bad_input(tmp_path: Path) -> None:
    assert "exactly one" in _error(_correlate())
    table = tmp_path / "t.csv"
    table.write_text("model,pfgen_score,judge_score\na,0.5,7\nb,0.6,x\n", encoding="utf-8")
    assert "t.csv:3: judge_score: 'x' is not a number" in _error(_correlate("--table", str(table)))
    table.write_text("model,pfgen_score\na,0.5\n", encoding="utf-8")
    assert "t.csv:2: missing judge_score" in _error(_correlate("--table", str(table)))
    table.write_text("model,pfgen_score,judge_score\na,0.5,7\na,0.6,8\nc,1,2\n", encoding="utf-8")
    assert "t.csv:3: model 'a' also at" in _error(_correlate("--table", str(table)))
    table.write_text("model,pfgen_score,judge_score\na,0.5,7\nb,0.6,8\n", encoding="utf-8")
    assert "at least 3 pairs" in _error(_correlate("--table", str(table)))
    assert "no result.json" in _error(_correlate(str(tmp_path)))


@pytest.mark.parametrize("scale", [1e307, 1e-300])
def test_scores_near_the_ends_of_the_float_range_correlate_as_ordinary_ones(
    tmp_path: Path, scale: float
) -> None:
    """Pearson's r does not change when one side is multiplied by a positive number:
    judge scores near 1e308 (whose sums overflow) or 1e-300 (whose squares vanish)
    give scipy's r of the same scores at ordinary size, not a wrong number (0.0 before)."""
    pfgen = [0.41, 0.55, 0.38, 0.62, 0.47, 0.59]
    judge = [3.1, 7.9, 2.5, 6.2, 4.4, 9.0]
    table = tmp_path / "scores.csv"
    rows = [f"m{i},{p},{j * scale!r}" for i, (p, j) in enumerate(zip(pfgen, judge, strict=True))]
    table.write_text("model,pfgen_score,judge_score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    result = _correlate("--table", str(table), "--json", "--resamples", "200")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["pearson"]["estimate"] == pytest.approx(scipy.stats.pearsonr(pfgen, judge)[0])
    assert shown["spearman"]["estimate"] == pytest.approx(scipy.stats.spearmanr(pfgen, judge)[0])
    low, high = shown["pearson"]["low"], shown["pearson"]["high"]
    assert -1.0 <= low <= shown["pearson"]["estimate"] <= high <= 1.0
