"""JFBench's summary as upstream's ``analyze.py`` gives it, with bootstrap intervals.

Upstream groups its result records by (prompt source, number of constraints, model) and
counts, per group: records, those whose reasoning is present but blank, generated ones
(a response or results present), evaluated ones (results present), and successes
(results a non-empty mapping whose every verdict is true); the success rate is successes
over evaluated records, in percent (upstream prints 0.0 when none is evaluated; hyoka
says ``None``, n/a: 0/0 is no rate). ``summarize`` counts
the same; ``score`` adds a percentile bootstrap interval over the evaluated records to
each success rate (none for a group with nothing evaluated), and the share of constraints
satisfied per constraint group (``Format``, ``IfbenchWords``), the per-group breakdown
upstream's visualisation draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hyoka.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, bootstrap


@dataclass(frozen=True)
class Record:
    """One result record, reduced to what the summary reads."""

    prompt_source: str
    n_constraints: int
    model: str
    generated: bool
    results: Mapping[str, bool] | None
    groups: tuple[str, ...] = ()
    #: reasoning content present but blank (upstream counts these: a thinking model that
    #: spent its budget)
    empty_reasoning: bool = False

    @property
    def success(self) -> bool:
        return bool(self.results) and all(bool(v) for v in (self.results or {}).values())


@dataclass(frozen=True, order=True)
class GroupKey:
    prompt_source: str
    n_constraints: int
    model: str


@dataclass
class Tally:
    """One group's counts (upstream's ``GroupStats``)."""

    total: int = 0
    generated: int = 0
    evaluated: int = 0
    success: int = 0
    empty_reasoning: int = 0
    interval: Interval | None = None

    @property
    def pending(self) -> int:
        return max(self.generated - self.evaluated, 0)

    @property
    def failure(self) -> int:
        return max(self.evaluated - self.success, 0)

    @property
    def success_rate(self) -> float | None:
        """Successes over evaluated records, in percent; ``None`` (n/a) with none
        evaluated, where upstream shows 0.0, a rate nothing measured."""
        return 100.0 * self.success / self.evaluated if self.evaluated else None

    @property
    def shown_rate(self) -> str:
        """The success rate as the table prints it: ``57.1%``, or ``n/a``."""
        rate = self.success_rate
        return "n/a" if rate is None else f"{rate:.1f}%"

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "records": self.total,
            "generated": self.generated,
            "evaluated": self.evaluated,
            "empty_reasoning": self.empty_reasoning,
            "pending": self.pending,
            "success": self.success,
            "failure": self.failure,
            "success_rate": self.success_rate,
        }
        if self.interval is not None:
            shown.update(self.interval.to_json())
        return shown


@dataclass(frozen=True)
class Share:
    """Constraints of one group satisfied, of those evaluated."""

    satisfied: int
    total: int

    @property
    def value(self) -> float:
        return self.satisfied / self.total


@dataclass(frozen=True)
class Summary:
    groups: dict[GroupKey, Tally]
    total: Tally
    constraint_groups: dict[str, dict[str, Share]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "groups": [
                {
                    "prompt_source": key.prompt_source,
                    "n_constraints": key.n_constraints,
                    "model": key.model,
                    **tally.to_json(),
                }
                for key, tally in sorted(self.groups.items())
            ],
            "total": self.total.to_json(),
            "constraint_groups": {
                model: {
                    name: {"satisfied": s.satisfied, "total": s.total, "share": s.value}
                    for name, s in sorted(shares.items())
                }
                for model, shares in sorted(self.constraint_groups.items())
            },
        }


def summarize(records: Sequence[Record]) -> Summary:
    """Upstream's counts per (source, constraints, model) and in total; no intervals."""
    groups: dict[GroupKey, Tally] = {}
    total = Tally()
    for record in records:
        key = GroupKey(record.prompt_source, record.n_constraints, record.model)
        for tally in (groups.setdefault(key, Tally()), total):
            tally.total += 1
            tally.generated += record.generated
            tally.empty_reasoning += record.empty_reasoning
            if record.results is not None:
                tally.evaluated += 1
                tally.success += record.success
    return Summary(groups, total, _constraint_groups(records))


def _constraint_groups(records: Sequence[Record]) -> dict[str, dict[str, Share]]:
    counts: dict[str, dict[str, list[int]]] = {}
    for record in records:
        if record.results is None or len(record.groups) != len(record.results):
            continue
        per_model = counts.setdefault(record.model, {})
        for group, verdict in zip(record.groups, record.results.values(), strict=True):
            cell = per_model.setdefault(group, [0, 0])
            cell[0] += bool(verdict)
            cell[1] += 1
    return {
        model: {group: Share(s, t) for group, (s, t) in shares.items()}
        for model, shares in counts.items()
    }


def _success_interval(
    successes: Sequence[bool], resamples: int, confidence: float, seed: int
) -> Interval:
    """The success rate in percent over evaluated records drawn with replacement."""
    values = np.array(successes, dtype=np.float64) * 100.0

    def rate(picks: Any) -> Any:
        return values[picks].mean(axis=1)

    return bootstrap(rate, len(values), resamples=resamples, confidence=confidence, seed=seed)


def score(
    records: Sequence[Record],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> Summary:
    """``summarize`` with a bootstrap interval on every success rate that has records."""
    counted = summarize(records)
    by_key: dict[GroupKey, list[bool]] = {}
    for record in records:
        if record.results is not None:
            key = GroupKey(record.prompt_source, record.n_constraints, record.model)
            by_key.setdefault(key, []).append(record.success)
    for key, successes in by_key.items():
        counted.groups[key].interval = _success_interval(successes, resamples, confidence, seed)
    every = [r.success for r in records if r.results is not None]
    if every:
        counted.total.interval = _success_interval(every, resamples, confidence, seed)
    return counted
