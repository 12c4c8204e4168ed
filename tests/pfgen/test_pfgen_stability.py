"""``hyoka pfgen stability``: the papers' reference-set stability experiment (§5.1, Fig. 3).

Real runs, real reference sets, the exact scorer. Two independent checks: the ensemble
variant must reproduce each run's published score exactly, and each single-set score must
agree with an estimate built only from the run's published result.json (its per-question,
per-set Fluency/Truthfulness shares and Helpfulness) up to the published rounding.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, needs
from hyoka.cli.main import app
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.refset_stability import (
    ENSEMBLE,
    StabilityReport,
    refset_stability,
    stability_of,
)

ALL_RUNS = sorted(p.parent for p in PFGEN_RESULTS.rglob("trials.jsonl.xz"))
SUBSET = ALL_RUNS[::10]


def _estimate(result: dict[str, Any], only: str | None) -> float:
    """Score with set ``only`` alone, from published per-question means (K·share_k)."""
    total = 0.0
    for question in result["questions"].values():
        scores = question["scores"]
        sets = list(scores["fluency"])
        if only is None or only not in sets:
            value = sum(scores["fluency"].values()) + sum(scores["truthfulness"].values())
        else:
            k = len(sets)
            value = k * scores["fluency"][only] + k * scores["truthfulness"][only]
        total += (value + scores["helpfulness"]) / 3
    return total / len(result["questions"])


@pytest.fixture(scope="module")
def report(benchmark: PfgenBenchmark) -> StabilityReport:
    return refset_stability(
        [run / "trials.jsonl.xz" for run in SUBSET], benchmark, resamples=300, workers=1
    )


def test_ensemble_reproduces_published_scores(report: StabilityReport) -> None:
    assert [r.folder for r in report.runs] == SUBSET
    for run in report.runs:
        assert run.published is not None
        assert run.scores[ENSEMBLE] == run.published, run.label
    assert report.ensemble_matches_published == len(SUBSET)
    # P exists for 47 questions, S for 39, T for 38 in the published data
    assert report.questions == {"P": 47, "S": 39, "T": 38}


def test_single_set_scores_match_the_published_breakdown(report: StabilityReport) -> None:
    for run in report.runs:
        result = json.loads((run.folder / "result.json").read_text(encoding="utf-8"))
        assert _estimate(result, None) == pytest.approx(run.published, abs=2e-4)
        for name in ("P", "S", "T"):
            assert run.scores[name] == pytest.approx(_estimate(result, name), abs=2e-4), name
        assert len({run.scores[n] for n in ("P", "S", "T")}) > 1  # the sets do differ


def test_correlations_of_the_subset(report: StabilityReport) -> None:
    pairs = {("ensemble", "P"), ("ensemble", "S"), ("ensemble", "T")}
    pairs |= {("P", "S"), ("P", "T"), ("S", "T")}
    assert set(report.correlations) == pairs
    for correlation in report.correlations.values():
        assert correlation.n == len(SUBSET)
        assert correlation.pearson.estimate > 0.99


def _copy_runs(target: Path) -> None:
    for run in SUBSET:
        folder = target / run.relative_to(PFGEN_RESULTS)
        folder.mkdir(parents=True)
        for name in ("trials.jsonl.xz", "result.json", "config.json"):
            shutil.copy(run / name, folder / name)


def test_command_json_and_plot(tmp_path: Path, hyoka_env: None) -> None:
    needs("matplotlib")
    needs("plotly")
    _copy_runs(tmp_path / "runs")
    plot = tmp_path / "stability"
    result = CliRunner().invoke(
        app,
        ["pfgen", "stability", str(tmp_path / "runs"), "--sets", "P,S", "--common-only",
         "--plot", str(plot), "--json", "--resamples", "100", "--workers", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["sets"] == ["P", "S"] and out["common_only"] is True
    # questions holding both P and S: 37 with P/S/T plus 2 with P/S only
    assert out["questions_scored_with_set_alone"] == {"P": 39, "S": 39}
    assert [(c["first"], c["second"]) for c in out["correlations"]] == [
        ("ensemble", "P"),
        ("ensemble", "S"),
        ("P", "S"),
    ]
    assert len(out["runs"]) == len(SUBSET)
    assert plot.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    found, _ = stability_of(tmp_path / "runs", sets=["P", "S"], common_only=True,
                            resamples=100, workers=1)  # fmt: skip
    assert {**found.to_json(), "plots": out["plots"]} == out  # the library call is the command
    assert "plotly" in plot.with_suffix(".html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("sets", "needle"), [("P,X", "--sets needs two or more"), ("P", "--sets needs two or more")]
)
def test_bad_sets(tmp_path: Path, hyoka_env: None, sets: str, needle: str) -> None:
    _copy_runs(tmp_path)
    result = CliRunner().invoke(app, ["pfgen", "stability", str(tmp_path), "--sets", sets])
    assert result.exit_code == 1 and needle in result.stderr, result.output


@pytest.mark.slow
def test_all_49_runs_as_in_the_papers(benchmark: PfgenBenchmark) -> None:
    """The papers report correlations above 0.999 between single-set and ensemble scores."""
    full = refset_stability(ALL_RUNS, benchmark, resamples=200)
    assert full.ensemble_matches_published == 49
    for (first, second), correlation in full.correlations.items():
        assert correlation.pearson.estimate > 0.999, (first, second)
