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
    if _same(left, right) is True:
        return None
    return _compare(left, right, "")


def same_results(
    published: Mapping[str, Any], recomputed: Mapping[str, Any], ignore: Collection[str] = ()
) -> bool:
    """``first_difference(...) is None``, without naming the difference (choosing a
    summation by evidence only asks whether one reproduces the file)."""
    left = {k: v for k, v in published.items() if k not in ignore}
    right = {k: v for k, v in recomputed.items() if k not in ignore}
    verdict = _same(left, right)
    return _compare(left, right, "") is None if verdict is None else verdict


def _same(a: Any, b: Any) -> bool | None:
    """What ``_compare`` decides, without naming paths: ``True`` where it finds no
    difference, ``False`` where it finds one, ``None`` (for ``_compare`` to decide) where
    anything but plain JSON types (dict, list, str, int, float, bool, None) is met. On
    plain JSON types both walk alike: same types, same keys in the same order, ``!=``."""
    kind = type(a)
    if kind is dict and type(b) is dict:
        if len(a) != len(b) or list(a) != list(b):
            return None if _unusual(a) or _unusual(b) else False
        return _same_items(a.values(), b.values())
    if kind is list and type(b) is list:
        if len(a) != len(b):
            return None if _unusual(a) or _unusual(b) else False
        return _same_items(a, b)
    if kind in _SCALARS and type(b) in _SCALARS:
        return kind is type(b) and not a != b  # noqa: SIM202 (as ``_compare``: NaN != NaN)
    return None


def _same_items(a: Iterable[Any], b: Iterable[Any]) -> bool | None:
    for x, y in zip(a, b, strict=True):
        kind = type(x)
        if kind is float and type(y) is float:
            if x != y:
                return False
        else:
            verdict = _same(x, y)
            if verdict is not True:
                return verdict
    return True


def _unusual(container: dict[Any, Any] | list[Any]) -> bool:
    """Whether a container holds anything but plain JSON types, at any depth."""
    items = container.values() if type(container) is dict else container
    for item in items:
        kind = type(item)
        if kind is dict or kind is list:
            if _unusual(item):
                return True
        elif kind not in _SCALARS:
            return True
    return False


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
