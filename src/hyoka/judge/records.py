"""The judge's settings and the judgment record: one of each, for every protocol and benchmark.

One record type serves single grading and pairwise judging, the generic commands and the
MT-bench-style benchmarks alike, so that one engine, one resume rule and one summary code
path handle every judgment. Each record keeps everything needed to audit or redo the
judgment: the judge and its settings, the template's name and version, the full prompt,
every raw reply (retries, repeats and both orders), the parsed result, the verdict
probabilities where used, the rule that decided without a call, token counts and a
timestamp. Files in FastChat's format are written from this record by an adapter
(``hyoka.mtbench.records``), so they too come out of the same judgment.

A failed single grading has ``score`` -1 (no rating in the reply even after the retries);
it is left out of every mean and counted in every summary.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hyoka.providers import Message, SamplingParams, Usage

JudgmentKind = Literal["single", "pairwise"]
Aggregate = Literal["mean", "median"]

#: The score of a single grading whose reply never held a rating.
FAILED = -1.0


class JudgeSettings(BaseModel):
    """Which judge, and how it was asked: the one settings record of every protocol."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge: str  # "provider/model"
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = None
    top_logprobs: int | None = None
    repeats: int = Field(default=1, ge=1)
    aggregate: Aggregate = "mean"

    def identity(self) -> dict[str, Any]:
        """What a resumed file must share with the run. ``top_logprobs`` follows the
        methods asked for and is left out: whether a record holds every verdict a run wants
        is checked record by record, so a file judged with all methods serves a run asking
        for one."""
        return self.model_dump(exclude={"top_logprobs"})

    def params(self) -> SamplingParams:
        """The sampling parameters every call of this judge starts from."""
        return SamplingParams(
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            logprobs=bool(self.top_logprobs),
            top_logprobs=self.top_logprobs,
        )


class JudgmentRecord(BaseModel):
    """One judged item.

    Single grading fills ``score`` (the aggregate over ``scores``, one per repeat, -1 for a
    failed repeat; with one repeat the rating as the reply wrote it, ``7`` or ``7.5``).
    Pairwise fills ``verdicts`` (method -> "A"/"B"/"C" from the first order's point of
    view, or ``None`` where a method gives no valid verdict), ``orders`` (per-order
    details: prompt, reply, parsed letter) and ``probabilities`` (method or order ->
    letter -> probability). ``rule`` names the rules that decided without a judge call
    (side -> why: ``{"answer": "No answer"}``, ``{"model_1": "Incorrect language"}``).
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
    score: int | float = FAILED
    scores: tuple[float, ...] = ()
    # pairwise
    verdicts: dict[str, str | None] = Field(default_factory=dict)
    orders: dict[str, Any] = Field(default_factory=dict)
    probabilities: dict[str, dict[str, float]] | None = None
    rule: dict[str, str] | None = None
    #: short hash of what was judged (question, answers, reference, criteria), so a
    #: resumed run can tell a record of other answers under the same id
    input_hash: str | None = None
    # bookkeeping
    failures: int = Field(default=0, ge=0)
    usage: Usage = Usage()
    tstamp: float = Field(default_factory=time.time)

    @property
    def failed(self) -> bool:
        """A single grading without any rating (left out of means)."""
        return self.kind == "single" and self.score == FAILED

    def letter(self, order: str) -> str | None:
        """The verdict letter the judge wrote in ``order`` (``xy``/``yx``), as written."""
        return self._order_text(order, "letter")

    def prob_status(self, order: str) -> str | None:
        """Whether ``order``'s reply held verdict probabilities (``ok``, ``no-logprobs`` ...)."""
        return self._order_text(order, "prob_status")

    def _order_text(self, order: str, name: str) -> str | None:
        details = self.orders.get(order)
        value = details.get(name) if isinstance(details, dict) else None
        return value if isinstance(value, str) else None
