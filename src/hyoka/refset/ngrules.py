"""Stage 3: drop answers that match a question's NG patterns (known wrong facts).

The patterns are per question, in a TOML file the user writes after reading samples::

    [[ng]]
    question = "Q01"          # a question id, or "*" for every question
    name = "wrong count"
    pattern = '(?<![0-9])(11|23)回'

An answer is removed by the first rule (in file order) that matches it; the audit counts,
for every rule, the answers it removed and all the answers it matched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hyoka.errors import InputError
from hyoka.refset.pool import Audit, PoolRecord
from hyoka.refset.rulefiles import compile_pattern, read_entries, require_str


@dataclass(frozen=True)
class NgRule:
    question: str
    name: str
    pattern: re.Pattern[str]
    where: str

    def applies_to(self, question_id: str) -> bool:
        return self.question in ("*", question_id)


def load_ng_rules(path: Path | None, known_ids: Sequence[str] | None = None) -> list[NgRule]:
    """The rules of ``path`` (none without a file); unknown question ids are errors."""
    if path is None:
        return []
    rules: list[NgRule] = []
    names: set[tuple[str, str]] = set()
    for entry in read_entries(path, "ng"):
        question = require_str(entry, "question")
        pattern = compile_pattern(path, entry)
        name = str(entry.fields.get("name") or pattern.pattern)
        if known_ids is not None and question != "*" and question not in known_ids:
            raise InputError(f"{entry.where}: rule {name!r}: no question {question!r}")
        if (question, name) in names:
            raise InputError(f"{entry.where}: rule name {name!r} repeated for {question}")
        names.add((question, name))
        rules.append(NgRule(question, name, pattern, entry.where))
    return rules


def filter_rules(
    records: Sequence[PoolRecord], rules: Sequence[NgRule], question_id: str, audit: Audit
) -> list[PoolRecord]:
    mine = [r for r in rules if r.applies_to(question_id)]
    audit.before = sum(r.count for r in records)
    removed: dict[str, list[PoolRecord]] = {r.name: [] for r in mine}
    matched = dict.fromkeys(removed, 0)
    kept: list[PoolRecord] = []
    for record in records:
        hits = [rule.name for rule in mine if rule.pattern.search(record.text)]
        for name in hits:
            matched[name] += record.count
        if hits:
            removed[hits[0]].append(record)
        else:
            kept.append(record)
    for rule in mine:
        audit.removed(f"ng:{rule.name}", removed[rule.name], matched_answers=matched[rule.name])
    audit.after = sum(r.count for r in kept)
    return kept
