"""The M-IFEval-Ja checks that read words and sentences, with the tools upstream used.

Words are Janome's tokens (its bundled IPADIC dictionary): a keyword counts only where it
is a whole token's surface, so ``猫`` inside ``子猫`` may or may not count, as Janome cuts
it. Sentences are counted as ja-sentence-segmenter's pipeline counts them: the text
normalised by the mecab-ipadic-NEologd rules (full-width ``！？`` become ASCII), cut into
lines, a line ending in ``の`` joined to the next, then cut after ``。``, ``!`` and ``?``
outside ``「」`` and ``()``; an empty line is no sentence. Both are third-party code that
decides verdicts, so their versions are pinned (the ``ifeval`` extra) and signed.

The tokenizer is built once per process (about 0.35 s); upstream builds one per check, to
the same tokens.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Generator, Iterable, Iterator
from typing import Any, Protocol

from hyoka.errors import InputError
from hyoka.ifeval.rules import compare, without_quotations

#: the packages whose code decides these verdicts (their versions go into the signature)
PACKAGES = ("janome", "ja-sentence-segmenter")
_INSTALL = "pip install 'hyoka[ifeval]'"

#: a sentence ends after one of these (ASCII ``!?``: the normaliser made them so)
_SENTENCE_PUNCTUATION = "。!?"
#: a line that ends in the particle ``の`` runs on into the next
_RUNS_ON = r"^(?P<result>.+)(の)$"
#: what a nominal ending's full stop may be; a token is one when its surface is within it
_FULL_STOPS = "。！？"
_NOUN = "名詞"
#: how many texts' tokens are kept (a prompt's readings, both modes)
_KEPT = 64


class _Token(Protocol):
    surface: str
    part_of_speech: str


def _missing(package: str) -> InputError:
    return InputError(f"M-IFEval's word and sentence checks need {package}: {_INSTALL}")


@functools.cache
def _tokenizer() -> Any:
    try:
        from janome.tokenizer import Tokenizer
    except ImportError:
        raise _missing("janome") from None
    return Tokenizer()


@functools.lru_cache(maxsize=_KEPT)
def tokens(text: str) -> tuple[_Token, ...]:
    """Janome's tokens of ``text``, the last few texts' kept: the strict and the loose
    verdicts and several instructions of one prompt read the same texts (about 0.1 s each)."""
    return tuple(_tokenizer().tokenize(text))


def words(text: str) -> list[str]:
    """The surfaces of Janome's tokens of ``text``."""
    return [token.surface for token in tokens(text)]


# Every token's surface is a piece of the text, and tokens do not overlap: a word that is
# not in the text is no token's surface, and no more tokens are some word than the text
# holds it (``str.count``). Where that alone decides a verdict, the text is not tokenized
# (about 0.05 s a text, most of what scoring Japanese responses costs); the verdict is the
# one the tokens give.


def has_keywords(text: str, keywords: Iterable[str]) -> bool:
    """Every keyword is some token's surface."""
    keywords = list(keywords)
    if not all(keyword in text for keyword in keywords):
        return False  # a keyword not in the text is no token's surface
    found = set(words(text))
    return all(keyword in found for keyword in keywords)


def has_none_of(text: str, forbidden: Iterable[str]) -> bool:
    """No forbidden word is a token's surface."""
    forbidden = list(forbidden)
    if not any(word in text for word in forbidden):
        return True  # no forbidden word in the text, so none is a token's surface
    found = set(words(text))
    return not any(word in found for word in forbidden)


def keyword_frequency(text: str, keyword: str, threshold: int, relation: str) -> bool:
    """How many tokens have the keyword as their surface."""
    if keyword and text.count(keyword) < threshold:
        # no more tokens than occurrences: below the threshold either way
        return compare(text.count(keyword), threshold, relation)
    return compare(Counter(words(text))[keyword], threshold, relation)


def nominal_endings(text: str, minimum: int) -> bool:
    """At least ``minimum`` sentences end in a noun: a noun token followed by a token whose
    surface lies within ``。！？`` (``！？`` together too), quotations cut out first."""
    text = without_quotations(text)
    if sum(text.count(stop) for stop in _FULL_STOPS) < minimum:
        return False  # each ending's full stop is a token holding one of them
    found = tokens(text)
    ending = sum(
        1
        for before, token in itertools.pairwise(found)
        if token.surface in _FULL_STOPS and before.part_of_speech.startswith(_NOUN)
    )
    return ending >= minimum


@functools.cache
def _segmenter() -> Any:
    try:
        from ja_sentence_segmenter.common.pipeline import make_pipeline
        from ja_sentence_segmenter.concatenate.simple_concatenator import concatenate_matching
        from ja_sentence_segmenter.normalize.neologd_normalizer import normalize
        from ja_sentence_segmenter.split.simple_splitter import split_newline, split_punctuation
    except ImportError:
        raise _missing("ja-sentence-segmenter") from None

    def join_runs_on(lines: Iterator[str]) -> Generator[str, None, None]:
        return concatenate_matching(
            lines, former_matching_rule=_RUNS_ON, remove_former_matched=False
        )

    def split_sentences(lines: Iterator[str]) -> Generator[str, None, None]:
        return split_punctuation(lines, punctuations=_SENTENCE_PUNCTUATION)

    return make_pipeline(normalize, split_newline, join_runs_on, split_sentences)


def count_sentences(text: str) -> int:
    """How many sentences ja-sentence-segmenter finds (module docstring)."""
    return sum(1 for _ in _segmenter()(text))


def number_sentences(text: str, threshold: int, relation: str) -> bool:
    """The sentence count against ``threshold``."""
    return compare(count_sentences(text), threshold, relation)
