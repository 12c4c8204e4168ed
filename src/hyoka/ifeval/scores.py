"""M-IFEval accuracies: prompt level, instruction level, per group and per instruction.

As upstream's ``evaluation_main.py`` reports them: the prompt-level accuracy is the share
of prompts whose every instruction is followed; the instruction-level accuracy pools all
instructions (a prompt with three counts three times). hyoka adds the same share per
instruction group (``ja:keywords``; upstream's first level, the part before the first
colon, is ``ja`` for every Japanese id) and per instruction id.

``tally`` counts; ``score`` adds percentile bootstrap intervals over prompts to the
prompt-level, instruction-level and per-group shares: the prompts are drawn with
replacement, so the instructions of one prompt stay together, and a pooled share is the
ratio of the drawn prompts' sums. A single instruction id (4 to 12 instructions in the
Japanese set) gets its count alone: an interval over so few says little.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from hyoka.errors import InputError
from hyoka.ifeval.registry import group_of
from hyoka.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, bootstrap


class Verdicts(Protocol):
    """One prompt's instruction ids and whether each was followed."""

    @property
    def ids(self) -> tuple[str, ...]: ...

    @property
    def follows(self) -> tuple[bool, ...]: ...


@dataclass(frozen=True)
class Bootstrap:
    """How the intervals are drawn."""

    resamples: int = DEFAULT_RESAMPLES
    confidence: float = 0.95
    seed: int = DEFAULT_SEED


@dataclass(frozen=True)
class Accuracy:
    """A share of verdicts followed: ``followed`` of ``total``, with its interval where
    one is drawn."""

    followed: int
    total: int
    interval: Interval | None = None

    @property
    def value(self) -> float:
        return self.followed / self.total

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "followed": self.followed,
            "total": self.total,
            "accuracy": self.value,
        }
        if self.interval is not None:
            shown.update(self.interval.to_json())
        return shown


@dataclass(frozen=True)
class Scores:
    """One mode's accuracies over a model's responses."""

    prompts: int
    prompt_level: Accuracy
    instruction_level: Accuracy
    groups: dict[str, Accuracy]
    instructions: dict[str, Accuracy]

    def to_json(self) -> dict[str, Any]:
        return {
            "prompts": self.prompts,
            "prompt_level": self.prompt_level.to_json(),
            "instruction_level": self.instruction_level.to_json(),
            "groups": {name: acc.to_json() for name, acc in self.groups.items()},
            "instructions": {name: acc.to_json() for name, acc in self.instructions.items()},
        }


def _counts(rows: Sequence[Verdicts], names: Sequence[str], name_of: Any) -> Any:
    """Per prompt (rows) and name (columns): instructions followed, and instructions."""
    column = {name: j for j, name in enumerate(names)}
    followed = np.zeros((len(rows), len(names)), dtype=np.float64)
    counts = np.zeros((len(rows), len(names)), dtype=np.float64)
    for i, row in enumerate(rows):
        for iid, done in zip(row.ids, row.follows, strict=True):
            j = column[name_of(iid)]
            counts[i, j] += 1
            followed[i, j] += done
    return followed, counts


def _same(instruction_id: str) -> str:
    return instruction_id


def tally(rows: Sequence[Verdicts]) -> Scores:
    """The accuracies of one mode's verdicts (one row per prompt), counted, no intervals."""
    if not rows:
        raise InputError("no verdicts to score")
    ids = sorted({i for r in rows for i in r.ids})
    groups = sorted({group_of(i) for i in ids})
    instructions = sum(len(r.ids) for r in rows)
    if instructions == 0:
        raise InputError("no instructions to score")

    def accuracies(names: Sequence[str], name_of: Any) -> dict[str, Accuracy]:
        followed, counts = _counts(rows, names, name_of)
        return {
            name: Accuracy(int(followed[:, j].sum()), int(counts[:, j].sum()))
            for j, name in enumerate(names)
        }

    return Scores(
        len(rows),
        Accuracy(sum(1 for r in rows if all(r.follows)), len(rows)),
        Accuracy(sum(sum(r.follows) for r in rows), instructions),
        accuracies(groups, group_of),
        accuracies(ids, _same),
    )


def _interval(followed: Any, counts: Any, draws: Bootstrap) -> Interval:
    """The pooled share ``sum(followed) / sum(counts)`` over prompts drawn with replacement."""

    def share(picks: Any) -> Any:
        with np.errstate(invalid="ignore", divide="ignore"):
            return followed[picks].sum(axis=1) / counts[picks].sum(axis=1)

    return bootstrap(
        share,
        len(followed),
        resamples=draws.resamples,
        confidence=draws.confidence,
        seed=draws.seed,
    )


def score(rows: Sequence[Verdicts], draws: Bootstrap | None = None) -> Scores:
    """``tally`` with bootstrap intervals over prompts (module docstring)."""
    draws = draws or Bootstrap()
    counted = tally(rows)
    ones = np.ones(len(rows), dtype=np.float64)
    every = np.array([all(r.follows) for r in rows], dtype=np.float64)
    followed = np.array([sum(r.follows) for r in rows], dtype=np.float64)
    sizes = np.array([len(r.ids) for r in rows], dtype=np.float64)
    group_names = list(counted.groups)
    by_group, group_sizes = _counts(rows, group_names, group_of)

    def with_interval(accuracy: Accuracy, interval: Interval) -> Accuracy:
        return Accuracy(accuracy.followed, accuracy.total, interval)

    return Scores(
        counted.prompts,
        with_interval(counted.prompt_level, _interval(every, ones, draws)),
        with_interval(counted.instruction_level, _interval(followed, sizes, draws)),
        {
            name: with_interval(
                counted.groups[name], _interval(by_group[:, j], group_sizes[:, j], draws)
            )
            for j, name in enumerate(group_names)
        },
        counted.instructions,
    )
