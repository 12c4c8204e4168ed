"""The reference-set stability page (``hyoka.report.stability_data`` gives its numbers): per
experiment, a table of named rank correlations and one scatter per pair of variants, each
point a run, on equal axes with the line y = x, the user's runs in red, and the signature
line of how the scores were produced."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hyoka.pfgen import ENSEMBLE
from hyoka.report.html import Cell, cell, esc, page, table
from hyoka.report.stability_data import Stability, pair_correlation
from hyoka.report.svg import Point, scatter_chart
from hyoka.stats import Interval

PATH = "pfgen/stability.html"
#: Decimals shown: the correlations are all near 1, as the papers found, and the CLI's
#: table shows as many.
DIGITS = 5


def axis_title(variant: str) -> str:
    if variant == ENSEMBLE:
        return "score with every reference set (ensemble)"
    return f"score with set {variant} alone"


def _interval(value: Interval) -> str:
    return f'<span class="ci">[{value.low:.{DIGITS}f}, {value.high:.{DIGITS}f}]</span>'


def _section(number: int, data: Stability, mine: set[Path], seed: int) -> str:
    correlations = [pair_correlation(data, a, b, seed) for a, b in data.pairs]
    rows: list[list[Cell | str]] = [
        [
            axis_title(c.first),
            axis_title(c.second),
            cell(str(c.n), c.n),
            cell(f"{c.spearman.estimate:.{DIGITS}f}", c.spearman.estimate, classes="spearman"),
            cell(_interval(c.spearman), c.spearman.low),
            cell(f"{c.kendall:.{DIGITS}f}", c.kendall, classes="kendall"),
            cell(f"{c.pearson.estimate:.{DIGITS}f}", c.pearson.estimate, classes="pearson"),
            cell(_interval(c.pearson), c.pearson.low),
        ]
        for c in correlations
    ]
    headers: list[str | tuple[str, str]] = [
        "x axis", "y axis", ("Runs", "points in the plot"),
        ("Spearman ρ", "rank correlation of the two scores across runs"),
        ("95% CI", "bootstrap over runs"),
        ("Kendall τ-b", "rank correlation: concordant minus discordant pairs of runs"),
        ("Pearson r", "linear correlation"), ("95% CI", "bootstrap over runs"),
    ]  # fmt: skip
    figures = []
    for c in correlations:
        points = [
            Point(
                r.scores[c.first],
                r.scores[c.second],
                r.label,
                r.folder is not None and r.folder.resolve() in mine,
            )
            for r in data.runs
        ]
        chart = scatter_chart(
            points, x_title=axis_title(c.first), y_title=axis_title(c.second), diagonal=True
        )
        caption = (
            f"x: {esc(axis_title(c.first))}; y: {esc(axis_title(c.second))}. Spearman ρ = "
            f"{c.spearman.estimate:.{DIGITS}f}, Kendall τ-b = {c.kendall:.{DIGITS}f} over "
            f"{c.n} runs; dashed: y = x."
        )
        figures.append(
            f'<figure class="scatter stability" data-x="{esc(c.first)}" data-y="{esc(c.second)}">'
            f"{chart}<figcaption>{caption}</figcaption></figure>"
        )
    alone = ", ".join(f"{k}: {n}" for k, n in data.questions.items())
    scope = (
        "only the questions that have every compared set are scored, the ensemble included"
        if data.common_only
        else "a question without the set keeps its own sets, so every variant scores the "
        "whole benchmark"
    )
    checked = (
        f" The ensemble score equals the published score (result.json) for "
        f"{data.matches_published} of the {data.published} runs that have one."
        if data.matches_published is not None and data.published and not data.common_only
        else ""
    )
    signature = (
        f"signature: <code>{esc(data.signature.line)}</code>"
        if data.signature is not None
        else "no signature: the file does not record which benchmark data it was scored with"
    )
    return (
        f'<section class="stability-set" id="stability-{number}">'
        f"<h2>Sets {esc(', '.join(data.sets))} over {len(data.runs)} runs</h2>"
        f"<p>Source: {esc(data.source)}. Each point is one run. Questions scored with the "
        f"set alone: {esc(alone or 'not recorded')}; {scope}.{checked}</p>"
        f'<p class="sig">{signature}</p>'
        + table(
            headers,
            rows,
            sortable=False,
            table_id=f"stability-{number}-correlations",
            classes="axes",
        )
        + f'<div class="grid">{"".join(figures)}</div></section>'
    )


def stability_page(experiments: Sequence[Stability], mine: set[Path], seed: int) -> str:
    """The page: one section per experiment (a table of correlations and its scatters);
    the runs the user named are drawn in red."""
    intro = (
        "<p>Does a run's pfgen-bench score depend on which model wrote the reference answers? "
        "As in the pfgen-bench papers (§5.1, Figure 3), every run is scored with the "
        "ensemble of all reference sets of each question (the published score) and with "
        "each single set alone (in the published data P = PLaMo-100b, S = Stockmark-100b, "
        "T = Swallow-MX-8x7b), using every answer of the run and the exact scorer. Points "
        "near the dashed line y = x and rank correlations near 1 mean the ranking does not "
        "depend on the set. Made by <code>hyoka pfgen stability --json</code> (a file given "
        "to the report) or <code>hyoka report --stability</code>; correlations are computed "
        "from the points drawn. Your runs are red; hover a point for its run and scores.</p>"
    )
    sections = "".join(
        _section(number, data, mine, seed) for number, data in enumerate(experiments, 1)
    )
    footer = "".join(
        f"<p><code>{esc(d.signature.line)}</code></p>" for d in experiments if d.signature
    )
    return page("pfgen-bench: reference-set stability", intro + sections, path=PATH, footer=footer)
