"""The pfgen part of the site: which runs are rows, which get pages, and the comparison."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from hyoka.errors import HyokaError
from hyoka.report.html import esc, page
from hyoka.report.pfgen_data import ScoredRun, compare_runs, score_run_answers, summary_interval
from hyoka.report.pfgen_pages import (
    COMPARE_PATH,
    LEADERBOARD_PATH,
    LeaderRow,
    compare_page,
    leaderboard_page,
    run_id,
    run_page,
    run_path,
)

if TYPE_CHECKING:
    from hyoka.pfgen import RunSummary
    from hyoka.report.inputs import Inputs
    from hyoka.report.site import ReportOptions


def pfgen_section(
    inputs: Inputs,
    public: Path | None,
    options: ReportOptions,
    pages: dict[str, str],
    notes: list[str],
) -> str:
    from hyoka.pfgen import RunSummary, rank, result_problem
    from hyoka.store.pfgen_runs import read_result

    rows: dict[Path, tuple[RunSummary, dict[str, Any], bool, str | None]] = {}
    if public is not None:
        for summary, result in _public_results(public, notes):
            rows[summary.folder.resolve()] = (summary, result, False, None)

    scored: list[ScoredRun] = []
    if inputs.pfgen_runs:
        from hyoka.pfgen import PfgenBenchmark

        benchmark = PfgenBenchmark.load(options.data_dir, options.cache_dir)
        for source in inputs.pfgen_runs:
            try:
                folder = source if source.is_dir() else source.parent
                identifier = run_id(folder, folder.name)
                run = score_run_answers(source, benchmark, identifier, options.workers)
            except HyokaError as exc:
                notes.append(f"{source}: skipped: {exc}")
                continue
            identifier = run_id(run.folder, run.summary.label)
            run.run_id = identifier
            pages[run_path(identifier)] = run_page(run, benchmark, identifier)
            rows[run.folder.resolve()] = (run.summary, run.result, True, run_path(identifier))
            scored.append(run)
    for folder in inputs.pfgen_results:
        stored = read_result(folder)
        if stored is None or result_problem(stored) is not None:
            notes.append(f"{folder}: skipped: no usable result.json")
            continue
        summary = RunSummary.from_result(folder, stored, folder.parent.parent)
        rows[folder.resolve()] = (summary, stored, True, None)

    if not rows:
        pages[LEADERBOARD_PATH] = page(
            "pfgen-bench leaderboard",
            "<p>No pfgen runs among the inputs.</p>",
            path=LEADERBOARD_PATH,
        )
        return ""
    ranked = rank([summary for summary, _, _, _ in rows.values()])
    by_folder = {value[0].folder: value for value in rows.values()}
    leader_rows = [
        LeaderRow(
            summary,
            summary_interval(by_folder[summary.folder][1]),
            by_folder[summary.folder][2],
            by_folder[summary.folder][3],
        )
        for summary in ranked
    ]
    pages[LEADERBOARD_PATH] = leaderboard_page(leader_rows)
    items = [f'<li><a href="{LEADERBOARD_PATH}">leaderboard</a>: {len(leader_rows)} runs</li>']
    items += [
        f'<li><a href="{esc(run_path(r.run_id))}">{esc(r.summary.label)}</a>: score '
        f"{r.summary.score:.4f}</li>"
        for r in scored
    ]
    if len(scored) >= 2:
        a, b = scored[0], scored[1]
        comparison = compare_runs(a, b)
        pages[COMPARE_PATH] = compare_page(comparison, (run_path(a.run_id), run_path(b.run_id)))
        items.append(
            f'<li><a href="{COMPARE_PATH}">{esc(a.summary.label)} vs {esc(b.summary.label)}</a>: '
            f"A − B = {comparison.overall.estimate:+.4f}</li>"
        )
    from hyoka.report.judge_pages import PATH, judge_page

    judged = judge_page([p for p in inputs.folders if p.is_dir()], notes, options.seed)
    if judged is not None:
        pages[PATH] = judged
        items.append(f'<li><a href="{PATH}">pfgen score against judge score</a></li>')
    return f"<h2>pfgen-bench</h2><ul>{''.join(items)}</ul>"


def _public_results(public: Path, notes: list[str]) -> list[tuple[Any, dict[str, Any]]]:
    """Every usable run under ``public`` as (summary, result), each file read once, by the
    leaderboard's own reader; unusable ones are noted and skipped."""
    from hyoka.pfgen import read_run
    from hyoka.store.pfgen_runs import find_result_files

    found = [read_run(path, notes, public) for path in find_result_files(public, notes)]
    return [run for run in found if run is not None]
