"""``hyoka pfgen verify``: does a run's result.json follow exactly from its answers?

What a leaderboard maintainer runs on a contributed run, or on a whole leaderboard: every
run is rescored in memory (nothing is written) with the float summation that reproduces
its result.json if either does, and the two are compared field by field, the whole file:
its config (a result stripped of it beside a config.json differs) and its signature (the
data, summation, mode, questions and thinking rule it claims against those of the
rescoring; only versions and ``sum-from`` are not compared). The answer is "reproduced
exactly" and the summation, or the first field that differs (``compare``).
Runs are spread over workers and each verdict comes as soon as its run is done
(``iter_verify_runs``): a tree of hundreds of runs is reported as it goes, in bounded memory.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaError, InputError
from hyoka.pfgen._pysum import Summation
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.compare import MISSING, Difference, first_difference
from hyoka.pfgen.provenance import signature_difference, signature_of
from hyoka.pfgen.runs import Progress, RunOutcome, each_run, score_runs
from hyoka.signature import SIGNATURE_KEY
from hyoka.store import pfgen_runs


@dataclass(frozen=True)
class Verification:
    """One run's verdict: the answers checked (a trials file, or the folder of trial parts),
    the summation used and the first difference, if any."""

    folder: Path
    source: Path
    summation: Summation
    difference: Difference | None
    #: where config.json no longer says what result.json records (edited after scoring)
    config_edited: Difference | None = None

    @property
    def reproduced(self) -> bool:
        return self.difference is None

    @property
    def verdict(self) -> str:
        answers = pfgen_runs.source_name(self.source)
        if self.difference is None:
            return f"reproduced exactly (summation: {self.summation}; answers: {answers})"
        return f"NOT reproduced (answers: {answers}): first differing field {self.difference}"

    @property
    def note(self) -> str | None:
        """A finding that does not make the result wrong: config.json edited since."""
        d = self.config_edited
        if d is None:
            return None
        config, result = pfgen_runs.CONFIG_FILE, pfgen_runs.RESULT_FILE
        return (
            f"{self.folder / config} was edited after scoring: {d.path} is {d.published} "
            f"in {result}, {d.recomputed} in {config}"
        )


def verify_run(
    source: Path, benchmark: PfgenBenchmark, *, workers: int | None = None
) -> Verification:
    """Check one run (a run folder or trials file); raises on bad input or no result.json."""
    ((_, verdict),) = verify_runs([source], benchmark, workers=workers)
    if isinstance(verdict, HyokaError):
        raise verdict
    return verdict


def verify_runs(
    sources: Sequence[Path],
    benchmark: PfgenBenchmark,
    *,
    workers: int | None = None,
    progress: Progress | None = None,
) -> list[tuple[Path, Verification | HyokaError]]:
    """Check every run's result.json against its trials; a run without one is an error.

    The verdicts in the order of ``sources``; ``progress(done, total)`` counts runs.
    """
    verdicts: dict[Path, Verification | HyokaError] = {}
    for done, (source, verdict) in enumerate(
        iter_verify_runs(sources, benchmark, workers=workers), 1
    ):
        verdicts[source] = verdict
        if progress is not None:
            progress(done, len(sources))
    return [(source, verdicts[source]) for source in sources]


def iter_verify_runs(
    sources: Sequence[Path], benchmark: PfgenBenchmark, *, workers: int | None = None
) -> Iterator[tuple[Path, Verification | HyokaError]]:
    """Each run's verdict as soon as it is reached, runs spread over workers (``each_run``):
    only verdicts come back from the workers, never the rescored results."""
    return each_run(sources, benchmark, partial(_verify_one, benchmark=benchmark), workers)


def _verify_one(
    source: Path, workers: int | None, *, benchmark: PfgenBenchmark
) -> Verification | HyokaError:
    folder = source if source.is_dir() else source.parent
    if not os.path.lexists(folder / pfgen_runs.RESULT_FILE):
        return InputError(
            f"{folder}: no {pfgen_runs.RESULT_FILE} to verify "
            "(score the run with 'hyoka pfgen score')"
        )
    ((_, outcome),) = score_runs(
        [source], benchmark, force=True, write=False, workers=workers, recorded_config=True
    )
    if isinstance(outcome, HyokaError):
        return outcome
    if outcome.previous is None or outcome.summation is None:  # removed meanwhile
        missing = outcome.folder / pfgen_runs.RESULT_FILE
        return InputError(f"{missing}: gone before it could be verified")
    summation = outcome.summation
    difference = first_difference(outcome.previous, outcome.result, ignore=(SIGNATURE_KEY,))
    if difference is None:
        summation, difference = _signature_checked(source, benchmark, workers, outcome)
    return Verification(
        outcome.folder,
        outcome.source,
        summation,
        difference,
        _config_edited(outcome.folder, outcome.previous),
    )


def _signature_checked(
    source: Path, benchmark: PfgenBenchmark, workers: int | None, outcome: RunOutcome
) -> tuple[Summation, Difference | None]:
    """The summation a reproduced result was made with, and where its signature says other
    than rescoring does (``signature_difference``: the data, summation, mode, questions,
    thinking rule). Both summations may make the same numbers (a run summed forced one way,
    the evidence found the other first): the signed one is then as true, and kept."""
    assert outcome.previous is not None and outcome.summation is not None
    published = signature_of(outcome.previous, outcome.folder / pfgen_runs.RESULT_FILE)
    summation, recomputed = outcome.summation, outcome.signature
    if published is None or recomputed is None:
        return summation, None  # upstream's own file: nothing signed
    signed = published.get("sum")
    if signed in set(Summation) and signed != summation:
        ((_, again),) = score_runs(
            [source], benchmark, force=True, write=False, summation=Summation(signed),
            workers=workers, recorded_config=True,
        )  # fmt: skip
        if (
            not isinstance(again, HyokaError)
            and again.signature is not None
            and first_difference(outcome.previous, again.result, ignore=(SIGNATURE_KEY,)) is None
        ):
            summation, recomputed = Summation(signed), again.signature
    found = signature_difference(published, recomputed)
    if found is None:
        return summation, None
    field, said, made = found
    return summation, Difference(f"{SIGNATURE_KEY}.{field}", _quoted(said), _quoted(made))


def _quoted(value: str) -> str:
    """A signature field's value as a difference shows a JSON value (``-``: absent)."""
    return MISSING if value == "-" else json.dumps(value, ensure_ascii=False)


def _config_edited(folder: Path, recorded: dict[str, Any]) -> Difference | None:
    """How config.json differs from the settings result.json records, if it does."""
    try:
        current = pfgen_runs.read_config(folder)
    except HyokaError:
        return None  # unreadable now: the result's own settings are what was checked
    if current is None or not isinstance(recorded.get("config"), dict):
        return None
    return first_difference({"config": recorded["config"]}, {"config": current})
