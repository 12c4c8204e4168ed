"""Signatures: one line that says exactly how a number was produced, as sacrebleu prints.

Every result hyoka writes or prints carries one: ``hyoka:0.1.0|kind:pfgen|data:pfgen@1a2b3c4d|
sum:compensated|mode:chat``. The line is meant to be pasted beside the number in a paper;
the same fields are stored as a JSON object in every file that carries numbers, so a
leaderboard can compare two rows' signatures and flag rows produced in a way that changes
the numbers (another summation, another judge, another template ...).

The hyoka version is part of the line but never counts as a difference: a new release that
computes the same numbers must not flag every older row. Everything else does.

What goes into a signature, and into the identity a resumed file must share, is derived
from one ``SettingsRecord``: each of its fields says, where it is declared, whether it counts
in the identity, in the signature, or in neither and why (``counts``). A field declared
without saying so is refused when the class is made, so a setting that changes numbers
cannot be added and forgotten in one of the places it belongs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

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


def _redacted(text: str) -> str:
    """A value that is a URL, with its credentials redacted (``hyoka.providers.shown_url``):
    a signature is shown and shared, even one read from a file an older hyoka wrote."""
    if "://" not in text:
        return text
    from hyoka.providers import shown_url  # only for a URL: no import cost otherwise

    return shown_url(text)


@dataclass(frozen=True)
class Signature:
    """Ordered ``key: value`` pairs; ``hyoka`` (the version) and ``kind`` always come first.
    A value that is a URL holds no credentials, however the signature was made or read."""

    fields: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        shown = tuple((key, _redacted(value)) for key, value in self.fields)
        if shown != self.fields:
            object.__setattr__(self, "fields", shown)

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


@dataclass(frozen=True)
class Counts:
    """Where one field of a ``SettingsRecord`` counts (``Annotated`` metadata; see ``counts``).

    ``identity``/``signature``: the field's key there (``True``: its own name), ``None`` for
    a field left out (``why`` says why). A field holding another ``SettingsRecord`` puts that
    record's identity under its key and that record's signature fields in line.
    ``skip_empty``: left out of the signature when ``None`` or empty (a setting only some
    runs have).
    """

    identity: str | bool | None
    signature: str | bool | None
    why: str = ""
    skip_empty: bool = False

    def named(self, field: str) -> Counts:
        """These declarations with ``True`` replaced by the field's name."""
        return Counts(
            identity=field if self.identity is True else self.identity or None,
            signature=field if self.signature is True else self.signature or None,
            why=self.why,
            skip_empty=self.skip_empty,
        )


def counts(
    *,
    identity: bool | str = True,
    signature: bool | str = True,
    why: str = "",
    skip_empty: bool = False,
) -> Counts:
    """How a field counts: in the identity and the signature under its own name (or the
    name given), or left out of one (``False``), saying ``why`` (it changes no number, or it
    is checked another way, record by record)."""
    return Counts(identity or None, signature or None, why, skip_empty)


class SettingsRecord(BaseModel):
    """Settings that decide numbers, each field declared with ``Annotated[T, counts(...)]``:
    ``identity()`` and ``signature_fields()`` are derived from those declarations alone."""

    model_config = ConfigDict(frozen=True)

    #: every field's declaration, by field name (filled when the class is made)
    counted: ClassVar[dict[str, Counts]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        declared: dict[str, Counts] = {}
        for name, info in cls.model_fields.items():
            marks = [mark for mark in info.metadata if isinstance(mark, Counts)]
            if len(marks) != 1:
                raise TypeError(
                    f"{cls.__name__}.{name}: declare once whether it counts in the identity "
                    "and the signature (Annotated[..., counts(...)])"
                )
            mark = marks[0].named(name)
            if (mark.identity is None or mark.signature is None) and not mark.why:
                raise TypeError(f"{cls.__name__}.{name}: say why it is left out (why=...)")
            declared[name] = mark
        cls.counted = declared

    def _fields(self) -> Iterator[tuple[Counts, Any]]:
        for name, mark in self.counted.items():
            yield mark, getattr(self, name)

    def identity(self) -> dict[str, Any]:
        """What a resumed file must share with this run (JSON values, as files keep them)."""
        dumped = self.model_dump(mode="json")
        found: dict[str, Any] = {}
        for name, mark in self.counted.items():
            if mark.identity is None:
                continue
            value = getattr(self, name)
            # a field a record writes only when set is absent from its dump when not
            found[str(mark.identity)] = (
                value.identity() if isinstance(value, SettingsRecord) else dumped.get(name)
            )
        return found

    def signature_fields(self) -> dict[str, object]:
        """The signature's fields, in the order the fields are declared."""
        found: dict[str, object] = {}
        for mark, value in self._fields():
            if mark.signature is None:
                continue
            if isinstance(value, SettingsRecord):
                found.update(value.signature_fields())
            elif not (mark.skip_empty and (value is None or value in ((), "", []))):
                found[str(mark.signature)] = value
        return found
