"""Constraints that count Janome's tokens (upstream's ``WordsLengthConstraint``).

Upstream counts every token Janome's default tokenizer yields (punctuation and whitespace
runs included), so "10 to 20 words" means 10 to 20 morphemes. The tokenizer loads its
dictionary once (about a second), on the first check.
"""

from __future__ import annotations

import functools
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
