"""Scatter plots of one method against another: a PNG (matplotlib) and an HTML (plotly).

matplotlib and plotly take a second or more to import, so they are imported inside the
functions that draw: commands that do not plot never pay for them. matplotlib is forced onto
its Agg backend (files only), so plotting works on servers without a display.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.store import write_output


@dataclass(frozen=True)
class ScatterPoint:
    x: float
    y: float
    label: str


@dataclass(frozen=True)
class ScatterSpec:
    """One panel: points, axis titles, a title (lines split by newlines), a y = x line."""

    points: Sequence[ScatterPoint]
    x_title: str
    y_title: str
    title: str = ""
    diagonal: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def write_scatter(spec: ScatterSpec, stem: Path) -> list[Path]:
    """``stem.png`` and ``stem.html``; returns the paths written."""
    return write_scatter_grid([spec], stem)


def write_scatter_grid(specs: Sequence[ScatterSpec], stem: Path, title: str = "") -> list[Path]:
    """Several panels side by side, in one PNG and one interactive HTML page."""
    if not specs:
        raise InputError("nothing to plot")
    folder = stem.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{folder}: cannot create plot folder: {exc.strerror}") from None
    png, html = stem.with_name(stem.name + ".png"), stem.with_name(stem.name + ".html")
    _write_png(specs, png, title)
    _write_html(specs, html, title)
    return [png, html]


def _grid(panels: int) -> tuple[int, int]:
    """Rows and columns: at most three panels side by side."""
    columns = min(panels, _MAX_COLUMNS)
    return -(-panels // columns), columns


_MAX_COLUMNS = 3


def _write_png(specs: Sequence[ScatterSpec], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, columns = _grid(len(specs))
    figure, axes = plt.subplots(rows, columns, figsize=(5 * columns, 5 * rows), squeeze=False)
    for axis in axes.ravel()[len(specs) :]:
        axis.set_visible(False)
    for axis, spec in zip(axes.ravel(), specs, strict=False):
        xs = [p.x for p in spec.points]
        ys = [p.y for p in spec.points]
        axis.scatter(xs, ys, s=18, alpha=0.8)
        if spec.diagonal and xs:
            low, high = min(*xs, *ys), max(*xs, *ys)
            axis.plot([low, high], [low, high], color="grey", linewidth=0.8, linestyle="--")
        axis.set_xlabel(spec.x_title)
        axis.set_ylabel(spec.y_title)
        axis.set_title(spec.title, fontsize=8)
        axis.grid(True, alpha=0.3)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    image = io.BytesIO()  # drawn in memory, written whole through the store
    try:
        figure.savefig(image, format="png", dpi=120)
    finally:
        plt.close(figure)
    write_output(path, image.getvalue(), flag="`plot`")


def _write_html(specs: Sequence[ScatterSpec], path: Path, title: str) -> None:
    import plotly.graph_objects as go  # type: ignore[import-untyped]
    from plotly.subplots import make_subplots  # type: ignore[import-untyped]

    rows, columns = _grid(len(specs))
    figure = make_subplots(
        rows=rows,
        cols=columns,
        subplot_titles=[s.title.replace("\n", "<br>") for s in specs],
        vertical_spacing=0.15,
    )
    for number, spec in enumerate(specs):
        row, column = number // columns + 1, number % columns + 1
        xs = [p.x for p in spec.points]
        ys = [p.y for p in spec.points]
        figure.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers",
                text=[p.label for p in spec.points],
                hovertemplate="%{text}<br>x=%{x:.4f}<br>y=%{y:.4f}<extra></extra>",
                showlegend=False,
            ),
            row=row,
            col=column,
        )
        if spec.diagonal and xs:
            low, high = min(*xs, *ys), max(*xs, *ys)
            figure.add_trace(
                go.Scatter(
                    x=[low, high],
                    y=[low, high],
                    mode="lines",
                    line={"dash": "dash", "color": "grey"},
                    showlegend=False,
                    hoverinfo="skip",
                ),
                row=row,
                col=column,
            )
        figure.update_xaxes(title_text=spec.x_title, row=row, col=column)
        figure.update_yaxes(title_text=spec.y_title, row=row, col=column)
    figure.update_layout(title_text=title, width=480 * columns, height=520 * rows)
    figure.update_annotations(font_size=11)
    # plotly.js inline: the page opens offline, as everything else here does
    html = figure.to_html(include_plotlyjs=True, full_html=True)
    write_output(path, html, flag="`plot`")
