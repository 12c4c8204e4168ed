"""The judgment record: one JSON line per judged item, for single grading and pairwise alike.

One record type serves both protocols so that one reader, one resume rule and one
summary code path handle every judgment file. Each record keeps everything needed to audit
or redo the judgment: the judge and its settings, the template's name and version, the
full prompt, every raw reply (retries, repeats and both orders), the parsed result, the
verdict probabilities where used, token counts and a timestamp.

A failed single grading has ``score`` -1 (no rating in the reply even after the retries);
it is left out of every mean and counted in every summary.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hyoka.providers.types import Message, Usage

JudgmentKind = Literal["single", "pairwise"]
Aggregate = Literal["mean", "median"]

#: The score of a single grading whose reply never held a rating.
FAILED = -1.0


class JudgeSettings(BaseModel):
    """Which judge, and how it was asked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge: str  # "provider/model"
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = None
    top_logprobs: int | None = None
    repeats: int = Field(default=1, ge=1)
    aggregate: Aggregate = "mean"


class JudgmentRecord(BaseModel):
    """One judged item.

    Single grading fills ``score`` (the aggregate over ``scores``, one per repeat, -1 for a
    failed repeat). Pairwise fills ``verdicts`` (method -> "A"/"B"/"C" from the first
    order's point of view, or ``None`` where a method gives no valid verdict), ``orders``
    (per-order details: prompt, reply, parsed letter) and ``probabilities`` (method or order
    -> letter -> probability).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    kind: JudgmentKind
    judge: JudgeSettings
    template: str
    template_version: str
    models: tuple[str, ...] = ()  # the answering model(s): one for single, (X, Y) for pairwise
    prompt: tuple[Message, ...] = ()
    replies: tuple[str, ...] = ()
    # single grading
    score: float = FAILED
    scores: tuple[float, ...] = ()
    # pairwise
    verdicts: dict[str, str | None] = Field(default_factory=dict)
    orders: dict[str, Any] = Field(default_factory=dict)
    probabilities: dict[str, dict[str, float]] | None = None
    #: short hash of what was judged (question, both answers, reference, criteria), so a
    #: resumed run can tell a record of other answers under the same id (``None``: older file)
    input_hash: str | None = None
    # bookkeeping
    failures: int = Field(default=0, ge=0)
    usage: Usage = Usage()
    tstamp: float = Field(default_factory=time.time)

    @property
    def failed(self) -> bool:
        """A single grading without any rating (left out of means)."""
        return self.kind == "single" and self.score == FAILED
