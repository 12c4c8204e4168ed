"""Style-controlled Bradley–Terry says n/a where its fit has no maximum, never a runaway
number: where the style features split every whole win from every whole loss (a judge
that always prefers the longer answer), the controlled ratings and γ are n/a with the
reason under the table, the raw ratings still shown, and statsmodels' GLM on the same
design warns of perfect separation; bootstrap draws without a maximum are counted, and
the intervals they would corrupt are n/a; the draws found separated are exactly those an
exact linear program finds separated. A feature that only a few battles have, all won
(quasi-complete separation, GPT-4 on Japanese Vicuna QA), leaves its own γ n/a and the
ratings where the fit converges, which are statsmodels'."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import needs
from hyoka.cli.main import app
from hyoka.stats import Battles, StyleCounts, rate_with_style
from hyoka.stats.bootstrap import draw_weights, resample_indices
from hyoka.stats.logistic import fit_logistic, moved, separating_move
from hyoka.stats.style_control import _design, style_features
from test_style_control_commands import CONTRARY, LENGTHS, _pairwise_inputs, _vicuna_battles

needs("statsmodels")
needs("scipy")
import statsmodels.api as sm  # type: ignore[import-untyped]  # noqa: E402
from scipy.optimize import linprog  # type: ignore[import-untyped]  # noqa: E402
from statsmodels.tools.sm_exceptions import (  # type: ignore[import-untyped]  # noqa: E402
    PerfectSeparationWarning,
)


def _scripted(contrary: frozenset[int]) -> tuple[Battles, np.ndarray]:
    """The scripted judge's bs2 battles (the longer answer wins but on ``contrary``) and
    their design with the length feature, as the library builds it."""
    share = [1.0 if (a > b) != (q in contrary) else 0.0 for q, (a, b) in enumerate(LENGTHS)]
    battles = Battles.of(("x", "y", s) for s in share)
    first = [StyleCounts.of(f"{q}番の答え。" + "あ" * a) for q, (a, _) in enumerate(LENGTHS)]
    second = [StyleCounts.of(f"{q}番の答え。" + "い" * b) for q, (_, b) in enumerate(LENGTHS)]
    _, features = style_features(first, second, ("length",))
    return battles, _design(battles, features)


def test_a_judge_that_always_prefers_the_longer_answer_gets_na_not_a_runaway_rating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "250")
    x, y, script = _pairwise_inputs(tmp_path, frozenset())
    args = ["judge", "pairwise", str(x), str(y), "-j", f"scripted/{script}", "--method", "bs1"]
    args += ["--output", str(tmp_path / "pairs.jsonl"), "--control-features", "length"]
    shown = CliRunner().invoke(app, [*args, "--json"])
    assert shown.exit_code == 0, shown.output
    rated = json.loads(shown.stdout)["methods"]["bs1"]["bradley_terry"]
    controlled = rated["style_controlled"]
    assert controlled["separated"] is True
    assert all(r["rating"] is r["low"] is r["high"] is None for r in controlled["ratings"])
    assert controlled["style_coefficients"]["length"]["estimate"] is None
    assert [r["model"] for r in rated["raw"]] == ["x", "y"]
    assert rated["raw"][0]["rating"] > 1000  # the raw ratings are still shown
    table = CliRunner().invoke(app, args)
    assert table.exit_code == 0, table.output
    row = next(line for line in table.output.splitlines() if line.startswith("│ bs1    │ x"))
    why = (
        "no finite maximum (the style features, with the model terms, split every whole "
        "win from every whole loss)"
    )
    assert row.split("│")[4].strip() == f"n/a: {why}", row
    assert f"bs1: style-controlled ratings n/a: {why}" in table.output
    assert "bs1: style coefficients γ: length n/a" in table.output
    # statsmodels' binomial GLM on the same design: perfect separation
    battles, design = _scripted(frozenset())
    with pytest.warns(PerfectSeparationWarning):
        sm.GLM(battles.share, design, family=sm.families.Binomial()).fit()


def _separated_by_lp(design: np.ndarray, outcome: np.ndarray, weights: np.ndarray) -> bool:
    """An exact check: a direction v with every drawn whole win's x·v ≥ 0, every whole
    loss's ≤ 0 and some strict (the objective), within the box |v| ≤ 1."""
    sign = np.where(outcome == 1.0, 1.0, -1.0)
    rows = (design * sign[:, None])[weights > 0]
    result = linprog(
        -(rows * weights[weights > 0][:, None]).sum(axis=0),
        A_ub=-rows, b_ub=np.zeros(len(rows)),
        bounds=[(-1, 1)] * design.shape[1], method="highs",
    )  # fmt: skip
    return bool(-result.fun > 1e-9)


def test_the_draws_found_without_a_maximum_are_those_a_linear_program_finds() -> None:
    battles, design = _scripted(frozenset(CONTRARY))
    weights = draw_weights(resample_indices(12, 1000, np.random.default_rng(0)), 12)
    beta = fit_logistic(design, battles.share, weights)
    found = moved(separating_move(design, battles.share, weights, beta)).any(axis=1)
    exact = [_separated_by_lp(design, battles.share, w) for w in weights]
    assert found.tolist() == exact
    assert 100 < sum(exact) < 400  # the draws that leave out both contrary questions


def test_a_feature_that_splits_its_few_battles_leaves_only_its_own_coefficient_na() -> None:
    """GPT-4 on Japanese Vicuna QA: the few battles with a header or bold difference were
    all won by the answer with more, so γ headers and γ bold have no maximum; the ratings
    and γ length converge, and are statsmodels' (which stops with the two γ anywhere)."""
    battles = _vicuna_battles("bs2")
    found = rate_with_style(battles, rounds=200)
    gamma = found.controlled.coefficients
    assert math.isnan(gamma["headers"].estimate) and math.isnan(gamma["bold"].estimate)
    assert gamma["length"].low > 0 and math.isfinite(gamma["lists"].estimate)
    assert not found.controlled.separated and found.controlled.separated_draws == 0
    assert found.controlled.unbounded_coefficients == {"headers": -1, "bold": -1}
    assert found.controlled.separation_lines()[0].startswith("γ headers, bold n/a")
    plain = Battles.of((b.first, b.second, b.share) for b in battles)
    _, features = style_features(
        [b.first_style for b in battles], [b.second_style for b in battles],
        ("length", "markdown"),
    )  # fmt: skip
    design = _design(plain, features)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        glm = sm.GLM(plain.share, design, family=sm.families.Binomial()).fit()
    m = len(plain.models)
    strengths = np.concatenate([[0.0], glm.params[: m - 1]]) * 400 / math.log(10)
    elo = strengths - strengths.mean() + 1000
    by_model = found.controlled.ratings.by_model()
    for model, rating in zip(plain.models, elo, strict=True):
        assert by_model[model].rating == pytest.approx(rating, abs=0.05)
    assert glm.params[m - 1] == pytest.approx(gamma["length"].estimate, abs=1e-3)


def test_judge_pairwise_says_na_for_raw_ratings_where_a_model_never_loses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judge that picks X on every question, in both orders: X never loses, so the raw
    Bradley–Terry likelihood has no maximum. The table, the lines under it and the JSON
    say n/a with that reason (null in JSON), never the rating the iterations reached;
    under prob (X's share 0.825, a fraction) the fit has its maximum and is shown."""
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "250")
    x_shorter = frozenset(q for q, (a, b) in enumerate(LENGTHS) if a < b)
    x, y, script = _pairwise_inputs(tmp_path, x_shorter)
    args = ["judge", "pairwise", str(x), str(y), "-j", f"scripted/{script}", "--method", "all"]
    args += ["--output", str(tmp_path / "pairs.jsonl"), "--control-features", "length"]
    shown = CliRunner().invoke(app, [*args, "--json"])
    assert shown.exit_code == 0, shown.output
    methods = json.loads(shown.stdout)["methods"]
    why = "no finite maximum (x never loses)"
    for method in ("bs1", "bs2"):
        rated = methods[method]["bradley_terry"]
        assert rated["raw"] == [
            {"model": m, "rating": None, "low": None, "high": None, "games": 12,
             "no_maximum": why}
            for m in ("x", "y")
        ]  # fmt: skip
        assert rated["raw_separation"] == [f"ratings n/a: {why}"]
        assert rated["style_controlled"]["separation"][0] == f"style-controlled ratings n/a: {why}"
    prob = methods["prob"]["bradley_terry"]
    assert prob["raw"][0]["model"] == "x" and prob["raw"][0]["rating"] > 1000
    assert "no_maximum" not in prob["raw"][0] and prob["raw_separation"] == []
    table = CliRunner().invoke(app, args)
    assert table.exit_code == 0, table.output
    for method in ("bs1", "bs2"):
        for model in ("x", "y"):
            row = next(
                line for line in table.output.splitlines()
                if line.startswith(f"│ {method}    │ {model}")
            )  # fmt: skip
            cells = [cell.strip() for cell in row.split("│")[1:-1]]
            assert cells[2:4] == [f"n/a: {why}"] * 2, row
        assert f"{method}: raw: ratings n/a: {why}" in table.output
        assert f"{method}: style coefficients γ: length n/a: {why}" in table.output
    assert "2044" not in table.output and "nan" not in table.output
