"""Upstream's result files: JSON lines ``eval.py`` writes, one record per benchmark entry.

A record holds the entry's metadata (``prompt_source``, ``data_id``, ``n_constraints``,
``constraint_types``, ``constraint_groups``, ``prompt``, ``constraint_set``), the model
(``model``, ``model_short``), ``response`` and ``results`` (constraint name -> verdict,
``null`` until evaluated). They are read as upstream's ``analyze.py`` reads them: a blank
model name falls back to ``model`` then ``unknown-model``, a missing prompt source to
``unknown``, an unreadable constraint count to -1. A line that is not a JSON object is
one error naming the file and line (upstream skips it silently). A folder is every
``*.jsonl`` beneath it, in sorted order.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.jfbench.scores import Record
from hyoka.store import read_bytes, read_objects


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
        results=None if results is None else {str(k): bool(v) for k, v in results.items()},
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


def read_records(path: Path) -> list[Record]:
    """Every record of a result file or folder."""
    records: list[Record] = []
    for file in files_of(path):
        for number, row in read_objects(file, read_bytes(file)):
            records.append(record_of(row, f"{file}:{number}"))
    return records
