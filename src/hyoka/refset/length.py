"""Stage 5: keep, per reference set, the N distinct answers closest to the target length.

Ties (equal distance) go to the shorter answer, then to the bytewise smaller text, so the
choice never depends on input order. A set with fewer than N answers is an error unless
``allow_fewer`` is given (then it is kept whole, and the audit says so).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from hyoka.errors import InputError
from hyoka.refset.pool import Audit, PoolRecord, group_by_set, sort_records


def check_size(question_id: str, set_name: str, have: int, want: int, what: str) -> None:
    raise InputError(
        f"{question_id} set {set_name}: {what} size {want} is larger than the pool "
        f"({have} distinct answers); lower it or pass `allow_fewer`"
    )


def select_length(
    records: Sequence[PoolRecord],
    size: int,
    target: int,
    question_id: str,
    audit: Audit,
    allow_fewer: bool = False,
) -> list[PoolRecord]:
    audit.before = sum(r.count for r in records)
    kept: list[PoolRecord] = []
    lengths: dict[str, list[int]] = {}
    for set_name, group in group_by_set(records).items():
        if len(group) < size:
            if not allow_fewer:
                check_size(question_id, set_name, len(group), size, "length-stage")
            audit.note("fewer than the target size", set=set_name, available=len(group))
        ranked = sorted(group, key=lambda r: (abs(len(r.text) - target), len(r.text), r.text))
        chosen, dropped = ranked[:size], ranked[size:]
        far = sorted(dropped, key=lambda r: -abs(len(r.text) - target))
        audit.removed(
            f"set {set_name}: farther than the {size} closest to {target} characters",
            far,
            kept_length_range=[min(len(r.text) for r in chosen), max(len(r.text) for r in chosen)]
            if chosen
            else None,
        )
        kept.extend(chosen)
        lengths[set_name] = [len(r.text) for r in chosen]
    audit.after = sum(r.count for r in kept)
    audit.stats = {
        "length_mean": {s: round(statistics.fmean(v), 2) for s, v in lengths.items() if v},
        "length_std": {s: round(statistics.pstdev(v), 2) for s, v in lengths.items() if v},
    }
    return sort_records(kept)
