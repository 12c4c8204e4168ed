"""JSON Lines in and out, with every problem pinned to a file and line.

Answer and judgment files are append-only logs: a run that is interrupted leaves whole
lines behind (each line is written whole, or not at all, and flushed), and a re-run appends
what is missing. A last line without its newline is the trace of a crash mid-write; a
resumed run cuts it off (``whole_lines``) before appending, anywhere else a bad line
is an error.

A UTF-8 byte-order mark at the very start of a file (what Windows editors and Excel
write) is no part of its text and is read past, by every reader here; one anywhere else
is named in the error, since the JSON parser would only say it expected a value.

Every reason a document cannot be read is said in hyoka's words (``decode_json``,
``json_problem``): Python's advice to its programmers ("decode using utf-8-sig", "use
sys.set_int_max_str_digits()") is no advice to someone whose file it is.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from hyoka.errors import InputError
from hyoka.store.files import append_bytes, atomic_write_text, truncate_to
from hyoka.store.regular import DOCUMENT_MAX_BYTES, LOG_MAX_BYTES, open_regular, read_regular

if TYPE_CHECKING:
    # pydantic is imported where records are validated, not here: reading plain JSON Lines
    # (a pfgen run's trials) must not pay its 60 ms import
    from pydantic import BaseModel, ValidationError

_M = TypeVar("_M", bound="BaseModel")


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else str(error["msg"])


def refuse_constant(name: str) -> Any:
    """``parse_constant`` for ``json.loads``: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not a number JSON allows")


#: ``json.loads(text, parse_constant=refuse_constant)``, its decoder made once: made per
#: call, it cost a third of the time of reading a large JSON Lines file (every JSON Lines
#: reader of the store decodes with it)
STRICT_DECODER = json.JSONDecoder(parse_constant=refuse_constant)


def lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate a decoded value holds (not text; cannot be UTF-8), or None."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        return str(exc.object[exc.start])
    return None


#: The byte-order mark as decoded text: read past at the start of a file (module docstring).
BOM = "\ufeff"


def bom_line_error(where: str) -> InputError:
    """The one error for a byte-order mark that starts a line other than a file's first."""
    return InputError(
        f"{where}: starts with a byte-order mark (U+FEFF), which only the start of a "
        "file may hold (two files joined into one?)"
    )


def parse_object(line: str, where: str) -> dict[str, Any]:
    """One JSON object, or an ``InputError`` naming ``where`` (``file:line``) and why.

    Beyond malformed JSON this refuses what ``json.loads`` lets through but breaks later:
    ``NaN``/``Infinity`` (not JSON, and a NaN score poisons every mean), nesting deep enough
    to exhaust the stack, and a lone surrogate escape (``"\\ud800"``), which is no Unicode
    text and cannot be written back as UTF-8. A line that starts with a byte-order mark
    (one not at the start of its file) is named as such.
    """
    if line.startswith(BOM):
        raise bom_line_error(where)
    value = _loads(line, where, strict=True, one_line=True)
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a JSON object")
    if "\\u" in line and lone_surrogate(value) is not None:
        raise InputError(f"{where}: holds a lone surrogate escape (such as \\ud800): not text")
    return value


class JsonDocumentError(ValueError):
    """Why a JSON document cannot be read, in hyoka's words (``reason``), and the line the
    parser stopped at where it says (``line``), for a caller that names the file its way."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


def json_problem(exc: ValueError) -> str:
    """What the JSON parser (or ``refuse_constant``) found, in hyoka's words."""
    if isinstance(exc, json.JSONDecodeError):
        if exc.msg.startswith("Unexpected UTF-8 BOM"):
            return "a byte-order mark (U+FEFF), which only the start of a file may hold"
        return exc.msg
    text = str(exc)
    if "integer string conversion" in text:
        return f"a number of more than {sys.get_int_max_str_digits()} digits"
    return text


def decode_json(data: str | bytes, *, strict: bool = True) -> Any:
    """A whole JSON document from ``data``, a byte-order mark at its start read past, or a
    ``JsonDocumentError``: text that is not UTF-8, malformed JSON, a number too long to read,
    nesting deep enough to exhaust the stack, and (``strict``) ``NaN``/``Infinity``, which
    JSON does not allow."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonDocumentError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return _decoded(data.removeprefix(BOM), strict)


def _decoded(text: str, strict: bool) -> Any:
    try:
        if strict:
            return STRICT_DECODER.decode(text)
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonDocumentError(f"not valid JSON ({json_problem(exc)})", exc.lineno) from None
    except ValueError as exc:
        raise JsonDocumentError(f"not valid JSON ({json_problem(exc)})") from None
    except RecursionError:
        raise JsonDocumentError("JSON nested too deeply to read") from None


def _as_text(text: str | bytes, where: str) -> str:
    """``text`` decoded as UTF-8 without a byte-order mark at its start, or an
    ``InputError`` naming ``where`` and the byte."""
    if isinstance(text, str):
        return text.removeprefix(BOM)
    try:
        return text.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def parse_json(text: str | bytes, where: str, *, strict: bool = True) -> Any:
    """A whole JSON document (``decode_json``), or an ``InputError`` naming ``where`` (and
    the line) and why."""
    try:
        return decode_json(text, strict=strict)
    except JsonDocumentError as problem:
        at = where if problem.line is None else f"{where}:{problem.line}"
        raise InputError(f"{at}: {problem.reason}") from None


def _loads(text: str, where: str, *, strict: bool, one_line: bool) -> Any:
    """One JSON document of ``text`` as it is (``_decoded``), every failure one
    ``InputError`` naming ``where`` (and, for a document of several lines, the line the
    parser stopped at)."""
    try:
        return _decoded(text, strict)
    except JsonDocumentError as problem:
        at = where if one_line or problem.line is None else f"{where}:{problem.line}"
        raise InputError(f"{at}: {problem.reason}") from None


def read_json(path: Path, *, strict: bool = True, max_bytes: int = DOCUMENT_MAX_BYTES) -> Any:
    """The JSON document in ``path`` (see ``parse_json``), a regular file of at most
    ``max_bytes`` (``read_regular``). Every problem is an ``InputError`` naming the file."""
    data = read_regular(path, limit=max_bytes, what="a JSON document hyoka reads")
    return parse_json(data, str(path), strict=strict)


def first_object(path: Path) -> dict[str, Any] | None:
    """The first object of a JSON Lines file (``None`` when it holds no line), read only
    that far: how a file is recognised by its content. ``InputError`` when it is not one."""
    for _, value in read_objects(path):
        return value
    return None


def json_text(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """``value`` as JSON text (non-ASCII kept readable) ending in a newline."""
    return json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sort_keys) + "\n"


def write_json(path: Path, value: Any, *, indent: int | None = 1, sort_keys: bool = False) -> None:
    """Replace ``path`` atomically with ``value`` as JSON (``atomic_write_text``)."""
    atomic_write_text(path, json_text(value, indent=indent, sort_keys=sort_keys))


def write_jsonl(path: Path, values: Iterable[dict[str, Any]]) -> None:
    """Replace ``path`` atomically with one JSON line per value."""
    atomic_write_text(path, "".join(json_text(value) for value in values))


def parse_lines(text: str | bytes, where: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of JSON Lines held in memory (an
    inflated file, a frame); ``where`` names its source in an ``InputError``."""
    text = _as_text(text, where)
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, parse_object(line, f"{where}:{number}")


def read_objects(
    path: Path,
    data: bytes | None = None,
    *,
    limit: int = LOG_MAX_BYTES,
    unique_keys: bool = False,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line; an ``InputError`` at the first bad one.
    ``data``: the file's bytes, already read (``whole_lines``), parsed as the file would be;
    else the file is read as a stream of at most ``limit`` bytes (``open_regular``).
    ``unique_keys``: a key twice in one object is refused too (``_refuse_repeated_keys``),
    for a format whose writers never repeat one, so a repeat is damage, not a choice."""
    with contextlib.ExitStack() as stack:
        raw = (
            stack.enter_context(open_regular(path, limit=limit, what="a log or table"))
            if data is None
            else io.BytesIO(data)
        )
        handle = stack.enter_context(io.TextIOWrapper(raw, encoding="utf-8"))
        yield from _numbered_objects(path, handle, unique_keys)


def _numbered_objects(
    path: Path, handle: io.TextIOWrapper, unique_keys: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        for number, line in enumerate(handle, start=1):
            if number == 1:
                line = line.removeprefix(BOM)
            if not line.strip():
                continue
            value = parse_object(line, f"{path}:{number}")
            if unique_keys:
                _refuse_repeated_keys(line, f"{path}:{number}")
            yield number, value
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def read_rows(path: Path, *, limit: int = LOG_MAX_BYTES) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, object)`` rows of a small table a user writes by hand: CSV or TSV (header
    row, cells stripped), a JSON list of objects, or JSON Lines; ``where`` is ``file:line``
    (``file: entry N`` in a JSON list), for error messages.

    A column named twice in the header, or a key twice in one object, is an ``InputError``
    naming it: which of the two a row means cannot be guessed (a CSV reader keeps the last
    cell, a JSON parser the last value, without a word). Only tables: a log's lines are read
    as the file format's writers read them (``read_objects``). A file of more than ``limit``
    bytes, or no regular file, is refused unread (``read_regular``)."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".tsv", ".json"):
        data = read_bytes(path, limit=limit)
        lines = list(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace"))
        for number, row in read_objects(path, data):
            _refuse_repeated_keys(lines[number - 1], f"{path}:{number}")
            yield f"{path}:{number}", row
        return
    data = read_regular(path, limit=limit, what="a log or table")
    try:
        text = data.decode("utf-8").removeprefix(BOM)  # as Excel writes CSV
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if suffix in (".csv", ".tsv"):
        reader = csv.DictReader(text.splitlines(), delimiter="," if suffix == ".csv" else "\t")
        names = [name.strip() for name in reader.fieldnames or ()]
        twice = next((name for i, name in enumerate(names) if name in names[:i] and name), None)
        if twice is not None:
            raise InputError(
                f"{path}:1: column {twice!r} is named twice in the header; which one a row "
                "means cannot be guessed"
            )
        for number, cells in enumerate(reader, start=2):
            yield f"{path}:{number}", {k.strip(): (v or "").strip() for k, v in cells.items() if k}
        return
    data = _loads(text, str(path), strict=False, one_line=False)
    _refuse_repeated_keys(text, str(path))
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of objects")
    for number, row in enumerate(data, start=1):
        if not isinstance(row, dict):
            raise InputError(f"{path}: entry {number}: expected a JSON object")
        yield f"{path}: entry {number}", row


class _RepeatedKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _RepeatedKeyError(key)
        seen[key] = value
    return seen


def _refuse_repeated_keys(text: str, where: str) -> None:
    """An ``InputError`` naming ``where`` and the key when an object of JSON ``text`` (read
    already, so valid) holds one key twice."""
    try:
        json.loads(text.removeprefix(BOM), object_pairs_hook=_unique_pairs)
    except _RepeatedKeyError as exc:
        raise InputError(
            f"{where}: key {exc.key!r} appears twice in one object; which value is meant "
            "cannot be guessed"
        ) from None
    except (ValueError, RecursionError):  # refused by the reader already, in its words
        return


def read_records(
    path: Path, model: type[_M], data: bytes | None = None
) -> Iterator[tuple[int, _M]]:
    """Each line validated as ``model``; an ``InputError`` naming file, line and field
    (``data``: the file's bytes, already read)."""
    from pydantic import ValidationError  # loaded already: ``model`` is a pydantic model

    for number, value in read_objects(path, data):
        try:
            yield number, model.model_validate(value)
        except ValidationError as exc:
            raise InputError(
                f"{path}:{number}: not a {model.__name__} record ({_first_problem(exc)})"
            ) from None


def record_line(record: BaseModel) -> str:
    """A record as one JSON line (non-ASCII kept readable, as upstream writes)."""
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False) + "\n"


def append_line(path: Path, line: str, *, sync: bool = True) -> int:
    """One line, written whole and flushed to disk, or not at all (``append_bytes``), so a
    crash or a full disk never leaves half a record; where it starts in the file.
    ``sync=False``: the caller flushes it (``append_bytes``)."""
    try:
        data = line.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{path}: a record holds a lone surrogate; not written") from None
    return append_bytes(path, data, sync=sync)


def append_record(path: Path, record: BaseModel) -> None:
    """Append ``record`` as one line (see ``append_line``)."""
    append_line(path, record_line(record))


def read_bytes(path: Path, *, limit: int = LOG_MAX_BYTES) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (``read_regular``),
    or an ``InputError`` naming it: a file read once and then parsed
    (``read_records(path, model, data)``) and hashed from the same bytes."""
    return read_regular(path, limit=limit, what="a log or table")


def whole_lines(path: Path, data: bytes | None = None) -> bytes:
    """The bytes of ``path`` (``data``: as already read) up to its last newline, a torn last
    line (a write cut short) cut off the file first: a log is read once, then parsed from
    these bytes (``read_records(path, model, data)``)."""
    if data is None:
        data = read_bytes(path)
    if not data or data.endswith(b"\n"):
        return data
    keep = data.rfind(b"\n") + 1
    truncate_to(path, keep)
    return data[:keep]
