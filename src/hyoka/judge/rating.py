"""Reading a 1-10 rating out of a judge's reply, and asking again when there is none.

The parser sees the judge's reply only, never the graded answer, and takes the *last*
rating in it: a judge that quotes an answer containing ``[[10]]`` before writing its own
verdict is graded by its own verdict. The forms tried, in order (the first form present
decides): ``[[n]]``, then ``[n]``, then ``Rating: n`` (also ``Score``, 評価, 点数, スコア).
Full-width digits, brackets and colons are folded to ASCII first (NFKC). A rating outside
1..10 is no rating.

A reply without a rating is asked again, up to ``max_attempts`` calls in all, each with the
temperature raised by 0.001 (as the upstream MT-bench judges do) and its own cache key, so
a cached rerun replays the same sequence of replies without calling the provider.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from hyoka.providers.client import ModelClient
from hyoka.providers.types import GenerationRequest, Message, SamplingParams, Usage

LOWEST, HIGHEST = 1.0, 10.0
#: Added to the temperature on each retry of a reply without a rating.
TEMPERATURE_STEP = 0.001

_NUMBER = r"(\d+(?:\.\d+)?)"
_FORMS = (
    re.compile(r"\[\[\s*" + _NUMBER + r"\s*\]\]"),
    re.compile(r"\[\s*" + _NUMBER + r"\s*\]"),
    re.compile(r"(?:rating|score|評価|点数|スコア)\s*(?:は|:)\s*" + _NUMBER, re.IGNORECASE),
)


def parse_rating(reply: str) -> float | None:
    """The last rating in ``reply`` (the first of the forms that occurs), or ``None``."""
    text = unicodedata.normalize("NFKC", reply)
    for form in _FORMS:
        found = form.findall(text)
        if found:
            value = float(found[-1])
            return value if LOWEST <= value <= HIGHEST else None
    return None


class RatingOutcome(BaseModel):
    """The result of rating one prompt: the score (``None`` if every reply lacked one)."""

    model_config = ConfigDict(frozen=True)

    score: float | None
    parsed: bool
    reply: str  # the last reply
    replies: tuple[str, ...]
    attempts: int  # judge calls made for this rating, cached ones included
    usage: Usage = Usage()


async def rate(
    client: ModelClient,
    messages: Sequence[Message],
    params: SamplingParams,
    *,
    max_attempts: int = 3,
    sample_key: str = "",
) -> RatingOutcome:
    """Ask the judge until its reply holds a rating, at most ``max_attempts`` times."""
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    replies: list[str] = []
    usage = Usage()
    base = params.temperature or 0.0
    for attempt in range(max_attempts):
        tried = (
            params
            if attempt == 0
            else params.model_copy(
                update={"temperature": round(base + TEMPERATURE_STEP * attempt, 6)}
            )
        )
        request = GenerationRequest(messages=tuple(messages), params=tried)
        response = await client.generate(request, sample_key=f"{sample_key}#try{attempt}")
        usage = usage + response.usage
        replies.append(response.text)
        score = parse_rating(response.text)
        if score is not None:
            return RatingOutcome(
                score=score,
                parsed=True,
                reply=response.text,
                replies=tuple(replies),
                attempts=attempt + 1,
                usage=usage,
            )
    return RatingOutcome(
        score=None,
        parsed=False,
        reply=replies[-1],
        replies=tuple(replies),
        attempts=max_attempts,
        usage=usage,
    )
