"""Each judgment read once, whatever judge its line names: a copy is refused naming both.

A judge asked again writes another line: its own time stamp (``tstamp``) and its own
reply (``judgment``; a pair's ``g1_judgment`` and ``g2_judgment``). So two lines alike in
every field but the judge's name are one judgment, not two: a file copied under another
name (read beside the first, the judge would agree with itself on every repeat), or a
judge's file with the judge renamed (``"judge": ["gpt-4o-copy", ...]``: read as a second
judge, it agrees perfectly with the first). Every reader that puts judgments of several
files side by side (``judge meta``, ``judge agreement --single``, ``judge rankings
--judgments``) refuses such a line with one error naming both places.

The judge's name is set aside only where the line keeps what a run makes unique to each
call: a time stamp (not 0) and a reply (not empty). Lines without them (scores only)
prove nothing by them: two judges may well give one answer the same grade, so such lines
are one judgment only where they are the same in every field, the judge's name included.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from hyoka.errors import InputError
from hyoka.mtbench import SingleGradingLine
from hyoka.store import read_records

#: the fields that hold a judge's reply, in the lines of each shape
REPLY_FIELDS = ("judgment", "g1_judgment", "g2_judgment")
#: the rule, as the error states it
RULE = (
    "a judge's run stamps each line with its own time and reply, so lines with the same "
    "tstamp and judgment are one judgment, whatever judge they name"
)


def _unique(data: dict[str, Any]) -> bool:
    """Whether a line keeps what a judge's run makes unique to each call: a time stamp
    and a reply."""
    replies = [data.get(name) for name in REPLY_FIELDS]
    texts = [text for reply in replies for text in (reply if isinstance(reply, list) else [reply])]
    return bool(data.get("tstamp")) and any(isinstance(t, str) and t.strip() for t in texts)


def _judge_name(data: dict[str, Any]) -> str:
    """The judge a line names (FastChat's ``judge: [name, prompt]``, or ja-vicuna-qa-
    benchmark's ``judge_model``, which ``PairJudgmentLine`` also reads as its ``judge``),
    taken out of ``data``."""
    judge = data.get("judge")
    name = data.pop("judge_model", None)
    if isinstance(judge, list) and judge:
        data["judge"] = judge[1:]
        return str(judge[0])
    return "" if name is None else str(name)


class JudgmentCopies:
    """The judgments read so far, as digests of their fields (the records keep every field:
    ``extra="allow"``), the judge's name left out where the line keeps a time stamp and a
    reply (the module's rule)."""

    def __init__(self) -> None:
        self.first: dict[bytes, tuple[Path, int, str, object]] = {}

    def see(self, path: Path, number: int, line: BaseModel, *, group: object = None) -> None:
        """Refuse line ``number`` of ``path`` where it is a judgment read before. ``group``
        (a path given): a line the same as one read in the same group is left to the
        caller's own rule for repeats within a file or folder (``None``: refused too)."""
        data = line.model_dump(mode="json")
        name = _judge_name(data)
        if not _unique(data):
            data["judge name"] = name
        text = json.dumps(data, sort_keys=True, ensure_ascii=False)
        digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
        where = self.first.setdefault(digest, (path, number, name, group))
        if where[:2] == (path, number) or (group is not None and where[3] == group):
            return
        first = f"{where[0]}:{where[1]}"
        if where[2] == name:
            raise InputError(
                f"{path}:{number}: the same judgment as {first} (a copy of it, not the judge "
                "asked again: each judgment is read once)"
            )
        raise InputError(
            f"{path}:{number}: the same judgment as {first}, the judge renamed ({where[2]!r} "
            f"there, {name!r} here): a copy, not a second judge ({RULE})"
        )


def refuse_copies(paths: Sequence[Path], files: Sequence[Iterable[Path]]) -> None:
    """Refuse a single-grading line in the files of one of ``paths`` (``files``, in the
    same order) that is a judgment read from the files of another (``JudgmentCopies``):
    the judgments of two judges (or runs) compared are no copies of each other. Lines
    repeated within one path are left to the reader's own rule."""
    copies = JudgmentCopies()
    for path, found in zip(paths, files, strict=True):
        for file in found:
            if file.suffix != ".jsonl":  # Shaberi's files keep no time stamp or reply
                continue
            for number, read in read_records(file, SingleGradingLine):
                copies.see(file, number, read.root, group=path.resolve())
