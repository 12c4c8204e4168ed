"""The records every provider speaks: a request in, a response out.

One request is either chat messages or a raw prompt, plus sampling parameters. Validation
happens when the record is built, so an invalid value (a negative temperature, top_p of 2)
is a clear error before any work starts, whatever backend would have received it.
"""

from __future__ import annotations

import math
import numbers
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from hyoka.printable import NAME_LIMIT, printable

Role = Literal["system", "user", "assistant"]


class Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str


#: The bounds of each sampling setting, the one home for them: ``SamplingParams`` holds every
#: request to them, and a settings model that keeps one (``refset.GenerateConfig``) takes the
#: same type, so a file or flag outside them is refused where it is read, never by the
#: first request. Finite numbers only (a TOML ``nan`` or ``inf`` is no temperature).
Temperature = Annotated[float, Field(ge=0.0, le=5.0, allow_inf_nan=False)]
TopP = Annotated[float, Field(gt=0.0, le=1.0, allow_inf_nan=False)]
TopK = Annotated[int, Field(ge=1)]
MaxTokens = Annotated[int, Field(ge=1)]
RepetitionPenalty = Annotated[float, Field(gt=0.0, allow_inf_nan=False)]
#: OpenAI's additive penalty per earlier occurrence (vLLM's and llama.cpp's alike)
FrequencyPenalty = Annotated[float, Field(ge=-2.0, le=2.0, allow_inf_nan=False)]


class SamplingParams(BaseModel):
    """Sampling settings; ``None`` means the backend's default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: Temperature | None = None
    top_p: TopP | None = None
    top_k: TopK | None = None
    max_tokens: MaxTokens | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None
    repetition_penalty: RepetitionPenalty | None = None
    logprobs: bool = False
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    #: left out of the dump when unset, so every request made before it existed keeps its
    #: cache key (``providers.client.cache_key`` hashes the dump)
    frequency_penalty: FrequencyPenalty | None = None

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("frequency_penalty") is None:
            data.pop("frequency_penalty", None)
        return data

    @model_validator(mode="after")
    def _top_logprobs_need_logprobs(self) -> SamplingParams:
        if self.top_logprobs and not self.logprobs:
            raise ValueError("top_logprobs needs logprobs=True")
        return self

    def given(self, *names: str) -> dict[str, Any]:
        """The settings ``names`` that are set, by name (the stops as a list): what a
        backend passes on, every unset one left out so that the backend's own default
        applies. The one home of that rule for every backend that passes settings by name."""
        shown = {name: getattr(self, name) for name in names}
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in shown.items()
            if value is not None and value != ()
        }

    def retry_can_change_reply(self, retry: SamplingParams) -> bool:
        """Whether asking again with ``retry``, after a reply to these parameters, can get
        another reply: the one rule for every "ask again" (an empty answer, a judge reply
        without a rating), so that no call is spent on a reply already known.

        At temperature 0 decoding is greedy: the seed is ignored and the same request gives
        the same reply, so a retry that changes only the seed (or nothing) repeats it. A
        retry can change the reply when it may sample (temperature above 0, or unset: the
        backend's default, which mostly samples) with a new seed or none, or when anything
        besides the seed differs (a temperature raised by a step, say).
        """
        if self.model_copy(update={"seed": None}) != retry.model_copy(update={"seed": None}):
            return True
        if retry.temperature == 0:
            return False
        return retry.seed is None or retry.seed != self.seed


class GenerationRequest(BaseModel):
    """Chat ``messages`` or a raw ``prompt`` (exactly one), and ``n`` samples of it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[Message, ...] | None = None
    prompt: str | None = None
    params: SamplingParams = SamplingParams()
    n: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _exactly_one_input(self) -> GenerationRequest:
        if (self.messages is None) == (self.prompt is None):
            raise ValueError("a request has either messages or a prompt, not both or neither")
        if self.messages is not None and not self.messages:
            raise ValueError("messages must not be empty")
        return self

    @property
    def is_chat(self) -> bool:
        return self.messages is not None


class TopLogprob(BaseModel):
    model_config = ConfigDict(frozen=True)

    token: str
    logprob: float


class TokenLogprob(BaseModel):
    """One generated token, its log probability, and the most likely alternatives there."""

    model_config = ConfigDict(frozen=True)

    token: str
    logprob: float
    top: tuple[TopLogprob, ...] = ()


class Choice(BaseModel):
    """One sample: its ``text`` (a chat reply's ``content``) and, where a server parses a
    reasoning model's thinking out of it, that thinking (``reasoning``: vLLM's, SGLang's
    and llama.cpp server's ``reasoning_content``); ``hyoka.providers.thinking`` reads
    the answer from both."""

    model_config = ConfigDict(frozen=True)

    text: str
    finish_reason: str | None = None
    logprobs: tuple[TokenLogprob, ...] | None = None
    reasoning: str | None = None


def token_count(value: object, name: str) -> int:
    """``value`` as a count of tokens: a whole number, not negative (a JSON ``12.0`` is 12);
    anything else a server or a stored reply may hold (``1e400`` read as infinity, ``NaN``,
    ``-1``, ``2.5``, a string, ``true``) is no count, and a ``ValueError`` names ``name``
    and the value (cut short): a reply that says it cost that is malformed, never counted
    (``int(inf)`` raised an ``OverflowError`` past every backend's checks)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        whole: int | None = int(value)
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        whole = int(value)
    else:
        whole = None
    if whole is not None and whole >= 0:
        return whole
    raise ValueError(f"{name}: {printable(repr(value), limit=40)} is no count of tokens")


class Usage(BaseModel):
    """The tokens a call cost, as its server counted them: whole numbers, never negative
    (``token_count``), wherever a usage is built: every backend's reply and a stored one
    read back from the response cache (where another is a miss, asked again)."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @field_validator("prompt_tokens", "completion_tokens", mode="before")
    @classmethod
    def _a_count(cls, value: object, info: ValidationInfo) -> int:
        return token_count(value, info.field_name or "tokens")

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )


class GenerationResponse(BaseModel):
    """``choices`` holds the request's ``n`` samples, in order; ``model`` is the name the
    server said served them, made printable and bounded (``hyoka.printable``) here, where
    every backend's reply and every cached one is built: it is kept in judgments and shown
    in warnings, and a server may send anything (escape sequences, a megabyte)."""

    model_config = ConfigDict(frozen=True)

    choices: tuple[Choice, ...]
    usage: Usage = Usage()
    model: str = ""
    cached: bool = False

    @field_validator("model")
    @classmethod
    def _shown_name(cls, name: str) -> str:
        return printable(name, limit=NAME_LIMIT)

    @property
    def text(self) -> str:
        return self.choices[0].text if self.choices else ""
