"""JFBench's prompts: ``data/ifbench_ja_translated.jsonl`` (IFBench's 300 prompts translated).

The benchmark composes its constraints onto each line's
``japanese_prompt_without_constraints``, taken as it is (upstream reads the file with
pandas and keeps the text unchanged). Every problem is one ``InputError`` naming the file
and line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from hyoka.errors import InputError
from hyoka.store import read_bytes, read_objects

#: where the prompts lie in the data directory (the manifest's path for upstream's file)
PROMPTS_IN_DATA = Path("jfbench") / "data" / "ifbench_ja_translated.jsonl"
#: the field holding the Japanese prompt the constraints are composed onto
JAPANESE = "japanese_prompt_without_constraints"


@dataclass(frozen=True)
class Prompts:
    """The Japanese prompts of one file, in its order, and the SHA-256 of its bytes."""

    path: Path
    documents: tuple[str, ...]
    sha256: str


def read_prompts(path: Path) -> Prompts:
    """The prompts of a JFBench input file (each line's Japanese prompt, checked to be text)."""
    data = read_bytes(path)
    documents: list[str] = []
    for number, row in read_objects(path, data):
        value = row.get(JAPANESE)
        if not isinstance(value, str):
            raise InputError(f"{path}:{number}: {JAPANESE} is missing or not text")
        documents.append(value)
    if not documents:
        raise InputError(f"{path}: no prompts")
    return Prompts(path, tuple(documents), hashlib.sha256(data).hexdigest())
