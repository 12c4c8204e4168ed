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
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from hyoka.providers import (
    DEFAULT_THINKING,
    Message,
    SamplingParams,
    ThinkingRule,
    Usage,
    redact_url,
    script_pin,
)
from hyoka.settings_record import SettingsRecord, counts

if TYPE_CHECKING:
    from hyoka.providers import Provider

JudgmentKind = Literal["single", "pairwise"]
#: the settings that say which judge answers (read off its provider: ``JudgeSettings.of``)
JUDGE_IDENTITY = ("judge", "script", "base_url", "base_url_secret")
#: how repeated ratings combine; ``majority``: pass/fail votes (1 or 0), the verdict most
#: of them give (JFBench's three votes; set by its benchmark, no flag offers it)
Aggregate = Literal["mean", "median", "majority"]

#: The score of a single grading whose reply never held a rating.
FAILED = -1.0


class OmitsEmpty(BaseModel):
    """A line type whose fields named in ``omitted_when_empty`` are left out of the line
    while empty: a field added later (``served_models``) then leaves every line that has
    nothing to say in it as it always was (FastChat's fields and nothing else)."""

    omitted_when_empty: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _omit_empty(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name in self.omitted_when_empty:
                if not data.get(name, True):
                    data.pop(name)
        return data


class JudgeSettings(SettingsRecord):
    """Which judge, and how it was asked: the one settings record of every protocol.

    Each field declares whether it counts in the identity a resumed file must share and in
    the signature (``hyoka.settings_record.counts``); both are derived from those declarations.
    ``base_url`` is kept only as it may be shown (``redact_url``: credentials and query
    values replaced) whatever it is made from, so no record, manifest or signature can hold
    a credential; ``base_url_secret`` is a short hash of what was replaced, so that a URL
    with other credentials or query values does not continue this run's file.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge: Annotated[str, counts()]  # "provider/model"
    #: what decides the judge's replies beyond its name, where the name does not say: a
    #: scripted judge's script digest (``providers.script_pin``), so a file graded by one
    #: script is not continued by an edited one and each signs its own; ``None`` (and left
    #: out of a line) for a model, whose name keeps the identity it always had
    script: Annotated[str | None, counts(signature="judge_script", default_unsaid=True)] = None
    base_url: Annotated[str | None, counts(signature="judge_url")] = None
    base_url_secret: Annotated[
        str | None,
        counts(
            signature=False,
            why="a hash of credentials; the signature shows the URL with its query keys",
            default_unsaid=True,
        ),
    ] = None
    temperature: Annotated[float, counts()] = 0.0
    max_tokens: Annotated[int | None, counts()] = None
    top_logprobs: Annotated[
        int | None,
        counts(
            identity=False,
            signature=False,
            why="follows the methods asked for, which the run's signature names; whether a "
            "record holds every verdict a run wants is checked record by record, so a file "
            "judged with all methods serves a run asking for one",
        ),
    ] = None
    repeats: Annotated[int, Field(ge=1), counts()] = 1
    aggregate: Annotated[Aggregate, counts()] = "mean"
    #: single grading: the most calls made for one rating (set by the plan from
    #: ``--max-attempts`` or the rating rules); ``None`` where no rating is read
    max_attempts: Annotated[
        int | None, Field(ge=1), counts(signature="attempts", default_unsaid=True)
    ] = None
    #: how the answer is read from a reply that thinks aloud (``providers.thinking``):
    #: ``strip-think`` (the default: the rating or verdict is read after the thinking) or
    #: ``keep`` (the whole reply); the default left unsaid, so a judge without thinking keeps
    #: the identity, line and signature it always had
    thinking: Annotated[ThinkingRule, counts(default_unsaid=True)] = DEFAULT_THINKING

    @model_validator(mode="before")
    @classmethod
    def _redacted_url(cls, data: Any) -> Any:
        """Only the shown form of ``base_url`` is ever kept (see the class docstring)."""
        if isinstance(data, dict) and isinstance(data.get("base_url"), str):
            # a pool's servers, apart by spaces (``pooled.signed_servers``): each redacted
            redacted = [redact_url(url) for url in data["base_url"].split(" ")]
            secrets = [part.secret for part in redacted if part.secret is not None]
            if secrets:
                shown = " ".join(part.shown for part in redacted)
                data = {**data, "base_url": shown, "base_url_secret": "+".join(secrets)}
        return data

    @classmethod
    def for_judge(cls, judge: str, **fields: Any) -> JudgeSettings:
        """The settings of ``judge`` with what decides its replies taken from the judge
        itself (a scripted judge's script digest, ``providers.script_pin``): the one place
        a builder that has only the judge's name gets it, so none can sign a run by a
        script it did not read. The engine checks them against the judge asked
        (``answered_by``)."""
        if isinstance(fields.get("base_url"), str):  # a pool's first: all its servers
            from hyoka.providers import pool_servers, signed_servers

            fields["base_url"] = signed_servers(pool_servers(judge, fields["base_url"]))
        return cls(judge=judge, script=script_pin(judge), **fields)

    @classmethod
    def of(cls, provider: Provider, **fields: Any) -> JudgeSettings:
        """The settings of the judge ``provider`` is, read off it: its ``provider/model``,
        what decides its replies beyond that name (``Provider.replies_pin``: a script's
        digest) and the server it asks; ``fields`` say how it is asked. Settings made so
        cannot name a judge other than the one that answers."""
        from hyoka.providers import signed_servers

        return cls(
            judge=f"{provider.name}/{provider.model}",
            script=provider.replies_pin,
            base_url=signed_servers(provider.servers) or None,
            **fields,
        )

    def answered_by(self, provider: Provider) -> list[str]:
        """Each way the judge these settings name (``JUDGE_IDENTITY``: what the records,
        the file's identity and the signature say answered) is not ``provider``, as
        ``field: settings vs provider``; empty where it is."""
        asked = JudgeSettings.of(provider)
        mine = self.model_copy(update={"base_url": self.base_url or None})
        return [
            f"{name}: {_shown(getattr(mine, name))} vs {_shown(getattr(asked, name))}"
            for name in JUDGE_IDENTITY
            if getattr(mine, name) != getattr(asked, name)
        ]

    @property
    def thinking_rule(self) -> ThinkingRule:
        """The thinking rule its replies are read by (``thinking``)."""
        return self.thinking

    def params(self) -> SamplingParams:
        """The sampling parameters every call of this judge starts from."""
        return SamplingParams(
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            logprobs=bool(self.top_logprobs),
            top_logprobs=self.top_logprobs,
        )


def _shown(value: object) -> str:
    return "(none)" if value is None else str(value)


class JudgmentRecord(OmitsEmpty):
    """One judged item.

    Single grading fills ``score`` (the aggregate over ``scores``, one per repeat, -1 for a
    failed repeat; with one repeat the rating as the reply wrote it, ``7`` or ``7.5``).
    Pairwise fills ``verdicts`` (method -> "A"/"B"/"C" from the first order's point of
    view, or ``None`` where a method gives no valid verdict), ``orders`` (per-order
    details: prompt, reply, parsed letter) and ``probabilities`` (method or order ->
    letter -> probability). ``rule`` names the rules that decided without a judge call
    (side -> why: ``{"answer": "No answer"}``, ``{"model_1": "Incorrect language"}``).

    ``replies`` are what the rating or verdict was read from: a reasoning judge's reply
    after its thinking (``judge.thinking``); the thinking set aside is in ``thinking``, one
    entry per reply (``None`` where a reply had none), written only when a reply had any.
    ``served_models`` names the models the provider said answered, where it named another
    than the judge's (a dated snapshot of a moving alias such as ``gpt-4o``), in call order.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    #: fields added later, left out while empty: a judgment of a judge that does not think
    #: aloud, served under its own name, is the line it always was
    omitted_when_empty: ClassVar[tuple[str, ...]] = ("served_models", "thinking")

    id: str
    kind: JudgmentKind
    judge: JudgeSettings
    template: str
    template_version: str
    models: tuple[str, ...] = ()  # the answering model(s): one for single, (X, Y) for pairwise
    prompt: tuple[Message, ...] = ()
    replies: tuple[str, ...] = ()
    thinking: tuple[str | None, ...] | None = None
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
    served_models: tuple[str, ...] = ()

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
