"""Charts drawn as inline SVG: an interval plot and a radar, a few kilobytes each.

A plotting library would embed megabytes of script per chart; these are plain elements
with ``<title>`` tooltips, readable offline and printable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from hyoka.report.html import esc

PALETTE = (
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939",
)  # fmt: skip


@dataclass(frozen=True)
class IntervalRow:
    label: str
    estimate: float
    low: float
    high: float
    highlight: bool = False


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    span = high - low
    if span <= 0:
        return [low]
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = min((m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw), default=raw)
    first = math.ceil(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def interval_chart(
    rows: Sequence[IntervalRow], *, digits: int = 3, width: int = 720, zero: bool = False
) -> str:
    """One row per item: a dot at the estimate and a bar over its interval; ``zero`` draws
    the line of no difference (and keeps it in view)."""
    if not rows:
        return ""
    label_w = min(300, 40 + 7 * max(len(r.label) for r in rows))
    row_h, top = 18, 24
    plot_w = width - label_w - 20
    values = [v for r in rows for v in (r.low, r.high, r.estimate) if math.isfinite(v)]
    if zero:
        values.append(0.0)
    low, high = min(values), max(values)
    pad = (high - low) * 0.05 or 0.01
    low, high = low - pad, high + pad
    height = top + row_h * len(rows) + 10

    def x(value: float) -> float:
        return label_w + (value - low) / (high - low) * plot_w

    parts = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img">'
    ]
    for tick in _ticks(low, high):
        tx = x(tick)
        parts.append(
            f'<line x1="{tx:.1f}" y1="{top - 4}" x2="{tx:.1f}" y2="{height - 8}" '
            'stroke="#e3e6ea"/>'
            f'<text x="{tx:.1f}" y="{top - 8}" font-size="10" text-anchor="middle" '
            f'fill="#5d6675">{tick:g}</text>'
        )
    if zero:
        parts.append(
            f'<line x1="{x(0.0):.1f}" y1="{top - 4}" x2="{x(0.0):.1f}" y2="{height - 8}" '
            'stroke="#5d6675" stroke-dasharray="3 3"/>'
        )
    for i, row in enumerate(rows):
        y = top + row_h * i + row_h / 2
        colour = "#b3261e" if row.highlight else "#1f5fbf"
        weight = "700" if row.highlight else "400"
        label = row.label if len(row.label) <= 44 else row.label[:43] + "…"
        bounds = ", ".join(
            f"{v:.{digits}f}" if math.isfinite(v) else "n/a" for v in (row.low, row.high)
        )
        tip = f"{row.label}: {row.estimate:.{digits}f} [{bounds}]"
        parts.append(
            f"<g><title>{esc(tip)}</title>"
            f'<text x="{label_w - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end" '
            f'font-weight="{weight}">{esc(label)}</text>'
        )
        if math.isfinite(row.low) and math.isfinite(row.high):
            parts.append(
                f'<line x1="{x(row.low):.1f}" y1="{y:.1f}" x2="{x(row.high):.1f}" '
                f'y2="{y:.1f}" stroke="{colour}" stroke-width="2" opacity="0.6"/>'
            )
        parts.append(f'<circle cx="{x(row.estimate):.1f}" cy="{y:.1f}" r="4" fill="{colour}"/></g>')
    parts.append("</svg>")
    return "".join(parts)


def radar_chart(
    axes: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    *,
    maximum: float = 10.0,
    size: int = 520,
) -> str:
    """One closed polygon per series over ``axes`` (0 at the centre, ``maximum`` outside),
    with a legend; a missing value is drawn at 0."""
    if not axes or not series:
        return ""
    legend_w = 260
    cx, cy, radius = size / 2, size / 2, size / 2 - 60
    count = len(axes)

    def point(index: int, value: float) -> tuple[float, float]:
        angle = -math.pi / 2 + 2 * math.pi * index / count
        r = radius * max(0.0, min(value, maximum)) / maximum
        return cx + r * math.cos(angle), cy + r * math.sin(angle)

    parts = [
        f'<svg class="chart radar" xmlns="http://www.w3.org/2000/svg" width="{size + legend_w}" '
        f'height="{size}" viewBox="0 0 {size + legend_w} {size}" role="img">'
    ]
    for level in range(2, int(maximum) + 1, 2):
        ring = " ".join(f"{px:.1f},{py:.1f}" for px, py in (point(i, level) for i in range(count)))
        parts.append(f'<polygon points="{ring}" fill="none" stroke="#e3e6ea"/>')
    for i, name in enumerate(axes):
        ex, ey = point(i, maximum)
        lx, ly = point(i, maximum * 1.12)
        anchor = "middle" if abs(lx - cx) < 5 else ("start" if lx > cx else "end")
        parts.append(
            f'<line x1="{cx}" y1="{cy}" x2="{ex:.1f}" y2="{ey:.1f}" stroke="#e3e6ea"/>'
            f'<text x="{lx:.1f}" y="{ly + 4:.1f}" font-size="12" text-anchor="{anchor}">'
            f"{esc(name)}</text>"
        )
    for n, (name, values) in enumerate(series):
        colour = PALETTE[n % len(PALETTE)]
        shown = [0.0 if v is None else v for v in values]
        poly = " ".join(
            f"{px:.1f},{py:.1f}" for px, py in (point(i, v) for i, v in enumerate(shown))
        )
        tip = (
            name
            + ": "
            + ", ".join(
                f"{a} {'–' if v is None else f'{v:.2f}'}" for a, v in zip(axes, values, strict=True)
            )
        )
        parts.append(
            f'<g class="series"><title>{esc(tip)}</title><polygon points="{poly}" '
            f'fill="{colour}" fill-opacity="0.06" stroke="{colour}" stroke-width="1.6"/></g>'
        )
        ly = 20 + n * 18
        parts.append(
            f'<rect x="{size + 10}" y="{ly - 9}" width="12" height="12" fill="{colour}"/>'
            f'<text x="{size + 28}" y="{ly + 1}" font-size="11">{esc(name[:36])}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str
    highlight: bool = False


def scatter_chart(
    points: Sequence[Point],
    *,
    x_title: str,
    y_title: str,
    size: int = 460,
    diagonal: bool = False,
) -> str:
    """Points with their labels as tooltips, axes with ticks, titled.

    ``diagonal`` draws the line y = x and gives both axes the same range, so that a point's
    distance from the line reads as the same difference wherever it lies: the view for two
    measurements of one quantity (a score under two reference sets)."""
    if not points:
        return ""
    left, pad = 56, 14
    plot = size - left - pad
    xs = [p.x for p in points]
    ys = [p.y for p in points]

    def bounds(values: list[float]) -> tuple[float, float]:
        low, high = min(values), max(values)
        margin = (high - low) * 0.08 or 0.05
        return low - margin, high + margin

    if diagonal:
        x_low, x_high = y_low, y_high = bounds(xs + ys)
    else:
        x_low, x_high = bounds(xs)
        y_low, y_high = bounds(ys)

    def sx(value: float) -> float:
        return left + (value - x_low) / (x_high - x_low) * plot

    def sy(value: float) -> float:
        return pad + (y_high - value) / (y_high - y_low) * plot

    parts = [
        f'<svg class="chart scatter" xmlns="http://www.w3.org/2000/svg" width="{size}" '
        f'height="{size}" viewBox="0 0 {size} {size}" role="img">',
        f'<rect x="{left}" y="{pad}" width="{plot}" height="{plot}" fill="none" stroke="#d9dde4"/>',
    ]
    for tick in _ticks(x_low, x_high):
        parts.append(
            f'<text x="{sx(tick):.1f}" y="{pad + plot + 14}" font-size="10" '
            f'text-anchor="middle" fill="#5d6675">{tick:g}</text>'
        )
    for tick in _ticks(y_low, y_high):
        parts.append(
            f'<text x="{left - 4}" y="{sy(tick) + 3:.1f}" font-size="10" text-anchor="end" '
            f'fill="#5d6675">{tick:g}</text>'
        )
    parts.append(
        f'<text x="{left + plot / 2}" y="{size - 8}" font-size="12" text-anchor="middle">'
        f"{esc(x_title)}</text>"
        f'<text x="14" y="{pad + plot / 2}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 14 {pad + plot / 2})">{esc(y_title)}</text>'
    )
    if diagonal:
        parts.append(
            f'<line class="diagonal" x1="{sx(x_low):.1f}" y1="{sy(x_low):.1f}" '
            f'x2="{sx(x_high):.1f}" y2="{sy(x_high):.1f}" stroke="#8a93a3" '
            'stroke-dasharray="4 3"><title>y = x</title></line>'
        )
    for p in points:
        colour = "#b3261e" if p.highlight else "#1f5fbf"
        parts.append(
            f"<g><title>{esc(p.label)}: {p.x:.4f}, {p.y:.4f}</title>"
            f'<circle cx="{sx(p.x):.1f}" cy="{sy(p.y):.1f}" r="5" fill="{colour}" '
            'fill-opacity="0.8"/></g>'
        )
    parts.append("</svg>")
    return "".join(parts)
