"""Reading human labels and automatic verdicts, every problem named by file and line.

Human labels (JSONL or CSV, one label per line): ``item``, ``rater``, ``label`` (A/B/C) and
an optional ``category``. Automatic verdicts (JSONL, one item per line): ``item``,
``verdict`` (A/B/C, or null/"invalid" where the method gave none) and, where the method
judged both orders, ``order_xy`` and ``order_yx``: the letters the judge gave with X shown
first and with Y shown first (as the judge wrote them, so ``order_yx == "A"`` means Y won).
``item_id`` and ``id`` are accepted for ``item``. An optional ``group`` (in either file)
names the unit the bootstrap resamples, e.g. the question several compared pairs belong to.
Everything is checked before anything is computed: a statistic over half-matched files
would be silently wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hyoka.errors import InputError
from hyoka.stats.labels import (
    AGREE,
    DISAGREE,
    INVALID,
    LETTERS,
    MIRROR,
    UNKNOWN,
    LabelTable,
    letter_code,
)
from hyoka.store import read_rows

_ITEM_KEYS = ("item", "item_id", "id")
_INVALID_WORDS = ("", "invalid", "none", "null")


@dataclass(frozen=True)
class HumanLabel:
    item: str
    rater: str
    label: str
    category: str | None
    where: str
    group: str | None = None


@dataclass(frozen=True)
class Verdict:
    item: str
    verdict: str | None
    order_xy: str | None
    order_yx: str | None
    category: str | None
    where: str
    group: str | None = None


def read_human_labels(path: Path) -> list[HumanLabel]:
    labels = []
    for where, row in read_rows(path):
        label = _text(row, "label", where)
        _check_letter(label, where, "label")
        category = row.get("category")
        labels.append(
            HumanLabel(
                item=_item(row, where),
                rater=_text(row, "rater", where),
                label=label,
                category=str(category) if category not in (None, "") else None,
                where=where,
                group=_optional_text(row, "group"),
            )
        )
    if not labels:
        raise InputError(f"{path}: no labels")
    return labels


def read_verdicts(path: Path) -> list[Verdict]:
    verdicts = []
    for where, row in read_rows(path):
        verdict = _optional_letter(row, "verdict", where, required=True)
        category = row.get("category")
        verdicts.append(
            Verdict(
                item=_item(row, where),
                verdict=verdict,
                order_xy=_optional_letter(row, "order_xy", where),
                order_yx=_optional_letter(row, "order_yx", where),
                category=str(category) if category not in (None, "") else None,
                where=where,
                group=_optional_text(row, "group"),
            )
        )
    if not verdicts:
        raise InputError(f"{path}: no verdicts")
    return verdicts


def label_table_from_files(human: Path | None, verdicts: Sequence[Path]) -> LabelTable:
    """The table of a human-label file (if any) and verdict files, each method named by
    its file's stem (two files with one stem would be one column: refused)."""
    names: dict[str, Path] = {}
    for path in verdicts:
        if path.stem in names:
            raise InputError(f"{path}: same name {path.stem!r} as {names[path.stem]}")
        names[path.stem] = path
    labels = read_human_labels(human) if human is not None else []
    methods = {name: read_verdicts(path) for name, path in names.items()}
    return build_label_table(labels, methods)


def build_label_table(
    labels: Sequence[HumanLabel], methods: Mapping[str, Sequence[Verdict]]
) -> LabelTable:
    """Cross-check the files and build the table; items keep their first-seen order."""
    items: dict[str, str | None] = {}
    by_rater: dict[str, dict[str, str]] = {}
    first_seen: dict[str, str] = {}
    for label in labels:
        seen = by_rater.setdefault(label.rater, {})
        if label.item in seen:
            raise InputError(f"{label.where}: rater {label.rater!r} labels {label.item!r} twice")
        seen[label.item] = label.label
        _merge_category(items, first_seen, label.item, label.category, label.where)
    for rater, seen in by_rater.items():
        for item in items:
            if item not in seen:
                raise InputError(
                    f"{first_seen[item]}: item {item!r} has no label by rater {rater!r} "
                    "(every rater must label every item)"
                )
    known = set(items)
    columns: dict[str, dict[str, Verdict]] = {}
    for method, verdicts in methods.items():
        column: dict[str, Verdict] = {}
        for v in verdicts:
            if known and v.item not in known:
                raise InputError(f"{v.where}: unknown item id {v.item!r} (not in the labels)")
            if v.item in column:
                raise InputError(f"{v.where}: item {v.item!r} appears twice")
            column[v.item] = v
            if not known:
                _merge_category(items, first_seen, v.item, v.category, v.where)
            elif v.category is not None and items[v.item] not in (None, v.category):
                raise InputError(f"{v.where}: category {v.category!r} of {v.item!r} differs")
        columns[method] = column
    for method, column in columns.items():
        for item in items:
            if item not in column:
                raise InputError(f"{first_seen[item]}: item {item!r} has no verdict in {method!r}")
    order = list(items)
    groups = _groups([*labels, *(v for c in columns.values() for v in c.values())], order)
    return LabelTable(
        items=order,
        categories=[items[i] for i in order],
        human={r: _codes([seen[i] for i in order]) for r, seen in by_rater.items()},
        auto={m: _codes([c[i].verdict for i in order]) for m, c in columns.items()},
        orders={
            m: np.array([_orders(c[i]) for i in order], dtype=np.int64)
            for m, c in columns.items()
            if any(v.order_xy is not None for v in c.values())
        },
        groups=groups,
    )


def _groups(records: Sequence[HumanLabel | Verdict], order: list[str]) -> list[str] | None:
    """Each item's group, or None when no record names one; every item needs one then."""
    found: dict[str, tuple[str, str]] = {}
    for record in records:
        if record.group is None:
            continue
        seen = found.setdefault(record.item, (record.group, record.where))
        if seen[0] != record.group:
            raise InputError(
                f"{record.where}: item {record.item!r} in group {record.group!r}, "
                f"but {seen[0]!r} at {seen[1]}"
            )
    if not found:
        return None
    for item in order:
        if item not in found:
            raise InputError(f"item {item!r} has no group (give every item one, or none)")
    return [found[item][0] for item in order]


def _orders(v: Verdict) -> int:
    if v.order_xy is None or v.order_yx is None:
        return UNKNOWN
    return AGREE if v.order_xy == MIRROR[v.order_yx] else DISAGREE


def _codes(letters: Sequence[str | None]) -> np.ndarray[Any, np.dtype[np.int64]]:
    return np.array([INVALID if x is None else letter_code(x) for x in letters], dtype=np.int64)


def _merge_category(
    items: dict[str, str | None],
    first_seen: dict[str, str],
    item: str,
    category: str | None,
    where: str,
) -> None:
    if item not in items:
        items[item] = category
        first_seen[item] = where
        return
    if category is not None and items[item] is not None and items[item] != category:
        raise InputError(
            f"{where}: item {item!r} has category {category!r}, "
            f"but {items[item]!r} at {first_seen[item]}"
        )
    if items[item] is None:
        items[item] = category


def _item(row: dict[str, Any], where: str) -> str:
    for key in _ITEM_KEYS:
        value = row.get(key)
        if value not in (None, ""):
            return str(value)
    raise InputError(f"{where}: missing item id (one of {', '.join(_ITEM_KEYS)})")


def _optional_text(row: dict[str, Any], key: str) -> str | None:
    value = row.get(key)
    return None if value in (None, "") else str(value).strip()


def _text(row: dict[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if value in (None, ""):
        raise InputError(f"{where}: missing {key!r}")
    return str(value).strip()


def _check_letter(value: str, where: str, key: str) -> None:
    if value not in LETTERS:
        raise InputError(f"{where}: {key} {value!r} is not one of A, B, C")


def _optional_letter(
    row: dict[str, Any], key: str, where: str, *, required: bool = False
) -> str | None:
    if key not in row:
        if required:
            raise InputError(f"{where}: missing {key!r}")
        return None
    value = row[key]
    if value is None or (isinstance(value, str) and value.strip().lower() in _INVALID_WORDS):
        return None
    text = str(value).strip()
    _check_letter(text, where, key)
    return text
