"""Comparing a recomputed ``result.json`` with a published one, field by field, exactly.

"Reproduced" means every value is the same JSON value with the same type (``1`` is not
``1.0``: they are written differently) and every object has the same keys in the same order,
so the file we would write holds the same bytes for every field. The first difference is
named by its JSON path (``questions.Q07.scores.fluency.P``, ``questions.Q07.samples[2]``), in
the order upstream writes the fields, which is what a maintainer needs to look at.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

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
    return _compare(left, right, "")


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
