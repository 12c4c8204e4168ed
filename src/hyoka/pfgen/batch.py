"""Many runs scored or verified at once, as ``hyoka pfgen score`` and ``hyoka pfgen verify``
do it: every run under the paths given found (a run that cannot be read is reported and the
others still go through), the benchmark loaded once, each run scored or checked as the
workers finish it.

The command line only parses flags, calls ``score_paths`` or ``verify_paths`` and shows
what they hand back; a ``RunsWatcher`` hears each problem, run and verdict as it comes
(which is how the command prints them as they are done and draws its progress bar). A
benchmark whose question files are not the pinned release is named in a ``HyokaWarning``.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka import arguments
from hyoka.errors import HyokaError, HyokaWarning
from hyoka.pfgen._pysum import Summation
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.runs import RunReport, iter_score_runs
from hyoka.pfgen.verify import Verification, iter_verify_runs
from hyoka.store import pfgen_runs


def _not_counted() -> None:
    pass


class RunsWatcher:
    """What a front end hears as runs are scored or verified; by default nothing."""

    def problem(self, error: HyokaError) -> None:
        """A path, a folder or a run that cannot be read or scored (the others go on)."""

    def progress(
        self, title: str, total: int
    ) -> contextlib.AbstractContextManager[Callable[[], None]]:
        """Counting ``total`` runs: the function that counts one."""
        return contextlib.nullcontext(_not_counted)

    def scored(self, report: RunReport) -> None:
        """One run scored (or left as it was, up to date)."""

    def verified(self, verdict: Verification) -> None:
        """One run's verdict."""


@dataclass
class FoundRuns:
    """Every run under the paths given (``sources``, each mapped to the path it was found
    under), the problems met finding them (``failures``) and the folders that look like
    runs but hold no answers (``skipped``)."""

    sources: dict[Path, Path] = field(default_factory=dict)
    failures: int = 0
    skipped: list[pfgen_runs.SkippedFolder] = field(default_factory=list)


def find_paths(paths: Sequence[Path], watcher: RunsWatcher | None = None) -> FoundRuns:
    """Every run under ``paths`` (trials files, run folders, trees of them), each once; a
    path or folder that cannot be read is told to ``watcher`` and counted."""
    watcher = watcher or RunsWatcher()
    found = FoundRuns()
    for path in paths:
        try:
            scan = pfgen_runs.scan_runs(path)
        except HyokaError as exc:
            watcher.problem(exc)
            found.failures += 1
            continue
        for problem in scan.problems:
            watcher.problem(problem)
        found.failures += len(scan.problems)
        found.sources.update((s, path) for s in scan.sources if s not in found.sources)
        found.skipped.extend(scan.skipped)
    return found


def _benchmark(data_dir: Path | None) -> PfgenBenchmark:
    benchmark = PfgenBenchmark.load(data_dir)
    note = benchmark.data_note()
    if note is not None:  # one's own reference sets are legitimate, and named
        warnings.warn(note, HyokaWarning, stacklevel=3)
    return benchmark


@dataclass
class ScoredRuns:
    """The runs scored (``reports``, in the order found), the runs found and the failures."""

    found: FoundRuns
    reports: list[RunReport]
    failures: int

    def to_json(self) -> list[dict[str, Any]]:
        """One row per run: its scores (``RunSummary.to_json``), whether it was left as it
        was (``skipped``) and the answers it was scored from."""
        return [
            {
                **r.summary.to_json(),
                "skipped": r.skipped,
                "answers": pfgen_runs.source_label(r.source),
            }
            for r in self.reports
        ]


def score_paths(
    paths: Sequence[Path],
    *,
    force: bool = False,
    summation: Summation | None = None,
    workers: int | None = None,
    data_dir: Path | None = None,
    watcher: RunsWatcher | None = None,
) -> ScoredRuns:
    """Score every run under ``paths`` and write result.json beside each (``force``: even
    where it is up to date; ``summation``: that float summation, else the one that
    reproduces the existing result); nothing is loaded when no run is found."""
    arguments.paths("paths", paths, empty=False)
    arguments.at_least_one("workers", workers)
    watcher = watcher or RunsWatcher()
    found = find_paths(paths, watcher)
    failures, done = found.failures, {}
    if not found.sources:
        return ScoredRuns(found, [], failures)
    benchmark = _benchmark(data_dir)
    sources = list(found.sources)
    with watcher.progress(f"Scoring {len(sources)} run(s)", len(sources)) as advance:
        reports = iter_score_runs(
            sources, benchmark, roots=found.sources, force=force, summation=summation,
            workers=workers,
        )  # fmt: skip
        for source, report in reports:  # told as each run is done, then let go
            advance()
            if isinstance(report, HyokaError):
                failures += 1
                watcher.problem(report)
                continue
            watcher.scored(report)
            done[source] = report
    return ScoredRuns(found, [done[s] for s in sources if s in done], failures)


@dataclass
class VerifiedRuns:
    """The verdicts of the runs checked (in the order done), the runs found and the
    failures (runs not reproduced or not readable)."""

    found: FoundRuns
    verdicts: list[Verification]
    failures: int

    def to_json(self) -> list[dict[str, Any]]:
        """One row per run: its folder, the answers checked, whether it was reproduced,
        the verdict line and the note, if any."""
        return [
            {"folder": str(v.folder), "answers": pfgen_runs.source_label(v.source),
             "reproduced": v.reproduced, "verdict": v.verdict, "note": v.note}
            for v in self.verdicts
        ]  # fmt: skip


def verify_paths(
    paths: Sequence[Path],
    *,
    workers: int | None = None,
    data_dir: Path | None = None,
    watcher: RunsWatcher | None = None,
) -> VerifiedRuns:
    """Rescore every run under ``paths`` in memory (nothing is written) and compare it
    with its result.json, field by field."""
    arguments.paths("paths", paths, empty=False)
    arguments.at_least_one("workers", workers)
    watcher = watcher or RunsWatcher()
    found = find_paths(paths, watcher)
    failures, verdicts = found.failures, []
    if found.sources:
        benchmark = _benchmark(data_dir)
        sources = list(found.sources)
        with watcher.progress(f"Verifying {len(sources)} run(s)", len(sources)) as advance:
            for _source, verdict in iter_verify_runs(sources, benchmark, workers=workers):
                advance()  # each verdict is told as its run is done, then let go
                if isinstance(verdict, HyokaError):
                    failures += 1
                    watcher.problem(verdict)
                    continue
                failures += not verdict.reproduced
                watcher.verified(verdict)
                verdicts.append(verdict)
    return VerifiedRuns(found, verdicts, failures)
