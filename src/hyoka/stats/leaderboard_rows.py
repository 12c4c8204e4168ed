"""Another benchmark's leaderboard as per-model headline scores with their provenance.

The rows are what ``hyoka mtbench leaderboard --format json`` writes (JMT-bench,
ELYZA-tasks-100 ...): each complete row's headline ("overall"), the signature saying how it
was produced, and the judges its files say answered (``judged_by``, written by
``hyoka.judge.JudgedBy.to_json``). Rows of two benchmarks are refused, and rows judged under
different variants unless asked for (``mix_variants``): their numbers are not on one scale.
Incomplete rows and rows without a score are kept aside and listed, never dropped silently.
What the rows are set against (pfgen runs, ``hyoka.pfgen.correlate_with_leaderboard``; another
leaderboard, ``hyoka.mtbench`` rankings) is the caller's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.signature import Signature, common_signature
from hyoka.store import read_json


@dataclass(frozen=True)
class BoardRow:
    """One model's headline on the other side and how it was produced."""

    model: str
    score: float
    signature: Signature | None
    where: str
    #: the judges that answered the row's files, as the leaderboard JSON names them
    judged_by: tuple[Mapping[str, Any], ...] = ()

    @property
    def variant(self) -> str | None:
        return None if self.signature is None else self.signature.get("variant")


@dataclass(frozen=True)
class OtherBoard:
    """A leaderboard file ``hyoka mtbench leaderboard --format json`` wrote."""

    path: Path
    rows: dict[str, BoardRow]
    #: rows not correlated: (model, why)
    left_out: tuple[tuple[str, str], ...]

    @property
    def signature(self) -> Signature | None:
        """The signature most rows share: what the other side's numbers mean."""
        return common_signature(row.signature for row in self.rows.values())

    @property
    def bench(self) -> str | None:
        return _field(self.rows.values(), "bench")

    @property
    def judged_by(self) -> list[Mapping[str, Any]]:
        """The judges that answered the rows, each once, in row order."""
        found: list[Mapping[str, Any]] = []
        for judge in (judge for row in self.rows.values() for judge in row.judged_by):
            if judge not in found:
                found.append(judge)
        return found

    @property
    def dry_run(self) -> bool:
        """Whether a script graded any row (its numbers a dry run)."""
        return any(judge.get("dry_run") is True for judge in self.judged_by)

    @property
    def variants(self) -> list[str | None]:
        return sorted({row.variant for row in self.rows.values()}, key=lambda v: v or "")

    def to_json(self) -> dict[str, Any]:
        signature = self.signature
        variants = self.variants
        return {
            "file": str(self.path),
            "bench": self.bench,
            # the one variant every row shares (null: none, or rows of several)
            "variant": variants[0] if len(variants) == 1 else None,
            "variants": variants,
            "signature": None if signature is None else signature.to_json(),
            "judged_by": self.judged_by,
            "dry_run": self.dry_run,
            "left_out": [{"model": m, "why": why} for m, why in self.left_out],
        }


def _field(rows: Iterable[BoardRow], key: str) -> str | None:
    values = {row.signature.get(key) for row in rows if row.signature is not None}
    values.discard(None)
    return ", ".join(sorted(v for v in values if v is not None)) or None


def read_leaderboard(path: Path, *, mix_variants: bool = False) -> OtherBoard:
    """The rows of a ``hyoka mtbench leaderboard --format json`` file; an ``InputError``
    naming the file (and entry) for anything else, for rows of two benchmarks, and for rows
    of different variants unless ``mix_variants``."""
    if path.suffix.lower() in (".csv", ".md"):
        raise InputError(
            f"{path}: give the leaderboard as `hyoka mtbench leaderboard --format json` "
            "writes it (its rows carry their signatures; the table formats do not)"
        )
    data = read_json(path)
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise InputError(
            f"{path}: not a leaderboard as `hyoka mtbench leaderboard --format json` writes "
            "it (a JSON list of rows)"
        )
    rows: dict[str, BoardRow] = {}
    left_out: list[tuple[str, str]] = []
    for number, entry in enumerate(data, start=1):
        where = f"{path}: entry {number}"
        model, score = entry.get("model"), entry.get("overall")
        if not isinstance(model, str) or not model or "complete" not in entry:
            raise InputError(f"{where}: a leaderboard row needs 'model', 'overall', 'complete'")
        if model in rows or any(model == m for m, _ in left_out):
            raise InputError(f"{where}: model {model!r} is there twice")
        if not entry["complete"]:
            left_out.append((model, "incomplete: not judged on every turn"))
            continue
        if score is None:
            left_out.append((model, "no rated turn"))
            continue
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise InputError(f"{where}: overall {score!r} is not a number")
        signature = Signature.from_json(entry.get("signature"), path)
        rows[model] = BoardRow(model, float(score), signature, where, _judged_by(entry, where))
    board = OtherBoard(path, rows, tuple(left_out))
    benches = {row.signature.get("bench") for row in rows.values() if row.signature is not None}
    if len(benches) > 1:
        shown = ", ".join(sorted(str(b) for b in benches))
        raise InputError(f"{path}: rows of different benchmarks ({shown}); one per file")
    variants = board.variants
    if len(variants) > 1 and not mix_variants:
        shown = ", ".join(v or "none" for v in variants)
        raise InputError(
            f"{path}: rows judged under different variants ({shown}): their numbers are not "
            "on one scale (`mix_variants` to correlate them anyway, each model's variant "
            "in the output)"
        )
    return board


def _judged_by(entry: Mapping[str, Any], where: str) -> tuple[Mapping[str, Any], ...]:
    """A row's ``judged_by`` (a leaderboard written before it had one: none)."""
    found = entry.get("judged_by", [])
    if not isinstance(found, list) or not all(
        isinstance(judge, dict) and isinstance(judge.get("judge"), str) for judge in found
    ):
        raise InputError(f"{where}: judged_by must be a list of objects naming their judge")
    return tuple(found)
