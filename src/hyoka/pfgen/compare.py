"""Comparing a recomputed ``result.json`` with a published one, field by field, exactly.

"Reproduced" means every value is the same JSON value with the same type (``1`` is not
``1.0``: they are written differently) and every object has the same keys in the same order,
so the file we would write holds the same bytes for every field. The first difference is
named by its JSON path (``questions.Q07.scores.fluency.P``, ``questions.Q07.samples[2]``), in
the order upstream writes the fields, which is what a maintainer needs to look at.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: The types ``_same`` compares as leaves; any other is left to ``_compare``.
_SCALARS = frozenset((str, int, float, bool, type(None)))

#: A value that is absent on one side.
MISSING = "(missing)"


@dataclass(frozen=True)
class Difference:
    """The first place where the published and the recomputed results disagree."""

    path: str
    published: str
    recomputed: str

    def __str__(self) -> str:
        return f"{self.path}: published {self.published} vs recomputed {self.recomputed}"


def first_difference(
    published: Mapping[str, Any], recomputed: Mapping[str, Any], ignore: Collection[str] = ()
) -> Difference | None:
    """The first differing field of two results (top-level keys in ``ignore`` left out)."""
    left = {k: v for k, v in published.items() if k not in ignore}
    right = {k: v for k, v in recomputed.items() if k not in ignore}
    if _same(left, right):
        return None
    return _compare(left, right, "")


def _same(a: Any, b: Any) -> bool:
    """Whether ``_compare`` finds no difference, found without naming paths (the common
    case when a summation is chosen by evidence: one of the two reproduces the file). It
    never says "same" where ``_compare`` would name a difference: it asks for the same
    types throughout, and anything but plain JSON types is "not the same" here, for
    ``_compare`` to decide."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        if len(a) != len(b) or list(a) != list(b):
            return False
        return _same_items(a.values(), b.values())
    if kind is list:
        return len(a) == len(b) and _same_items(a, b)
    if kind in _SCALARS:
        return not a != b  # noqa: SIM202 (``_compare`` asks ``!=``: NaN is not NaN)
    return False


def _same_items(a: Iterable[Any], b: Iterable[Any]) -> bool:
    for x, y in zip(a, b, strict=True):
        kind = type(x)
        if kind is not type(y):
            return False
        if kind is float or kind is str or kind is int or kind is bool or x is None:
            if x != y:
                return False
        elif not _same(x, y):
            return False
    return True


def _shown(value: Any) -> str:
    text: str = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _compare(a: Any, b: Any, path: str) -> Difference | None:
    if isinstance(a, dict) and isinstance(b, dict):
        # in the recomputed (upstream's canonical) order; keys only published come last
        for key, value in b.items():
            if key not in a:
                return Difference(_join(path, key), MISSING, _shown(value))
            found = _compare(a[key], value, _join(path, key))
            if found is not None:
                return found
        for key, value in a.items():
            if key not in b:
                return Difference(_join(path, key), _shown(value), MISSING)
        if list(a) != list(b):
            return Difference(path or "(top level)", f"key order {list(a)}", f"{list(b)}")
        return None
    if isinstance(a, list) and isinstance(b, list):
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _compare(x, y, f"{path}[{index}]")
            if found is not None:
                return found
        if len(a) != len(b):
            return Difference(f"{path} (length)", str(len(a)), str(len(b)))
        return None
    if type(a) is not type(b) or a != b:
        return Difference(path or "(top level)", _shown(a), _shown(b))
    return None
