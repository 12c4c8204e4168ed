"""Upstream's result files: JSON lines ``eval.py`` writes, one record per benchmark entry.

A record holds the entry's metadata (``prompt_source``, ``data_id``, ``n_constraints``,
``constraint_types``, ``constraint_groups``, ``prompt``, ``constraint_set``), the model
(``model``, ``model_short``), ``response`` and ``results`` (constraint name -> verdict,
``null`` until evaluated). They are read as upstream's ``analyze.py`` reads them: a blank
model name falls back to ``model`` then ``unknown-model``, a missing prompt source to
``unknown``, an unreadable constraint count to -1. A line that is not a JSON object is
one error naming the file and line (upstream skips it silently). A folder is every
``*.jsonl`` beneath it, in sorted order.

Where upstream's reading would count wrong, hyoka refuses instead: a verdict that is not
``true`` or ``false`` (upstream's ``bool("false")`` is true), a key twice in one object,
and a file where no line carries ``results`` (not a result file: upstream reports 0/0 for
it). A per-constraint ``null`` verdict counts as not satisfied, as upstream counts it.
An item is (model, source, constraint count, ``prompt_index``, else ``data_id``), the
key upstream's ``eval.py`` keeps one record per (its data ids repeat within a build): a
line repeated identically is counted once, with a warning, and two different records for
one item are an error naming both lines (``hyoka.store.unique_records``). A line with
neither id is counted as it stands, as upstream counts it.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaWarning, InputError
from hyoka.jfbench.scores import Record
from hyoka.store import read_bytes, read_objects, unique_records


def _text(value: Any, fallback: str) -> str:
    text = str(value).strip() if value is not None else ""
    return text or fallback


def _model(row: Mapping[str, Any]) -> str:
    for name in ("model_short", "model"):
        value = row.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "unknown-model"


def _count(value: Any) -> int:
    if value is None:
        return -1
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def _verdicts(results: Mapping[str, Any], where: str) -> dict[str, bool]:
    """Each constraint's verdict: ``true``, ``false``, or ``null`` (not satisfied, as
    upstream's ``bool`` reads it); anything else is no verdict hyoka can count."""
    verdicts: dict[str, bool] = {}
    for name, value in results.items():
        if value is not None and not isinstance(value, bool):
            raise InputError(f"{where}: the verdict for {name!r} is {value!r}, not true or false")
        verdicts[str(name)] = bool(value)
    return verdicts


def record_of(row: Mapping[str, Any], where: str) -> Record:
    """One record as the summary reads it; ``results`` must be an object or null."""
    results = row.get("results")
    if results is not None and not isinstance(results, dict):
        raise InputError(f"{where}: results is neither an object nor null")
    groups = row.get("constraint_groups")
    reasoning = row.get("reasoning_content")
    return Record(
        prompt_source=_text(row.get("prompt_source"), "unknown"),
        n_constraints=_count(row.get("n_constraints")),
        model=_model(row),
        generated=results is not None or row.get("response") is not None,
        results=None if results is None else _verdicts(results, where),
        groups=tuple(str(g) for g in groups) if isinstance(groups, list) else (),
        empty_reasoning=reasoning is not None and str(reasoning).strip() == "",
    )


def files_of(path: Path) -> list[Path]:
    """The result files at ``path``: itself, or every ``*.jsonl`` beneath a folder."""
    if path.is_dir():
        found = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        if not found:
            raise InputError(f"{path}: no *.jsonl result files")
        return found
    return [path]


@dataclass(frozen=True)
class _Line:
    """A row and its line number; two are the same when their rows are."""

    row: dict[str, Any]
    number: int = field(compare=False)


def _item(line: _Line) -> Hashable:
    """The item a line is a record of (see the module's docstring); a line with no id is
    its own item, as upstream's summary counts it."""
    row = line.row
    # upstream's key is the entry's place (``prompt_index``): its data ids repeat (a prompt
    # with two DoubleNegationLogicConstraint entries, wrapping different constraints)
    name = "prompt_index" if "prompt_index" in row else "data_id"
    ident = row.get(name)
    if ident is None:
        return f"line {line.number}"
    return (
        f"model={_model(row)}",
        f"prompt_source={_text(row.get('prompt_source'), 'unknown')}",
        f"n_constraints={_count(row.get('n_constraints'))}",
        f"{name}={json.dumps(ident)}",
    )


def _lines(file: Path) -> Iterator[tuple[int, _Line]]:
    """Numbered rows of ``file``; ``InputError`` when no line carries ``results``, the
    field every record upstream's ``eval.py`` writes has."""
    seen = False
    for number, row in read_objects(file, read_bytes(file), unique_keys=True):
        seen = seen or "results" in row
        yield number, _Line(row, number)
    if not seen:
        raise InputError(f"{file}: no line has a 'results' field: not a JFBench result file")


def read_records(paths: Path | Sequence[Path]) -> list[Record]:
    """Every record of the result files or folders ``paths``, each item once across all
    of them: a record repeated identically in another file is counted once (a warning
    names both places), two different records for one item (a verdict changed, another
    judge's file of the same answers) are an error naming both files and lines; summed,
    they would count the item twice and narrow its interval."""
    records: list[Record] = []
    first: dict[Hashable, tuple[Path, _Line]] = {}
    given = [paths] if isinstance(paths, Path) else list(paths)
    for file in dict.fromkeys(f for path in given for f in files_of(path)):
        again = []
        for line in unique_records(file, list(_lines(file)), key=_item):
            item = _item(line)
            if isinstance(item, tuple) and item in first:
                earlier, kept = first[item]
                if kept != line:
                    raise InputError(
                        f"{file}:{line.number}: a second, different record for "
                        f"{' '.join(item)} (first at {earlier}:{kept.number}); one item is "
                        "one record across files: give one of them (another judge's "
                        "verdicts: rank them apart)"
                    )
                again.append(f"{line.number} ({earlier}:{kept.number})")
                continue
            first[item] = (file, line)
            records.append(record_of(line.row, f"{file}:{line.number}"))
        if again:
            warnings.warn(
                f"{file}: {len(again)} record(s) already read from another file, counted "
                f"once: line {', '.join(again[:3])}{' …' if len(again) > 3 else ''}",
                HyokaWarning,
                stacklevel=2,
            )
    return records
