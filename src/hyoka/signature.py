"""Signatures: one line that says exactly how a number was produced, as sacrebleu prints.

Every result hyoka writes or prints carries one: ``hyoka:0.1.0|kind:pfgen|data:pfgen@1a2b3c4d|
sum:compensated|mode:chat``. The line is meant to be pasted beside the number in a paper;
the same fields are stored as a JSON object in every file that carries numbers, so a
leaderboard can compare two rows' signatures and flag rows produced in a way that changes
the numbers (another summation, another judge, another template ...).

The hyoka version is part of the line but never counts as a difference: a new release that
computes the same numbers must not flag every older row. Everything else does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hyoka import __version__

#: The key under which files store their signature (``{"line": ..., "fields": {...}}``).
SIGNATURE_KEY = "signature"

#: Fields that do not change numbers and are never reported as differences.
_NEUTRAL = frozenset({"hyoka"})


def _text(value: object) -> str:
    """A field value as it appears in the line: short, unambiguous, free of ``|``."""
    if value is None:
        text = "none"
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, float):
        text = repr(value)
    elif isinstance(value, (tuple, list, frozenset, set)):
        items = sorted(value) if isinstance(value, (frozenset, set)) else value
        text = ",".join(_text(item) for item in items) or "none"
    else:
        text = str(value)
    return text.replace("|", "/").replace("\n", " ")


@dataclass(frozen=True)
class Signature:
    """Ordered ``key: value`` pairs; ``hyoka`` (the version) and ``kind`` always come first."""

    fields: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, kind: str, **fields: object) -> Signature:
        """The signature of a result of ``kind`` produced with ``fields`` (in that order)."""
        pairs = [("hyoka", __version__), ("kind", kind)]
        pairs += [(key.replace("_", "-"), _text(value)) for key, value in fields.items()]
        return cls(tuple(pairs))

    @property
    def line(self) -> str:
        return "|".join(f"{key}:{value}" for key, value in self.fields)

    def __str__(self) -> str:
        return self.line

    def as_dict(self) -> dict[str, str]:
        return dict(self.fields)

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.as_dict().get(key, default)

    def to_json(self) -> dict[str, Any]:
        """What files store under ``SIGNATURE_KEY``."""
        return {"line": self.line, "fields": self.as_dict()}

    @classmethod
    def from_json(cls, value: object) -> Signature | None:
        """Read what ``to_json`` wrote (or a bare line); ``None`` for anything else."""
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, Mapping):
            fields = value.get("fields")
            if isinstance(fields, Mapping):
                return cls(tuple((str(k), str(v)) for k, v in fields.items()))
            line = value.get("line")
            if isinstance(line, str):
                return cls.parse(line)
        return None

    @classmethod
    def parse(cls, line: str) -> Signature:
        pairs = []
        for part in line.split("|"):
            key, _, value = part.partition(":")
            pairs.append((key, value))
        return cls(tuple(pairs))

    def differences(self, other: Signature) -> list[str]:
        """``key: mine vs theirs`` for every field that changes numbers and differs."""
        mine, theirs = self.as_dict(), other.as_dict()
        return [
            f"{key}: {mine.get(key, '-')} vs {theirs.get(key, '-')}"
            for key in dict.fromkeys([*mine, *theirs])
            if key not in _NEUTRAL and mine.get(key) != theirs.get(key)
        ]


def common_signature(signatures: Iterable[Signature | None]) -> Signature | None:
    """The signature most rows share (the first such, in order), to compare each row with."""
    counts: dict[tuple[tuple[str, str], ...], int] = {}
    for signature in signatures:
        if signature is not None:
            key = tuple((k, v) for k, v in signature.fields if k not in _NEUTRAL)
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return None
    best = max(counts.items(), key=lambda item: item[1])[0]
    return Signature((("hyoka", __version__), *best))
