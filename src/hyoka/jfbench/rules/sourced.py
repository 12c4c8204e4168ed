"""Rules whose word lists are upstream's data: read from its pinned source, never copied.

Four IFBench constraints check a response against a list upstream wrote into the class
(names a response may use, pronouns, conjunctions, the one sentence to echo). hyoka reads
each list from upstream's source at run time (``texts.Source``: the constraint's
``__init__`` evaluated, only its plain literals) and decides as upstream's ``evaluate``
does. Without the source these constraints are not decided (``check_of`` says so).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from hyoka.jfbench.catalogue import Factory
from hyoka.jfbench.rules.words import split_words
from hyoka.jfbench.texts import Source

Check = Callable[[str], bool]


def _listed(source: Source, factory: Factory, name: str) -> Any:
    return source.instance(factory, None).attributes[name]


def names_used(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """At least ``minimum_names`` of upstream's allowed names appear (case ignored)."""
    names = sorted(_listed(source, factory, "_allowed_names"))
    minimum: int = kwargs["minimum_names"]

    def check(value: str) -> bool:
        found = {n for n in names if re.search(re.escape(n), value, flags=re.IGNORECASE)}
        return len(found) >= minimum

    return check


def pronouns_used(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """At least ``minimum_pronouns`` of the response's words are upstream's pronouns."""
    pronouns = frozenset(_listed(source, factory, "_pronouns"))
    minimum: int = kwargs["minimum_pronouns"]
    return lambda value: sum(word in pronouns for word in split_words(value)) >= minimum


def conjunction_kinds(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """At least ``minimum_kinds`` different conjunctions of upstream's list appear (as
    substrings)."""
    conjunctions = frozenset(_listed(source, factory, "_conjunctions"))
    minimum: int = kwargs["minimum_kinds"]
    return lambda value: sum(c in value for c in conjunctions) >= minimum


def echoed(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """The stripped response is exactly upstream's sentence."""
    del kwargs
    sentence: str = _listed(source, factory, "_exact_text")
    return lambda value: value.strip() == sentence


SOURCED: dict[str, Callable[[Source, Factory, Mapping[str, Any]], Check]] = {
    "PersonNamesCountIfbenchConstraint": names_used,
    "PronounsCountIfbenchConstraint": pronouns_used,
    "ConjunctionCountIfbenchConstraint": conjunction_kinds,
    "SimpleRepeatIfbenchConstraint": echoed,
}
