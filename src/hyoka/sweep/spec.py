"""What a sweep is made of: the models and judges a plan names (``Endpoint``), the suites
(``Suite``), the cells (one model on one suite, one judge where the suite is judged) and
the checked plan (``SweepPlan``); and what kind each suite is, read off the benchmark's
judging protocol, never off its name (as ``mtbench.run`` tells them apart): pfgen-bench
(judge-free), graded turn by turn by a judge (the registry's single grading: Japanese
MT-bench, ELYZA-tasks-100, ...), decided by rules (M-IFEval-Ja), its constraints decided
by rules and a judge's votes (JFBench), or ranked from matches a judge decides between the
plan's models (Rakuda's drawn matches; a FastChat suite with ``mode = "pairwise"``).

A suite ranked from matches has no number for one model alone: each of its cells is still
one model (its answers, made in its own folder), but the cell's number is that model's row
of the ranking of every model of the plan (``Cell.peers``), judged into one file per judge
that every cell of the suite and judge shares and resumes; the first of them asks the
judge, the others read the same file back and ask nothing.
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
#: what a suite's cell is: pfgen-bench, graded by a judge, decided by rules, its
#: constraints decided by rules and a judge, matches drawn between the plan's models
#: (Rakuda), or every pair of the plan's models compared (a FastChat suite's pairwise mode)
PFGEN_KIND, JUDGED, RULED = "pfgen", "judged", "rules"
CONSTRAINTS, MATCHES, PAIRS = "constraints", "matches", "pairs"
#: the kinds whose cells name a judge
JUDGED_KINDS = (JUDGED, CONSTRAINTS, MATCHES, PAIRS)
#: the kinds whose number ranks every model of the plan together (``Cell.peers``)
RANKED_TOGETHER = (MATCHES, PAIRS)
#: a FastChat suite's ``mode`` that compares the plan's models in pairs
PAIRWISE = "pairwise"


def suite_kind(bench: str, mode: str | None = None) -> str | None:
    """``pfgen``, ``judged`` (FastChat-style single grading; ``pairs`` with ``mode``
    pairwise), ``rules`` (decided by rules), ``constraints`` (rules and a judge's votes) or
    ``matches`` (drawn matches); ``None`` for a protocol a sweep does not know."""
    if bench == PFGEN:
        return PFGEN_KIND
    from hyoka.mtbench import (
        CONSTRAINT_CHECKED,
        DRAWN_MATCHES,
        FASTCHAT_JUDGING,
        RULE_CHECKED,
        definition,
    )

    # the judging protocols a sweep runs, each with its kind of cell
    kinds = {FASTCHAT_JUDGING: JUDGED, RULE_CHECKED: RULED, CONSTRAINT_CHECKED: CONSTRAINTS,
             DRAWN_MATCHES: MATCHES}  # fmt: skip
    kind = kinds.get(definition(bench).judging)
    return PAIRS if kind == JUDGED and mode == PAIRWISE else kind


def is_judged(bench: str, mode: str | None = None) -> bool:
    """Whether ``bench``'s cells each name a judge."""
    return suite_kind(bench, mode) in JUDGED_KINDS


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
    #: asked through its provider's batch API (``batch = true``: about half price, replies
    #: within a day, each run of the sweep moving its cells one round on); not part of
    #: ``identity``: a batch's replies are the online calls' replies
    batch: bool = False

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
        from hyoka.redact import url_identity  # credentials: only their slow hash

        kept = [url_identity(url) for url in self.base_urls]
        urls: str | list[str] | None = (  # several servers: in any order, the same replies
            sorted(kept) if len(kept) > 1 else kept[0] if kept else None
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
    #: drawn matches: how many are drawn (Rakuda's ``matches``)
    matches: int | None = None
    #: a ranking's bootstrap rounds (drawn matches: ``rounds``; pairs: ``resamples``)
    rounds: int | None = None
    #: the seed of the draw and of the ranking's bootstrap
    seed: int | None = None

    @property
    def kind(self) -> str | None:
        """What the suite's cells are (``suite_kind``)."""
        return suite_kind(self.bench, self.mode)

    @property
    def label(self) -> str:
        """``bench`` or ``bench.variant``, as the report names a benchmark's pages."""
        return self.bench if self.variant is None else f"{self.bench}.{self.variant}"

    def identity(self) -> dict[str, Any]:
        found = {
            "bench": self.bench, "variant": self.variant, "limit": self.limit,
            "max_tokens": self.max_tokens, "trials": self.trials, "mode": self.mode,
            "num_examples": self.num_examples,
        }  # fmt: skip
        ranked = {"matches": self.matches, "rounds": self.rounds, "seed": self.seed}
        # the settings of a ranking only where given: a suite's digest before they were
        # known stays what it was
        return {**found, **{key: value for key, value in ranked.items() if value is not None}}

    def verdicts_identity(self) -> dict[str, Any]:
        """What decides a judge's verdicts on the suite's answers: all but the ranking's
        bootstrap rounds, which refit the same verdicts (the seed stays: it draws the
        matches)."""
        found = self.identity()
        found.pop("rounds", None)
        return found

    def answers_identity(self) -> dict[str, Any]:
        """What decides a model's answers to the suite (not how they are ranked)."""
        found = self.identity()
        for key in ("matches", "rounds", "seed"):
            found.pop(key, None)
        if self.kind == PAIRS:
            found.pop("mode")  # single grades and pairs are made of the same answers
        return found


@dataclass(frozen=True)
class Cell:
    """One model on one suite, judged by one judge (``None``: a suite no judge grades);
    ``peers``: the models ranked together with it (every model of the plan, itself among
    them) where the suite ranks models from matches between them, else none."""

    model: Endpoint
    suite: Suite
    judge: Endpoint | None
    peers: tuple[Endpoint, ...] = ()

    @property
    def key(self) -> str:
        """The cell's name in the sweep's manifest and progress: ``model × suite × judge``."""
        parts = [self.model.name, self.suite.label]
        return " × ".join(parts + ([self.judge.name] if self.judge is not None else []))

    def peers_identity(self) -> list[dict[str, Any]]:
        """The models ranked together, each by its name and what decides its replies: a
        verdict names the models it compares, so a peer renamed, or two names swapped, is
        another ranking (its own verdicts, its cells run again)."""
        return [{"name": peer.name, **peer.identity()} for peer in self.peers]

    @property
    def digest(self) -> str:
        """SHA-256 of every setting that decides the cell's numbers: a cell done under other
        settings is done again."""
        identity: dict[str, Any] = {
            "model": self.model.identity(), "suite": self.suite.identity(),
            "judge": None if self.judge is None else self.judge.identity(),
        }  # fmt: skip
        if self.peers:  # its number ranks them all: any of them changed, it is redone
            identity["peers"] = self.peers_identity()
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
        and pfgen-bench: one cell, no judge; a suite ranked from matches: each cell with
        every model of the plan as its peers)."""
        out = []
        for model in self.models:
            for suite in self.suites:
                if not is_judged(suite.bench, suite.mode):
                    out.append(Cell(model, suite, None))
                    continue
                peers = self.models if suite.kind in RANKED_TOGETHER else ()
                names = suite.judges or tuple(judge.name for judge in self.judges)
                out += [Cell(model, suite, j, peers) for j in self.judges if j.name in names]
        return out
