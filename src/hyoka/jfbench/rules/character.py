"""Character constraints: which punctuation, whitespace, scripts and widths a response may use.

Written from reading upstream's ``constraints/character`` (c8fed01). Two details decide
many verdicts: a comma or period right after a digit is a decimal or thousands mark, not
punctuation, so the punctuation checks skip it; and the script checks (hiragana only,
katakana only, kanji only) ignore whitespace and let through the Japanese marks 、。！？,
ASCII letters, a fixed set of ASCII and full-width punctuation, and every Unicode symbol
(category S*), so "only hiragana" means "no kanji or katakana", not "nothing else".
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable

_DIGITS_BEFORE = str.isdigit


def _no_char_except_after_digit(forbidden: str) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        return not any(
            char in forbidden and not (index > 0 and _DIGITS_BEFORE(value[index - 1]))
            for index, char in enumerate(value)
        )

    return check


#: ASCII and full-width commas and periods (a digit's separator excepted)
japanese_punctuation = _no_char_except_after_digit(",.\uff0c\uff0e")
no_japanese_punctuation = _no_char_except_after_digit("、。")
no_commas = _no_char_except_after_digit(",、\uff0c")


def no_whitespace(value: str) -> bool:
    return not any(char.isspace() for char in value)


def no_suffix_whitespace(value: str) -> bool:
    return value == value.rstrip()


def _letters(value: str) -> list[str]:
    return re.findall(r"[A-Za-z]", value)


def uppercase(value: str) -> bool:
    """At least one ASCII letter, and none lowercase."""
    letters = _letters(value)
    return bool(letters) and not any(letter.islower() for letter in letters)


def lowercase(value: str) -> bool:
    letters = _letters(value)
    return bool(letters) and not any(letter.isupper() for letter in letters)


_JAPANESE_MARKS = frozenset("、。！？")
_LONG_VOWEL = frozenset("ー")
_ALLOWED_PUNCTUATION = frozenset("(){}-|!@#$%^&*-=_+'\"?/.,<>[]\\;:`~（）・？！。、，．")


def _script_only(
    low: str, high: str, *, marks: frozenset[str], digits: bool
) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        kept = "".join(char for char in value if not char.isspace())
        if not kept:
            return False
        return all(
            low <= char <= high
            or char in _JAPANESE_MARKS
            or char in marks
            or char in _ALLOWED_PUNCTUATION
            or unicodedata.category(char).startswith("S")
            or char in string.ascii_letters
            or (digits and char in string.digits)
            for char in kept
        )

    return check


hiragana = _script_only("\u3040", "\u309f", marks=_LONG_VOWEL, digits=True)
katakana = _script_only("\u30a0", "\u30ff", marks=_LONG_VOWEL, digits=True)
#: kanji only: no digits, and no long-vowel mark
kanji = _script_only("\u4e00", "\u9fff", marks=frozenset(), digits=False)


def full_width(value: str) -> bool:
    """No printable ASCII once whitespace is removed."""
    kept = "".join(char for char in value if not char.isspace())
    return re.search(r"[!-~]", kept) is None


_HALF_WIDTH = r"\u0020-\u007E\uFF61-\uFF9F\uFFA0-\uFFDC\uFFE8-\uFFEE\u201C\u201D"


def half_width(value: str) -> bool:
    """Only printable ASCII, half-width katakana and Hangul, and curly double quotes."""
    kept = "".join(char for char in value if not char.isspace())
    return re.search(rf"[^{_HALF_WIDTH}]", kept) is None


#: Hepburn's syllables (with f- for loanwords), longest first: a response in romaji is read
#: greedily, syllable by syllable
_SYLLABLES = sorted(
    {
        *(c + v for c in ("", "k", "g", "s", "z", "t", "d", "n", "h", "b", "p", "m", "r")
          for v in "aiueo"),
        *(c + v for c in ("ky", "gy", "sh", "j", "ch", "ny", "hy", "my", "ry", "py", "by")
          for v in "auo"),
        "ya", "yu", "yo", "wa", "wo", "fa", "fi", "fu", "fe", "fo", "shi", "ji", "chi", "tsu",
    }
    - {"si", "zi", "ti", "tu", "di", "du", "hu"},
    key=len,
    reverse=True,
)  # fmt: skip
_MACRONS = str.maketrans("āĀīĪūŪēĒōŌ", "aAiIuUeEoO")
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212", "-"))
_CURLY = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
_JAPANESE_SCRIPT = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
_PRINTABLE_OR_SPACE = re.compile(r"[ -~\s’]*")


def romaji(value: str) -> bool:
    """Japanese in romaji only: after NFKC (macrons dropped, dashes and curly quotes made
    ASCII), no kana or kanji, nothing but printable ASCII and whitespace, at least one
    letter, and the letters (case and everything else ignored) read as Hepburn syllables,
    a lone ``n`` (before a consonant other than y, or at the end) and a doubled consonant
    (``kk``: a small tsu) allowed."""
    text = unicodedata.normalize("NFKC", value).translate(_MACRONS)
    text = text.translate(_DASHES).translate(_CURLY)
    if _JAPANESE_SCRIPT.search(text) or not _PRINTABLE_OR_SPACE.fullmatch(text):
        return False
    letters = "".join(c for c in text if c in string.ascii_letters).lower()
    if not letters:
        return False
    at = 0
    while at < len(letters):
        here = letters[at]
        after = letters[at + 1] if at + 1 < len(letters) else ""
        syllabic_n = here == "n" and after not in (*"aiueo", "y")
        doubled = after == here and here not in "aiueon"
        if syllabic_n or doubled:
            at += 1
            continue
        syllable = next((s for s in _SYLLABLES if letters.startswith(s, at)), None)
        if syllable is None:
            return False
        at += len(syllable)
    return True
