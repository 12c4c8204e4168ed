"""Settings records: the one declaration from which a result's identity and signature come.

Each field of a ``SettingsRecord`` says, where it is declared, whether it counts in the
identity (what a resumed file must share), in the signature, or in neither and why
(``counts``). A field declared without saying so is refused when the class is made, so a
setting that changes numbers cannot be added and forgotten in one of the places it belongs.

A record is a pydantic model (it is validated where it is read back from a manifest); it
lives apart from ``hyoka.signature`` so that results whose signatures are plain
``SignatureType`` dataclasses (pfgen scoring) never import pydantic.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from hyoka.signature import Signature, declared_signature


@dataclass(frozen=True)
class Counts:
    """Where one field of a ``SettingsRecord`` counts (``Annotated`` metadata; see ``counts``).

    ``identity``/``signature``: the field's key there (``True``: its own name), ``None`` for
    a field left out (``why`` says why). A field holding another ``SettingsRecord`` puts that
    record's identity under its key and that record's signature fields in line.
    ``skip_empty``: left out of the signature when ``None`` or empty (a setting only some
    runs have). ``default_unsaid``: while it holds its default, left unsaid everywhere: out
    of the written record, ``None`` in the identity (as a file from before the field has
    it), out of the signature; the field holds the default's value itself (``None`` read
    back is the default), so a default spelled out is the same run.
    """

    identity: str | bool | None
    signature: str | bool | None
    why: str = ""
    skip_empty: bool = False
    default_unsaid: bool = False

    def named(self, field: str) -> Counts:
        """These declarations with ``True`` replaced by the field's name."""
        return Counts(
            identity=field if self.identity is True else self.identity or None,
            signature=field if self.signature is True else self.signature or None,
            why=self.why,
            skip_empty=self.skip_empty,
            default_unsaid=self.default_unsaid,
        )


def counts(
    *,
    identity: bool | str = True,
    signature: bool | str = True,
    why: str = "",
    skip_empty: bool = False,
    default_unsaid: bool = False,
) -> Counts:
    """How a field counts: in the identity and the signature under its own name (or the
    name given), or left out of one (``False``), saying ``why`` (it changes no number, or it
    is checked another way, record by record). ``default_unsaid``: a setting added after
    files were written, left unsaid while it holds its default (see ``Counts``), so those
    files keep their identity, line and signature."""
    return Counts(identity or None, signature or None, why, skip_empty, default_unsaid)


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

    @model_validator(mode="before")
    @classmethod
    def _unsaid_is_default(cls, data: Any) -> Any:
        """``None`` given or read back for a field whose default is left unsaid (an
        identity from before the field, a builder passing "not set") is its default."""
        if isinstance(data, dict):
            unsaid = [
                name
                for name, mark in cls.counted.items()
                if mark.default_unsaid and name in data and data[name] is None
            ]
            if unsaid:
                data = {k: v for k, v in data.items() if k not in unsaid}
        return data

    @model_serializer(mode="wrap")
    def _leave_defaults_unsaid(self, handler: SerializerFunctionWrapHandler) -> Any:
        """The written record leaves out every field whose default is unsaid while it
        holds it: a record of the default is the line it always was."""
        data = handler(self)
        if isinstance(data, dict):
            for name in self._unsaid():
                data.pop(name, None)
        return data

    def _unsaid(self) -> set[str]:
        """The fields left unsaid now: declared ``default_unsaid`` and holding the default."""
        return {
            name
            for name, mark in self.counted.items()
            if mark.default_unsaid
            and getattr(self, name)
            == type(self).model_fields[name].get_default(call_default_factory=True)
        }

    def _fields(self) -> Iterator[tuple[Counts, Any]]:
        unsaid = self._unsaid()
        for name, mark in self.counted.items():
            if name not in unsaid:
                yield mark, getattr(self, name)

    def identity(self) -> dict[str, Any]:
        """What a resumed file must share with this run (JSON values, as files keep them);
        a field left unsaid is ``None``, as in a file from before it."""
        dumped = self.model_dump(mode="json")
        found: dict[str, Any] = {}
        for name, mark in self.counted.items():
            if mark.identity is None:
                continue
            value = getattr(self, name)
            # a field left unsaid is absent from the dump
            found[str(mark.identity)] = (
                value.identity() if isinstance(value, SettingsRecord) else dumped.get(name)
            )
        return found

    def signed(self, kind: str, packages: Iterable[str] = ()) -> Signature:
        """The signature of a result of ``kind`` produced with these settings: the record is
        the kind's signature type, its fields those it declares (``signature_fields``),
        then the installed versions of ``packages``."""
        return declared_signature(kind, self.signature_fields(), packages)

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
