"""Constraints that count Janome's tokens (upstream's ``WordsLengthConstraint``).

Upstream counts every token Janome's default tokenizer yields (punctuation and whitespace
runs included), so "10 to 20 words" means 10 to 20 morphemes. The tokenizer loads its
dictionary once (about a second), on the first check.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

#: the package whose version decides these verdicts (upstream locks janome 0.5.0)
PACKAGES = ("janome",)


@functools.cache
def _tokenizer() -> Any:
    from janome.tokenizer import Tokenizer

    return Tokenizer()


def token_count(value: str) -> int:
    return sum(1 for _ in _tokenizer().tokenize(value))


def tokens_between(minimum: int, maximum: int) -> Callable[[str], bool]:
    return lambda value: minimum <= token_count(value) <= maximum


_WORD = re.compile(r"[A-Za-z]+|[ぁ-ゔァ-ヴー々〆〤一-鿐]+")


def split_words(text: str) -> list[str]:
    """Upstream's words: Janome's surfaces, stripped and lower-cased, that are runs of ASCII
    letters or of kana and kanji (punctuation and digits dropped); if none, those runs
    found in the lower-cased text directly."""
    found = []
    for token in _tokenizer().tokenize(text):
        surface = token.surface.strip().lower()
        if surface and _WORD.fullmatch(surface):
            found.append(surface)
    return found or _WORD.findall(text.lower())


def one_word_a_line(value: str) -> bool:
    """Every non-blank line holds exactly one word."""
    return all(len(split_words(line.strip())) == 1 for line in value.splitlines() if line.strip())


def unique_words_at_least(minimum: int) -> Callable[[str], bool]:
    return lambda value: len(set(split_words(value))) >= minimum
