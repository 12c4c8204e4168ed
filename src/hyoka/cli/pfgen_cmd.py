"""``hyoka pfgen score`` and ``hyoka pfgen verify``: score runs, or check published scores.

Both take many runs and treat each on its own: a run that cannot be read or scored is
reported (file and line) and the others still go through; the exit code is 1 at the end if
any run failed. Heavy imports wait inside the commands, so importing this module is cheap.
"""

from __future__ import annotations

import contextlib
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
    from hyoka.errors import HyokaError
    from hyoka.pfgen import RunReport, RunSummary, RunsWatcher, Verification
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
    from hyoka.errors import InputError
    from hyoka.pfgen import score_paths

    done = score_paths(
        paths, force=force, summation=summation, workers=workers, data_dir=data_dir,
        watcher=_shown(),
    )  # fmt: skip
    skipped = done.found.skipped
    if not done.found.sources:
        _report_skipped(skipped, "nothing to score", lambda line: print_error(InputError(line)))
        raise typer.Exit(1)
    _report_skipped(skipped, "skipped", print_warning)
    if as_json:
        echo_json(done.to_json())
    else:
        from hyoka.cli._common import say
        from hyoka.cli._context import print_scores

        print_scores([(r.summary, r.skipped) for r in done.reports])
        for line in _answers_lines([(r.summary, r.source) for r in done.reports]):
            say(line)
    if done.failures:
        raise typer.Exit(1)


@reports_errors
def verify_command(
    paths: PathsArgument,
    workers: WorkersOption = None,
    as_json: JsonOption = False,
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
    from hyoka.errors import InputError
    from hyoka.pfgen import verify_paths

    done = verify_paths(paths, workers=workers, data_dir=data_dir, watcher=_shown(not as_json))
    skipped = done.found.skipped
    _report_skipped(skipped, "cannot be verified", lambda line: print_error(InputError(line)))
    if as_json:
        echo_json(done.to_json())
    if done.failures or skipped or not done.found.sources:
        raise typer.Exit(1)


def _shown(verdicts: bool = True) -> RunsWatcher:
    """Each problem, note and (``verdicts``) verdict printed as its run is done, under a
    progress bar counting the runs."""
    from hyoka.cli._common import console
    from hyoka.pfgen import RunsWatcher

    class Shown(RunsWatcher):
        def problem(self, error: HyokaError) -> None:
            print_error(error)

        def progress(
            self, title: str, total: int
        ) -> contextlib.AbstractContextManager[Callable[[], None]]:
            return _run_progress(title, total)

        def scored(self, report: RunReport) -> None:
            if report.note is not None:
                print_warning(report.note)

        def verified(self, verdict: Verification) -> None:
            if verdicts:
                console.print(
                    f"{verdict.folder}: {verdict.verdict}",
                    highlight=False, soft_wrap=True, markup=False,
                )  # fmt: skip
            if verdict.note is not None:
                print_warning(verdict.note)

    return Shown()


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
