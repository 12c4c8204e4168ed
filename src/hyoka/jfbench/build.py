"""The benchmark as upstream's ``benchmark/build.py`` builds it, entry for entry.

A single-constraint build (``n_constraints`` 1, upstream's default and the setting its
README runs) pairs every prompt with every factory of the constraint set, rule-based ones
first, then the judged ones, each seeded from a SHA-256 of ``ifbench||<prompt>||rule|
|<position>`` (``llm`` for the judged ones; the first 8 bytes read little-endian), and then
shuffles the whole list with numpy's generator seeded with ``seed`` (42 by default). The
seed of a constraint chooses which of its phrasings a training-set prompt shows; the test
set's phrasings are fixed. Upstream then keeps the first ``n_benchmark_data`` entries when
asked for fewer.

An entry's identity (``data_id``, prompt, constraint names, groups, parameters, seeds)
is reproduced exactly; the prompt text a model is shown additionally needs upstream's
instruction texts (its prose, which hyoka does not copy).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hyoka.errors import InputError
from hyoka.jfbench.catalogue import COLLECTIONS, ConstraintSet, Factory

#: the benchmark's only prompt source
PROMPT_SOURCE = "ifbench"
#: upstream's default ``--seed``
DEFAULT_SEED = 42


def stable_seed(*parts: str) -> int:
    """A constraint's seed: the first 8 bytes, little-endian, of the SHA-256 of the parts
    joined by ``||`` (upstream's ``_stable_seed``)."""
    digest = hashlib.sha256("||".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little")


@dataclass(frozen=True)
class Constraint:
    """One constraint of an entry: what it is, its parameters and the seed it is built with."""

    factory: Factory
    seed: int

    @property
    def name(self) -> str:
        return self.factory.name

    def identity(self) -> dict[str, Any]:
        """The constraint as a plain object (name, group, parameters, seed, whether it reads
        the prompt): what two builds must agree on."""
        return {
            "name": self.factory.name,
            "group": self.factory.group,
            "seed": self.seed,
            "document": self.factory.document,
            "kwargs": self.factory.parameters(),
        }


@dataclass(frozen=True)
class Entry:
    """One item of the benchmark: a prompt (by its position in the prompts file) and the
    constraints composed onto it."""

    data_id: str
    prompt: int
    constraints: tuple[Constraint, ...]
    constraint_set: ConstraintSet

    @property
    def n_constraints(self) -> int:
        return len(self.constraints)

    @property
    def constraint_types(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.constraints)

    @property
    def constraint_groups(self) -> tuple[str, ...]:
        return tuple(c.factory.group for c in self.constraints)

    def identity_line(self, text: str | None = None) -> str:
        """The entry as one canonical JSON line (keys sorted, no spaces, text unescaped);
        with ``text``, the prompt a model is shown as ``text``."""
        shown: dict[str, Any] = {
            "id": self.data_id,
            "prompt": self.prompt,
            "constraints": [c.identity() for c in self.constraints],
        }
        if text is not None:
            shown["text"] = text
        return json.dumps(shown, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def single_constraint(
    n_prompts: int,
    constraint_set: ConstraintSet = "test",
    seed: int = DEFAULT_SEED,
    n_benchmark_data: int | None = None,
) -> list[Entry]:
    """Every prompt with every single constraint of the set, shuffled as upstream shuffles."""
    if n_prompts < 1:
        raise InputError("`n_prompts` must be at least 1")
    if n_benchmark_data is not None and n_benchmark_data < 1:
        raise InputError("`n_benchmark_data` must be at least 1")
    sets = COLLECTIONS[constraint_set]
    factories = [("rule", i, f) for i, f in enumerate(sets.rule_based)] + [
        ("llm", i, f) for i, f in enumerate(sets.judged)
    ]
    # numpy shuffles a list by swapping positions, whatever they hold: shuffling the
    # positions gives upstream's order, and only the entries kept need building
    order = list(range(n_prompts * len(factories)))
    np.random.default_rng(seed).shuffle(order)
    kept = order if n_benchmark_data is None else order[:n_benchmark_data]
    entries: list[Entry] = []
    for position in kept:
        prompt, slot = divmod(position, len(factories))
        kind, index, factory = factories[slot]
        constraint = Constraint(factory, stable_seed(PROMPT_SOURCE, str(prompt), kind, str(index)))
        entries.append(Entry(f"{prompt}-{factory.name}", prompt, (constraint,), constraint_set))
    return entries


def identity_lines(entries: Sequence[Entry], texts: Sequence[str | None] | None = None) -> str:
    """The entries' canonical lines, each ended by a newline (with their prompt texts where
    given)."""
    shown = texts if texts is not None else [None] * len(entries)
    return "".join(e.identity_line(t) + "\n" for e, t in zip(entries, shown, strict=True))


@dataclass(frozen=True)
class BuildSummary:
    """What a build made: its canonical lines, their SHA-256, and its settings."""

    constraint_set: ConstraintSet
    seed: int
    prompts_sha256: str
    entries: int
    lines: str
    first: tuple[str, ...]
    #: prompts rendered with upstream's wording (``None``: not asked for)
    rendered: int | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.lines.encode()).hexdigest()

    def described(self, source: object) -> list[str]:
        """The build in a few lines, for people."""
        shown = [
            f"{self.entries} entries (constraint set {self.constraint_set}, seed {self.seed}, "
            f"1 constraint each) from {source}",
            f"  sha256 {self.sha256}",
        ]
        if self.rendered is not None:
            shown.append(
                f"  {self.rendered} prompts worded as upstream's; "
                f"{self.entries - self.rendered} drawn unseeded upstream"
            )
        shown.append(f"  first: {', '.join(self.first)}")
        return shown

    def to_json(self) -> dict[str, Any]:
        return {
            "constraint_set": self.constraint_set,
            "seed": self.seed,
            "n_constraints": 1,
            "entries": self.entries,
            "prompts_sha256": self.prompts_sha256,
            "sha256": self.sha256,
            "first": list(self.first),
            "rendered": self.rendered,
            "unseeded": None if self.rendered is None else self.entries - self.rendered,
        }


def summary_of(
    entries: Sequence[Entry],
    constraint_set: ConstraintSet,
    seed: int,
    prompts_sha256: str,
    texts: Sequence[str | None] | None = None,
) -> BuildSummary:
    """A build's summary: its lines, digest and first three ids, and with ``texts`` how
    many prompts were rendered and how many upstream draws unseeded."""
    return BuildSummary(
        constraint_set,
        seed,
        prompts_sha256,
        len(entries),
        identity_lines(entries, texts),
        tuple(e.data_id for e in entries[:3]),
        None if texts is None else sum(t is not None for t in texts),
    )
