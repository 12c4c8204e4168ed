"""``hyoka pfgen correlate`` and ``hyoka pfgen stability``: how pfgen relates to other scores."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli._common import (
    BootstrapSeedOption,
    DataDirOption,
    JsonOption,
    ResamplesOption,
    WorkersOption,
    echo_json,
    reports_errors,
    say,
)
from hyoka.cli._tables import print_table

if TYPE_CHECKING:
    from hyoka.pfgen import BoardCorrelation, ScoreCorrelation, StabilityReport
    from hyoka.stats import Correlation

#: The bootstrap defaults: ``hyoka.stats.bootstrap``'s, repeated so that importing this module
#: does not load numpy (a test keeps the two in step).
DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0

PlotOption = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        help="Write a scatter plot to PLOT.png and PLOT.html (interactive).",
        show_default=False,
    ),
]


@reports_errors
def correlate_command(
    results_dir: Annotated[
        Path | None,
        typer.Argument(
            help="Folder of pfgen runs (result.json) with judge/<judge>/summary.json beside "
            "them, as `hyoka pfgen judge` writes. With --against: pfgen runs, or the JSON "
            "`hyoka pfgen leaderboard -f json` writes (default: the published sample in the "
            "data directory, pfgen-bench/results).",
            metavar="[RESULTS_DIR]",
            show_default=False,
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge", help="Which judge's summaries to use (PROVIDER/MODEL), if several."
        ),
    ] = None,
    table: Annotated[
        Path | None,
        typer.Option(
            "--table",
            help="A CSV, JSON list or JSONL of model, pfgen_score, judge_score instead.",
            show_default=False,
        ),
    ] = None,
    against: Annotated[
        Path | None,
        typer.Option(
            "--against",
            help="A leaderboard `hyoka mtbench leaderboard --format json` wrote (jmt-bench, "
            "elyza-tasks-100 ...): correlate each model's best complete pfgen run with its "
            "row there, models matched by name.",
            show_default=False,
        ),
    ] = None,
    names: Annotated[
        Path | None,
        typer.Option(
            "--names",
            help="With --against: a CSV/TSV (header pfgen,other), JSON Lines or JSON list "
            "mapping pfgen model names to the leaderboard's where they differ.",
            show_default=False,
        ),
    ] = None,
    mix_variants: Annotated[
        bool,
        typer.Option(
            "--mix-variants",
            help="With --against: accept a leaderboard whose rows were judged under "
            "different variants (each model's variant is in the output).",
        ),
    ] = False,
    plot: PlotOption = None,
    resamples: ResamplesOption = DEFAULT_RESAMPLES,
    seed: BootstrapSeedOption = DEFAULT_SEED,
    as_json: JsonOption = False,
    data_dir: DataDirOption = None,
) -> None:
    """Pearson and Spearman between pfgen scores and judge scores across models.

    With --against, the other side is another benchmark's leaderboard (seed 000 §4.3:
    pfgen against Japanese MT-bench): models both have, a model's best complete pfgen run
    (the higher of chat and completion, as the paper takes it); models on one side only
    are counted on stderr and listed in --json with the leaderboard's benchmark, variant
    and signature.

    Examples:

      hyoka pfgen correlate results/ --judge openai/gpt-4o --plot pfgen-vs-judge

      hyoka pfgen correlate --table scores.csv --json

      hyoka pfgen correlate --against elyza.json --names names.tsv --json
    """
    if against is not None:
        _correlate_against(
            results_dir, against, names, mix_variants, plot, resamples, seed, as_json, data_dir,
            given={"--table": table, "--judge": judge},
        )  # fmt: skip
        return
    from hyoka.errors import InputError
    from hyoka.pfgen import correlate_scores

    only_against = {"--names": names, "--mix-variants": mix_variants, "--data-dir": data_dir}
    for flag, value in only_against.items():
        if value:
            raise InputError(f"{flag} applies to --against only")
    if (results_dir is None) == (table is None):
        raise InputError("give either RESULTS_DIR or --table (exactly one)")
    if table is not None and judge is not None:
        raise InputError("--judge applies to RESULTS_DIR, not to --table")
    found = correlate_scores(results_dir, judge=judge, table=table, resamples=resamples, seed=seed)
    points = [(p.pfgen, p.judge, p.model) for p in found.paired.pairs]
    written = _scatter(points, f"{found.judge_name} mean score", found.correlation, plot)
    if as_json:
        echo_json({**found.to_json(), "plots": [str(p) for p in written]})
    else:
        _print_correlation(found, written)


def _scatter(
    points: list[tuple[float, float, str]], y_title: str, result: Correlation, plot: Path | None
) -> list[Path]:
    """The scatter plot of pfgen scores (x) against the other side's, if asked for."""
    if plot is None:
        return []
    from hyoka.report import ScatterPoint, ScatterSpec, write_scatter

    spec = ScatterSpec(
        points=[ScatterPoint(x, y, model) for x, y, model in points],
        x_title="pfgen-bench score",
        y_title=y_title,
        title=_title(result),
    )
    return write_scatter(spec, plot)


def _print_correlation(found: ScoreCorrelation, written: list[Path]) -> None:
    """The correlation table, the judges, the runs without a summary, the failed
    judgments left out, and the plots written."""
    from rich.markup import escape
    from rich.table import Table

    from hyoka.cli._common import console, err_console
    from hyoka.cli._judging import dry_run_title, print_judge

    result, paired, judges = found.correlation, found.paired, found.judges
    title = f"pfgen-bench vs {found.judge_name} ({result.n} models)"
    view = Table(title=dry_run_title(title, judges))
    view.add_column("Correlation")
    view.add_column("Estimate [95% CI]", justify="right")
    view.add_row("Pearson", result.pearson.format(4))
    view.add_row("Spearman", result.spearman.format(4))
    print_table(view)
    if judges:
        print_judge(judges)
    if paired.without_judge:
        say(f"{len(paired.without_judge)} run(s) without a {found.judge_name} summary", err=True)
    if paired.judge_failures:
        err_console.print(f"{paired.judge_failures} failed judgment(s) excluded from the means")
    for path in written:
        console.print(f"wrote {escape(str(path))}")


def _correlate_against(
    results_dir: Path | None,
    against: Path,
    names: Path | None,
    mix_variants: bool,
    plot: Path | None,
    resamples: int,
    seed: int,
    as_json: bool,
    data_dir: Path | None,
    *,
    given: dict[str, object],
) -> None:
    """``correlate --against``: pfgen runs against a leaderboard file, shown or as JSON."""
    from rich.markup import escape
    from rich.table import Table

    from hyoka.cli._common import console, err_console
    from hyoka.data import resolve_data_dir
    from hyoka.errors import InputError
    from hyoka.pfgen import correlate_with_leaderboard

    used = [flag for flag, value in given.items() if value is not None]
    if used:
        raise InputError(f"--against does not take {', '.join(used)}")
    source = results_dir or resolve_data_dir(data_dir) / "pfgen-bench" / "results"
    found = correlate_with_leaderboard(
        source, against, names=names, mix_variants=mix_variants, resamples=resamples, seed=seed
    )
    matched, result = found.matched, found.correlation
    other = _other_name(found)
    points = [(p.pfgen, p.other, p.pfgen_model) for p in matched.pairs]
    written = _scatter(points, f"{other} overall", result, plot)
    if as_json:
        payload = {**found.to_json(), "plots": [str(p) for p in written]}
        echo_json(payload)
    else:
        from hyoka.cli._judging import dry_run_title, print_judge
        from hyoka.judge import JudgedBy

        judges = [JudgedBy.from_json(judge) for judge in matched.board.judged_by]
        view = Table(title=dry_run_title(f"pfgen-bench vs {other} ({result.n} models)", judges))
        view.add_column("Correlation")
        view.add_column("Estimate [95% CI]", justify="right")
        view.add_row("Pearson", result.pearson.format(4))
        view.add_row("Spearman", result.spearman.format(4))
        print_table(view)
        if judges:
            print_judge(judges)
        signature = matched.board.signature
        if signature is not None:
            console.print(f"{escape(other)} signature: {escape(signature.line)}", soft_wrap=True)
    counts = {
        "pfgen model(s) not on the leaderboard": len(matched.pfgen_only),
        "leaderboard model(s) without a pfgen run": len(matched.other_only),
        "leaderboard row(s) left out (incomplete or unscored)": len(matched.board.left_out),
        "pfgen run(s) left out (incomplete)": len(matched.pfgen.left_out),
        "names-file entries matching no pfgen model": len(matched.unused_names),
    }
    for what, count in counts.items():
        if count:
            err_console.print(f"{count} {what} (listed in --json)", highlight=False)
    for path in written:
        console.print(f"wrote {escape(str(path))}")


def _other_name(found: BoardCorrelation) -> str:
    """The other side as a reader names it: its benchmark and, where it has one, variant."""
    board = found.matched.board
    variants = [v for v in board.variants if v is not None]
    name = board.bench or str(board.path)
    return f"{name} ({', '.join(variants)})" if variants else name


@reports_errors
def stability_command(
    results_dir: Annotated[
        Path | None,
        typer.Argument(
            help="Folder of pfgen runs (trials.jsonl.xz etc.); default: the published sample "
            "in the data directory (pfgen-bench/results).",
            metavar="[RESULTS_DIR]",
            show_default=False,
        ),
    ] = None,
    sets: Annotated[
        str, typer.Option("--sets", help="Comma-separated reference sets to compare.")
    ] = "P,S,T",
    common_only: Annotated[
        bool,
        typer.Option(
            "--common-only",
            help="Score only the questions that have every compared set (default: a question "
            "without a set keeps its own sets).",
        ),
    ] = False,
    plot: PlotOption = None,
    resamples: ResamplesOption = DEFAULT_RESAMPLES,
    seed: BootstrapSeedOption = DEFAULT_SEED,
    workers: WorkersOption = None,
    as_json: JsonOption = False,
    data_dir: DataDirOption = None,
) -> None:
    """Score runs with each single reference set instead of the ensemble and correlate.

    The stability experiment of the pfgen-bench papers (§5.1, Figure 3: correlations above
    0.999). Each distinct answer is measured once; the variants only re-aggregate.

    Examples:

      hyoka pfgen stability --plot stability

      hyoka pfgen stability my-results/ --sets P,S --json
    """
    from hyoka.cli._common import progress_bar
    from hyoka.pfgen import stability_of

    names = [s.strip() for s in sets.split(",") if s.strip()]
    with progress_bar(transient=True) as progress:
        task = progress.add_task("Measuring runs", total=None)
        report, benchmark = stability_of(
            results_dir, sets=names, common_only=common_only, resamples=resamples, seed=seed,
            workers=workers, data_dir=data_dir,
            found=lambda n: progress.update(task, description=f"Measuring {n} run(s)"),
            progress=lambda done, total: progress.update(task, completed=done, total=total),
        )  # fmt: skip
    written = _stability_plots(report, plot)
    if as_json:
        echo_json({**report.to_json(), "plots": [str(p) for p in written]})
    else:
        _print_stability(report, len(benchmark.questions), common_only, written)


def _stability_plots(report: StabilityReport, plot: Path | None) -> list[Path]:
    """One scatter per pair of sets (against the ensemble only, beyond three sets)."""
    if plot is None:
        return []
    from hyoka.pfgen import ENSEMBLE
    from hyoka.report import ScatterPoint, ScatterSpec, write_scatter_grid

    specs = [
        ScatterSpec(
            points=[ScatterPoint(r.scores[a], r.scores[b], r.label) for r in report.runs],
            x_title=f"score ({a})" if a == ENSEMBLE else f"score ({a} only)",
            y_title=f"score ({b} only)",
            title=f"{a} vs {b}\n{_title(c)}",
            diagonal=True,
        )
        for (a, b), c in report.correlations.items()
        if a == ENSEMBLE or len(report.sets) <= 3
    ]
    return write_scatter_grid(specs, plot, "pfgen-bench: one reference set vs another")


def _print_stability(
    report: StabilityReport, questions: int, common_only: bool, written: list[Path]
) -> None:
    """The correlations, the questions each set alone scores, how often the ensemble is
    the published score, and the plots written."""
    from rich.markup import escape
    from rich.table import Table

    from hyoka.cli._common import console

    view = Table(title=f"Reference-set stability over {len(report.runs)} runs")
    for name in ("First", "Second", "Pearson [95% CI]", "Spearman [95% CI]"):
        view.add_column(name, justify="right" if "CI" in name else "left")
    for (a, b), c in report.correlations.items():
        view.add_row(a, b, c.pearson.format(5), c.spearman.format(5))
    print_table(view)
    shown = ", ".join(f"{k}: {n}" for k, n in report.questions.items())
    console.print(f"questions scored with the set alone: {shown} (of {questions})")
    published = sum(1 for r in report.runs if r.published is not None)
    if published and not common_only:
        console.print(
            f"ensemble = published score for {report.ensemble_matches_published} of "
            f"{published} runs"
        )
    for path in written:
        console.print(f"wrote {escape(str(path))}")


def _title(result: Correlation) -> str:
    return (
        f"Pearson {result.pearson.format(4)}\nSpearman {result.spearman.format(4)} (n={result.n})"
    )
