"""Verdicts on one response to a built entry, by rule where hyoka decides the constraint.

Upstream's ``BenchmarkData.evaluate`` maps each constraint's class name to whether the
response satisfies it, and an entry succeeds when every verdict is true. hyoka gives the
same mapping, with ``None`` for a constraint it does not decide by rule (a judged one, or
a rule not implemented yet): such an entry is *pending*, never counted as passed or failed.
"""

from __future__ import annotations

from collections.abc import Sequence

from hyoka.jfbench.build import Entry
from hyoka.jfbench.rules import check_of, decidable
from hyoka.jfbench.texts import Source


def decide(
    entry: Entry, documents: Sequence[str], response: str, source: Source | None = None
) -> dict[str, bool | None]:
    """Each constraint of ``entry`` (by class name) decided on ``response``, or ``None``
    (with upstream's ``source``, the rules that read its word lists too)."""
    document = documents[entry.prompt]
    return {
        c.name: check_of(c.factory, document, source)(response)
        if decidable(c.factory, source)
        else None
        for c in entry.constraints
    }


def succeeded(verdicts: dict[str, bool | None]) -> bool | None:
    """Upstream's success (every verdict true, at least one), ``None`` while any is pending
    and none has failed."""
    if any(v is False for v in verdicts.values()):
        return False
    if any(v is None for v in verdicts.values()):
        return None
    return bool(verdicts)
