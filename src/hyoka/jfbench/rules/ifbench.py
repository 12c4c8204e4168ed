"""IFBench's constraints as JFBench translated them (its test set only).

Written from reading upstream's ``constraints/ifbench_*`` (c8fed01). Several are
structural (bracket nesting, alternating quotes, a fixed answer template); others count
upstream's words (``words.split_words``) or sentences (``sentences.split_sentences``).
"""

from __future__ import annotations

import re
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
