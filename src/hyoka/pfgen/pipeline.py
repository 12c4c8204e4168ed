"""A pfgen-bench run from start to finish, as ``hyoka pfgen generate`` / ``run`` and
``hyoka demo`` make it: plan from the settings, connect to the model, generate the trials
(resumably), score the run afresh, and place it among the public leaderboard's runs.

The command line only parses flags, calls these and shows what they hand back; a Python
user gets the same run, with the same folder, files and numbers::

    from hyoka.pfgen import GenerateSettings, PfgenBenchmark, run_pfgen
    done = run_pfgen(GenerateSettings(model="openai/gpt-4o-mini"), PfgenBenchmark.load())
    done.summary.score, done.generated.folder

A ``RunWatcher`` hears the run as it goes (the plan before the first request, each answer
and trial, the generation's account before scoring), which is how the command line draws
its progress bars; by default nothing is shown.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.data import resolve_data_dir
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.generate import (
    GenerateSettings,
    GenerationReport,
    PlannedRun,
    generate_run,
    plan_generation,
)
from hyoka.pfgen.leaderboard import collect, rank
from hyoka.pfgen.runs import score_run
from hyoka.pfgen.summary import RunSummary
from hyoka.providers import ClientStats, connect

#: Rows shown above and below a new run among the public ones.
NEIGHBOURS = 3


class RunWatcher:
    """What a front end hears as a run goes; each method does nothing unless overridden."""

    def planned(self, planned: PlannedRun) -> None:
        """The run is planned (its folder, questions and trials are known); no request yet."""

    def advanced(self, kind: str, trial: int) -> None:
        """One ``"answer"`` of ``trial`` came back, or the whole ``"trial"`` was written."""

    def generated(self, generated: GeneratedRun) -> None:
        """Every trial is written; the run has not been scored yet."""


@dataclass(frozen=True)
class GeneratedRun:
    """A generated run: its folder, what generation did, and what the calls cost."""

    folder: Path
    report: GenerationReport
    stats: ClientStats

    def to_json(self) -> dict[str, Any]:
        """The run folder, the trials generated now and before, the empty answers asked
        again (and those whose thinking never closed), the calls and tokens."""
        report, stats = self.report, self.stats
        return {
            "folder": str(self.folder), "trials_generated": report.trials_generated,
            "trials_done_before": report.trials_done_before,
            "empty_retries": report.empty_retries,
            "unclosed_thinking": report.unclosed_thinking, "requests": stats.requests,
            "cache_hits": stats.cache_hits, "retries": stats.retries,
            "prompt_tokens": stats.usage.prompt_tokens,
            "completion_tokens": stats.usage.completion_tokens,
        }  # fmt: skip


@dataclass(frozen=True)
class PfgenRun:
    """A run generated and scored: ``summary`` holds its headline numbers and signature."""

    generated: GeneratedRun
    summary: RunSummary

    def to_json(self) -> dict[str, Any]:
        """What generation did (``generated``) and the run's scores (``summary``, as
        ``pfgen score --json`` gives them)."""
        return {"generated": self.generated.to_json(), "summary": self.summary.to_json()}


@dataclass(frozen=True)
class Neighbours:
    """A run among the public leaderboard's runs: the nearest ``rows`` around it, ranked,
    the first of them at rank ``first_rank``, from the results in ``public``."""

    public: Path
    rows: list[RunSummary]
    first_rank: int


def make_run(
    settings: GenerateSettings, benchmark: PfgenBenchmark, watcher: RunWatcher | None = None
) -> GeneratedRun:
    """Plan the run from ``settings``, connect to the model and generate every missing
    trial into the run folder (``generate_run``: locked, resumable, ``trials.jsonl.xz``
    rewritten); a bad setting is a ``HyokaError`` naming its flag, before any request."""
    watcher = watcher or RunWatcher()
    planned = plan_generation(settings, benchmark)
    client = connect(
        settings.model,
        base_url=settings.base_url,
        options=settings.options,
        no_cache=settings.no_cache,
        concurrency=settings.concurrency,
    )
    watcher.planned(planned)

    async def go() -> GenerationReport:
        async with client:
            return await generate_run(
                planned.plan, client, planned.samples, planned.questions, watcher.advanced
            )

    report = asyncio.run(go())
    generated = GeneratedRun(planned.plan.folder, report, client.stats)
    watcher.generated(generated)
    return generated


def score_new_run(folder: Path, benchmark: PfgenBenchmark) -> RunSummary:
    """Score one run afresh (``result.json`` rewritten whatever was there) and hand back its
    headline numbers."""
    outcome = score_run(folder, benchmark, force=True)
    return RunSummary.from_result(outcome.folder, outcome.result)


def run_pfgen(
    settings: GenerateSettings, benchmark: PfgenBenchmark, watcher: RunWatcher | None = None
) -> PfgenRun:
    """Generate a run (``make_run``), then score it (``score_new_run``)."""
    generated = make_run(settings, benchmark, watcher)
    return PfgenRun(generated, score_new_run(generated.folder, benchmark))


def public_neighbours(
    ours: RunSummary, data_dir: Path | None = None, neighbours: int = NEIGHBOURS
) -> Neighbours | None:
    """``ours`` ranked among the public results of the data directory, with ``neighbours``
    rows on each side; ``None`` when the data directory has no results."""
    public = resolve_data_dir(data_dir) / "pfgen-bench" / "results"
    if not public.is_dir():
        return None
    rows = rank([*collect(public), ours])
    start = max(rows.index(ours) - neighbours, 0)
    return Neighbours(public, rows[start : start + 2 * neighbours + 1], start + 1)
