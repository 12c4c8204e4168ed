"""The pfgen part of the site: which runs are rows, which get pages, and the comparison."""

from __future__ import annotations

from dataclasses import dataclass
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
    from hyoka.pfgen import PfgenBenchmark, RunSummary
    from hyoka.report.inputs import Inputs
    from hyoka.report.options import ReportOptions
    from hyoka.report.stability_data import Stability


def pfgen_section(
    inputs: Inputs,
    public: Path | None,
    options: ReportOptions,
    pages: dict[str, str],
    notes: list[str],
) -> str:
    from hyoka.pfgen import RunSummary, UnusableResultError, rank
    from hyoka.store.pfgen_runs import read_result

    rows: dict[Path, tuple[RunSummary, dict[str, Any], bool, str | None]] = {}
    if public is not None:
        for summary, result in _public_results(public, notes):
            rows[summary.folder.resolve()] = (summary, result, False, None)

    scored: list[ScoredRun] = []
    named_sources: dict[Path, Path] = {}  # a named run's folder -> the answers given
    benchmark: PfgenBenchmark | None = None
    if inputs.pfgen_runs:
        from hyoka.pfgen import PfgenBenchmark

        benchmark = PfgenBenchmark.load(options.data_dir, options.cache_dir)
        data_note = benchmark.data_note()
        if data_note is not None:  # the runs scored here are marked on the leaderboard
            notes.append(data_note)
        for source in inputs.pfgen_runs:
            try:
                folder = source if source.is_dir() else source.parent
                identifier = run_id(folder, folder.name)
                run = score_run_answers(source, benchmark, identifier, options.workers)
            except HyokaError as exc:
                notes.append(f"{source}: skipped: {exc}")
                continue
            _note_stale_result(run, notes)
            identifier = run_id(run.folder, run.summary.label)
            run.run_id = identifier
            pages[run_path(identifier)] = run_page(run, benchmark, identifier)
            rows[run.folder.resolve()] = (run.summary, run.result, True, run_path(identifier))
            scored.append(run)
            named_sources[run.folder.resolve()] = source
    for folder in inputs.pfgen_results:
        stored = read_result(folder)
        if stored is None:
            notes.append(f"{folder}: skipped: no result.json")
            continue
        try:
            summary = RunSummary.from_result(folder, stored, folder.parent.parent)
        except UnusableResultError as exc:  # a number out of range, answers changed: named
            notes.append(f"{exc.path}: skipped: {exc.reason}")
            continue
        rows[folder.resolve()] = (summary, stored, True, None)

    mine = {folder for folder, value in rows.items() if value[2]}
    stability = _stability_link(
        inputs, _Answers(list(rows), named_sources, benchmark), mine, options, pages, notes
    )
    if not rows:
        pages[LEADERBOARD_PATH] = page(
            "pfgen-bench leaderboard",
            "<p>No pfgen runs among the inputs.</p>",
            path=LEADERBOARD_PATH,
        )
        return f"<h2>pfgen-bench</h2><ul>{stability}</ul>" if stability else ""
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
    if stability:
        items.append(stability)
    return f"<h2>pfgen-bench</h2><ul>{''.join(items)}</ul>"


def _note_stale_result(run: ScoredRun, notes: list[str]) -> None:
    """A named run is scored from its answers; where the ``result.json`` beside them cannot
    be shown (``run_result_problem``: answers changed since scoring, not a pfgen-bench
    result), that file is skipped with the leaderboard's reason, and the line says the run's
    row holds the rescored numbers instead of the file's."""
    from hyoka.pfgen import read_result, run_result_problem
    from hyoka.store import pfgen_runs

    try:
        stored = read_result(run.folder)
    except HyokaError as exc:
        notes.append(f"{exc} (skipped; the run is shown rescored from its answers)")
        return
    if stored is None:
        return
    problem = run_result_problem(run.folder, stored)
    if problem is not None:
        notes.append(
            f"{run.folder / pfgen_runs.RESULT_FILE}: skipped: {problem}; the run is shown "
            f"rescored from its answers (score {run.summary.score:.4f})"
        )


@dataclass(frozen=True)
class _Answers:
    """Where ``--stability`` finds the runs' answers: every run folder of the leaderboard,
    the answers named on the command line, and the benchmark already loaded (if one was)."""

    folders: list[Path]
    named_sources: dict[Path, Path]
    benchmark: PfgenBenchmark | None


def _stability_link(
    inputs: Inputs,
    answers: _Answers,
    mine: set[Path],
    options: ReportOptions,
    pages: dict[str, str],
    notes: list[str],
) -> str:
    """The reference-set stability page, when a stability file was given or ``--stability``
    asked for the experiment over the runs that keep their answers; its link."""
    from hyoka.report import stability_data as sd
    from hyoka.report import stability_pages as sp

    experiments: list[Stability] = []
    for path in inputs.stability_files:
        try:
            experiments.append(sd.read_stability_file(path))
        except HyokaError as exc:
            notes.append(f"{exc}; skipped")  # the message names the file
    if options.stability:
        computed = _computed_stability(answers, options, notes)
        if computed is not None:
            experiments.append(computed)
    if not experiments:
        return ""
    pages[sp.PATH] = sp.stability_page(experiments, mine, options.seed)
    runs = ", ".join(str(len(e.runs)) for e in experiments)
    return (
        f'<li><a href="{sp.PATH}">reference-set stability</a>: scores under one reference set '
        f"against another ({runs} runs)</li>"
    )


def _computed_stability(
    answers: _Answers, options: ReportOptions, notes: list[str]
) -> Stability | None:
    """``--stability``: the experiment over every run that keeps its answers, or None (noted).
    A run named on the command line is read from the answers named; another from its folder."""
    from hyoka.pfgen import PfgenBenchmark
    from hyoka.report.stability_data import compute_stability
    from hyoka.store.pfgen_runs import run_source

    found = (answers.named_sources.get(f) or run_source(f) for f in sorted(answers.folders))
    sources = [s for s in found if s is not None]
    left_out = len(answers.folders) - len(sources)
    if left_out:
        notes.append(f"--stability: {left_out} run(s) without answers (result.json only) left out")
    try:
        benchmark = answers.benchmark or PfgenBenchmark.load(options.data_dir, options.cache_dir)
        return compute_stability(sources, benchmark, seed=options.seed, workers=options.workers)
    except HyokaError as exc:
        notes.append(f"--stability: not computed: {exc}")
        return None


def _public_results(public: Path, notes: list[str]) -> list[tuple[Any, dict[str, Any]]]:
    """Every usable run under ``public`` as (summary, result), each file read once, by the
    leaderboard's own reader; unusable ones are noted and skipped."""
    from hyoka.pfgen import read_run
    from hyoka.store.pfgen_runs import find_result_files

    found = [read_run(path, notes, public) for path in find_result_files(public, notes)]
    return [run for run in found if run is not None]
