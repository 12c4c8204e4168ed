"""M-IFEval accuracies: prompt level, instruction level, per group and per instruction.

As upstream's ``evaluation_main.py`` reports them: the prompt-level accuracy is the share
of prompts whose every instruction is followed; the instruction-level accuracy pools all
instructions (a prompt with three counts three times). hyoka adds the same share per
instruction group (``ja:keywords``; upstream's first level, the part before the first
colon, is ``ja`` for every Japanese id) and per instruction id, each with a percentile
bootstrap interval over prompts: the prompts are drawn with replacement, so the instructions
of one prompt stay together, and a pooled share is the ratio of the drawn prompts' sums.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
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
    """A share of verdicts followed: ``followed`` of ``total``, with its interval."""

    followed: int
    total: int
    interval: Interval

    @property
    def value(self) -> float:
        return self.followed / self.total

    def to_json(self) -> dict[str, Any]:
        return {"followed": self.followed, "total": self.total, **self.interval.to_json()}


@dataclass(frozen=True)
class Scores:
    """One mode's accuracies over a model's responses."""

    prompts: int
    prompt_level: Accuracy
    instruction_level: Accuracy
    groups: dict[str, Accuracy] = field(default_factory=dict)
    instructions: dict[str, Accuracy] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "prompts": self.prompts,
            "prompt_level": self.prompt_level.to_json(),
            "instruction_level": self.instruction_level.to_json(),
            "groups": {name: acc.to_json() for name, acc in self.groups.items()},
            "instructions": {name: acc.to_json() for name, acc in self.instructions.items()},
        }


def _any_id(instruction_id: str) -> bool:
    return True


def _in_group(group: str, instruction_id: str) -> bool:
    return group_of(instruction_id) == group


def _is_id(wanted: str, instruction_id: str) -> bool:
    return instruction_id == wanted


def _pooled(
    rows: Sequence[Verdicts], keep: Callable[[str], bool], draws: Bootstrap
) -> Accuracy | None:
    """The share of kept instructions followed, prompts resampled; ``None`` where no
    prompt has one."""
    followed = np.array(
        [sum(f for i, f in zip(r.ids, r.follows, strict=True) if keep(i)) for r in rows],
        dtype=np.float64,
    )
    counts = np.array([sum(1 for i in r.ids if keep(i)) for r in rows], dtype=np.float64)
    total = int(counts.sum())
    if total == 0:
        return None

    def share(picks: Any) -> Any:
        with np.errstate(invalid="ignore", divide="ignore"):
            return followed[picks].sum(axis=1) / counts[picks].sum(axis=1)

    interval = bootstrap(
        share,
        len(rows),
        resamples=draws.resamples,
        confidence=draws.confidence,
        seed=draws.seed,
    )
    return Accuracy(int(followed.sum()), total, interval)


def score(rows: Sequence[Verdicts], draws: Bootstrap | None = None) -> Scores:
    """The accuracies of one mode's verdicts (one row per prompt)."""
    if not rows:
        raise InputError("no verdicts to score")
    draws = draws or Bootstrap()
    every = np.array([all(r.follows) for r in rows], dtype=np.float64)

    def mean(picks: Any) -> Any:
        return every[picks].mean(axis=1)

    prompt_level = Accuracy(
        int(every.sum()),
        len(rows),
        bootstrap(
            mean,
            len(rows),
            resamples=draws.resamples,
            confidence=draws.confidence,
            seed=draws.seed,
        ),
    )
    instruction_level = _pooled(rows, _any_id, draws)
    if instruction_level is None:
        raise InputError("no instructions to score")
    ids = sorted({i for r in rows for i in r.ids})
    groups = sorted({group_of(i) for i in ids})
    by_group = {g: _pooled(rows, partial(_in_group, g), draws) for g in groups}
    by_id = {n: _pooled(rows, partial(_is_id, n), draws) for n in ids}
    return Scores(
        len(rows),
        prompt_level,
        instruction_level,
        {g: a for g, a in by_group.items() if a is not None},
        {n: a for n, a in by_id.items() if a is not None},
    )
