"""What this process has kept so far: the files a run continues, and how much each holds.

A command interrupted by Ctrl-C says in one line what it kept and how to go on
(``interrupted: 37 judgments kept in j.jsonl; run the same command again to continue``).
Only the store knows which files a run appends to, so every log registers itself here as it
is opened (``JsonlLog.open``, pfgen's trial folders), and the command line reads the tally
when it is interrupted. Counts are read at that moment, never cached.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Kept:
    """One file or folder a run adds to: ``count()`` ``noun`` are in it now."""

    path: Path
    noun: str
    count: Callable[[], int]

    def describe(self) -> str:
        return f"{self.count()} {self.noun} kept in {self.path}"


_KEPT: dict[Path, Kept] = {}


def remember(path: Path, noun: str, count: Callable[[], int]) -> None:
    """Note that this run keeps ``noun`` in ``path`` (the latest registration wins)."""
    _KEPT[path] = Kept(path, noun, count)


def forget() -> None:
    """Start a new tally (each command begins with none)."""
    _KEPT.clear()


def interrupted_line() -> str:
    """The one line an interrupted command prints (without its ``interrupted:`` prefix)."""
    kept = [k.describe() for k in _KEPT.values()]
    if not kept:
        return "nothing was half-written; run the same command again to continue"
    return "; ".join(kept) + "; run the same command again to continue"
