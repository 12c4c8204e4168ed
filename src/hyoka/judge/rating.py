"""Reading a rating out of a judge's reply, and asking again when there is none: rules as data.

Three rule sets exist because three tools disagree, and a benchmark that reproduces an
upstream protocol must read replies exactly as upstream did, or its numbers drift:

``hyoka`` (the default; ``hyoka judge single``)
    The *last* rating decides, where the templates ask for it (after the explanation): a
    judge that quotes an answer containing ``[[10]]`` before writing its own verdict is
    graded by its own verdict. Forms tried in order (the first form present decides): the
    templates' stated format ``[[n]]``; a labelled ``Rating: n`` or ``Rating: [n]`` (also
    Score, 評価, 点数, スコア); a bare ``[n]`` alone on its line. A bare ``[n]`` inside a
    sentence is a citation (``出典[2]``), a footnote or an index (``a[0]``), never a
    rating: ``出典[2]を引用。\n評価: 8`` is an 8. Full-width text is folded to ASCII first
    (NFKC). Only 1..10 is a rating. A reply without one is asked again, up to 3 calls,
    each 0.001 warmer than the caller's temperature.
``pfmt-upstream`` (pfmt-bench-fin-ja's ``gen_judgment.py``)
    The *first* ``[[n]]``, else the first ``[n]``; no folding, no range check (``[[0]]``
    is a score of 0, ``[[15]]`` one of 15). Up to 5 calls at temperature 0.001·i whatever
    the caller asked (0.0, 0.001, ...), 2048 tokens each.
``fastchat`` (lm-sys FastChat ``llm_judge/common.py``, ``run_judge_single``)
    The same two forms and first-match reading as pfmt, one call at temperature 0 with
    2048 tokens, no retry: a reply without a rating is recorded as -1.
``ja-vicuna-qa`` (ku-nlp ja-vicuna-qa-benchmark ``llm_judge/common.py``, ``MatchSingle``)
    The first ``[[n]]``, else the first ``[[rating:n]]``, else the first ``[[rating: n]]``
    (integers only in the last two); no bare ``[n]``; otherwise as ``fastchat``.
``elyza-v1`` (Lightblue's Shaberi v1, ``evaluation_datasets_config.py``, ``elyza_evaluator``;
    its ELYZA-tasks-100 judgments with gpt-4-turbo-preview)
    The whole reply must be what Python's ``int()`` reads: surrounding whitespace, an
    optional sign, digits (any Unicode decimal digits, single ``_`` between them); anything
    else (``5点``, ``4.0``) is no rating, recorded as -1 where upstream wrote ``None``. No range
    check. One call at temperature 0 with 1024 tokens (``llm_functions.py``), no retry.

``shaberi-2025`` (shisa-ai/shaberi since 2025-11, ``evaluation_datasets_config.py``,
    ``elyza_evaluator`` and ``_fallback_score_from_analysis``; its gpt-5.1 judgments)
    The *last* ``FINAL SCORE: n`` (n: ASCII digits and points), else the last
    ``<score>n</score>``, else the whole reply as Python's ``float()`` reads it; the first
    of these present decides, and a match ``float()`` cannot read (``FINAL SCORE: 4.5.1``)
    is no rating, as upstream's ``ValueError`` skips the later forms. The value is Python's
    ``round()`` (half to even: 2.5 is 2), no range check. One call at temperature 0 with
    1024 tokens; a reply without a rating is followed by one *re-ask*: another prompt
    (read from the benchmark's file, ``Reask``) that shows the judge its own reply and
    asks for the score alone, read by the same rules less ``<score>`` (``RatingRules.reask``).
    An empty reply is not re-asked (upstream returns ``None`` before calling). A number
    ``float()`` reads as infinite (a few hundred digits), where upstream's ``round()``
    raises an uncaught ``OverflowError``, is no rating here.

Upstream's number syntax is ``\\d+\\.?\\d*`` with no spaces inside the brackets; its value
is ``ast.literal_eval`` of the match, so ``7`` is the integer 7 and ``7.5`` a float, and a
match of other Unicode digits (``[[８]]``, ``[[٨]]``), which ``\\d`` finds but Python's
parser refuses (a SyntaxError upstream), is no rating (``RatingForm.literal``; ja-vicuna-qa's
forms too; llm-jp-judge's pattern is ASCII). ``elyza-v1`` reads with ``int()``, which takes
any decimal digits, and Rakuda's last digit with ``int()`` too: those keep them.
``RatingOutcome.written_score`` keeps that distinction for files in FastChat's format.

Each attempt has its own cache key, so a cached rerun replays the same sequence of
replies without calling the provider. A retry is made only when its request can get
another reply (``SamplingParams.retry_can_change_reply``): hyoka's and pfmt's steps change
the temperature, so their retries stay; rules with no step at temperature 0 (``fastchat``
given more attempts) would send the same request again for the same reply, so the first
reply without a rating is recorded as the failure it is.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict

from hyoka.errors import InputError
from hyoka.providers import (
    STRIP_THINK,
    GenerationRequest,
    Message,
    ModelClient,
    SamplingParams,
    ThinkingRule,
    Usage,
    reply_of,
)

#: What upstream files record for a turn whose replies never held a rating.
NO_RATING = -1

LOWEST, HIGHEST = 1.0, 10.0
#: Added to the temperature on each retry of a reply without a rating (hyoka's rules).
TEMPERATURE_STEP = 0.001

_HYOKA_NUMBER = r"(\d+(?:\.\d+)?)"
#: FastChat's number: digits, an optional point, optional digits (``7.`` is a number).
_UPSTREAM_NUMBER = r"(\d+\.?\d*)"


@dataclass(frozen=True)
class RatingForm:
    """One way a rating may be written, tried as a whole before the next form."""

    name: str
    pattern: re.Pattern[str]
    #: the pattern must match the whole reply (``re.fullmatch``), not occur in it
    whole: bool = False
    #: upstream reads the match with ``ast.literal_eval``: a match of other Unicode digits
    #: (``[[８]]``), which its ``\d`` finds, is a SyntaxError there, so no rating here
    literal: bool = False
    #: the match is read with Python's ``float()`` (after ``str.strip``), which may refuse
    #: it (``4.5.1``, ``nan``): then it is no rating, and no later form is tried
    python_float: bool = False


HYOKA_FORMS = (
    # the format every packaged template states ("Rating: [[n]]"), as MT-bench's do
    RatingForm("[[n]]", re.compile(r"\[\[\s*" + _HYOKA_NUMBER + r"\s*\]\]")),
    # a rating named as one: "Rating: 8", "評価: 8", "Rating: [6]", "総合点数は 5"
    RatingForm(
        "rating:n",
        re.compile(
            r"(?:rating|score|評価|点数|スコア)\s*(?:は|:)\s*\[?\s*" + _HYOKA_NUMBER,
            re.IGNORECASE,
        ),
    ),
    # a bare "[n]" only where a verdict stands: alone on its line; elsewhere it is a
    # citation (出典[2]), a footnote or an index (a[0]), never a rating
    RatingForm("[n] alone", re.compile(r"^[ \t]*\[\s*" + _HYOKA_NUMBER + r"\s*\][ \t]*$", re.M)),
)
#: Python's ``int(reply)``: whitespace around, a sign, decimal digits with single ``_``
#: between them (``re``'s ``\s`` and ``\d`` are ``str.isspace`` and Unicode decimal digits,
#: as ``int`` reads them)
PYTHON_INT_FORM = RatingForm("int(reply)", re.compile(r"\s*([+-]?\d+(?:_\d+)*)\s*"), whole=True)
UPSTREAM_FORMS = (
    RatingForm("[[n]]", re.compile(r"\[\[" + _UPSTREAM_NUMBER + r"\]\]"), literal=True),
    RatingForm("[n]", re.compile(r"\[" + _UPSTREAM_NUMBER + r"\]"), literal=True),
)

#: ja-vicuna-qa-benchmark's three patterns, tried in this order
VICUNA_JA_FORMS = (
    RatingForm("[[n]]", re.compile(r"\[\[" + _UPSTREAM_NUMBER + r"\]\]"), literal=True),
    RatingForm("[[rating:n]]", re.compile(r"\[\[rating:(\d+)\]\]"), literal=True),
    RatingForm("[[rating: n]]", re.compile(r"\[\[rating: (\d+)\]\]"), literal=True),
)


#: Shaberi's (since 2025-11) ``FINAL SCORE:\s*([0-9.]+)``, its legacy
#: ``<score>([0-9.]+)</score>``, and the whole reply as ``float(reply.strip())``
FINAL_SCORE_FORM = RatingForm(
    "FINAL SCORE: n", re.compile(r"FINAL SCORE:\s*([0-9.]+)"), python_float=True
)
SCORE_TAG_FORM = RatingForm("<score>n</score>", re.compile(r"<score>([0-9.]+)</score>"),
                            python_float=True)  # fmt: skip
PYTHON_FLOAT_FORM = RatingForm("float(reply)", re.compile(r"(.*)", re.S), whole=True,
                               python_float=True)  # fmt: skip


@dataclass(frozen=True)
class RatingRules:
    """How a rating is read from a reply and how often the judge is asked again.

    ``name`` is the short name signatures carry (``rating:pfmt-upstream``). ``accepted`` is
    the inclusive range a rating must lie in, ``None`` for any number. The temperature of
    attempt ``i`` (0-based) is ``base + step * i`` where ``base`` is ``base_temperature``,
    or the caller's temperature when that is ``None``. ``max_tokens`` is the reply budget
    used when the caller sets none. ``rounding``: ``half-even`` rounds the value read with
    Python's ``round()`` (an integer score). ``reask``: the rules that read the judge's
    reply to a re-ask prompt (``Reask``) sent once when no attempt held a rating; ``None``:
    no re-ask.
    """

    name: str
    forms: tuple[RatingForm, ...]
    pick: Literal["first", "last"]
    fold_nfkc: bool
    accepted: tuple[float, float] | None
    max_attempts: int
    temperature_step: float
    base_temperature: float | None
    max_tokens: int | None
    rounding: Literal["none", "half-even"] = "none"
    reask: RatingRules | None = None

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if not self.forms:
            raise ValueError("a rule set needs at least one rating form")

    def temperature(self, requested: float | None, attempt: int) -> float:
        """The temperature of ``attempt`` (0-based) when the caller asked for ``requested``."""
        base = self.base_temperature if self.base_temperature is not None else requested or 0.0
        return round(base + self.temperature_step * attempt, 6)

    def describe(self) -> str:
        """One line for ``--help`` texts and reports."""
        forms = ", else ".join(f.name for f in self.forms)
        accepted = "any number"
        if self.accepted is not None:
            accepted = f"{self.accepted[0]:g}..{self.accepted[1]:g}"
        retries = (
            "no retry"
            if self.max_attempts == 1
            else f"up to {self.max_attempts} calls, +{self.temperature_step:g} each"
        )
        rounded = "; rounded half to even" if self.rounding == "half-even" else ""
        again = ""
        if self.reask is not None:
            again = f"; then one re-ask read as {', else '.join(f.name for f in self.reask.forms)}"
        return f"{self.name}: {self.pick} {forms}{rounded}; {accepted}; {retries}{again}"


HYOKA = RatingRules(
    name="hyoka",
    forms=HYOKA_FORMS,
    pick="last",
    fold_nfkc=True,
    accepted=(LOWEST, HIGHEST),
    max_attempts=3,
    temperature_step=TEMPERATURE_STEP,
    base_temperature=None,
    max_tokens=None,
)
PFMT_UPSTREAM = RatingRules(
    name="pfmt-upstream",
    forms=UPSTREAM_FORMS,
    pick="first",
    fold_nfkc=False,
    accepted=None,
    max_attempts=5,
    temperature_step=0.001,
    base_temperature=0.0,
    max_tokens=2048,
)
FASTCHAT = RatingRules(
    name="fastchat",
    forms=UPSTREAM_FORMS,
    pick="first",
    fold_nfkc=False,
    accepted=None,
    max_attempts=1,
    temperature_step=0.0,
    base_temperature=0.0,
    max_tokens=2048,
)
#: FastChat's reading with ja-vicuna-qa-benchmark's three rating forms
VICUNA_JA = replace(FASTCHAT, name="ja-vicuna-qa", forms=VICUNA_JA_FORMS)

#: llm-jp-judge (``evaluator/base.py``, ``client/remote.py``, ``config/client/openai.yaml``):
#: the first ``[[n]]`` with n in 1..10 (its prompts' ``regex``), temperature 0, 2048 tokens;
#: a reply without one is asked again up to 3 times (``max_retries: 3``). At temperature 0
#: hyoka sends no identical request twice (``retry_can_change_reply``): the first reply
#: without a rating is recorded as -1, and left out of the means as upstream leaves it out.
LLM_JP = replace(
    FASTCHAT,
    name="llm-jp",
    forms=(RatingForm("[[1..10]]", re.compile(r"\[\[(10|[1-9])\]\]")),),
    accepted=(LOWEST, HIGHEST),
    max_attempts=4,
)

#: FastChat's one call at temperature 0, the whole reply read as Python's ``int()``, in
#: Shaberi's 1024 tokens
ELYZA_V1 = replace(FASTCHAT, name="elyza-v1", forms=(PYTHON_INT_FORM,), max_tokens=1024)

#: Shaberi's reading since 2025-11 (``elyza_evaluator``): the last ``FINAL SCORE``, else the
#: last ``<score>``, else the whole reply, rounded half to even; one call at temperature 0
#: with 1024 tokens (``llm_functions.py``), then the re-ask (``_fallback_score_from_analysis``:
#: the last ``FINAL SCORE``, else the whole reply), on the same settings
SHABERI_2025 = replace(
    FASTCHAT,
    name="shaberi-2025",
    forms=(FINAL_SCORE_FORM, SCORE_TAG_FORM, PYTHON_FLOAT_FORM),
    pick="last",
    max_tokens=1024,
    rounding="half-even",
    reask=replace(
        FASTCHAT,
        name="shaberi-2025-reask",
        forms=(FINAL_SCORE_FORM, PYTHON_FLOAT_FORM),
        pick="last",
        max_tokens=1024,
        rounding="half-even",
    ),
)

#: The named presets, by the short name signatures and ``--rating-rules`` use.
RATING_RULES: dict[str, RatingRules] = {
    r.name: r for r in (HYOKA, PFMT_UPSTREAM, FASTCHAT, LLM_JP, VICUNA_JA, ELYZA_V1, SHABERI_2025)
}


def rating_rules(name: str) -> RatingRules:
    """The preset called ``name``; an unknown name is one clear line."""
    if name not in RATING_RULES:
        raise InputError(f"unknown rating rules {name!r}; choose one of: {', '.join(RATING_RULES)}")
    return RATING_RULES[name]


@dataclass(frozen=True)
class RatingMatch:
    """A rating as found: its value, and the text it was read from."""

    value: float
    text: str
    form: str

    #: the value was rounded to an integer (``RatingRules.rounding``): written as one
    rounded: bool = False

    @property
    def written(self) -> int | float:
        """The value as upstream's ``ast.literal_eval`` gives it: ``7`` int, ``7.5`` float
        (a rounded value: the integer upstream's ``round()`` gives)."""
        return int(self.value) if self.rounded or "." not in self.text else self.value


def _python_float(text: str) -> float | None:
    """``float(text.strip())`` as Python reads it, ``None`` where it raises or gives a
    value that is not finite (``nan``: upstream's ``round()`` raises ``ValueError``;
    ``inf``: an ``OverflowError`` upstream does not catch)."""
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def find_rating(reply: str, rules: RatingRules = HYOKA) -> RatingMatch | None:
    """The rating ``rules`` read in ``reply``, or ``None``.

    The first form that occurs at all decides; within it the first or last occurrence
    (``rules.pick``). A value outside ``rules.accepted`` is no rating: an earlier or later
    one is not tried instead, since the chosen occurrence is the judge's word.
    """
    text = unicodedata.normalize("NFKC", reply) if rules.fold_nfkc else reply
    for form in rules.forms:
        if form.whole:
            whole = form.pattern.fullmatch(text)
            found = [] if whole is None else [whole.group(1)]
        else:
            found = form.pattern.findall(text)
        if not found:
            continue
        chosen: str = found[0] if rules.pick == "first" else found[-1]
        if form.literal and not chosen.isascii():
            return None  # Python's parser takes ASCII digits only
        read = _python_float(chosen) if form.python_float else float(chosen)
        if read is None:
            return None  # upstream's float() raised: its later forms are not tried
        rounded = rules.rounding == "half-even"
        value = float(round(read)) if rounded else read
        if rules.accepted is not None and not rules.accepted[0] <= value <= rules.accepted[1]:
            return None
        return RatingMatch(value=value, text=chosen, form=form.name, rounded=rounded)
    return None


def parse_rating(reply: str, rules: RatingRules = HYOKA) -> float | None:
    """The rating ``rules`` read in ``reply`` (see ``find_rating``), or ``None``."""
    match = find_rating(reply, rules)
    return None if match is None else match.value


class RatingOutcome(BaseModel):
    """The result of rating one prompt: the score (``None`` if every reply lacked one)."""

    model_config = ConfigDict(frozen=True)

    score: float | None
    parsed: bool
    reply: str  # the last reply
    replies: tuple[str, ...]
    attempts: int  # judge calls made for this rating, cached ones included
    usage: Usage = Usage()
    #: the score as upstream writes it (``int`` unless the reply wrote a decimal point),
    #: ``NO_RATING`` (-1) when no reply held one
    written_score: int | float = NO_RATING
    rules: str = HYOKA.name
    #: retries allowed but not made: at temperature 0 each would have been the same
    #: request as the last, so the same reply without a rating
    retries_not_made: int = 0
    #: the thinking set aside from each reply (``None``: none), as ``replies``
    thinking: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class Reask:
    """A benchmark's second prompt for a judge reply that held no rating (Shaberi's
    ``_fallback_score_from_analysis``), filled in but for the reply itself: the text before
    and after the place the judge's reply (stripped, as upstream strips it) goes. Its
    reply is read by ``RatingRules.reask``."""

    head: str
    tail: str

    def messages(self, reply: str) -> tuple[Message, ...]:
        """The re-ask request's messages around the judge's ``reply``: one user message."""
        return (Message(role="user", content=self.head + reply.strip() + self.tail),)


def attempt_params(params: SamplingParams, rules: RatingRules, attempt: int) -> SamplingParams:
    """The sampling parameters of ``attempt`` (0-based): the rules' temperature schedule and,
    when the caller set none, their reply budget."""
    update: dict[str, object] = {}
    if rules.base_temperature is not None or attempt > 0:
        update["temperature"] = rules.temperature(params.temperature, attempt)
    if params.max_tokens is None and rules.max_tokens is not None:
        update["max_tokens"] = rules.max_tokens
    return params.model_copy(update=update) if update else params


async def rate(
    client: ModelClient,
    messages: Sequence[Message],
    params: SamplingParams,
    *,
    rules: RatingRules = HYOKA,
    max_attempts: int | None = None,
    sample_key: str = "",
    thinking: ThinkingRule = STRIP_THINK,
    reask: Reask | None = None,
) -> RatingOutcome:
    """Ask the judge until its reply holds a rating, at most ``max_attempts`` times
    (``rules.max_attempts`` unless given). A retry is made only when its request can get
    another reply (``SamplingParams.retry_can_change_reply``): with a temperature step of 0
    at temperature 0 the first reply without a rating is the last, a failure.

    The rating is read from each reply's answer under ``thinking``
    (``providers.thinking``): a ``[[7]]`` a reasoning judge wrote while thinking is not
    its verdict, and a reply whose thinking never closed holds no rating. ``replies`` are
    those answers, ``thinking`` what was set aside.

    When no reply held a rating and the rules re-ask (``RatingRules.reask``), ``reask`` (the
    task's second prompt) is sent once around the last reply, unless that reply is empty,
    and its reply read by the re-ask rules: it is the last of ``replies``."""
    attempts = rules.max_attempts if max_attempts is None else max_attempts
    if attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    asking = _Asking(client, thinking, rules.name)
    asked = attempt_params(params, rules, 0)
    for attempt in range(attempts):
        match = await asking.ask(messages, asked, f"{sample_key}#try{attempt}", rules)
        if match is not None:
            return asking.outcome(match, retries_not_made=0)
        if attempt + 1 < attempts:
            retry = attempt_params(params, rules, attempt + 1)
            if not asked.retry_can_change_reply(retry):
                break  # the same request again: the same reply, without a rating
            asked = retry
    not_made = attempts - len(asking.replies)
    if rules.reask is not None and reask is not None and asking.replies[-1].strip():
        match = await asking.ask(
            reask.messages(asking.replies[-1]),
            attempt_params(params, rules.reask, 0),
            f"{sample_key}#reask",
            rules.reask,
        )
        return asking.outcome(match, retries_not_made=not_made)
    return asking.outcome(None, retries_not_made=not_made)


class _Asking:
    """The judge calls of one rating so far: each reply's answer and thinking, and the
    usage summed. The first tries and the re-ask are asked and recorded alike; only the
    rules reading each reply differ."""

    def __init__(self, client: ModelClient, thinking: ThinkingRule, rules_name: str) -> None:
        self.client = client
        self.thinking = thinking
        self.rules_name = rules_name
        self.replies: list[str] = []
        self.thoughts: list[str | None] = []
        self.usage = Usage()

    async def ask(
        self,
        messages: Sequence[Message],
        params: SamplingParams,
        sample_key: str,
        reading: RatingRules,
    ) -> RatingMatch | None:
        """Send one request, record its reply, and read the rating ``reading`` finds in it."""
        request = GenerationRequest(messages=tuple(messages), params=params)
        response = await self.client.generate(request, sample_key=sample_key)
        self.usage = self.usage + response.usage
        reply = reply_of(response, self.thinking)
        self.replies.append(reply.answer)
        self.thoughts.append(reply.thinking)
        return find_rating(reply.answer, reading)

    def outcome(self, match: RatingMatch | None, *, retries_not_made: int) -> RatingOutcome:
        """The rating the last reply held (``match``), or none, with every reply so far."""
        return RatingOutcome(
            score=None if match is None else match.value,
            parsed=match is not None,
            reply=self.replies[-1],
            replies=tuple(self.replies),
            attempts=len(self.replies),
            usage=self.usage,
            written_score=NO_RATING if match is None else match.written,
            rules=self.rules_name,
            retries_not_made=retries_not_made,
            thinking=tuple(self.thoughts),
        )
