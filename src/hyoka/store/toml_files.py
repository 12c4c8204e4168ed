"""TOML in: the settings files a user writes (judge templates, reference-set rule files, the
generation and build settings), with every problem one ``InputError`` naming the file.

A UTF-8 byte-order mark at the start of a file (what Windows editors write) is no part of
its text and is read past, as the JSON readers do (``hyoka.store.jsonl``): ``tomllib``
alone calls it an invalid statement at line 1, column 1.

``tomllib`` is imported on first use: a command that reads no settings file (``hyoka pfgen
score``) does not pay for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.store.jsonl import BOM
from hyoka.store.regular import SETTINGS_MAX_BYTES, read_regular


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """``text`` (read from ``where``) as its table, past a byte-order mark at its start;
    TOML that does not parse is one ``InputError`` naming ``where`` and the line."""
    import tomllib

    try:
        return tomllib.loads(text.removeprefix(BOM))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: invalid TOML: {exc}") from None


def read_toml(path: Path, *, limit: int = SETTINGS_MAX_BYTES) -> tuple[dict[str, Any], str]:
    """The TOML file at ``path`` as its table, and its text past a byte-order mark (for
    finding a key's line); one that is no regular file of at most ``limit`` bytes
    (``read_regular``), cannot be read, is not UTF-8 or does not parse is one
    ``InputError`` naming it."""
    data = read_regular(path, limit=limit, what="a settings file")
    try:
        text = data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return parse_toml(text, str(path)), text
