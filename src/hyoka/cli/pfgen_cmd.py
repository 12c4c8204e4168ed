"""``hyoka pfgen score`` and ``hyoka pfgen verify``: score runs, or check published scores.

Both take many runs and treat each on its own: a run that cannot be read or scored is
reported (file and line) and the others still go through; the exit code is 1 at the end if
any run failed. Heavy imports wait inside the commands, so importing this module is cheap.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from hyoka.cli._common import (
    DataDirOption,
    JsonOption,
    WorkersOption,
    print_error,
    print_warning,
    progress_bar,
    reports_errors,
)
from hyoka.pfgen import Summation  # an enum the flag needs at import; loads nothing heavy

if TYPE_CHECKING:
    from hyoka.pfgen import RunOutcome, RunSummary

PathsArgument = Annotated[
    list[Path],
    typer.Argument(
        help="Result folders, trials files (trials.jsonl.xz, trials.jsonl), folders of "
        "trial_*.jsonl, or folders holding many runs.",
        show_default=False,
    ),
]

T = TypeVar("T")


@reports_errors
def score_command(
    paths: PathsArgument,
    force: Annotated[
        bool, typer.Option("--force", help="Rescore runs whose result.json is up to date.")
    ] = False,
    summation: Annotated[
        Summation | None,
        typer.Option(
            help="Force a float summation: compensated (Python >= 3.12's sum) or sequential "
            "(Python <= 3.11's). Default: the one that reproduces the run's existing "
            "result.json exactly, else compensated.",
            show_default=False,
        ),
    ] = None,
    workers: WorkersOption = None,
    as_json: JsonOption = False,
    data_dir: DataDirOption = None,
) -> None:
    """Score pfgen-bench runs and write result.json beside each.

    Each result.json keeps upstream's fields and adds a signature saying how its numbers
    were made (benchmark data, float summation and why, mode).

    Examples:

      hyoka pfgen score results/my-org/my-model/abc1234

      hyoka pfgen score results/ --force
    """
    from hyoka.cli._context import warn_if_custom_data
    from hyoka.errors import HyokaError
    from hyoka.pfgen import PfgenBenchmark, score_runs

    found, failures = _find(paths)
    if not found:
        raise typer.Exit(1)
    benchmark = PfgenBenchmark.load(data_dir)
    warn_if_custom_data(benchmark)
    sources = list(found)
    outcomes = _with_progress(
        f"Scoring {len(sources)} run(s)",
        lambda advance: score_runs(
            sources, benchmark, force=force, summation=summation, workers=workers,
            progress=advance,
        ),
    )  # fmt: skip
    summaries: list[tuple[RunSummary, bool]] = []
    for source, outcome in outcomes:
        if isinstance(outcome, HyokaError):
            failures += 1
            print_error(outcome)
            continue
        if outcome.note is not None:
            print_warning(outcome.note)
        summary = _summary(outcome, found[source])
        if summary is None:
            failures += 1
            continue
        summaries.append((summary, outcome.skipped))
    if as_json:
        rows = [{**s.to_json(), "skipped": skipped} for s, skipped in summaries]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        from hyoka.cli._context import print_scores

        print_scores(summaries)
    if failures:
        raise typer.Exit(1)


@reports_errors
def verify_command(
    paths: PathsArgument,
    workers: WorkersOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Check that each run's result.json follows exactly from its answers.

    Every run is rescored in memory (nothing is written) with the float summation that
    reproduces its result.json, if either does, and compared field by field. Prints
    "reproduced exactly (summation: ...)" or the first differing field, per run; exits 1
    if any run is not reproduced or has no result.json.

    Examples:

      hyoka pfgen verify contributed/org/model/abc1234

      hyoka pfgen verify results/
    """
    from hyoka.cli._context import warn_if_custom_data
    from hyoka.errors import HyokaError
    from hyoka.pfgen import PfgenBenchmark, verify_runs

    found, failures = _find(paths)
    if not found:
        raise typer.Exit(1)
    benchmark = PfgenBenchmark.load(data_dir)
    warn_if_custom_data(benchmark)
    sources = list(found)
    verdicts = _with_progress(
        f"Verifying {len(sources)} run(s)",
        lambda advance: verify_runs(sources, benchmark, workers=workers, progress=advance),
    )
    from hyoka.cli._common import console

    for _source, verdict in verdicts:
        if isinstance(verdict, HyokaError):
            failures += 1
            print_error(verdict)
            continue
        if not verdict.reproduced:
            failures += 1
        console.print(
            f"{verdict.folder}: {verdict.verdict}", highlight=False, soft_wrap=True, markup=False
        )
        if verdict.note is not None:
            print_warning(verdict.note)
    if failures:
        raise typer.Exit(1)


def _find(paths: list[Path]) -> tuple[dict[Path, Path], int]:
    """Every run under ``paths`` (mapped to the path it was found under), and how many
    problems were reported finding them."""
    from hyoka.errors import HyokaError
    from hyoka.pfgen import scan_runs

    sources: dict[Path, Path] = {}
    failures = 0
    for path in paths:
        try:
            scan = scan_runs(path)
        except HyokaError as exc:
            print_error(exc)
            failures += 1
            continue
        for problem in scan.problems:
            print_error(problem)
        failures += len(scan.problems)
        sources.update((source, path) for source in scan.sources if source not in sources)
    return sources, failures


def _with_progress(title: str, work: Callable[[Callable[[int, int], None]], T]) -> T:
    """Run ``work(advance)`` under a transient progress bar."""
    with progress_bar(remaining=True, transient=True) as progress:
        task = progress.add_task(title, total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        return work(advance)


def _summary(outcome: RunOutcome, root: Path) -> RunSummary | None:
    """The run's headline numbers; an up-to-date result.json too broken to show is an error."""
    from hyoka.pfgen import RunSummary

    try:
        return RunSummary.from_result(outcome.folder, outcome.result, root)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        from hyoka.errors import InputError
        from hyoka.store import pfgen_runs

        where = outcome.folder / pfgen_runs.RESULT_FILE
        print_error(InputError(f"{where}: not a pfgen-bench result ({exc!r})"))
        return None
