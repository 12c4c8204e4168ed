"""The "judges" page: ``hyoka judge meta``'s table as HTML (``metaeval.judge_meta``'s numbers,
shown, never recomputed), one row per judge and template, with a scatter of each judge's
item-level agreement (weighted kappa) against its ranking agreement (Spearman; one point
per judge, its templates' rows left out), the table of order, position, length and
repeats, the faults named and the notes on empty cells."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyoka.report.html import Cell, cell, esc, num, page, table
from hyoka.report.svg import Point, scatter_chart

if TYPE_CHECKING:
    from hyoka.metaeval import JudgeMeta, JudgeRow
    from hyoka.stats import Interval

PATH = "judges.html"
AGREEMENT_HEADERS = ("suite", "judge", "template", "models", "judgments", "missing",
                     "off scale", "mean", "reference", "shared items", "exact agreement",
                     "weighted kappa", "shared models", "Spearman", "Kendall")  # fmt: skip
BIAS_HEADERS = ("suite", "judge", "template", "judgments", "missing", "order consistency",
                "first position wins", "longer preferred", "repeats (differing)",
                "same on repeat", "repeat SD", "tokens / 100 calls",
                "USD / 100 calls")  # fmt: skip


def _interval(value: Interval | None, count: int | None = None) -> Cell:
    if value is None:
        return cell("–", None)
    text = num(value.estimate)
    text += f' <span class="ci">[{num(value.low)}, {num(value.high)}]</span>'
    if count is not None:
        text += f' <span class="ci">n={count}</span>'
    return cell(text, value.estimate)


def _number(value: float | int | None, digits: int = 3) -> Cell:
    if value is None:
        return cell("unknown", None)
    shown = str(value) if isinstance(value, int) else num(value, digits)
    return cell(shown, value)


def _agreement_rows(rows: list[JudgeRow]) -> list[list[Cell | str]]:
    return [
        [
            r.suite, r.named, r.template, _number(r.models), _number(r.judgments),
            _number(r.missing), _number(r.off_scale), _number(r.mean), r.reference or "–",
            _number(r.shared_items), _interval(r.exact), _interval(r.kappa),
            _number(r.shared_models), _interval(r.spearman), _interval(r.kendall),
        ]
        for r in rows
        if r.kind == "single"
    ]  # fmt: skip


def _repeats(row: JudgeRow) -> Cell:
    if row.repeats is None:
        return cell("unknown", None)
    shown = f"{row.repeats} ({row.repeats_differing})" if row.repeats else "0"
    return cell(shown, row.repeats)


def _bias_rows(rows: list[JudgeRow]) -> list[list[Cell | str]]:
    return [
        [
            r.suite, r.named, r.template, _number(r.judgments), _number(r.missing),
            _interval(r.consistency, r.consistency_pairs if r.consistency else None),
            _interval(r.first_position, r.decisive_games if r.first_position else None),
            _interval(r.longer_preferred, r.length_comparisons if r.longer_preferred else None),
            _repeats(r), _interval(r.repeat_agreement), _interval(r.repeat_sd),
            _number(r.tokens_per_100, 1), _number(r.price_per_100, 4),
        ]
        for r in rows
        if r.shows_bias
    ]  # fmt: skip


def judges_page(meta: JudgeMeta) -> str:
    """The page at ``PATH``."""
    agreement = _agreement_rows(meta.rows)
    bias = _bias_rows(meta.rows)
    body = [
        "<p>How far each judge can be trusted, from judgments already made "
        "(<code>hyoka judge meta</code>). Intervals are 95% percentile bootstrap intervals: "
        "agreement and rank correlations resample models, order and length statistics "
        "resample questions, repeat statistics the items judged more than once. A judge "
        "that used several templates has a row over all of them, <code>(all)</code>, then "
        "one per template, compared with the reference on the same template.</p>"
    ]
    if agreement:
        points = [
            Point(r.kappa.estimate, r.spearman.estimate, f"{r.named} ({r.suite})")
            for r in meta.rows
            if r.kappa is not None and r.spearman is not None and not r.breakdown
        ]
        body.append("<h2>Agreement with the reference</h2>")
        body.append(table(AGREEMENT_HEADERS, agreement, classes="narrow names3"))
        body.append(
            scatter_chart(
                points,
                x_title="weighted kappa with the reference (grades)",
                y_title="Spearman with the reference (model means)",
            )
        )
    if bias:
        body.append("<h2>Order, position, length and repeats</h2>")
        body.append(table(BIAS_HEADERS, bias, classes="narrow names3"))
    faults = "".join(f"<li>{esc(fault)}</li>" for fault in meta.faults) or "<li>none</li>"
    body.append(f"<h2>Faults</h2><p>Kept out of every number, never clamped.</p><ul>{faults}</ul>")
    if meta.notes:
        notes = "".join(f"<li>{esc(note)}</li>" for note in meta.notes)
        body.append(f'<h2>Notes</h2><p>Why a cell is empty.</p><ul class="notes">{notes}</ul>')
    footer = f'<p class="signature">{esc(meta.signature)}</p>'
    return page("Judges", "".join(body), path=PATH, footer=footer)
