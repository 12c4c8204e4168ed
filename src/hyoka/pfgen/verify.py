"""``hyoka pfgen verify``: does a run's result.json follow exactly from its answers?

What a leaderboard maintainer runs on a contributed run: every run is rescored in memory
(nothing is written), with the float summation that reproduces its result.json if either
does, and the two are compared field by field. The answer is "reproduced exactly" and the
summation, or the first field that differs (``compare``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaError, InputError
from hyoka.pfgen._pysum import Summation
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.compare import Difference, first_difference
from hyoka.pfgen.runs import Progress, score_runs
from hyoka.signature import SIGNATURE_KEY
from hyoka.store import pfgen_runs


@dataclass(frozen=True)
class Verification:
    """One run's verdict: the summation used and the first difference, if any."""

    folder: Path
    summation: Summation
    difference: Difference | None
    #: where config.json no longer says what result.json records (edited after scoring)
    config_edited: Difference | None = None

    @property
    def reproduced(self) -> bool:
        return self.difference is None

    @property
    def verdict(self) -> str:
        if self.difference is None:
            return f"reproduced exactly (summation: {self.summation})"
        return f"NOT reproduced: first differing field {self.difference}"

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
    """Check every run's result.json against its trials; a run without one is an error."""
    verdicts: dict[Path, Verification | HyokaError] = {}
    to_score: list[Path] = []
    for source in sources:
        folder = source if source.is_dir() else source.parent
        if os.path.lexists(folder / pfgen_runs.RESULT_FILE):
            to_score.append(source)
        else:
            verdicts[source] = InputError(
                f"{folder}: no {pfgen_runs.RESULT_FILE} to verify "
                "(score the run with 'hyoka pfgen score')"
            )
    outcomes = score_runs(
        to_score, benchmark, force=True, write=False, workers=workers, progress=progress,
        recorded_config=True,
    )  # fmt: skip
    for source, outcome in outcomes:
        if isinstance(outcome, HyokaError):
            verdicts[source] = outcome
            continue
        if outcome.previous is None or outcome.summation is None:  # removed meanwhile
            missing = outcome.folder / pfgen_runs.RESULT_FILE
            verdicts[source] = InputError(f"{missing}: gone before it could be verified")
            continue
        difference = first_difference(outcome.previous, outcome.result, ignore=(SIGNATURE_KEY,))
        verdicts[source] = Verification(
            outcome.folder,
            outcome.summation,
            difference,
            _config_edited(outcome.folder, outcome.previous),
        )
    return [(source, verdicts[source]) for source in sources]


def _config_edited(folder: Path, recorded: dict[str, Any]) -> Difference | None:
    """How config.json differs from the settings result.json records, if it does."""
    try:
        current = pfgen_runs.read_config(folder)
    except HyokaError:
        return None  # unreadable now: the result's own settings are what was checked
    if current is None or not isinstance(recorded.get("config"), dict):
        return None
    return first_difference({"config": recorded["config"]}, {"config": current})
