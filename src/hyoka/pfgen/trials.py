"""Reading generated answers: ``trials.jsonl.xz``, ``trials.jsonl`` or ``trial_*.jsonl`` files.

Every problem is reported with the file and line it comes from, before anything is scored
or written. The input hash is the SHA-1 of the bytes the upstream scorer would hash, so a
``result.json`` we write says the same thing about its input as an upstream one.
"""

from __future__ import annotations

import hashlib
import json
import lzma
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError

TRIALS_XZ = "trials.jsonl.xz"
TRIALS_JSONL = "trials.jsonl"
TRIAL_GLOB = "trial_*.jsonl"


@dataclass(frozen=True)
class TrialsInput:
    """The answers of one run, and where its ``result.json`` belongs."""

    folder: Path
    source: Path
    input_hash: str
    records: list[dict[str, Any]]
    #: Where each record came from, for error messages: (file, line number).
    origins: list[tuple[Path, int]]

    def where(self, index: int) -> str:
        """``file:line`` of record ``index``."""
        path, line = self.origins[index]
        return f"{path}:{line}"


def find_runs(path: Path) -> list[Path]:
    """The trials sources a user's PATH names: a file, a run folder, or a tree of them."""
    if path.is_file():
        if path.name.endswith((".jsonl", ".jsonl.xz")):
            return [path]
        raise InputError(f"{path}: not a trials file (expected .jsonl or .jsonl.xz)")
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if not path.is_dir():
        raise InputError(f"{path}: not a file or folder")
    own = _run_source(path)
    if own is not None:
        return [own]
    try:
        candidates = {_run_source(p.parent) for p in path.rglob("trial*.jsonl*")}
    except OSError as exc:
        raise InputError(f"{path}: cannot read folder: {exc.strerror}") from None
    runs = sorted(p for p in candidates if p is not None)
    if not runs:
        raise InputError(f"{path}: no {TRIALS_XZ}, {TRIALS_JSONL} or {TRIAL_GLOB} found")
    return runs


def _run_source(folder: Path) -> Path | None:
    for name in (TRIALS_XZ, TRIALS_JSONL):
        if (folder / name).is_file():
            return folder / name
    if any(folder.glob(TRIAL_GLOB)):
        return folder
    return None


def read_trials(source: Path) -> TrialsInput:
    """Parse a trials source (see ``find_runs``) into records, or fail naming file and line."""
    if source.is_dir():
        own = _run_source(source)
        if own is not None and own != source:
            return read_trials(own)
        parts = sorted(source.glob(TRIAL_GLOB))
        if not parts:
            raise InputError(f"{source}: no {TRIAL_GLOB} files in folder")
        lines: list[tuple[Path, int, bytes]] = []
        for part in parts:
            lines.extend((part, i, line) for i, line in enumerate(_read(part).splitlines(), 1))
        # upstream's trials.jsonl.xz is these lines sorted bytewise (LC_ALL=C sort)
        lines = [item for item in lines if item[2].strip()]
        lines.sort(key=lambda item: item[2])
        if not lines:
            raise InputError(f"{source}: no answers in {TRIAL_GLOB} files")
        content = b"".join(line + b"\n" for _, _, line in lines)
        records = [_parse_line(path, number, line) for path, number, line in lines]
        origins = [(path, number) for path, number, _ in lines]
        return TrialsInput(source, source, hashlib.sha1(content).hexdigest(), records, origins)
    raw = _read(source)
    content = _decompress(source, raw) if source.name.endswith(".xz") else raw
    numbered = [
        (number, line) for number, line in enumerate(content.splitlines(), start=1) if line.strip()
    ]
    if not numbered:
        raise InputError(f"{source}: no answers in file")
    records = [_parse_line(source, number, line) for number, line in numbered]
    origins = [(source, number) for number, _ in numbered]
    return TrialsInput(source.parent, source, hashlib.sha1(raw).hexdigest(), records, origins)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None


def _decompress(path: Path, raw: bytes) -> bytes:
    try:
        return lzma.decompress(raw)
    except (lzma.LZMAError, EOFError) as exc:
        raise InputError(f"{path}: corrupt or truncated xz data ({exc})") from None


def _parse_line(path: Path, number: int, line: bytes) -> dict[str, Any]:
    where = f"{path}:{number}"
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: malformed JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object")
    for field in ("question", "answer"):
        if not isinstance(record.get(field), str):
            raise InputError(f"{where}: missing or non-string '{field}'")
    return record
