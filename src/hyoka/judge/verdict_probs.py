"""The verdict letter a pairwise judge wrote, and the probabilities of A, B and C there.

Seed 001 reads the judge's confidence from the top-20 log probabilities at the position
of the verdict letter: exp(logprob) of each of A, B and C, 0 for a letter absent from the
top-20. Two questions decide what that means in practice, and both are answered here once:

*Where is the verdict?* For a result-only prompt (output ``verdict``) it is the first
letter the judge writes, normally the first token. For a reasons-then-result prompt
(``verdict-after-reasons``) it is the letter of the *last* ``[[X]]`` in the reply: the
reasoning may name "assistant A" many times, and a judge that changes its mind ends with
the verdict that counts. Tokens are mapped to the reply by their bytes (a token that is
not whole UTF-8 arrives as ``\\xNN`` escapes, or ``bytes:`` prefixed), so a Japanese
reasoning split into byte tokens still lines up.

*Which alternatives are a letter?* Tokenizers spell one verdict many ways (``A``, `` A``,
``[[A``, ``A]]``, ``"A"``, full-width ``Ａ``). An alternative counts for a letter when,
after removing white space, brackets, quotes, asterisks and sentence punctuation, exactly
that upper-case letter (ASCII or full-width) is left; the variants' probabilities are
summed. Lower-case ``a``/``b``/``c`` are deliberately *not* verdicts: every prompt asks for
the capital letters, and a lower-case ``a`` is far more often the English article.

The probabilities are reported as read (they need not sum to 1: the rest of the mass is on
other tokens) and renormalised over the three letters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from hyoka.providers import TokenLogprob, TopLogprob

LETTERS = ("A", "B", "C")
#: ``fastchat-tokens``: FastChat's (and its Japanese forks') substring tests, ``[[A]]`` in
#: the reply, else ``[[B]]``, else ``[[C]]``: the first *token* present in that fixed order
#: wins, wherever it stands, and only those exact ASCII spellings count
VerdictOutput = Literal["verdict", "verdict-after-reasons", "fastchat-tokens"]

#: Why an order has (or lacks) verdict probabilities.
ProbStatus = Literal[
    "ok",  # the verdict token was found and read
    "first-token",  # result-only reply without a letter: the first position was read
    "no-logprobs",  # the provider returned no log probabilities (or only NaN) for this reply
    "no-verdict",  # a reasons-then-result reply without a [[X]] verdict: nothing to read
]

_FULL_WIDTH = str.maketrans("ＡＢＣ", "ABC")
_DECORATION = " \t\r\n\u3000[]［］【】\"'`“”‘’「」『』*＊.:。：、,，!！"
_ESCAPE = re.compile(rb"\\x([0-9a-fA-F]{2})")
# a verdict letter standing alone (not part of a word), ASCII or full-width, as UTF-8 bytes
_LETTER = rb"(?:[ABC]|\xef\xbc[\xa1-\xa3])"
# letters and digits, ASCII or full-width (Ａ-Ｚ, ０-９: EF BC xx; ａ-ｚ: EF BD xx)
_WORD = rb"(?:[A-Za-z0-9]|\xef\xbc[\x90-\x99\xa1-\xba]|\xef\xbd[\x81-\x9a])"
_NOT_AFTER_WORD = rb"(?<![A-Za-z0-9])(?<!\xef\xbc[\x90-\x99\xa1-\xba])(?<!\xef\xbd[\x81-\x9a])"
_STANDALONE = re.compile(_NOT_AFTER_WORD + _LETTER + rb"(?!" + _WORD + rb")")
# [[X]] with ASCII or full-width brackets and optional spaces inside
_OPEN = rb"(?:\[|\xef\xbc\xbb)"
_CLOSE = rb"(?:\]|\xef\xbc\xbd)"
_BRACKETED = re.compile(_OPEN + _OPEN + rb"[ \t]*(" + _LETTER + rb")[ \t]*" + _CLOSE + _CLOSE)


def normalise_letter(token: str) -> str | None:
    """``"A"`` for ``A``, `` A``, ``[[A``, ``A]]``, ``"A"``, ``Ａ`` ...; ``None`` otherwise."""
    core = token.translate(_FULL_WIDTH).strip(_DECORATION)
    return core if core in LETTERS else None


def parse_verdict(reply: str, output: VerdictOutput) -> str | None:
    """The verdict letter in the judge's own reply: the first standalone letter for a
    result-only reply, the last ``[[X]]`` for a reasons-then-result one, FastChat's first
    token of ``[[A]]``, ``[[B]]``, ``[[C]]`` for ``fastchat-tokens``."""
    found = _find(reply.encode("utf-8"), output)
    if found is None:
        return None
    start, end = found
    return normalise_letter(reply.encode("utf-8")[start:end].decode("utf-8"))


def _find(data: bytes, output: VerdictOutput) -> tuple[int, int] | None:
    """Byte span of the verdict letter in ``data``."""
    if output == "verdict":
        match = _STANDALONE.search(data)
        return None if match is None else match.span()
    if output == "fastchat-tokens":
        for letter in LETTERS:
            start = data.find(b"[[" + letter.encode() + b"]]")
            if start >= 0:
                return start + 2, start + 3
        return None
    spans = [match.span(1) for match in _BRACKETED.finditer(data)]
    return spans[-1] if spans else None


def token_bytes(token: str) -> bytes:
    """The bytes a token stands for: ``\\xNN`` escapes (and a ``bytes:`` prefix) undone."""
    text = token.removeprefix("bytes:") if token.startswith("bytes:\\x") else token
    raw = text.encode("utf-8")
    if b"\\x" not in raw:
        return raw
    return _ESCAPE.sub(lambda match: bytes([int(match.group(1), 16)]), raw)


class VerdictProbs(BaseModel):
    """What the log probabilities of one reply say about its verdict."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: ProbStatus
    position: int | None = None  # index of the verdict token among the generated tokens
    token: str | None = None  # the token the judge generated there
    probs: dict[str, float] | None = None  # A, B, C as read (0 when absent from the top-k)

    @property
    def renormalised(self) -> dict[str, float] | None:
        """``probs`` scaled to sum to 1 over the three letters (``None`` when all are 0)."""
        if self.probs is None:
            return None
        total = sum(self.probs.values())
        if total <= 0:
            return None
        return {letter: value / total for letter, value in self.probs.items()}


def verdict_position(
    logprobs: Sequence[TokenLogprob], output: VerdictOutput
) -> tuple[int | None, ProbStatus]:
    """Index of the token carrying the verdict letter, and how it was found."""
    spans: list[tuple[int, int]] = []
    data = b""
    for step in logprobs:
        piece = token_bytes(step.token)
        spans.append((len(data), len(data) + len(piece)))
        data += piece
    found = _find(data, output)
    if found is None:
        if output == "verdict" and logprobs:
            return 0, "first-token"
        return None, "no-verdict"
    start = found[0]
    for index, (first, end) in enumerate(spans):
        if first <= start < end:
            return index, "ok"
    return None, "no-verdict"  # pragma: no cover - a found span always lies in a token


def letter_probabilities(step: TokenLogprob) -> dict[str, float]:
    """exp(logprob) of each letter's variants among the alternatives at one position,
    summed; the generated token counts too when the alternatives leave it out. A logprob
    that is not a finite number (a provider's missing value arrives as NaN) counts as
    absent: one NaN would otherwise turn every comparison, and so the verdict, into a tie."""
    probs = dict.fromkeys(LETTERS, 0.0)
    alternatives = list(step.top)
    if not any(alt.token == step.token and alt.logprob == step.logprob for alt in alternatives):
        alternatives.append(TopLogprob(token=step.token, logprob=step.logprob))
    for alt in alternatives:
        letter = normalise_letter(alt.token)
        if letter is not None and math.isfinite(alt.logprob):
            probs[letter] += math.exp(alt.logprob)
    return probs


def _has_numbers(logprobs: Sequence[TokenLogprob]) -> bool:
    """Whether any logprob in the reply is a real number."""
    return any(
        math.isfinite(step.logprob) or any(math.isfinite(alt.logprob) for alt in step.top)
        for step in logprobs
    )


def verdict_probabilities(
    logprobs: Sequence[TokenLogprob] | None, output: VerdictOutput
) -> VerdictProbs:
    """Probabilities of A, B and C at the verdict position of one reply."""
    if not logprobs or not _has_numbers(logprobs):
        return VerdictProbs(status="no-logprobs")
    position, status = verdict_position(logprobs, output)
    if position is None:
        return VerdictProbs(status=status)
    step = logprobs[position]
    return VerdictProbs(
        status=status, position=position, token=step.token, probs=letter_probabilities(step)
    )
