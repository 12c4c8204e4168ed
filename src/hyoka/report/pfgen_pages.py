"""The pfgen-bench pages: the leaderboard, one page per run the user named, and two runs
side by side."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hyoka.pfgen import (
    Flags,
    PfgenBenchmark,
    ReferencePool,
    RunSummary,
    explain_many,
    reference_answers,
)
from hyoka.report.explain_html import LEGEND, explanation_card
from hyoka.report.html import Cell, cell, esc, num, page, table
from hyoka.report.pfgen_data import Comparison, ScoredRun, spread
from hyoka.report.svg import IntervalRow, interval_chart
from hyoka.stats import Interval

LEADERBOARD_PATH = "pfgen/index.html"
COMPARE_PATH = "pfgen/compare.html"
#: Which answers of each question a run page explains, by rank (share of the way down).
SAMPLE_RANKS = (("best", 0.0), ("median", 0.5), ("worst", 1.0))


def run_id(folder: Path, label: str) -> str:
    """A file-name-safe, stable id: the label's ASCII letters and a hash of the folder."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_.")[:60] or "run"
    digest = hashlib.sha1(str(folder.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{slug}-{digest}"


def run_path(identifier: str) -> str:
    return f"pfgen/runs/{identifier}.html"


@dataclass(frozen=True)
class LeaderRow:
    summary: RunSummary
    interval: Interval
    mine: bool
    link: str | None  # page path relative to the site root


def _signature_text(summary: RunSummary) -> str:
    if summary.signature is None:
        return "no signature: a result not written by hyoka (upstream's own scoring)"
    return f"signature: {summary.signature.line}"


def leaderboard_page(rows: Sequence[LeaderRow]) -> str:
    flags = Flags.of([r.summary for r in rows])
    up = "../"
    headers: list[str | tuple[str, str]] = [
        "Rank", "Model", "Mode", ("Score", "mean of the trial scores"),
        ("95% CI", "bootstrap over questions and trials"),
        ("± SEM", "std over trials / √trials, as upstream shows it"),
        "Fluency", "Truthfulness", "Helpfulness", ("Length", "mean ± std characters"),
        "Trials",
    ]  # fmt: skip
    body: list[list[Cell | str]] = []
    classes = []
    ranked = 0  # complete rows so far: an incomplete one is shown, never ranked
    for position, row in enumerate(rows):
        s = row.summary
        name = esc(s.model) + (
            f" <sup>{esc(flags.marker(position))}</sup>" if flags.marker(position) else ""
        )
        if s.incomplete:
            name += f' <span class="muted">[{esc(s.incomplete)}]</span>'
        rank = ranked + 1 if s.complete else None
        ranked += s.complete
        if row.link:
            name = f'<a href="{up}{esc(row.link)}">{name}</a>'
        if row.mine:
            name += ' <span class="muted">(yours)</span>'
        ci = row.interval
        body.append(
            [
                cell("N/A", len(rows) + 1) if rank is None else cell(str(rank), rank),
                cell(name, s.model, _signature_text(s), classes="name"),
                s.mode,
                cell(f"{s.score:.4f}", repr(s.score), _signature_text(s)),
                cell(f'<span class="ci">[{num(ci.low, 4)}, {num(ci.high, 4)}]</span>', ci.low),
                cell(f"{s.score_sem:.4f}", s.score_sem),
                cell(f"{s.fluency:.3f}", repr(s.fluency)),
                cell(f"{s.truthfulness:.3f}", repr(s.truthfulness)),
                cell(f"{s.helpfulness:.3f}", repr(s.helpfulness)),
                cell(f'{s.length:.1f} <span class="ci">±{s.length_std:.1f}</span>', s.length),
                cell(str(s.num_trials), s.num_trials),
            ]
        )
        classes.append("mine" if row.mine else "")
    chart = interval_chart(
        [
            IntervalRow(r.summary.label, r.summary.score, r.interval.low, r.interval.high, r.mine)
            for r in rows
        ],
        digits=4,
    )
    footer = "".join(f"<p><code>{esc(line)}</code></p>" for line in flags.footer())
    mine = sum(r.mine for r in rows)
    body_html = (
        f"<p>{len(rows)} runs; yours ({mine}) are highlighted. Click a header to sort; hover a "
        "score for the signature of how it was produced. Intervals: 95% bootstrap over "
        "questions and trials (from each result.json's per-question means and spreads).</p>"
        + table(headers, body, table_id="leaderboard", row_classes=classes)
        + "<h2>Scores with their 95% intervals</h2>"
        + chart
    )
    return page("pfgen-bench leaderboard", body_html, path=LEADERBOARD_PATH, footer=footer)


def _quantile_position(count: int, share: float) -> int:
    return round(share * (count - 1))


def run_page(run: ScoredRun, benchmark: PfgenBenchmark, identifier: str) -> str:
    s = run.summary
    exact = run.exact_interval()
    overview = table(
        [
            "Score",
            "95% CI",
            "Fluency",
            "Truthfulness",
            "Helpfulness",
            "Length",
            "Trials",
            "Questions",
        ],
        [
            [
                f"{s.score:.4f}",
                cell(f'<span class="ci">[{num(exact.low, 4)}, {num(exact.high, 4)}]</span>'),
                f"{s.fluency:.3f}",
                f"{s.truthfulness:.3f}",
                f"{s.helpfulness:.3f}",
                f"{s.length:.1f} ± {s.length_std:.1f}",
                str(s.num_trials),
                f"{len(run.questions)} ({s.incomplete})"
                if s.incomplete
                else str(len(run.questions)),
            ]
        ],
        sortable=False,
    )
    rows: list[list[Cell | str]] = []
    for qid, q in run.questions.items():
        average = spread(q.values("average"))
        length = spread(q.values("length"))
        rows.append(
            [
                cell(f'<a href="#{esc(qid)}">{esc(qid)}</a>', qid),
                cell(esc(q.question), q.question, classes="text"),
                cell(num(average[0]), average[0]),
                cell(num(average[1]), average[1]),
                cell(f"{num(average[2])}–{num(average[3])}", average[2]),
                cell(num(float(q.values("fluency").mean())), float(q.values("fluency").mean())),
                cell(
                    num(float(q.values("truthfulness").mean())),
                    float(q.values("truthfulness").mean()),
                ),
                cell(
                    num(float(q.values("helpfulness").mean())),
                    float(q.values("helpfulness").mean()),
                ),
                cell(f"{length[0]:.1f} ± {length[1]:.1f}", length[0]),
                str(len(q.answers)),
            ]
        )
    per_question = table(
        ["Q", "Question", "Average", "± std", "min–max", "Fluency", "Truthfulness",
         "Helpfulness", "Length", "Answers"],
        rows,
        table_id="questions",
    )  # fmt: skip
    sections = []
    for qid, q in run.questions.items():
        pool = ReferencePool.of(reference_answers(benchmark, qid))
        ranked = q.ranked()
        picks: dict[int, str] = {}
        for role, share in SAMPLE_RANKS:
            picks.setdefault(ranked[_quantile_position(len(ranked), share)], role)
        explained = explain_many(benchmark, qid, [q.answers[i] for i in picks], references=pool)
        cards = [
            explanation_card(e, f"{role} of {len(ranked)} (trial {position + 1})", role)
            for (position, role), e in zip(picks.items(), explained, strict=True)
        ]
        heading = f"<h2>{esc(qid)} {esc(q.question)}</h2>"
        sections.append(f'<section id="{esc(qid)}">{heading}{"".join(cards)}</section>')
    footer = (
        f"<p><code>{esc(_signature_text(s))}</code></p>"
        f"<p>folder: <code>{esc(run.folder)}</code></p>"
    )
    body = (
        f'<p class="subtitle">mode {esc(s.mode)} · {esc(run.folder)}</p>{overview}'
        f"<p>95% interval: bootstrap over questions and, within each, over its answers.</p>"
        f"<h2>Per question</h2>{per_question}<h2>Answers explained</h2>{LEGEND}" + "".join(sections)
    )
    return page(f"pfgen run: {s.label}", body, path=run_path(identifier), footer=footer)


def compare_page(comparison: Comparison, links: tuple[str, str]) -> str:
    a, b = comparison.a.summary, comparison.b.summary
    o = comparison.overall
    rows: list[list[Cell | str]] = []
    for d in sorted(comparison.questions, key=lambda d: d.difference):
        mark = {"A": "A better", "B": "B better", "=": "no clear difference"}[d.verdict]
        style = {"A": "up", "B": "down", "=": ""}[d.verdict]
        rows.append(
            [
                cell(esc(d.question_id), d.question_id),
                cell(esc(d.question), d.question, classes="text"),
                cell(num(d.a), d.a),
                cell(num(d.b), d.b),
                cell(f'<span class="{style}">{d.difference:+.3f}</span>', d.difference),
                cell(f'<span class="ci">[{d.low:+.3f}, {d.high:+.3f}]</span>', d.low),
                cell(mark, d.verdict),
            ]
        )
    chart = interval_chart(
        [
            IntervalRow(d.question_id, d.difference, d.low, d.high, d.verdict != "=")
            for d in sorted(comparison.questions, key=lambda d: d.difference)
        ],
        zero=True,
    )
    body = (
        f'<p>A: <a href="../{esc(links[0])}">{esc(a.label)}</a> (score {a.score:.4f}) · '
        f'B: <a href="../{esc(links[1])}">{esc(b.label)}</a> (score {b.score:.4f})</p>'
        f'<p id="overall">Mean per-question difference A − B: <b>{o.estimate:+.4f}</b> '
        f'<span class="ci">95% CI [{o.low:+.4f}, {o.high:+.4f}]</span> '
        "(paired bootstrap: the same resampled questions for both runs, answers resampled "
        "within each). Per question: answers resampled within each run.</p>"
        + table(
            ["Q", "Question", "A", "B", "A − B", "95% CI", "Verdict"], rows, table_id="differences"
        )
        + "<h2>Differences with their 95% intervals</h2>"
        + chart
    )
    return page("pfgen: two runs side by side", body, path=COMPARE_PATH)
