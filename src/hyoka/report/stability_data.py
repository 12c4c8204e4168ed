"""Reference-set stability: each run's pfgen score under one reference set against another.

The pfgen-bench papers (seeds 000/002 §5.1, Figure 3) ask whether the benchmark depends on
the model that wrote a reference set: every run is scored with the ensemble of all sets (the
published score) and with each single set alone (P = PLaMo-100b, S = Stockmark-100b,
T = Swallow-MX-8x7b in the published data), and the scores are correlated across runs.
``hyoka.pfgen.refset_stability`` does exactly that with the exact scorer; the report only
reads or runs it (here) and draws its numbers (``stability_pages``), so every point is a real
run scored against real reference sets.

The report finds such numbers in two places, and draws each:

- a file written by ``hyoka pfgen stability --json > stability.json`` among the paths given
  (recognised by its keys, as every input is, never by its name): free, the numbers as the
  command computed them;
- ``hyoka report --stability``: the report runs the experiment itself over every run with
  answers (the runs named and the public runs that keep their ``trials`` file). Every
  answer is measured again (73 s for the 49 public runs on an idle two-core machine, three
  times that on a busy one), which is why it is asked for, not done by default.

Correlations are computed from the plotted points, so the page shows what its dots say:
Spearman's ρ and Pearson's r with 95% bootstrap intervals over runs (``hyoka.stats``) and
Kendall's τ-b (``hyoka.stats``), each named.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

from hyoka.errors import InputError
from hyoka.pfgen import ENSEMBLE
from hyoka.signature import SIGNATURE_KEY, Signature
from hyoka.stats import DEFAULT_RESAMPLES, Interval
from hyoka.store import read_json

if TYPE_CHECKING:
    from hyoka.pfgen import PfgenBenchmark

#: The keys that make a JSON object the output of ``hyoka pfgen stability --json``.
MARKERS = frozenset({"sets", "runs", "correlations", "questions_scored_with_set_alone"})
#: A JSON file larger than this is not read to see whether it is a stability report.
MAX_FILE_BYTES = 20_000_000
#: Set against set panels are drawn for at most this many sets (else only against the
#: ensemble), as ``hyoka pfgen stability --plot`` does.
MAX_PAIRED_SETS = 3
#: The sets the papers compare; a benchmark without all of them compares all of its own.
PAPER_SETS = ("P", "S", "T")
#: Fewer runs than this say nothing about a correlation (``hyoka.stats`` refuses them too).
MIN_RUNS = 3
COMPUTED_HOW = "computed by this report (hyoka report --stability)"


@dataclass(frozen=True)
class StabilityRun:
    label: str
    folder: Path | None
    #: variant (``ensemble`` or a set name) -> the run's score under it
    scores: Mapping[str, float]


@dataclass(frozen=True)
class Stability:
    """One stability experiment as drawn: where it came from and each run's scores."""

    source: str  # a file, or COMPUTED_HOW
    sets: tuple[str, ...]
    common_only: bool
    #: set name -> how many questions were scored with that set alone
    questions: Mapping[str, int]
    runs: tuple[StabilityRun, ...]
    signature: Signature | None
    #: how many runs' ensemble score equals their published score (None: not recorded)
    matches_published: int | None = None
    #: how many runs have a published score (a result.json) to compare with
    published: int = 0

    @property
    def pairs(self) -> list[tuple[str, str]]:
        pairs = [(ENSEMBLE, name) for name in self.sets]
        if len(self.sets) <= MAX_PAIRED_SETS:
            pairs += list(combinations(self.sets, 2))
        return pairs


def is_stability_object(value: object) -> bool:
    return isinstance(value, dict) and value.keys() >= MARKERS


def sniff_stability_file(path: Path) -> bool:
    """Whether ``path`` holds a ``hyoka pfgen stability --json`` report (unreadable: no)."""
    try:
        return is_stability_object(read_json(path, strict=False, max_bytes=MAX_FILE_BYTES))
    except InputError:
        return False


def read_stability_file(path: Path) -> Stability:
    """The experiment a ``hyoka pfgen stability --json`` file records; a malformed one is an
    ``InputError`` naming the file and what is wrong."""
    try:
        raw = read_json(path, strict=False)
    except InputError as exc:
        raise InputError(f"cannot read the stability report: {exc}") from None
    if not is_stability_object(raw):
        raise InputError(f"{path}: not a stability report (`hyoka pfgen stability --json`)")
    sets = raw["sets"]
    if not isinstance(sets, list) or len(sets) < 2 or not all(isinstance(s, str) for s in sets):
        raise InputError(f"{path}: 'sets' must list two or more reference set names")
    variants = (ENSEMBLE, *sets)
    runs: list[StabilityRun] = []
    entries = raw["runs"] if isinstance(raw["runs"], list) else None
    if entries is None or len(entries) < MIN_RUNS:
        raise InputError(f"{path}: 'runs' must list at least {MIN_RUNS} runs")
    for number, entry in enumerate(entries, 1):
        scores = _scores(entry, variants)
        if scores is None:
            raise InputError(
                f"{path}: run {number} lacks a finite score for each of {', '.join(variants)}"
            )
        folder = entry.get("folder")
        runs.append(
            StabilityRun(
                str(entry.get("run", folder or f"run {number}")),
                Path(folder) if isinstance(folder, str) else None,
                scores,
            )
        )
    questions = raw["questions_scored_with_set_alone"]
    matches = raw.get("ensemble_matches_published")
    published = sum(1 for e in entries if isinstance(e.get("published"), int | float))
    return Stability(
        source=str(path),
        sets=tuple(sets),
        common_only=bool(raw.get("common_only", False)),
        questions={str(k): int(v) for k, v in questions.items()}
        if isinstance(questions, dict)
        else {},
        runs=tuple(runs),
        signature=Signature.from_json(raw.get(SIGNATURE_KEY), path),
        matches_published=matches if isinstance(matches, int) else None,
        published=published,
    )


def _scores(entry: object, variants: Sequence[str]) -> dict[str, float] | None:
    """The run's finite score under every variant, or None when one is missing."""
    if not isinstance(entry, dict):
        return None
    scores: dict[str, float] = {}
    for variant in variants:
        value = entry.get(variant)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        if not math.isfinite(value):
            return None
        scores[variant] = float(value)
    return scores


def compare_sets(benchmark: PfgenBenchmark) -> list[str]:
    """The papers' P, S and T when the benchmark has them all; else every set it has (a
    rebuilt benchmark names its sets after the models that wrote them)."""
    scorers = benchmark.scorers(benchmark.questions)
    available = sorted({name for s in scorers.values() for name in s.set_names})
    if all(name in available for name in PAPER_SETS):
        return list(PAPER_SETS)
    if len(available) < 2:
        raise InputError(
            f"{benchmark.folder}: one reference set ({', '.join(available)}): nothing to "
            "compare it with"
        )
    return available


def compute_stability(
    sources: Sequence[Path],
    benchmark: PfgenBenchmark,
    *,
    seed: int,
    workers: int | None = None,
) -> Stability:
    """Run the experiment (``hyoka.pfgen.refset_stability``) over the runs at ``sources``,
    its correlations' intervals drawn as the page draws them (``pair_correlation``)."""
    from hyoka.pfgen import refset_stability

    sets = compare_sets(benchmark)
    report = refset_stability(
        sources, benchmark, sets=sets, resamples=DEFAULT_RESAMPLES, seed=seed, workers=workers
    )
    return Stability(
        source=COMPUTED_HOW,
        sets=report.sets,
        common_only=report.common_only,
        questions=report.questions,
        runs=tuple(StabilityRun(r.label, r.folder, dict(r.scores)) for r in report.runs),
        signature=report.signature,
        matches_published=report.ensemble_matches_published,
        published=sum(1 for r in report.runs if r.published is not None),
    )


@dataclass(frozen=True)
class PairCorrelation:
    first: str
    second: str
    n: int
    spearman: Interval
    kendall: float
    pearson: Interval


def pair_correlation(data: Stability, first: str, second: str, seed: int) -> PairCorrelation:
    """Spearman's ρ and Pearson's r (with bootstrap intervals) and Kendall's τ-b of the
    runs' scores under ``first`` against ``second``.

    The intervals are drawn with the resamples and seed the experiment's signature records,
    so the page shows the intervals that ``hyoka pfgen stability`` printed; a file whose
    signature records none (an older hyoka) gets the defaults and the report's ``seed``."""
    from hyoka.stats import correlate, kendall_tau_b

    xs = [r.scores[first] for r in data.runs]
    ys = [r.scores[second] for r in data.runs]
    resamples, seed = _interval_settings(data.signature, seed)
    both = correlate(xs, ys, resamples=resamples, seed=seed)
    return PairCorrelation(
        first, second, both.n, both.spearman, kendall_tau_b(xs, ys), both.pearson
    )


def _interval_settings(signature: Signature | None, seed: int) -> tuple[int, int]:
    """The (resamples, seed) a stability signature records, else the defaults and ``seed``."""
    fields = signature.as_dict() if signature is not None else {}
    try:
        return int(fields["resamples"]), int(fields["seed"])
    except (KeyError, ValueError):
        return DEFAULT_RESAMPLES, seed
