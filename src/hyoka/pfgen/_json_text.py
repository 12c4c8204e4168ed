"""``json.dumps(value, indent=..., ensure_ascii=...)``, the same text, several times faster.

A result.json is written as ``json.dumps(result, indent=2, ensure_ascii=False)`` (upstream's
bytes: orjson's indented output differs). With an indent, CPython (before 3.13) encodes in
pure Python, a generator per container and a ``yield`` per piece; rescoring the public runs
spent more time there than in aggregating them. Here the containers that hold only scalars
(every set's shares, every rule missed, most of a result) are each encoded by CPython's C
encoder in one call, with the item separator carrying the newline and indentation of their
depth, and only the containers around them are walked in Python. Every scalar is encoded as
``json`` encodes it (the C encoder, or the same ``repr`` and string escaping in Python).

Anything outside plain JSON types (subclasses, non-string keys, objects ``default`` would
see, a recursion too deep) is handed to ``json.dumps`` itself, which then says what it says.
``tests/pfgen/test_pfgen_json_text.py`` compares the two on random values and on every sample
result.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from itertools import repeat
from json import encoder as json_encoder
from typing import Any

_CONTAINERS = (dict, list, tuple)
_Encode = Callable[[Any, int], Any]


class _LeftToJsonError(Exception):
    """A value this writer leaves to ``json.dumps``."""


def _refuse(value: Any) -> Any:
    raise _LeftToJsonError(type(value).__name__)


def dumps(value: Any, *, indent: int, ensure_ascii: bool) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)``, character for
    character (separators and every other setting as ``json.dumps`` defaults them)."""
    make = getattr(json_encoder, "c_make_encoder", None)
    if make is None:
        return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)
    try:
        return _Writer(make, " " * indent, ensure_ascii).text(value)
    except (_LeftToJsonError, RecursionError):
        return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)


class _Writer:
    def __init__(self, make: Callable[..., _Encode], indent: str, ensure_ascii: bool) -> None:
        self._make = make
        self._indent = indent
        self._string: Callable[[str], str] = (
            json_encoder.encode_basestring_ascii if ensure_ascii else json_encoder.encode_basestring
        )
        self._flat: list[_Encode] = []  # by depth: the C encoder of a container of scalars
        self._newlines: list[str] = []  # by depth: "\n" and that depth's indentation
        self._parts: list[str] = []
        self._keys: dict[Any, str] = {}  # a key as written, with ": " (keys repeat a lot)

    def text(self, value: Any) -> str:
        self._value(value, 0)
        return "".join(self._parts)

    def _newline(self, depth: int) -> str:
        while len(self._newlines) <= depth:
            self._newlines.append("\n" + self._indent * len(self._newlines))
        return self._newlines[depth]

    def _encoder(self, depth: int) -> _Encode:
        """The C encoder whose item separator starts the next line at ``depth + 1``."""
        while len(self._flat) <= depth:
            separator = "," + self._newline(len(self._flat) + 1)
            self._flat.append(
                self._make(None, _refuse, self._string, None, ": ", separator, False, False, True)
            )
        return self._flat[depth]

    def _value(self, value: Any, depth: int) -> None:
        if isinstance(value, _CONTAINERS):
            self._container(value, depth)
        elif type(value) is str:
            self._parts.append(self._string(value))
        else:
            self._parts.append(_scalar(value))

    def _container(self, value: Any, depth: int) -> None:
        """A dict, list or tuple at ``depth``: its items one per line, indented one more.

        Each item is followed by the separator, and the last separator is then replaced by
        the closing line: no test per item for the first or last one."""
        parts = self._parts
        if not value:
            parts.append("{}" if isinstance(value, dict) else "[]")
            return
        items = value.values() if isinstance(value, dict) else value
        if not any(map(isinstance, items, repeat(_CONTAINERS))):
            self._flat_container(value, depth)
            return
        string, keys = self._string, self._keys
        inner = self._newline(depth + 1)
        separator = "," + inner
        if isinstance(value, dict):
            parts.append("{" + inner)
            for key, item in value.items():
                encoded = keys.get(key)
                if encoded is None:
                    if type(key) is not str:
                        raise _LeftToJsonError("key")
                    encoded = keys[key] = string(key) + ": "
                parts.append(encoded)
                if isinstance(item, _CONTAINERS):
                    self._container(item, depth + 1)
                elif type(item) is str:
                    parts.append(string(item))
                else:
                    parts.append(_scalar(item))
                parts.append(separator)
            parts[-1] = self._newline(depth) + "}"
            return
        parts.append("[" + inner)
        for item in value:
            if isinstance(item, _CONTAINERS):
                self._container(item, depth + 1)
            elif type(item) is str:
                parts.append(string(item))
            else:
                parts.append(_scalar(item))
            parts.append(separator)
        parts[-1] = self._newline(depth) + "]"

    def _flat_container(self, value: Any, depth: int) -> None:
        """A non-empty container of scalars: the C encoder writes ``{a,<newline>b}``, and
        the first and last line breaks are put inside the brackets."""
        text = "".join(self._encoder(depth)(value, 0))
        self._parts.append(text[0] + self._newline(depth + 1))
        self._parts.append(text[1:-1])
        self._parts.append(self._newline(depth) + text[-1])


def _scalar(value: Any) -> str:
    """A number, ``true``, ``false`` or ``null`` as ``json`` writes it (``allow_nan``)."""
    kind = type(value)
    if kind is float:
        if math.isfinite(value):
            return float.__repr__(value)
        return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
    if kind is int:
        return int.__repr__(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    raise _LeftToJsonError(kind.__name__)
