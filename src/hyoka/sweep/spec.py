"""What a sweep is made of: the models and judges a plan names (``Endpoint``), the suites
(``Suite``), the cells (one model on one suite, one judge where the suite is judged) and
the checked plan (``SweepPlan``); and what kind each suite is, read off the benchmark's
judging protocol, never off its name (as ``mtbench.run`` tells them apart): pfgen-bench
(judge-free), graded turn by turn by a judge (the registry's single grading: Japanese
MT-bench, ELYZA-tasks-100, ...), or decided by rules (M-IFEval-Ja).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: the suite name of pfgen-bench, the judge-free benchmark (not in the judged registry)
PFGEN = "pfgen-bench"
#: what a suite's cell is: pfgen-bench, graded by a judge, or decided by rules
PFGEN_KIND, JUDGED, RULED = "pfgen", "judged", "rules"


def suite_kind(bench: str) -> str | None:
    """``pfgen``, ``judged`` (FastChat-style single grading) or ``rules`` (decided by
    rules); ``None`` for a benchmark judged another way (matches drawn between models, a
    judge's votes on constraints), which a sweep does not run yet."""
    if bench == PFGEN:
        return PFGEN_KIND
    from hyoka.mtbench import FASTCHAT_JUDGING, RULE_CHECKED, definition

    # the judging protocols a sweep runs, each with its kind of cell
    kinds = {FASTCHAT_JUDGING: JUDGED, RULE_CHECKED: RULED}
    return kinds.get(definition(bench).judging)


def is_judged(bench: str) -> bool:
    """Whether ``bench``'s cells each name a judge."""
    return suite_kind(bench) == JUDGED


@dataclass(frozen=True)
class Endpoint:
    """A model or a judge as the plan names it: its ``provider/model`` string, its servers
    (``base_urls``: one, or several serving the same model, used together) and backend
    options, and its list price and call time where the plan overrides them."""

    name: str
    spec: str
    base_urls: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    price_in: float | None = None
    price_out: float | None = None
    seconds_per_call: float | None = None

    @property
    def base_url(self) -> str | None:
        """The first server (what a single command would be given), ``None``: none."""
        return self.base_urls[0] if self.base_urls else None

    def settings(self, base_url: str | None = None) -> dict[str, Any]:
        """The backend options with ``base_url`` (default: the first server) among them, as
        ``providers.connect`` hands them to ``load_provider``."""
        url = base_url or self.base_url
        return {**self.options, **({"base_url": url} if url else {})}

    def identity(self) -> dict[str, Any]:
        """What decides this endpoint's replies (its cells are redone when it changes)."""
        urls: str | list[str] | None = (  # several servers: in any order, the same replies
            sorted(self.base_urls) if len(self.base_urls) > 1 else self.base_url
        )
        found = {"spec": self.spec, "base_url": urls, "options": dict(self.options)}
        from hyoka.providers import script_pin

        pin = script_pin(self.spec)  # a scripted model's replies are its script's: its digest
        return found if pin is None else {**found, "script": pin}


@dataclass(frozen=True)
class Suite:
    """One benchmark (and variant) the models are run on, with its trial settings."""

    bench: str
    variant: str | None = None
    limit: int | None = None
    max_tokens: int | None = None
    trials: int | None = None
    mode: str | None = None
    num_examples: int | None = None
    #: the judges of this suite (default: every judge of the plan)
    judges: tuple[str, ...] | None = None

    @property
    def label(self) -> str:
        """``bench`` or ``bench.variant``, as the report names a benchmark's pages."""
        return self.bench if self.variant is None else f"{self.bench}.{self.variant}"

    def identity(self) -> dict[str, Any]:
        return {
            "bench": self.bench, "variant": self.variant, "limit": self.limit,
            "max_tokens": self.max_tokens, "trials": self.trials, "mode": self.mode,
            "num_examples": self.num_examples,
        }  # fmt: skip


@dataclass(frozen=True)
class Cell:
    """One model on one suite, judged by one judge (``None``: a suite no judge grades)."""

    model: Endpoint
    suite: Suite
    judge: Endpoint | None

    @property
    def key(self) -> str:
        """The cell's name in the sweep's manifest and progress: ``model × suite × judge``."""
        parts = [self.model.name, self.suite.label]
        return " × ".join(parts + ([self.judge.name] if self.judge is not None else []))

    @property
    def digest(self) -> str:
        """SHA-256 of every setting that decides the cell's numbers: a cell done under other
        settings is done again."""
        identity = {
            "model": self.model.identity(), "suite": self.suite.identity(),
            "judge": None if self.judge is None else self.judge.identity(),
        }  # fmt: skip
        text = json.dumps(identity, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SweepPlan:
    """A checked plan: where it was read from, the output folder, the concurrency, and its
    models, judges and suites in the file's order."""

    path: Path
    out: Path
    concurrency: int
    models: tuple[Endpoint, ...]
    judges: tuple[Endpoint, ...]
    suites: tuple[Suite, ...]

    def cells(self) -> list[Cell]:
        """Every cell, model by model, suite by suite, judge by judge (a rule-checked suite
        and pfgen-bench: one cell, no judge)."""
        out = []
        for model in self.models:
            for suite in self.suites:
                if not is_judged(suite.bench):
                    out.append(Cell(model, suite, None))
                    continue
                names = suite.judges or tuple(judge.name for judge in self.judges)
                out += [Cell(model, suite, j) for j in self.judges if j.name in names]
        return out
