"""Reading the user-editable rule files (TOML) with errors that name the file and line.

``tomllib`` reports syntax errors with a line but forgets where each table came from, and a
rule whose regular expression does not compile must be found in the file by its user. Each
``[[<table>]]`` entry is matched to the line of its header, in order, so an error can say
``rules.toml:14: rule 'wrong-hour': invalid regex ...``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.store import read_toml


@dataclass(frozen=True)
class RuleEntry:
    """One ``[[table]]`` entry: its fields and where it starts."""

    fields: dict[str, Any]
    where: str


def read_entries(path: Path, table: str) -> list[RuleEntry]:
    raw, text = read_toml(path)
    unknown = sorted(set(raw) - {table})
    if unknown:
        raise InputError(f"{path}: unknown top-level key(s) {unknown} (expected [[{table}]])")
    entries = raw.get(table, [])
    if not isinstance(entries, list):
        raise InputError(f"{path}: '{table}' must be an array of tables ([[{table}]])")
    header = re.compile(rf"^\s*\[\[\s*{re.escape(table)}\s*\]\]")
    lines = [n for n, line in enumerate(text.splitlines(), start=1) if header.match(line)]
    out: list[RuleEntry] = []
    for index, fields in enumerate(entries):
        line = lines[index] if index < len(lines) else 0
        out.append(RuleEntry(fields=dict(fields), where=f"{path}:{line}"))
    return out


def field_line(path: Path, entry: RuleEntry, key: str) -> str:
    """``file:line`` of ``key = ...`` inside the entry (its header line if not found)."""
    start = int(entry.where.rsplit(":", 1)[1] or 0)
    if start <= 0:
        return entry.where
    try:
        lines = read_toml(path)[1].splitlines()
    except InputError:
        return entry.where
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number in range(start, len(lines)):
        if lines[number].lstrip().startswith("[["):
            break
        if pattern.match(lines[number]):
            return f"{path}:{number + 1}"
    return entry.where


def compile_pattern(path: Path, entry: RuleEntry, key: str = "pattern") -> re.Pattern[str]:
    value = entry.fields.get(key)
    where = field_line(path, entry, key)
    name = entry.fields.get("name", "")
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: rule {name!r} needs a non-empty string '{key}'")
    try:
        return re.compile(value)
    except re.error as exc:
        raise InputError(f"{where}: rule {name!r}: invalid regex {value!r}: {exc}") from None


def require_str(entry: RuleEntry, key: str) -> str:
    value = entry.fields.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{entry.where}: entry needs a non-empty string '{key}'")
    return value
