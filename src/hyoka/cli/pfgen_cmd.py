"""``hyoka pfgen score`` and ``hyoka pfgen verify``: score runs, or check published scores.

Both take many runs and treat each on its own: a run that cannot be read or scored is
reported (file and line) and the others still go through; the exit code is 1 at the end if
any run failed. Heavy imports wait inside the commands, so importing this module is cheap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli._common import (
    DataDirOption,
    JsonOption,
    WorkersOption,
    echo_json,
    print_error,
    print_warning,
    progress_bar,
    reports_errors,
    stderr_surely_plain,
)
from hyoka.pfgen import Summation  # an enum the flag needs at import; loads nothing heavy

if TYPE_CHECKING:
    from hyoka.pfgen import RunSummary
    from hyoka.store import pfgen_runs

PathsArgument = Annotated[
    list[Path],
    typer.Argument(
        help="Result folders, trials files (trials.jsonl.xz, trials.jsonl), folders of "
        "trial_*.jsonl, or folders holding many runs.",
        show_default=False,
    ),
]


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
    were made (benchmark data, float summation and why, mode); the answers file each run
    was scored from is named after it. A run folder holding several answer files
    (trials.jsonl.xz, trials.jsonl, trial_*.jsonl) is scored only when they hold the same
    answers. Runs are scored in parallel, each reported as it is done; a folder of a tree
    that holds a run's config.json or result.json but no answers is named with a warning.

    Examples:

      hyoka pfgen score results/my-org/my-model/abc1234

      hyoka pfgen score results/ --force
    """
    from hyoka.cli._context import warn_if_custom_data
    from hyoka.errors import HyokaError, InputError
    from hyoka.pfgen import PfgenBenchmark, iter_score_runs

    found, failures, skipped = _find(paths)
    if not found:
        _report_skipped(skipped, "nothing to score", lambda line: print_error(InputError(line)))
        raise typer.Exit(1)
    benchmark = PfgenBenchmark.load(data_dir)
    warn_if_custom_data(benchmark)
    sources = list(found)
    summaries: dict[Path, tuple[RunSummary, bool]] = {}
    scored_from: dict[Path, Path] = {}
    with _run_progress(f"Scoring {len(sources)} run(s)", len(sources)) as advance:
        reports = iter_score_runs(
            sources, benchmark, roots=found, force=force, summation=summation, workers=workers
        )
        for source, report in reports:  # printed as each run is done, then let go
            advance()
            if isinstance(report, HyokaError):
                failures += 1
                print_error(report)
                continue
            if report.note is not None:
                print_warning(report.note)
            summaries[source] = (report.summary, report.skipped)
            scored_from[source] = report.source
    _report_skipped(skipped, "skipped", print_warning)
    done = [source for source in sources if source in summaries]
    shown = [summaries[source] for source in done]
    if as_json:
        from hyoka.store.pfgen_runs import source_label

        rows = [
            {**s.to_json(), "skipped": was_skipped, "answers": source_label(scored_from[source])}
            for source, (s, was_skipped) in zip(done, shown, strict=True)
        ]
        echo_json(rows)
    else:
        from hyoka.cli._common import say
        from hyoka.cli._context import print_scores

        print_scores(shown)
        for line in _answers_lines([(summaries[s][0], scored_from[s]) for s in done]):
            say(line)
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
    "reproduced exactly (summation: ...; answers: <file>)" or the first differing field,
    per run, as each run is done; exits 1 if any run is not reproduced or has no
    result.json, if a run folder holds answer files that differ, or if a folder of a tree
    holds a run's config.json or result.json but no answers to check (each named).

    Examples:

      hyoka pfgen verify contributed/org/model/abc1234

      hyoka pfgen verify results/
    """
    from hyoka.cli._common import console
    from hyoka.cli._context import warn_if_custom_data
    from hyoka.errors import HyokaError, InputError
    from hyoka.pfgen import PfgenBenchmark, iter_verify_runs

    found, failures, skipped = _find(paths)
    if found:
        benchmark = PfgenBenchmark.load(data_dir)
        warn_if_custom_data(benchmark)
        sources = list(found)
        with _run_progress(f"Verifying {len(sources)} run(s)", len(sources)) as advance:
            for _source, verdict in iter_verify_runs(sources, benchmark, workers=workers):
                advance()  # each verdict is printed as its run is done, then let go
                if isinstance(verdict, HyokaError):
                    failures += 1
                    print_error(verdict)
                    continue
                if not verdict.reproduced:
                    failures += 1
                console.print(
                    f"{verdict.folder}: {verdict.verdict}",
                    highlight=False, soft_wrap=True, markup=False,
                )  # fmt: skip
                if verdict.note is not None:
                    print_warning(verdict.note)
    _report_skipped(skipped, "cannot be verified", lambda line: print_error(InputError(line)))
    if failures or skipped or not found:
        raise typer.Exit(1)


def _answers_lines(runs: list[tuple[RunSummary, Path]]) -> list[str]:
    """Which answers each run was scored from: the file itself for one run, one name when
    every run was scored from a file of that name, else one line per run."""
    from hyoka.store.pfgen_runs import source_label, source_name

    if len(runs) == 1:
        return [f"answers: {source_label(runs[0][1])}"]
    names = {source_name(source) for _, source in runs}
    if len(names) == 1:
        return [f"answers: {names.pop()} of each run"]
    return [f"answers of {s.label}: {source_label(source)}" for s, source in runs]


def _find(paths: list[Path]) -> tuple[dict[Path, Path], int, list[pfgen_runs.SkippedFolder]]:
    """Every run under ``paths`` (mapped to the path it was found under), how many problems
    were reported finding them, and the run-like folders without answers in the trees."""
    from hyoka.errors import HyokaError
    from hyoka.pfgen import scan_runs

    sources: dict[Path, Path] = {}
    skipped: list[pfgen_runs.SkippedFolder] = []
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
        skipped.extend(scan.skipped)
    return sources, failures, skipped


def _report_skipped(
    skipped: list[pfgen_runs.SkippedFolder], what: str, report: Callable[[str], None]
) -> None:
    """One line per run-like folder without answers (``what`` happened to it), then a
    count of each kind when there are several."""
    for folder in skipped:
        report(f"{folder.folder}: {what}: {folder.reason}")
    if len(skipped) > 1:
        kinds = Counter(folder.reason for folder in skipped)
        counts = "; ".join(f"{n} with {reason}" for reason, n in kinds.items())
        report(f"{len(skipped)} folders {what}: {counts}")


@contextmanager
def _run_progress(title: str, total: int) -> Iterator[Callable[[], None]]:
    """A transient progress bar counting runs; yields the function that counts one (which
    does nothing where the bar would show nothing: ``stderr_surely_plain``)."""
    if stderr_surely_plain():
        yield lambda: None
        return
    with progress_bar(remaining=True, transient=True) as progress:
        task = progress.add_task(title, total=total)
        yield lambda: progress.advance(task)
