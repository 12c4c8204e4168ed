"""IFBench's sound constraints in Japanese: judged on a word's reading, as upstream judges.

Written from reading upstream's ``constraints/ifbench_words/phonetics.py`` and
``ifbench_sentence/alliteration.py`` (c8fed01). A word (``words.split_words``) is read by
tokenising it again with Janome and joining each token's reading (katakana), or its
surface where Janome knows none (``*``), NFKC-normalised. On that reading:

- emphasis: a small tsu (っ/ッ), a long-vowel mark (ー), or one kana twice in a row;
- syllables: the number of kana (ー included); with no kana, the runs of ASCII vowels
  (``y`` counted as one); with neither, the characters;
- palindrome: katakana folded to hiragana and ASCII letters lowered, five characters or
  more, read the same backwards;
- vowels: the last letter of each character's Unicode name (``KATAKANA LETTER KA``: a),
  ASCII vowels, and ー repeating the vowel before it.

Alliteration reads every content token of a sentence (particles, auxiliaries and symbols
skipped without breaking a run) by the first letter of its reading, hiragana with small
kana made full-size and voicing marks dropped, ASCII lowered.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from itertools import pairwise

from hyoka.jfbench.rules.sentences import split_sentences
from hyoka.jfbench.rules.words import _tokenizer, split_words

#: the packages whose versions decide these verdicts
PACKAGES = ("janome", "pysbd")

_EMPHASIS = re.compile(r"[っッー]|([ぁ-ゖァ-ヺー])\1")
_KANA_RUN = re.compile(r"[ぁ-ゖァ-ヺー]+")
_ASCII_VOWEL_RUN = re.compile(r"[aeiouyAEIOUY]+")
_KATAKANA = range(0x30A1, 0x30FA + 1)
_FULL_SIZE = str.maketrans("ぁぃぅぇぉゃゅょっ", "あいうえおやゆよつ")
_VOICING_MARKS = "\u3099\u309a"


def _reading(word: str) -> str:
    """The word's reading: Janome's reading of each token (its surface where unknown)."""
    parts = []
    for token in _tokenizer().tokenize(word):
        reading = token.reading
        parts.append(reading if reading and reading != "*" else token.surface)
    return unicodedata.normalize("NFKC", "".join(parts))


def _hiragana(char: str) -> str:
    return chr(ord(char) - 0x60) if ord(char) in _KATAKANA else char


def every_word_emphasised(value: str) -> bool:
    """Every word's reading has a small tsu, a long-vowel mark or a doubled kana."""
    found = split_words(value)
    return bool(found) and all(_EMPHASIS.search(_reading(w)) for w in found)


def _syllables(word: str) -> int:
    reading = _reading(word) if word else ""
    kana = sum(len(run) for run in _KANA_RUN.findall(reading))
    if kana:
        return kana
    vowels = _ASCII_VOWEL_RUN.findall(reading)
    return len(vowels) if vowels else len(reading)


def alternating_syllables(value: str) -> bool:
    """Two words or more, whose syllable counts alternate between odd and even."""
    counts = [_syllables(w) for w in split_words(value)]
    if len(counts) < 2 or any(c <= 0 for c in counts):
        return False
    return all(a % 2 != b % 2 for a, b in pairwise(counts))


def _folded_reading(word: str) -> str:
    reading = _reading(word) if word else ""
    return "".join(_hiragana(c.lower() if "A" <= c <= "Z" else c) for c in reading)


def palindromes_at_least(minimum: int) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        found = split_words(value)
        if not found:
            return False
        readings = (_folded_reading(w) for w in found)
        return sum(len(r) >= 5 and r == r[::-1] for r in readings) >= minimum

    return check


def _vowels(word: str) -> set[str]:
    found: set[str] = set()
    previous: str | None = None
    for char in _reading(word) if word else "":
        if char == "ー":
            if previous:
                found.add(previous)
            continue
        name = unicodedata.name(char, "")
        if "LETTER" in name and name.split()[-1][-1] in "AIUEO":
            previous = name.split()[-1][-1].lower()
        elif char.lower() in "aeiou":
            previous = char.lower()
        else:
            previous = None
            continue
        found.add(previous)
    return found


def at_most_three_vowels(value: str) -> bool:
    """The readings use one to three of the five vowels."""
    found = split_words(value)
    if not found:
        return False
    used = set().union(*(_vowels(w) for w in found))
    return 0 < len(used) <= 3


def _initial(surface: str, reading: str) -> str | None:
    base = reading if reading and reading != "*" else surface
    for char in unicodedata.normalize("NFKC", base):
        if char.isascii() and char.isalpha():
            return char.lower()
        if char.isspace():
            continue
        kana = _hiragana(char)
        if "ぁ" <= kana <= "ん":
            full = kana.translate(_FULL_SIZE)
            return unicodedata.normalize("NFD", full)[0].rstrip(_VOICING_MARKS) or full
        if unicodedata.category(kana).startswith("L"):
            return kana
    return None


_SKIPPED = ("助詞", "助動詞", "記号")


def _longest_run(sentence: str) -> int:
    longest = run = 0
    previous: str | None = None
    for token in _tokenizer().tokenize(sentence):
        surface = token.surface.strip()
        if not surface or token.part_of_speech.split(",")[0] in _SKIPPED:
            continue
        key = _initial(surface, token.reading)
        if key is None:
            continue
        run = run + 1 if key == previous else 1
        previous = key
        longest = max(longest, run)
    return longest


def alliteration_grows(value: str) -> bool:
    """Each sentence's longest run of words sharing a first sound is longer than the
    previous sentence's (the first at least one)."""
    sentences = [s for s in split_sentences(value) if s.strip()]
    if not sentences:
        return False
    previous = 0
    for sentence in sentences:
        longest = _longest_run(sentence)
        if longest <= previous:
            return False
        previous = longest
    return True
