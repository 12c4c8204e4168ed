"""The benchmark as upstream's ``benchmark/build.py`` builds it, entry for entry.

A single-constraint build (``n_constraints`` 1, upstream's default and the setting its
README runs) pairs every prompt with every factory of the constraint set, rule-based ones
first, then the judged ones, each seeded from a SHA-256 of ``ifbench||<prompt>||rule|
|<position>`` (``llm`` for the judged ones; the first 8 bytes read little-endian), and then
shuffles the whole list with numpy's generator seeded with ``seed`` (42 by default). The
seed of a constraint chooses which of its phrasings a training-set prompt shows; the test
set's phrasings are fixed. Upstream then keeps the first ``n_benchmark_data`` entries when
asked for fewer.

A multi-constraint build (``n_constraints`` 2 or more, with ``n_benchmark_data`` entries,
which upstream then requires) draws everything from one generator seeded with ``seed``:
a prompt, a format constraint, further constraints from the whole pool (each with a seed
of its own drawn there too) thrown back when they clash (``conflicts``), and an entry
thrown back when an earlier one has the same prompt and classes (``multiple_constraints``).

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
from hyoka.jfbench.conflicts import clash

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


#: how many draws in a row upstream lets clash (with a chosen constraint, or with an entry
#: already built) before it gives up
MAX_DRAWS = 1000
#: the pool a multi-constraint build draws from after its first (format) constraint: the
#: collections in upstream's group order, a group's rule-based ones before its judged ones
POOL_ORDER = (
    ("character",),
    ("rule_content", "llm_content"),
    ("format",),
    ("length",),
    ("logic",),
    ("meta_output",),
    ("notation",),
    ("rule_processing", "llm_processing"),
    ("structure",),
    ("rule_style", "llm_style"),
    ("ifbench_count",),
    ("ifbench_format",),
    ("ifbench_ratio",),
    ("ifbench_repeat",),
    ("ifbench_sentence",),
    ("ifbench_words",),
)


def multiple_constraints(
    documents: Sequence[str],
    n_constraints: int,
    n_benchmark_data: int,
    constraint_set: ConstraintSet = "test",
    seed: int = DEFAULT_SEED,
) -> list[Entry]:
    """``n_benchmark_data`` entries of ``n_constraints`` constraints each, drawn as upstream's
    ``get_benchmark_data_with_multiple_constraints`` draws them from one generator seeded
    with ``seed``: a prompt, a format constraint, then constraints from the whole pool until
    there are enough, each drawn with its own seed and thrown back when it clashes
    (``conflicts.clash``) with one already chosen; the chosen ones shuffled; an entry whose
    prompt and set of classes an earlier entry has is thrown back too. Each draw of the
    generator is upstream's, so the entries, their order and their seeds are upstream's."""
    if n_constraints < 2:
        raise InputError("`n_constraints` must be at least 2 for a multi-constraint build")
    if n_benchmark_data < 1:
        raise InputError("`n_benchmark_data` must be at least 1")
    if not documents:
        raise InputError("no prompts to build from")
    sets = COLLECTIONS[constraint_set]
    formats = sets.collections["format"]
    pool = [f for names in POOL_ORDER for name in names for f in sets.collections[name]]
    rng = np.random.default_rng(seed)
    entries: list[Entry] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    repeated = 0
    while len(entries) < n_benchmark_data:
        # numpy draws from a list by its length alone: drawing a position is the same draw
        prompt = int(rng.choice(len(documents)))
        first = formats[int(rng.choice(len(formats)))]
        chosen = [Constraint(first, int(rng.integers(0, 2**63 - 1)))]
        clashed = 0
        while len(chosen) < n_constraints:
            factory = pool[int(rng.choice(len(pool)))]
            drawn = Constraint(factory, int(rng.integers(0, 2**63 - 1)))
            if any(clash(drawn.name, c.name) for c in chosen):
                clashed += 1
                if clashed >= MAX_DRAWS:
                    raise InputError(
                        f"no {n_constraints} constraints of the {constraint_set} set that do "
                        f"not clash after {MAX_DRAWS} draws (upstream gives up there too)"
                    )
                continue
            chosen.append(drawn)
            clashed = 0
        order = list(range(len(chosen)))
        rng.shuffle(order)
        constraints = tuple(chosen[i] for i in order)
        identity = (documents[prompt], tuple(sorted(c.name for c in constraints)))
        if identity in seen:
            repeated += 1
            if repeated >= MAX_DRAWS:
                raise InputError(
                    f"no new entry after {MAX_DRAWS} draws: {n_benchmark_data} distinct "
                    "entries are more than this setting can make (upstream gives up there too)"
                )
            continue
        repeated = 0
        seen.add(identity)
        data_id = "multi-" + "-".join(c.name for c in constraints)
        entries.append(Entry(data_id, prompt, constraints, constraint_set))
    return entries


def built(
    documents: Sequence[str],
    constraint_set: ConstraintSet = "test",
    seed: int = DEFAULT_SEED,
    n_constraints: int = 1,
    n_benchmark_data: int | None = None,
) -> list[Entry]:
    """The benchmark as upstream's eval.py has it built: one constraint an entry, every
    pairing shuffled (the first ``n_benchmark_data`` kept when given); two or more,
    ``n_benchmark_data`` entries drawn (which it then needs)."""
    if n_constraints < 1:
        raise InputError("`n_constraints` must be at least 1")
    if n_constraints == 1:
        return single_constraint(len(documents), constraint_set, seed, n_benchmark_data)
    if n_benchmark_data is None:
        raise InputError("`n_benchmark_data` is needed when `n_constraints` is 2 or more")
    return multiple_constraints(documents, n_constraints, n_benchmark_data, constraint_set, seed)


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
    #: constraints an entry carries
    n_constraints: int = 1

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.lines.encode()).hexdigest()

    def described(self, source: object) -> list[str]:
        """The build in a few lines, for people."""
        shown = [
            f"{self.entries} entries (constraint set {self.constraint_set}, seed {self.seed}, "
            f"{self.n_constraints} constraint{'s' if self.n_constraints > 1 else ''} each) "
            f"from {source}",
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
            "n_constraints": self.n_constraints,
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
    counts = {e.n_constraints for e in entries}
    return BuildSummary(
        constraint_set,
        seed,
        prompts_sha256,
        len(entries),
        identity_lines(entries, texts),
        tuple(e.data_id for e in entries[:3]),
        None if texts is None else sum(t is not None for t in texts),
        counts.pop() if len(counts) == 1 else 1,
    )
