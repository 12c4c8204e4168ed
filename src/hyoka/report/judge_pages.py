"""pfgen score against an LLM judge's mean score, per run: the scatter plot and both
correlations with bootstrap intervals, when the runs given carry ``hyoka pfgen judge``
summaries (``<run>/judge/<judge>/summary.json``), as ``hyoka pfgen correlate`` computes
them (``pfgen.correlate_scores``), each section naming the judge that answered (what the
judgments' manifests record; the summary's name is only what the judge was called)."""

from __future__ import annotations

from pathlib import Path

from hyoka.errors import HyokaError, InputError
from hyoka.judge import judges_shown
from hyoka.report.html import cell, esc, page, table
from hyoka.report.svg import Point, scatter_chart
from hyoka.store import read_json

PATH = "pfgen/judge.html"
#: Fewer runs than this say nothing about a correlation.
MIN_RUNS = 3


def judges_under(folder: Path) -> list[str]:
    """The judges whose summaries lie under ``folder``, each once."""
    found: dict[str, None] = {}
    for summary in sorted(folder.rglob("judge/*/summary.json")):
        try:
            data = read_json(summary, strict=False)
        except InputError:
            continue
        if isinstance(data, dict) and isinstance(data.get("judge"), str):
            found[data["judge"]] = None
    return list(found)


def judge_page(folders: list[Path], notes: list[str], seed: int) -> str | None:
    """The page, or None when no folder has judge summaries for at least three runs."""
    from hyoka.pfgen import collect_run_scores, correlate_scores

    sections = []
    for folder in folders:
        for judge in judges_under(folder):
            try:
                paired = collect_run_scores(folder, judge)
            except HyokaError as exc:
                notes.append(f"{folder}: judge scores skipped: {exc}")
                continue
            if len(paired.pairs) < MIN_RUNS:
                continue
            scored = correlate_scores(folder, judge=judge, seed=seed)
            pairs, result = scored.paired.pairs, scored.correlation
            rows = [
                [
                    cell(esc(name), name),
                    cell(f"{i.estimate:.3f}", i.estimate),
                    cell(f'<span class="ci">[{i.low:.3f}, {i.high:.3f}]</span>', i.low),
                ]
                for name, i in (("Pearson", result.pearson), ("Spearman", result.spearman))
            ]
            chart = scatter_chart(
                [Point(p.pfgen, p.judge, p.model) for p in pairs],
                x_title="pfgen-bench score",
                y_title=f"{judge} mean score",
            )
            sections.append(
                f"<h2>{esc(judge)} over {esc(folder)}</h2><p>{len(pairs)} runs; 95% intervals "
                "from bootstrap over runs.</p>"
                f'<p class="judge">Judge: {esc(judges_shown(scored.judges))}</p>'
                + table(["Correlation", "Estimate", "95% CI"], rows, sortable=False)
                + chart
            )
    if not sections:
        return None
    return page("pfgen score against judge score", "".join(sections), path=PATH)
