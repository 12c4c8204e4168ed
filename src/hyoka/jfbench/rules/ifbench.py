"""IFBench's constraints as JFBench translated them (its test set only).

Written from reading upstream's ``constraints/ifbench_*`` (c8fed01). Several are
structural (bracket nesting, alternating quotes, a fixed answer template); others count
upstream's words (``words.split_words``) or sentences (``sentences.split_sentences``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from itertools import pairwise

from hyoka.jfbench.rules.sentences import split_sentences
from hyoka.jfbench.rules.words import split_words


def nested_brackets(value: str) -> bool:
    """ASCII brackets balanced where closed (an unclosed opener is allowed) and nested at
    least five deep."""
    closing = {")": "(", "]": "[", "}": "{"}
    stack: list[str] = []
    deepest = 0
    for char in value:
        if char in "([{":
            stack.append(char)
            deepest = max(deepest, len(stack))
        elif char in closing:
            if not stack or stack[-1] != closing[char]:
                return False
            stack.pop()
    return deepest >= 5


_QUOTED_THEN_TEXT = re.compile(r"([\"'])(.+?)\1\s+([^\"'「」\s].+)", re.DOTALL)
_CORNER_THEN_TEXT = re.compile(r"「(.+?)」\s*([^「」\s].+)", re.DOTALL)


def quote_then_explanation(value: str) -> bool:
    """A quoted phrase ("…", '…' then whitespace, or 「…」) followed by unquoted text."""
    if not value.strip():
        return False
    return bool(_QUOTED_THEN_TEXT.search(value) or _CORNER_THEN_TEXT.search(value))


def nested_quotes(value: str) -> bool:
    """Double and single quotes alternating three deep, every one closed: a quote like the
    innermost open one closes it, any other opens a level."""
    if not value.strip() or value.count('"') < 2 or value.count("'") < 2:
        return False
    stack: list[str] = []
    deepest = 0
    for char in value:
        if char not in "\"'":
            continue
        if stack and stack[-1] == char:
            stack.pop()
        else:
            stack.append(char)
            deepest = max(deepest, len(stack))
    return not stack and deepest >= 3


def increasing_indent(value: str) -> bool:
    """Each non-blank line indented (by spaces) more than the one before."""
    indents = [len(line) - len(line.lstrip(" ")) for line in value.splitlines() if line.strip()]
    return all(current > previous for previous, current in pairwise(indents))


_REQUIRED_PUNCTUATION = ("。", "、", "；", "：", "？", "！", "？！")


def all_punctuation(value: str) -> bool:
    """Every one of 。、；：？！ and ？！, and full-width parentheses."""
    return all(mark in value for mark in _REQUIRED_PUNCTUATION) and "（" in value and "）" in value


def numbers_exactly(count: int) -> Callable[[str], bool]:
    """Exactly ``count`` numbers (an optional minus, digits, an optional decimal part)."""
    return lambda value: len(re.findall(r"-?\d+(?:\.\d+)?", value)) == count


_EMOJI_AT_END = re.compile(
    "[\U0001f300-\U0001faff\U00002700-\U000027bf\U0001f900-\U0001f9ff\U0001f1e6-\U0001f1ff]\ufe0f?$"
)


def emoji_endings(value: str) -> bool:
    """Every sentence, its closing punctuation and spaces removed, ends with an emoji."""
    for sentence in split_sentences(value.strip()):
        tail = re.sub(r"[。．！？.!?\s]+$", "", sentence)
        if not tail or not _EMOJI_AT_END.search(tail):
            return False
    return True


_THESIS = re.compile(r"^\s*<i>.+?</i>\s*$")


def thesis_sections(value: str) -> bool:
    """Sections split by blank lines, each opening with a line wrapped in <i>…</i>."""
    if not value.strip():
        return False
    text = value.replace("\r\n", "\n").replace("\r", "\n")
    sections = [block.strip() for block in re.split(r"\n\s*\n", text) if block.strip()]
    return all(_THESIS.match(section.splitlines()[0]) for section in sections)


#: the answer template's section markers, in order (full-width colons read as ASCII)
_MARKERS = ("私の回答:", "私の結論:", "今後の展望:")


def answer_template(value: str) -> bool:
    """Each marker exactly once, in order, each followed by some text."""
    if not value.strip():
        return False
    text = value.replace("：", ":")
    if any(text.count(marker) != 1 for marker in _MARKERS):
        return False
    starts = [text.find(marker) for marker in _MARKERS]
    if not starts[0] < starts[1] < starts[2]:
        return False
    ends = [*starts[1:], len(text)]
    return all(
        text[start + len(marker) : end].strip()
        for marker, start, end in zip(_MARKERS, starts, ends, strict=True)
    )


def keyword_in_sentence(index: int, keyword: str) -> Callable[[str], bool]:
    """The ``index``-th sentence (from 1) contains ``keyword``, ignoring case."""

    def check(value: str) -> bool:
        sentences = split_sentences(value)
        return len(sentences) >= index and keyword.lower() in sentences[index - 1].lower()

    return check


def words_increase_by(step: int) -> Callable[[str], bool]:
    """At least two sentences, each with exactly ``step`` more words than the one before."""

    def check(value: str) -> bool:
        counts = [len(split_words(s)) for s in split_sentences(value)]
        return len(counts) >= 2 and all(b - a == step for a, b in pairwise(counts))

    return check


def _initial(word: str) -> str | None:
    """A word's first non-space character after NFKC, ASCII letters lower-cased."""
    for char in unicodedata.normalize("NFKC", word):
        if not char.isspace():
            return char.lower() if char.isascii() and char.isalpha() else char
    return None


def no_consecutive_initials(value: str) -> bool:
    """At least two words, and no two neighbours starting with the same character."""
    found = split_words(value)
    if len(found) < 2:
        return False
    for first, second in pairwise(found):
        a, b = _initial(first), _initial(second)
        if a is not None and b is not None and a == b:
            return False
    return True


def chained_sentences(value: str) -> bool:
    """Each sentence starts with the word the one before ended with (words lower-cased)."""
    per_sentence = [split_words(s.lower()) for s in split_sentences(value)]
    for previous, current in pairwise(per_sentence):
        if not previous or not current or previous[-1] != current[0]:
            return False
    return True


def paragraphs_start_as_they_end(value: str) -> bool:
    """In each paragraph (split by a blank line) with words, the first word is the last."""
    for paragraph in (block.strip() for block in value.split("\n\n")):
        found = split_words(paragraph.lower()) if paragraph else []
        if found and found[0] != found[-1]:
            return False
    return True


def repeats_below(limit: int) -> Callable[[str], bool]:
    """No word (lower-cased) appears ``limit`` times or more."""

    def check(value: str) -> bool:
        counts = Counter(word.lower() for word in split_words(value))
        return not counts or counts.most_common(1)[0][1] < limit

    return check


def keyword_at(sentence: int, word: int, keyword: str) -> Callable[[str], bool]:
    """The ``word``-th word of the ``sentence``-th sentence (both from 1) is ``keyword``."""

    def check(value: str) -> bool:
        sentences = [s for s in split_sentences(value) if s.strip()]
        if len(sentences) < sentence:
            return False
        found = split_words(sentences[sentence - 1])
        return len(found) >= word and found[word - 1] == keyword

    return check


def _folded(word: str) -> str:
    return unicodedata.normalize("NFKC", word).lower()


def word_at_both_ends(index: int, from_end: int, word: str) -> Callable[[str], bool]:
    """The ``index``-th word and the ``from_end``-th from the end are both ``word`` (after
    NFKC and lower-casing)."""
    wanted = _folded(word)

    def check(value: str) -> bool:
        found = split_words(value)
        if not found or len(found) < max(index, from_end):
            return False
        return _folded(found[index - 1]) == wanted and _folded(found[-from_end]) == wanted

    return check


def _prime(n: int) -> bool:
    return n >= 2 and all(n % f for f in range(2, math.isqrt(n) + 1))


def prime_lengths(value: str) -> bool:
    """At least one word, and every word's length in characters a prime."""
    found = split_words(value)
    return bool(found) and all(_prime(len(word)) for word in found)


def sub_bullets(value: str) -> bool:
    """``* `` items, each followed by at least one ``- `` item before the next, and no
    ``- `` item before the first ``* `` (indentation ignored)."""
    if not value.strip():
        return False
    tops = subs = 0
    current = False
    for raw in value.splitlines():
        line = raw.lstrip()
        if line.startswith("* "):
            if tops and not current:
                return False
            tops, current = tops + 1, False
        elif line.startswith("- "):
            if not tops:
                return False
            subs, current = subs + 1, True
    return bool(tops) and bool(subs) and current


def first_word_changed(document: str) -> Callable[[str], bool]:
    """The prompt's words again, the first one replaced: as many words, a different first
    word, the rest the same (words as upstream splits them)."""
    original = split_words(document.rstrip("\r\n"))

    def check(value: str) -> bool:
        found = split_words(value)
        if not found or len(found) != len(original):
            return False
        return found[0] != original[0] and found[1:] == original[1:]

    return check


def _last_marks(value: str) -> list[str]:
    """Each sentence's last character (after trailing whitespace), '' for a blank one."""
    return [s.rstrip()[-1:] for s in split_sentences(value)]


def balanced_sentence_kinds(value: str) -> bool:
    """Statements, questions (?？) and exclamations (!！) all present, their counts at most
    one apart."""
    marks = _last_marks(value)
    if not marks:
        return False
    questions = sum(m in ("?", "？") for m in marks)
    exclamations = sum(m in ("!", "！") for m in marks)
    counts = (len(marks) - questions - exclamations, questions, exclamations)
    return min(counts) > 0 and max(counts) - min(counts) <= 1


def two_statements_a_question(value: str) -> bool:
    """Sentences ending .。． over those ending ?？ within 0.2 of 2 (others not counted)."""
    marks = _last_marks(value)
    questions = sum(m in ("?", "？") for m in marks)
    if not marks or not questions:
        return False
    statements = sum(m in (".", "。", "．") for m in marks)
    return abs(statements / questions - 2.0) <= 0.2


def _trigrams(text: str) -> list[str]:
    found = split_words(text)
    return [" ".join(found[i : i + 3]) for i in range(len(found) - 2)]


def trigram_overlap(document: str, percent: int) -> Callable[[str], bool]:
    """The share of the response's word trigrams found in the prompt's within two points of
    ``percent``."""
    known = set(_trigrams(document.rstrip("\r\n")))

    def check(value: str) -> bool:
        found = _trigrams(value)
        if not found:
            return False
        share = sum(t in known for t in found) / len(found) * 100
        return abs(share - percent) <= 2

    return check


def _sentence_words(sentence: str) -> list[str]:
    """A sentence's words: split at spaces when it has any, else upstream's words."""
    stripped = sentence.strip()
    return stripped.split() if " " in stripped else split_words(stripped)


def three_even_sentences(value: str) -> bool:
    """Exactly three sentences, each with words, as many words each, no word used twice."""
    sentences = [s for s in split_sentences(value) if s.strip()]
    if len(sentences) != 3:
        return False
    lists = [_sentence_words(s) for s in sentences]
    if any(not found for found in lists) or len({len(found) for found in lists}) != 1:
        return False
    every = [word for found in lists for word in found]
    return len(set(every)) == len(every)
