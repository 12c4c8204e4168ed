"""The task radar of the paper's Figure 1: one polygon per model over the twelve categories.

A PNG (matplotlib, headless) for reports and an interactive HTML page (plotly, models can
be hidden by clicking the legend) for exploring; both libraries are imported only here, so
the rest of hyoka starts without them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.mtbench.leaderboard import Leaderboard, display_name, round_half_up
from hyoka.store import write_output

SUFFIXES = (".png", ".html")


def _series(board: Leaderboard) -> tuple[list[str], list[tuple[str, list[float]]]]:
    categories = list(board.bench.spec.categories)
    labels = [board.bench.spec.column(c) for c in categories]
    series = []
    for model in board.ranked():
        means = model.means()
        values = [
            float(round_half_up(m)) if (m := means[c]) is not None else 0.0 for c in categories
        ]
        series.append((display_name(model.model, board.bench), values))
    return labels, series


def write_radar(board: Leaderboard, path: Path, *, title: str = "") -> None:
    """Write the chart to ``path``; its suffix (``.png`` or ``.html``) picks the kind."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(f"`radar`: {path} must end in .png or .html")
    path.parent.mkdir(parents=True, exist_ok=True)
    labels, series = _series(board)
    top = board.bench.spec.scale[1]  # the benchmark's own scale (ELYZA-tasks-100's is 1-5)
    if suffix == ".png":
        write_output(path, _png(labels, series, title, top), flag="`radar`")
    else:
        write_output(path, _html(labels, series, title, top), flag="`radar`")


def _png(labels: list[str], series: list[tuple[str, list[float]]], title: str, top: int) -> bytes:
    import io
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    angles = [2 * math.pi * i / len(labels) for i in range(len(labels))]
    figure = plt.figure(figsize=(8, 8))
    try:
        axes: Any = figure.add_subplot(projection="polar")
        axes.set_theta_offset(math.pi / 2)
        axes.set_theta_direction(-1)
        for name, values in series:
            axes.plot([*angles, angles[0]], [*values, values[0]], linewidth=1.5, label=name)
        axes.set_xticks(angles)
        axes.set_xticklabels(labels)
        axes.set_ylim(0, top)
        if title:
            axes.set_title(title)
        axes.legend(loc="upper right", bbox_to_anchor=(1.35, 1.1), fontsize="small")
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", bbox_inches="tight", dpi=120)
        return buffer.getvalue()
    finally:
        plt.close(figure)


def _html(labels: list[str], series: list[tuple[str, list[float]]], title: str, top: int) -> str:
    import plotly.graph_objects as go  # type: ignore[import-untyped]

    figure = go.Figure()
    for name, values in series:
        figure.add_trace(
            go.Scatterpolar(
                r=[*values, values[0]], theta=[*labels, labels[0]], name=name, mode="lines"
            )
        )
    figure.update_layout(
        title=title or None, polar={"radialaxis": {"range": [0, top]}}, showlegend=True
    )
    html: str = figure.to_html(include_plotlyjs=True, full_html=True)
    return html
