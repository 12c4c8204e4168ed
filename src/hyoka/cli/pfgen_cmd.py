"""``hyoka pfgen ...``: score runs and rank them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from hyoka.cli._common import DataDirOption, console, err_console, print_error, reports_errors
from hyoka.cli.pfgen_leaderboard_cmd import leaderboard_command
from hyoka.errors import HyokaError
from hyoka.pfgen._pysum import Summation
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.runs import score_runs
from hyoka.pfgen.summary import RunSummary
from hyoka.pfgen.trials import find_runs

pfgen_app = typer.Typer(
    help="pfgen-bench: the judge-free Japanese generation benchmark.", no_args_is_help=True
)


@pfgen_app.command("score")
@reports_errors
def score_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Result folders, trials files (trials.jsonl.xz, trials.jsonl), folders of "
            "trial_*.jsonl, or folders holding many runs.",
            show_default=False,
        ),
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Rescore runs whose result.json is up to date.")
    ] = False,
    summation: Annotated[
        Summation | None,
        typer.Option(
            help="Float summation of the upstream scorer to reproduce (default: by the era "
            "of the run's answers; 'compensated' is today's upstream).",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(help="Processes for scoring several runs (default: one per core).", min=1),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Score pfgen-bench runs and write result.json beside each.

    Examples:

      hyoka pfgen score results/my-org/my-model/abc1234

      hyoka pfgen score results/ --force
    """
    sources = [run for path in paths for run in find_runs(path)]
    benchmark = PfgenBenchmark.load(data_dir)
    summaries: list[tuple[RunSummary, bool]] = []
    failures: list[HyokaError] = []
    with _progress() as progress:
        task = progress.add_task(f"Scoring {len(sources)} run(s)", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        outcomes = score_runs(
            sources, benchmark, force=force, summation=summation, workers=workers, progress=advance
        )
    for _source, outcome in outcomes:
        if isinstance(outcome, HyokaError):
            failures.append(outcome)
            print_error(outcome)
            continue
        summary = RunSummary.from_result(outcome.folder, outcome.result)
        summaries.append((summary, outcome.skipped))
    if as_json:
        rows = [{**s.to_json(), "skipped": skipped} for s, skipped in summaries]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        console.print(score_table(summaries))
    if failures:
        raise typer.Exit(1)


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
    )


def score_table(summaries: list[tuple[RunSummary, bool]]) -> Table:
    table = Table(title="pfgen-bench")
    table.add_column("Model", overflow="fold", min_width=24)
    table.add_column("Mode")
    for name in ("Trials", "Score", "Length", "Fluency", "Truthful", "Helpful"):
        table.add_column(name, justify="right", no_wrap=True)
    for s, skipped in summaries:
        table.add_row(
            s.model + (" (up to date)" if skipped else ""),
            s.mode,
            str(s.num_trials),
            f"{s.score:.4f} (±{s.score_sem:.4f})",
            f"{s.length:.1f}",
            f"{s.fluency:.3f}",
            f"{s.truthfulness:.3f}",
            f"{s.helpfulness:.3f}",
        )
    return table


pfgen_app.command("leaderboard")(leaderboard_command)


def _register_generation() -> None:
    # imported here: generation pulls in the provider layer, which scoring does not need
    from hyoka.cli.pfgen_generate_cmd import generate_command, run_command

    pfgen_app.command("generate")(generate_command)
    pfgen_app.command("run")(run_command)


_register_generation()


def _register_analysis() -> None:
    """Commands reading result folders (and judge summaries) rather than scoring them."""
    from hyoka.cli.pfgen_analysis_cmd import correlate_command, stability_command
    from hyoka.cli.pfgen_judge_cmd import judge_command

    pfgen_app.command("judge")(judge_command)
    pfgen_app.command("correlate")(correlate_command)
    pfgen_app.command("stability")(stability_command)


_register_analysis()
