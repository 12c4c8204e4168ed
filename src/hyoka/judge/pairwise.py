"""Pairwise judging in both orders, and the three ways of turning two verdicts into one.

Every pair (X, Y) is judged twice, X shown first and then Y shown first, at temperature 0
(seed 001). From those same two calls:

* ``prob`` (seed 001's proposal): the probabilities of A, B and C at each reply's verdict
  position (see ``verdict_probs``), mapped to X-wins / Y-wins / tie (in the Y-first order A
  means Y wins), averaged over the two orders, the most probable outcome taken. When the
  maximum is shared exactly by two or three outcomes the verdict is the tie C: the rule
  treats X and Y alike, so the verdict of (Y, X) is always the mirror of that of (X, Y).
  Without probabilities for both orders (a provider that returned no logprobs, a
  reasons-then-result reply without a verdict) there is no ``prob`` verdict;
* ``bs1`` (Morita et al.): the orders disagree, the judgment is invalid (``None``);
* ``bs2`` (Zheng et al.): the orders disagree, the verdict is a tie.

Verdicts are written from the pair's point of view: A = X wins, B = Y wins, C = tie; the
letters the judge wrote in each order are kept as they were (``order_xy``, ``order_yx``).
An order whose reply holds no verdict letter makes ``bs1`` and ``bs2`` invalid.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hyoka._aio import gather_or_cancel
from hyoka._jsonl import append_record, drop_partial_tail, read_records
from hyoka.errors import InputError
from hyoka.judge.records import JudgeSettings, JudgmentRecord
from hyoka.judge.templates import JudgeTemplate
from hyoka.judge.verdict_probs import (
    LETTERS,
    VerdictOutput,
    VerdictProbs,
    parse_verdict,
    verdict_probabilities,
)
from hyoka.providers.client import ModelClient
from hyoka.providers.types import GenerationRequest, SamplingParams, Usage

Method = Literal["prob", "bs1", "bs2"]
METHODS: tuple[Method, ...] = ("prob", "bs1", "bs2")
Order = Literal["xy", "yx"]
MIRROR = {"A": "B", "B": "A", "C": "C"}
#: top-k alternatives read at the verdict position (the most OpenAI's API gives)
TOP_LOGPROBS = 20


@dataclass(frozen=True)
class PairItem:
    """One question and the two answers to compare."""

    id: str
    question: str
    answer_x: str
    answer_y: str
    reference: str | None = None
    criteria: str | None = None
    model_x: str = ""
    model_y: str = ""
    category: str | None = None


@dataclass(frozen=True)
class PairwisePlan:
    output: Path
    settings: JudgeSettings
    template: JudgeTemplate
    methods: tuple[Method, ...] = METHODS

    @property
    def wants_probs(self) -> bool:
        return "prob" in self.methods

    @property
    def output_format(self) -> VerdictOutput:
        if self.template.output == "verdict-after-reasons":
            return "verdict-after-reasons"
        return "verdict"


@dataclass
class PairwiseReport:
    judged: int = 0
    done_before: int = 0
    judge_calls: int = 0
    #: items judged now whose replies came without log probabilities (prob impossible)
    no_logprobs: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


def parse_methods(method: str) -> tuple[Method, ...]:
    """``--method``: one of ``prob``, ``bs1``, ``bs2``, or ``all`` of them."""
    if method == "all":
        return METHODS
    for known in METHODS:
        if method == known:
            return (known,)
    raise InputError(f"--method must be prob, bs1, bs2 or all, got {method!r}")


def check_items(
    template: JudgeTemplate, items: Sequence[PairItem], *, criteria: bool = True
) -> None:
    """Everything the template needs is there (``criteria=False``: all but the criteria,
    still to be generated), ids are unique: before any judge call."""
    template.require_kind("pairwise", "pairwise judging")
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise InputError(f"pair {item.id!r} appears twice")
        seen.add(item.id)
    for name in ("reference", "criteria") if criteria else ("reference",):
        if name in template.placeholders:
            missing = [item.id for item in items if getattr(item, name) is None]
            if missing:
                raise InputError(
                    f"template {template.name!r} needs a {name} for every pair; none for "
                    + ", ".join(missing[:5])
                    + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                )


def check_judge(client: ModelClient, plan: PairwisePlan) -> None:
    """A judge that cannot return log probabilities cannot give ``prob`` verdicts: say so
    before any call, naming the way out."""
    provider = client.provider
    if plan.wants_probs and not provider.supports_logprobs:
        raise InputError(
            f"--method prob needs a judge that returns log probabilities; "
            f"{provider.name}/{provider.model} does not (use --method bs1 or bs2)"
        )


def render_order(
    template: JudgeTemplate, item: PairItem, order: Order, params: SamplingParams
) -> GenerationRequest:
    """The request for one order: X's answer as assistant A in ``xy``, as B in ``yx``."""
    if order == "xy":
        first, second = item.answer_x, item.answer_y
    else:
        first, second = item.answer_y, item.answer_x
    fields = {"question": item.question, "answer_a": first, "answer_b": second}
    if item.reference is not None:
        fields["reference"] = item.reference
    if item.criteria is not None:
        fields["criteria"] = item.criteria
    used = {key: value for key, value in fields.items() if key in template.placeholders}
    return GenerationRequest(messages=template.render(**used), params=params)


def sampling_params(plan: PairwisePlan) -> SamplingParams:
    return SamplingParams(
        temperature=0.0,
        max_tokens=plan.settings.max_tokens,
        logprobs=plan.wants_probs,
        top_logprobs=TOP_LOGPROBS if plan.wants_probs else None,
    )


def xy_probabilities(xy: dict[str, float], yx: dict[str, float]) -> dict[str, float]:
    """The two orders' letter probabilities as A = X wins, B = Y wins, C = tie, averaged."""
    return {
        "A": (xy["A"] + yx["B"]) / 2,
        "B": (xy["B"] + yx["A"]) / 2,
        "C": (xy["C"] + yx["C"]) / 2,
    }


def prob_verdict(mean: dict[str, float]) -> str | None:
    """The most probable outcome; a shared maximum is a tie; no mass at all is no verdict."""
    best = max(mean[letter] for letter in LETTERS)
    if best <= 0:
        return None
    top = [letter for letter in LETTERS if mean[letter] == best]
    return top[0] if len(top) == 1 else "C"


def combine(letter_xy: str | None, letter_yx: str | None) -> dict[str, str | None]:
    """``bs1`` and ``bs2`` from the letters of the two orders (as the judge wrote them)."""
    if letter_xy is None or letter_yx is None:
        return {"bs1": None, "bs2": None}
    if letter_xy == MIRROR[letter_yx]:
        return {"bs1": letter_xy, "bs2": letter_xy}
    return {"bs1": None, "bs2": "C"}


def _order_details(
    request: GenerationRequest, reply: str, letter: str | None, probs: VerdictProbs | None,
    usage: Usage,
) -> dict[str, Any]:  # fmt: skip
    details: dict[str, Any] = {
        "letter": letter,
        "reply": reply,
        "prompt": [message.model_dump() for message in request.messages or ()],
        "usage": usage.model_dump(),
    }
    if probs is not None:
        details["prob_status"] = probs.status
        details["position"] = probs.position
        details["token"] = probs.token
        details["probs"] = probs.probs
        details["renormalised"] = probs.renormalised
    return details


async def judge_pair(client: ModelClient, plan: PairwisePlan, item: PairItem) -> JudgmentRecord:
    """Both orders of one pair, and the verdict of every method."""
    params = sampling_params(plan)
    both_orders: tuple[Order, Order] = ("xy", "yx")
    requests: dict[str, GenerationRequest] = {
        order: render_order(plan.template, item, order, params) for order in both_orders
    }
    # One key for every pair and order: at temperature 0 the request (its messages) alone
    # decides the reply, so (Y, X) judged after (X, Y), under any id, reuses both replies.
    xy_response, yx_response = await gather_or_cancel(
        client.generate(requests[order], sample_key="pairwise") for order in both_orders
    )
    output = plan.output_format
    orders: dict[str, Any] = {}
    letters: dict[str, str | None] = {}
    probs: dict[str, VerdictProbs] = {}
    for order, response in (("xy", xy_response), ("yx", yx_response)):
        choice = response.choices[0] if response.choices else None
        reply = choice.text if choice is not None else ""
        letters[order] = parse_verdict(reply, output)
        read = None
        if plan.wants_probs:
            read = verdict_probabilities(choice.logprobs if choice else None, output)
            probs[order] = read
        orders[order] = _order_details(requests[order], reply, letters[order], read, response.usage)
    verdicts: dict[str, str | None] = combine(letters["xy"], letters["yx"])
    probabilities: dict[str, dict[str, float]] | None = None
    if plan.wants_probs:
        xy_probs, yx_probs = probs["xy"].probs, probs["yx"].probs
        probabilities = {}
        if xy_probs is not None:
            probabilities["xy"] = xy_probs
        if yx_probs is not None:
            probabilities["yx"] = yx_probs
        verdicts["prob"] = None
        if xy_probs is not None and yx_probs is not None:
            probabilities["mean"] = xy_probabilities(xy_probs, yx_probs)
            verdicts["prob"] = prob_verdict(probabilities["mean"])
    return JudgmentRecord(
        id=item.id,
        kind="pairwise",
        judge=plan.settings,
        template=plan.template.name,
        template_version=plan.template.version,
        models=(item.model_x, item.model_y),
        prompt=requests["xy"].messages or (),
        replies=(orders["xy"]["reply"], orders["yx"]["reply"]),
        verdicts=verdicts,
        orders=orders,
        probabilities=probabilities,
        input_hash=input_hash(item),
        failures=sum(letter is None for letter in letters.values()),
        usage=xy_response.usage + yx_response.usage,
    )


def lacks_logprobs(record: JudgmentRecord) -> bool:
    """Whether either order's reply came without log probabilities."""
    return any(
        isinstance(details, dict) and details.get("prob_status") == "no-logprobs"
        for details in record.orders.values()
    )


def read_judgments(path: Path) -> list[JudgmentRecord]:
    if not path.exists():
        return []
    return [record for _number, record in read_records(path, JudgmentRecord)]


def input_hash(item: PairItem) -> str:
    """Short hash of everything of a pair that goes into its prompts."""
    material = [item.question, item.answer_x, item.answer_y, item.reference, item.criteria]
    text = json.dumps(material, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _settings_differences(theirs: JudgeSettings, ours: JudgeSettings) -> list[str]:
    """The settings that differ, as ``name theirs -> ours``. ``top_logprobs`` follows
    ``--method`` and is left out: whether a record holds every verdict asked for is
    checked on its own, so a file judged with all methods serves a run asking for one."""
    old, new = theirs.model_dump(), ours.model_dump()
    return [
        f"{name} {old[name]!r} -> {new[name]!r}"
        for name in old
        if name != "top_logprobs" and old[name] != new[name]
    ]


def check_output(plan: PairwisePlan, items: Sequence[PairItem], *, criteria: bool = True) -> None:
    """A record in ``plan.output`` counts as done only if it is the judgment this run would
    make: same judge, settings and template, same models and inputs, every method asked for.
    Anything else would be reported as this run's verdicts, so it stops the run instead,
    before any judge call (``criteria=False``: the criteria are still to be generated, so
    the inputs are compared only for pairs that already have theirs)."""
    if not plan.output.exists():
        return
    by_id = {item.id: item for item in items}
    for number, record in read_records(plan.output, JudgmentRecord):
        where = f"{plan.output}:{number}: pair {record.id!r}"
        if (
            record.kind != "pairwise"
            or record.judge.judge != plan.settings.judge
            or record.template != plan.template.name
            or record.template_version != plan.template.version
        ):
            raise InputError(
                f"{where} was judged by {record.judge.judge} with template {record.template} "
                f"v{record.template_version}, not by {plan.settings.judge} with "
                f"{plan.template.name} v{plan.template.version}; choose another --output"
            )
        changed = _settings_differences(record.judge, plan.settings)
        if changed:
            raise InputError(
                f"{where} was judged with other settings ({'; '.join(changed)}); "
                "choose another --output"
            )
        item = by_id.get(record.id)
        if item is None:
            continue
        if record.models != (item.model_x, item.model_y):
            raise InputError(
                f"{where} compares {' vs '.join(record.models)}, not {item.model_x} vs "
                f"{item.model_y}; choose another --output"
            )
        unknown = (
            not criteria and item.criteria is None and "criteria" in plan.template.placeholders
        )
        if not unknown and record.input_hash not in (None, input_hash(item)):
            raise InputError(
                f"{where} was judged on another question, answers, reference or criteria; "
                "choose another --output"
            )
        missing = [method for method in plan.methods if method not in record.verdicts]
        if missing:
            has = ", ".join(m for m in METHODS if m in record.verdicts)
            raise InputError(
                f"{where} has no {', '.join(missing)} verdict (it was judged for {has}); "
                "choose another --output"
            )


async def judge_pairs(
    client: ModelClient,
    plan: PairwisePlan,
    items: Sequence[PairItem],
    on_done: Callable[[], None] | None = None,
) -> PairwiseReport:
    """Judge every pair not yet in ``plan.output``, appending one record per pair as it
    finishes (resumable: a rerun judges only what is missing)."""
    check_items(plan.template, items)
    check_judge(client, plan)
    drop_partial_tail(plan.output)
    check_output(plan, items)
    done_ids = {record.id for record in read_judgments(plan.output)}
    report = PairwiseReport(done_before=sum(item.id in done_ids for item in items))

    async def one(item: PairItem) -> None:
        record = await judge_pair(client, plan, item)
        append_record(plan.output, record)
        report.judged += 1
        report.judge_calls += 2
        report.usage = report.usage + record.usage
        if plan.wants_probs and lacks_logprobs(record):
            report.no_logprobs.append(item.id)
        if on_done is not None:
            on_done()

    await gather_or_cancel(one(item) for item in items if item.id not in done_ids)
    return report
