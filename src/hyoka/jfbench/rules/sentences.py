"""Constraints that count or order sentences, split as upstream splits them.

Upstream's ``split_sentences`` asks pysbd (Japanese rules, text not cleaned) for the
sentences and also splits after 。．.！？!? followed by whitespace, keeping whichever gives
more pieces; every piece is stripped and blank ones dropped. So a run of sentences with no
space after ASCII periods is one sentence to the naive split but several to pysbd.
Written from reading upstream's ``constraints/_utils.py``, ``length/sentences.py``,
``format/sentence_delimiter.py`` and ``processing/sort.py`` (c8fed01).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from hyoka.jfbench.rules.text import bracketed

#: the package whose version decides these verdicts (upstream locks pysbd 0.3.4)
PACKAGES = ("pysbd",)
_NAIVE = re.compile(r"(?<=[。．\.！？!?])\s+")


@functools.cache
def _segmenter() -> Any:
    import pysbd

    return pysbd.Segmenter(language="ja", clean=False)


def split_sentences(text: str) -> list[str]:
    """Upstream's sentences of ``text`` (module docstring)."""
    found = [s.strip() for s in _segmenter().segment(text) if s.strip()]
    naive = [s.strip() for s in _NAIVE.split(text) if s.strip()]
    return naive if len(naive) > len(found) else found


def sentences_between(minimum: int, maximum: int) -> Callable[[str], bool]:
    return lambda value: minimum <= len(split_sentences(value)) <= maximum


def delimited(delimiter: str) -> Callable[[str], bool]:
    """Every sentence ends with ``delimiter``: the stripped response contains it and ends
    with it, no piece before its last one is blank, and reading each delimiter as 。 gives
    as many sentences as the delimiter cuts."""

    def check(value: str) -> bool:
        text = value.strip()
        if delimiter not in text or not text.rstrip().endswith(delimiter):
            return False
        raw = text.split(delimiter)
        if len(raw) > 1 and any(not part.strip() for part in raw[:-1]):
            return False
        pieces = [part for part in raw if part.strip()]
        if not pieces:
            return False
        return len(split_sentences(text.replace(delimiter, "。"))) == len(pieces)

    return check


def _sorted_block(document: str, key: Callable[[str], Any] | None) -> str:
    return bracketed(sorted(split_sentences(document.rstrip("\r\n")), key=key))


def _number_sum(sentence: str) -> int:
    return sum(int(number) for number in re.findall(r"-?\d+", sentence))


def sorted_by_text(document: str) -> Callable[[str], bool]:
    """The prompt's sentences in code-point order, listed as a bracketed block."""
    block = _sorted_block(document, None)
    return lambda value: block in value


def sorted_by_length(document: str) -> Callable[[str], bool]:
    block = _sorted_block(document, len)
    return lambda value: block in value


def sorted_by_numbers(document: str) -> Callable[[str], bool]:
    """Ordered by the sum of the (signed) integers each sentence holds, ties kept in order."""
    block = _sorted_block(document, _number_sum)
    return lambda value: block in value
