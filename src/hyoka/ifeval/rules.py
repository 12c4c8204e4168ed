"""The M-IFEval-Ja checks that need nothing but the text: patterns, counts and scripts.

Each function decides one instruction on one response text as upstream's class for it does
(lightblue-tech/M-IFEval 0bc3143, ``instructions/ja_instructions.py``), written here from
reading it. Upstream's quirks are kept on purpose, since the published verdicts depend on
them: a bullet is a line starting with ``・`` whose next character is not another ``・``
(that character may be the newline, so a bare ``・`` line counts); a section's marker
(``章``) enters the pattern unescaped; ``\\d`` is any Unicode digit; a title is any
``『…』`` on one line; sentence endings are read after quotations are cut out, and a text
left after the last ``。`` (a closing newline) is a sentence too.
"""

from __future__ import annotations

import json
import re
import unicodedata

#: the two comparisons a count instruction names, as upstream spells them
LESS_THAN = "未満"
AT_LEAST = "以上"
RELATIONS = (LESS_THAN, AT_LEAST)

#: the answers ``detectable_format:constrained_response`` accepts, one of them anywhere
CONSTRAINED_OPTIONS = ("はい、そうです。", "いいえ、違います。", "どちらとも言えません。")

_PLACEHOLDER = re.compile(r"\[.*?\]")
_BULLET = re.compile(r"^\s*・[^・].*$", re.MULTILINE)
_NUMBERED = re.compile(r"^\s*\d+\.\s.*$", re.MULTILINE)
_HIGHLIGHT = re.compile(r"《[^\n《》]*》")
_PARAGRAPH_DIVIDER = re.compile(r"\s?\*\*\*\s?")
_TITLE = re.compile(r"『[^\n]+』")
_KANJI = re.compile(r"[\u4e00-\u9faf]")
_KANJI_RUN = re.compile(r"[\u4e00-\u9faf]+")
_KANJI_RUN_READ = re.compile(r"[\u4e00-\u9faf]+（[ぁ-ん]+）")
_QUOTED = (re.compile(r"「.*?」"), re.compile(r"『.*?』"))
_SENTENCE_END = re.compile(r"[。！？]")
_DIGIT = re.compile(r"\d")
#: what ``json_format`` takes off the start, in this order, each once
_JSON_OPENINGS = ("```json", "```Json", "```JSON", "```")
_FENCE = "```"
_TWO_RESPONSES = "******"


def compare(count: int, threshold: int, relation: str) -> bool:
    """``count`` against ``threshold`` by ``relation`` (``未満``: below, ``以上``: at least)."""
    return count < threshold if relation == LESS_THAN else count >= threshold


def placeholders(text: str, minimum: int) -> bool:
    """At least ``minimum`` bracketed placeholders (``[名前]``, each on one line)."""
    return len(_PLACEHOLDER.findall(text)) >= minimum


def bullet_lists(text: str, count: int) -> bool:
    """Exactly ``count`` lines that start (after blanks) with one ``・``."""
    return len(_BULLET.findall(text)) == count


def numbered_lists(text: str, count: int) -> bool:
    """Exactly ``count`` lines that start (after blanks) with ``<digits>.`` and a blank."""
    return len(_NUMBERED.findall(text)) == count


def constrained_response(text: str) -> bool:
    """One of the three fixed answers appears somewhere in the text."""
    stripped = text.strip()
    return any(option in stripped for option in CONSTRAINED_OPTIONS)


def highlighted_sections(text: str, minimum: int) -> bool:
    """At least ``minimum`` ``《…》`` spans on one line with something besides blanks inside."""
    found = [span for span in _HIGHLIGHT.findall(text) if span.strip("《》").strip()]
    return len(found) >= minimum


def sections(text: str, marker: str, minimum: int) -> bool:
    """At least ``minimum`` section headings ``第<digits><marker>`` (ASCII, full-width or any
    Unicode digits); the marker is a pattern, as upstream builds it."""
    pattern = r"\s?第[\d\uFF10-\uFF19]+" + marker + r"\s?"
    return len(re.split(pattern, text)) - 1 >= minimum


def divided_paragraphs(text: str, count: int) -> bool:
    """Exactly ``count`` paragraphs between ``***`` dividers; an empty one before the first
    or after the last divider is not counted, an empty one between two fails."""
    parts = _PARAGRAPH_DIVIDER.split(text)
    last = len(parts) - 1
    found = len(parts)
    for index, part in enumerate(parts):
        if not part.strip():
            if index not in (0, last):
                return False
            found -= 1
    return found == count


def postscript(text: str, marker: str) -> bool:
    """A line holding the postscript marker, case aside. ``P.S.`` and ``P.P.S`` (no last
    dot) accept a blank after each dot; any other marker (``P.P.S.``, ``追伸``) is literal."""
    if marker == "P.P.S":
        pattern = r"\s*p\.\s?p\.\s?s.*$"
    elif marker == "P.S.":
        pattern = r"\s*p\.\s?s\..*$"
    else:
        pattern = r"\s*" + re.escape(marker) + r".*$"
    return re.search(pattern, text, flags=re.IGNORECASE | re.MULTILINE) is not None


def number_letters(text: str, threshold: int, relation: str) -> bool:
    """The text's length in code points against ``threshold``."""
    return compare(len(text), threshold, relation)


def json_format(text: str) -> bool:
    """The text, less an opening and a closing code fence, is one JSON value (as Python's
    ``json`` reads it: ``NaN`` too). Nesting too deep for the parser, where upstream's run
    would stop with an error, is no JSON here."""
    body = text.strip()
    for opening in _JSON_OPENINGS:
        body = body.removeprefix(opening)
    body = body.removesuffix(_FENCE).strip()
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return False
    return True


def nth_paragraph_first_word(text: str, count: int, nth: int, first_word: str) -> bool:
    """Exactly ``count`` non-blank paragraphs between blank lines (``\\n\\n``), and the
    ``nth`` piece of the split (blank ones included, as upstream indexes it), less an opening
    ``「`` or ``『``, starts with ``first_word`` (lower-cased, as upstream keeps it)."""
    word = first_word.lower()
    parts = text.split("\n\n")
    found = sum(1 for part in parts if part.strip())
    if nth > found:
        return False
    paragraph = parts[nth - 1].strip()
    if not paragraph:
        return False
    paragraph = paragraph.lstrip("「").lstrip("『")
    return found == count and paragraph[: len(word)] == word


def two_responses(text: str) -> bool:
    """Two different answers divided by ``******`` (an empty piece only at either end)."""
    answers = []
    parts = text.split(_TWO_RESPONSES)
    for index, part in enumerate(parts):
        if part.strip():
            answers.append(part)
        elif index not in (0, len(parts) - 1):
            return False
    return len(answers) == 2 and answers[0].strip() != answers[1].strip()


def repeat_prompt(text: str, prompt: str) -> bool:
    """The text starts with the request, word for word (blanks around either aside)."""
    return text.strip().startswith(prompt.strip())


def end_phrase(text: str, phrase: str) -> bool:
    """The text ends with the phrase, closing ``」``/``』`` and blanks aside on both."""
    return text.strip().strip("」』").endswith(phrase.strip().strip("」』"))


def title(text: str) -> bool:
    """A ``『…』`` on one line with something besides blanks inside."""
    return any(found.lstrip("『").rstrip("』").strip() for found in _TITLE.findall(text))


def letter_frequency(text: str, letter: str, threshold: int, relation: str) -> bool:
    """How often the hiragana ``letter`` and its katakana (96 code points on) appear."""
    katakana = chr(ord(letter) + 96)
    return compare(text.count(letter) + text.count(katakana), threshold, relation)


def no_period(text: str) -> bool:
    """No ``。`` anywhere."""
    return "。" not in text


def no_comma(text: str) -> bool:
    """No ``、`` anywhere."""
    return "、" not in text


def quotation(text: str) -> bool:
    """The whole text (blanks around it aside) is inside ``「…」``."""
    stripped = text.strip()
    return len(stripped) > 1 and stripped[0] == "「" and stripped[-1] == "」"


def furigana(text: str) -> bool:
    """Every run of kanji (U+4E00 to U+9FAF) is followed by its reading in hiragana within
    full-width parentheses: as many runs as runs with a reading."""
    return len(_KANJI_RUN.findall(text)) == len(_KANJI_RUN_READ.findall(text))


def kanji(text: str, threshold: int, relation: str) -> bool:
    """How many kanji (U+4E00 to U+9FAF) the text has."""
    return compare(len(_KANJI.findall(text)), threshold, relation)


def _is_letter(char: str) -> bool:
    return unicodedata.category(char).startswith("L")


def no_hiragana(text: str) -> bool:
    """No hiragana (U+3041 to U+3096)."""
    return not any("ぁ" <= char <= "ゖ" for char in text)


def hiragana_only(text: str) -> bool:
    """Every letter is hiragana (U+3041 to U+3093) or the long-vowel mark ``ー``; what is
    no letter (punctuation, digits, blanks) does not count."""
    return all("ぁ" <= char <= "ん" or char == "ー" or not _is_letter(char) for char in text)


def no_katakana(text: str) -> bool:
    """No katakana (U+30A1 to U+30FA) nor half-width katakana (U+FF66 to U+FF9F)."""
    return not any("ァ" <= char <= "ヺ" or "ｦ" <= char <= "ﾟ" for char in text)


def _is_katakana(char: str) -> bool:
    return "ァ" <= char <= "ン" or char in "ー・" or "ｦ" <= char <= "ﾟ"


def katakana_only(text: str) -> bool:
    """Every letter is katakana (U+30A1 to U+30F3, ``ー``, ``・``, half-width ones); what
    is no letter does not count."""
    return all(_is_katakana(char) or not _is_letter(char) for char in text)


def without_quotations(text: str) -> str:
    """The text with every ``「…」`` and then every ``『…』`` (each within one line) cut out,
    as the sentence-ending checks read it."""
    for quoted in _QUOTED:
        text = quoted.sub("", text)
    return text


def unified_ending(text: str, ending: str) -> bool:
    """With quotations cut out (``without_quotations``), every piece between ``。``, ``！``
    and ``？`` that is not empty ends with ``ending``."""
    pieces = _SENTENCE_END.split(without_quotations(text))
    return all(not piece or piece.endswith(ending) for piece in pieces)


def kansuuji(text: str) -> bool:
    """No digit of any script (numbers written in kanji only)."""
    return _DIGIT.search(text) is None
