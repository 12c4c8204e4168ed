"""Length, content and processing constraints: counts of characters, lines and parts,
keywords, and pieces of the prompt the response must contain.

Written from reading upstream's ``constraints/length``, ``content`` (the two keyword
classes) and ``processing`` (c8fed01). Lengths count Python characters (code points). A
paragraph is a non-blank piece between ``\\n\\n``; a section the same after stripping the
response. The processing checks look for an exact piece of the prompt *inside* the
response (the prompt's trailing line breaks removed first): its first or last characters,
a range (both ends counted from 0 and included), itself repeated, with a range replaced,
or cut into equal parts and shown as a bracketed list, one part a line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence


def characters(minimum: int, maximum: int) -> Callable[[str], bool]:
    return lambda value: minimum <= len(value) <= maximum


def newlines(count: int) -> Callable[[str], bool]:
    return lambda value: value.count("\n") == count


def blank_lines(count: int) -> Callable[[str], bool]:
    """Lines (``str.splitlines``) holding only whitespace, a trailing empty line not one."""
    return lambda value: sum(1 for line in value.splitlines() if not line.strip()) == count


def paragraphs(minimum: int, maximum: int) -> Callable[[str], bool]:
    return lambda value: minimum <= sum(1 for p in value.split("\n\n") if p.strip()) <= maximum


def sections(minimum: int, maximum: int, delimiter: str) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        found = sum(1 for s in value.strip().split(delimiter) if s.strip())
        return minimum <= found <= maximum

    return check


def keywords_excluded(keywords: Sequence[str]) -> Callable[[str], bool]:
    """None of the keywords appears (as a substring: 日 is in 日本 and 毎日)."""
    return lambda value: not any(keyword in value for keyword in keywords)


def keywords_included(counts: Mapping[str, int]) -> Callable[[str], bool]:
    """Each keyword appears exactly its count of times (``str.count``: non-overlapping)."""
    return lambda value: all(value.count(k) == n for k, n in counts.items())


def prefix(text: str) -> Callable[[str], bool]:
    return lambda value: value.startswith(text)


def suffix(text: str) -> Callable[[str], bool]:
    return lambda value: value.endswith(text)


def _prompt(document: str) -> str:
    return document.rstrip("\r\n")


def _contains(piece: str) -> Callable[[str], bool]:
    return lambda value: piece in value


def concatenated(document: str, times: int) -> Callable[[str], bool]:
    return _contains(_prompt(document) * times)


def first_characters(document: str, length: int) -> Callable[[str], bool]:
    return _contains(_prompt(document)[:length])


def last_characters(document: str, length: int) -> Callable[[str], bool]:
    return _contains(_prompt(document)[-length:])


def character_range(document: str, start: int, end: int) -> Callable[[str], bool]:
    return _contains(_prompt(document)[start : end + 1])


def replaced(document: str, start: int, end: int, keyword: str) -> Callable[[str], bool]:
    prompt = _prompt(document)
    return _contains(prompt[:start] + keyword + prompt[end + 1 :])


def bracketed(pieces: Sequence[str]) -> str:
    """Pieces as upstream's processing constraints list them: ``[``, one piece a line
    separated by ``,``, ``]``."""
    return "[\n" + ",\n".join(pieces) + "\n]"


def split(document: str, parts: int) -> Callable[[str], bool]:
    """The prompt cut into pieces of ``ceil(len / parts)`` characters (the last shorter)."""
    prompt = _prompt(document)
    if parts <= 0:
        return lambda value: False
    chunk = math.ceil(len(prompt) / parts)
    if chunk == 0:  # an empty prompt: upstream's slicing raises, which counts as a failure
        return lambda value: False
    return _contains(bracketed([prompt[i : i + chunk] for i in range(0, len(prompt), chunk)]))
