"""Signatures: one line that says exactly how a number was produced, as sacrebleu prints.

Every result hyoka writes or prints carries one: ``hyoka:0.1.0|kind:pfgen|data:pfgen@1a2b3c4d|
sum:compensated|mode:chat``. The line is meant to be pasted beside the number in a paper;
the same fields are stored as a JSON object in every file that carries numbers, so a
leaderboard can compare two rows' signatures and flag rows produced in a way that changes
the numbers (another summation, another judge, another template ...).

The hyoka version is part of the line but never counts as a difference: a new release that
computes the same numbers must not flag every older row. Nor do the versions of the
packages that compute a kind's numbers (the ``packages`` field: shown, so a reader can
tell, but upgrading a package must not flag every older row either). Everything else does.

What goes into a signature, and into the identity a resumed file must share, is derived
from one ``SettingsRecord`` (``hyoka.settings_record``, kept apart because it is a pydantic
model and most signatures are made without pydantic).

Each kind of result has its own signature type, declared by the code that computes that
result, as sacrebleu has ``BLEUSignature``: a ``SignatureType`` (its kind and its fields, in
order; making one with a field missing or unknown is a ``TypeError``), or, where the
result comes from a ``SettingsRecord`` (the judging kinds, ``judge.JudgeRun``), that record,
whose signature holds exactly the fields it declares. No signature is made from keys chosen
at a call site. Signatures read from files are taken as they are, since rows written by
older versions (or of other kinds) must still load and compare.

A stored signature carries its format (``FORMAT``, as inspect_ai's ``EvalLog.version``):
one written before formats existed is migrated in memory when read (``migrate``), and one
of a newer format than this hyoka knows is refused with one line naming the file.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from hyoka import __version__
from hyoka.errors import InputError

#: The key under which files store their signature (``{"format": 2, "line": ...,
#: "fields": {...}}``).
SIGNATURE_KEY = "signature"

#: The format of a stored signature. 1: ``{"line", "fields"}`` or a bare line, without a
#: format (hyoka before formats); 2: the same with ``"format": 2``, and the versions of the
#: packages that compute the numbers in the ``packages`` field where a kind has them.
FORMAT = 2

#: Fields that do not change how numbers are computed from the same inputs and settings,
#: and are never reported as differences: the hyoka version and the packages' versions.
_NEUTRAL = frozenset({"hyoka", "packages"})

#: The field that names the package versions.
PACKAGES = "packages"


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
    """A value that is a URL, with its credentials redacted (``hyoka.redact.shown_url``):
    a signature is shown and shared, even one read from a file an older hyoka wrote."""
    if "://" not in text:
        return text
    from hyoka.redact import shown_url  # only for a URL: no import cost otherwise

    return " ".join(shown_url(part) for part in text.split(" "))  # a pool's: each


@functools.cache
def package_version(distribution: str) -> str | None:
    """The installed version of ``distribution`` (``None`` when it is not installed), read
    from its metadata without importing it."""
    from importlib import metadata  # 8 ms, and most signatures name no package

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def package_versions(distributions: Iterable[str]) -> tuple[str, ...]:
    """``name=version`` of each installed distribution, each once, in the order given."""
    found = []
    for name in dict.fromkeys(distributions):
        version = package_version(name)
        if version is not None:
            found.append(f"{name}={version}")
    return tuple(found)


@dataclass(frozen=True)
class Signature:
    """Ordered ``key: value`` pairs; ``hyoka`` (the version) and ``kind`` always come first.
    A value that is a URL holds no credentials, however the signature was made or read.

    Made by a kind's ``SignatureType`` (``.signature()``), or read from a file
    (``from_json``, ``parse``); code outside this module does not build one from loose keys.
    """

    fields: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        shown = tuple((key, _redacted(value)) for key, value in self.fields)
        if shown != self.fields:
            object.__setattr__(self, "fields", shown)

    @property
    def line(self) -> str:
        return "|".join(f"{key}:{value}" for key, value in self.fields)

    def __str__(self) -> str:
        return self.line

    def as_dict(self) -> dict[str, str]:
        return dict(self.fields)

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.as_dict().get(key, default)

    def with_field(self, key: str, value: object) -> Signature:
        """This signature with ``key`` set to ``value`` (in its place, or last): a reader's
        note on a signature it read, as a leaderboard marks a row judged two ways."""
        pairs = list(self.fields)
        keys = [k for k, _ in pairs]
        if key in keys:
            pairs[keys.index(key)] = (key, _text(value))
        else:
            pairs.append((key, _text(value)))
        return Signature(tuple(pairs))

    def without_field(self, key: str) -> Signature:
        """This signature without ``key`` (as it was, where it has none): a reader's note
        taken back, as a file made only online again drops the ``batch`` field."""
        return Signature(tuple(pair for pair in self.fields if pair[0] != key))

    def to_json(self) -> dict[str, Any]:
        """What files store under ``SIGNATURE_KEY``, in the current ``FORMAT``."""
        return {"format": FORMAT, "line": self.line, "fields": self.as_dict()}

    @classmethod
    def from_json(cls, value: object, where: str | Path = "a stored signature") -> Signature | None:
        """Read what ``to_json`` wrote in any format this hyoka knows (older ones migrated,
        ``migrate``), or a bare line; ``None`` for anything else. A newer format is an
        ``InputError`` naming ``where`` (the file it was read from)."""
        current = migrate(value, where)
        if current is None:
            return None
        return cls(tuple((str(k), str(v)) for k, v in current["fields"].items()))

    @classmethod
    def parse(cls, line: str) -> Signature:
        pairs = []
        for part in line.split("|"):
            key, _, value = part.partition(":")
            pairs.append((key, value))
        return cls(tuple(pairs))

    def differences(self, other: Signature) -> list[str]:
        """``key: mine vs theirs`` for every field that changes numbers and differs (the
        hyoka and package versions never do)."""
        mine, theirs = self.as_dict(), other.as_dict()
        return [
            f"{key}: {mine.get(key, '-')} vs {theirs.get(key, '-')}"
            for key in dict.fromkeys([*mine, *theirs])
            if key not in _NEUTRAL and mine.get(key) != theirs.get(key)
        ]


def common_signature(signatures: Iterable[Signature | None]) -> Signature | None:
    """The signature most rows share (the first such, in order), to compare each row with.
    Rows that differ only in neutral fields (versions) share one."""
    counts: dict[tuple[tuple[str, str], ...], int] = {}
    for signature in signatures:
        if signature is not None:
            key = tuple((k, v) for k, v in signature.fields if k not in _NEUTRAL)
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return None
    best = max(counts.items(), key=lambda item: item[1])[0]
    return Signature((("hyoka", __version__), *best))


# --- stored signatures: formats and their migration -----------------------------------------


def _format_1_to_2(stored: object) -> dict[str, Any] | None:
    """Format 1 (no ``format``: ``{"line", "fields"}``, or a bare line) as format 2: the
    fields as stored (from the line where there are none), the line made from them again.
    Format 1 recorded no package versions; they are neutral, so nothing else changes."""
    fields: Mapping[Any, Any] | None = None
    if isinstance(stored, Mapping):
        found = stored.get("fields")
        line = stored.get("line")
        if isinstance(found, Mapping):
            fields = found
        elif isinstance(line, str):
            stored = line
    if fields is None:
        if not isinstance(stored, str):
            return None
        fields = Signature.parse(stored).as_dict()
    signature = Signature(tuple((str(k), str(v)) for k, v in fields.items()))
    return signature.to_json() | {"format": 2}


#: format n -> the function taking a stored signature of format n to format n + 1
_MIGRATIONS: dict[int, Callable[[object], dict[str, Any] | None]] = {1: _format_1_to_2}


def _stored_format(stored: object) -> int | None:
    """The format a stored signature is in (1 when it names none); ``None`` when it is not
    a signature at all."""
    if isinstance(stored, str):
        return 1
    if not isinstance(stored, Mapping):
        return None
    version = stored.get("format", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        return None
    return version


def migrate(stored: object, where: str | Path) -> dict[str, Any] | None:
    """A signature as a file stored it (any format up to ``FORMAT``) in the current format,
    in memory (the file is left as it is); ``None`` for what is not a signature. A format
    newer than this hyoka knows is refused with one line naming ``where``."""
    version = _stored_format(stored)
    if version is None:
        return None
    if version > FORMAT:
        raise InputError(
            f"{where}: its signature is of format {version}, newer than this hyoka "
            f"({__version__}) reads (format {FORMAT}); upgrade hyoka to read it"
        )
    current: object = stored
    for step in range(version, FORMAT):
        current = _MIGRATIONS[step](current)
        if current is None:
            return None
    if not isinstance(current, Mapping) or not isinstance(current.get("fields"), Mapping):
        return None
    return dict(current)


# --- each kind's declared signature ---------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SignatureType:
    """The signature of one kind of result, its fields declared (sacrebleu's
    ``BLEUSignature``): a subclass is a frozen keyword-only dataclass that names its
    ``kind`` and declares its fields in the order the line shows them (``max_tokens`` shows
    as ``max-tokens``). Making one with a field missing or unknown is a ``TypeError``.

    ``packages``: the distributions whose versions change this kind's numbers, whatever
    the settings; ``signature(packages=...)`` adds those a run chose (its backend). Their
    installed versions are the neutral ``packages`` field, last, present when there are any.
    """

    kind: ClassVar[str]
    packages: ClassVar[tuple[str, ...]] = ()
    #: every declared kind's type, by kind
    declared: ClassVar[dict[str, type[SignatureType]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("kind")
        if not isinstance(kind, str) or not kind:
            raise TypeError(f"{cls.__name__}: declare the kind of result it signs (kind = ...)")
        known = SignatureType.declared.get(kind)
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise TypeError(f"{cls.__name__}: kind {kind!r} is already {known.__name__}'s")
        SignatureType.declared[kind] = cls

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The declared fields, as the line names them, in order."""
        return tuple(f.name.replace("_", "-") for f in dataclasses.fields(cls))

    def signature(self, packages: Iterable[str] = ()) -> Signature:
        """The signature: the hyoka version, the kind, every declared field, then the
        versions of ``packages`` (this kind's and those given) that are installed."""
        fields = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if not (f.metadata.get(_ONLY_WHEN_SET) and getattr(self, f.name) is None)
        }
        return declared_signature(self.kind, fields, (*self.packages, *packages))


#: dataclass metadata of a ``SignatureType`` field shown only when set (``only_when_set``)
_ONLY_WHEN_SET = "hyoka-only-when-set"


def only_when_set() -> Any:
    """A ``SignatureType`` field that only some results have (a benchmark's variant): left
    out of the line when ``None``, so results without it keep the signature they always had."""
    return dataclasses.field(default=None, metadata={_ONLY_WHEN_SET: True})


def declared_signature(
    kind: str, fields: Mapping[str, object], packages: Iterable[str]
) -> Signature:
    """The one way a signature is made from values, called only by a declared
    ``SignatureType`` and by ``settings_record.SettingsRecord``: never from keys chosen at a
    call site."""
    pairs = [("hyoka", __version__), ("kind", kind)]
    pairs += [(key.replace("_", "-"), _text(value)) for key, value in fields.items()]
    versions = package_versions(packages)
    if versions:
        pairs.append((PACKAGES, _text(versions)))
    return Signature(tuple(pairs))
