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
An order whose reply holds no verdict letter makes ``bs1`` and ``bs2`` invalid. A task a
rule decided (one answer empty or in the wrong language: a benchmark's rules) is won by the
other answer, or tied when both were ruled out, without a call.

This is a protocol over the judging engine (``hyoka.judge.engine``); ``plan_pairs`` is the
generic ``hyoka judge pairwise`` run into hyoka's own judgment lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from hyoka.errors import InputError
from hyoka.judge.criteria import DEFAULT_TEMPLATE as CRITERIA_TEMPLATE
from hyoka.judge.criteria import CriteriaQuestion, CriteriaStore, generate_criteria
from hyoka.judge.engine import (
    JudgePlan,
    JudgeReport,
    JudgeRun,
    Protocol,
    Task,
    hyoka_lines,
    inputs_hash,
)
from hyoka.judge.records import JudgeSettings, JudgmentKind, JudgmentRecord
from hyoka.judge.templates import JudgeTemplate, load_template
from hyoka.judge.verdict_probs import (
    LETTERS,
    VerdictOutput,
    VerdictProbs,
    parse_verdict,
    verdict_probabilities,
)
from hyoka.providers import (
    DEFAULT_THINKING,
    Choice,
    GenerationRequest,
    Message,
    ModelClient,
    Reply,
    ThinkingRule,
    Usage,
    gather_deferring,
    split_thinking,
)
from hyoka.stats import MIRROR
from hyoka.store import path_under

Method = Literal["prob", "bs1", "bs2"]
METHODS: tuple[Method, ...] = ("prob", "bs1", "bs2")
Order = Literal["xy", "yx"]
ORDERS: tuple[Order, Order] = ("xy", "yx")
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


def parse_methods(method: str) -> tuple[Method, ...]:
    """``--method``: one of ``prob``, ``bs1``, ``bs2``, or ``all`` of them."""
    if method == "all":
        return METHODS
    for known in METHODS:
        if method == known:
            return (known,)
    raise InputError(f"`method` must be prob, bs1, bs2 or all, got {method!r}")


def pairwise_settings(
    judge: str,
    base_url: str | None,
    max_tokens: int | None,
    methods: Sequence[Method],
    thinking: ThinkingRule = DEFAULT_THINKING,
) -> JudgeSettings:
    """Temperature 0 (seed 001); the top-20 log probabilities only when ``prob`` is wanted;
    verdicts read after the thinking unless ``thinking`` says otherwise."""
    return JudgeSettings.for_judge(
        judge, base_url=base_url, temperature=0.0,
        max_tokens=max_tokens, top_logprobs=TOP_LOGPROBS if "prob" in methods else None,
        thinking=thinking,
    )  # fmt: skip


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


def orders_agree(letter_xy: str | None, letter_yx: str | None) -> bool | None:
    """Whether the letters of the two orders (as the judge wrote them) name the same
    winner; ``None`` when either reply held no verdict letter."""
    if letter_xy is None or letter_yx is None:
        return None
    return letter_xy == MIRROR.get(letter_yx)


@dataclass(frozen=True)
class OrderAgreement:
    """How many pairs' two orders agreed, disagreed, or lacked a verdict letter in one."""

    agree: int
    disagree: int
    missing: int

    @property
    def robustness(self) -> float | None:
        """Seed 001's robustness: the share of agreeing pairs among those with both letters
        (``None`` without any)."""
        both = self.agree + self.disagree
        return self.agree / both if both else None


def order_agreement(letters: Iterable[tuple[str | None, str | None]]) -> OrderAgreement:
    """Count ``orders_agree`` over pairs of letters (X first, Y first, as written)."""
    verdicts = [orders_agree(xy, yx) for xy, yx in letters]
    return OrderAgreement(verdicts.count(True), verdicts.count(False), verdicts.count(None))


def combine(letter_xy: str | None, letter_yx: str | None) -> dict[str, str | None]:
    """``bs1`` and ``bs2`` from the letters of the two orders (as the judge wrote them)."""
    agree = orders_agree(letter_xy, letter_yx)
    if agree is None:
        return {"bs1": None, "bs2": None}
    if agree:
        return {"bs1": letter_xy, "bs2": letter_xy}
    return {"bs1": None, "bs2": "C"}


def rule_verdict(rule_x: str | None, rule_y: str | None) -> str:
    """The verdict (A = X wins) when at least one answer was ruled out: the other answer
    wins, and two ruled-out answers tie."""
    if rule_x is not None and rule_y is not None:
        return "C"
    return "B" if rule_x is not None else "A"


def _order_details(
    messages: tuple[Message, ...], reply: str, letter: str | None, probs: VerdictProbs | None,
    usage: Usage,
) -> dict[str, Any]:  # fmt: skip
    details: dict[str, Any] = {
        "letter": letter,
        "reply": reply,
        "prompt": [message.model_dump() for message in messages],
        "usage": usage.model_dump(),
    }
    if probs is not None:
        details["prob_status"] = probs.status
        details["position"] = probs.position
        details["token"] = probs.token
        details["probs"] = probs.probs
        details["renormalised"] = probs.renormalised
    return details


#: the sides a pairwise task's rules name: X (shown first in order xy), Y
SIDES = ("model_1", "model_2")


class PairwiseJudging(Protocol):
    """Both orders of each task, and the verdict of every method asked for."""

    kind: JudgmentKind = "pairwise"

    def __init__(
        self,
        settings: JudgeSettings,
        template: str,
        template_version: str,
        *,
        methods: Sequence[Method] = METHODS,
        output: VerdictOutput = "verdict",
    ) -> None:
        super().__init__(settings, template, template_version)
        self.methods = tuple(methods)
        self.output = output

    @property
    def needs_logprobs(self) -> bool:
        return "prob" in self.methods

    async def ask(self, client: ModelClient, task: Task) -> JudgmentRecord:
        params = self.settings.params()
        responses = await gather_deferring(  # both orders in one batch, where batched
            client.generate(GenerationRequest(messages=messages, params=params), sample_key=key)
            for messages, key in zip(task.prompts, task.sample_keys, strict=True)
        )
        choices = [response.choices[0] if response.choices else None for response in responses]
        return self.judgment(task, choices, [response.usage for response in responses])

    def judgment(
        self, task: Task, choices: Sequence[Choice | None], usages: Sequence[Usage] = ()
    ) -> JudgmentRecord:
        """The record the two orders' replies (``choices``, xy then yx) make: each verdict
        read from the reply's answer, after any thinking (``settings.thinking``), which
        the order's details keep."""
        spent = list(usages) or [Usage(), Usage()]
        rule = self.settings.thinking_rule
        thoughts: list[str | None] = []
        orders: dict[str, Any] = {}
        letters: dict[str, str | None] = {}
        probs: dict[str, dict[str, float]] = {}
        for order, messages, choice, usage in zip(
            ORDERS, task.prompts, choices, spent, strict=True
        ):
            read_reply = (
                split_thinking(choice.text, rule, choice.reasoning) if choice else Reply("")
            )
            reply = read_reply.answer
            thoughts.append(read_reply.thinking)
            letters[order] = parse_verdict(reply, self.output)
            read = None
            if self.needs_logprobs:
                read = verdict_probabilities(choice.logprobs if choice else None, self.output)
                if read.probs is not None:
                    probs[order] = read.probs
            orders[order] = _order_details(messages, reply, letters[order], read, usage)
            if read_reply.thinking is not None:
                orders[order]["thinking"] = read_reply.thinking
        both = combine(letters["xy"], letters["yx"])
        verdicts: dict[str, str | None] = {m: both[m] for m in ("bs1", "bs2") if m in self.methods}
        probabilities: dict[str, dict[str, float]] | None = None
        if self.needs_logprobs:
            probabilities = dict(probs)
            verdicts = {"prob": None, **verdicts}
            if "xy" in probs and "yx" in probs:
                probabilities["mean"] = xy_probabilities(probs["xy"], probs["yx"])
                verdicts["prob"] = prob_verdict(probabilities["mean"])
        return self.record(
            task, replies=(orders["xy"]["reply"], orders["yx"]["reply"]), verdicts=verdicts,
            orders=orders, probabilities=probabilities,
            failures=sum(letter is None for letter in letters.values()),
            usage=spent[0] + spent[1],
            thinking=tuple(thoughts) if any(t is not None for t in thoughts) else None,
        )  # fmt: skip

    def decide(self, task: Task) -> JudgmentRecord:
        verdict = rule_verdict(task.rules.get(SIDES[0]), task.rules.get(SIDES[1]))
        return self.record(task, verdicts=dict.fromkeys(self.methods, verdict))

    def count(self, report: JudgeReport, record: JudgmentRecord) -> None:
        if record.rule:
            return
        report.judge_calls += 2
        report.no_verdict += record.failures
        report.undecided += all(verdict is None for verdict in record.verdicts.values())
        if self.needs_logprobs and lacks_logprobs(record):
            report.no_logprobs.append(record.id)


def lacks_logprobs(record: JudgmentRecord) -> bool:
    """Whether either order's reply came without log probabilities."""
    return any(record.prob_status(order) == "no-logprobs" for order in ORDERS)


def lacks_methods(verdicts: Mapping[str, object], methods: Sequence[Method]) -> str | None:
    """Why a stored judgment cannot count as done for a run asking for ``methods``."""
    missing = [method for method in methods if method not in verdicts]
    if not missing:
        return None
    has = ", ".join(m for m in METHODS if m in verdicts) or "none"
    return f"has no {', '.join(missing)} verdict (it was judged for {has})"


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


def render_order(template: JudgeTemplate, item: PairItem, order: Order) -> tuple[Message, ...]:
    """The prompt of one order: X's answer as assistant A in ``xy``, as B in ``yx``."""
    if order == "xy":
        first, second = item.answer_x, item.answer_y
    else:
        first, second = item.answer_y, item.answer_x
    fields = {"question": item.question, "answer_a": first, "answer_b": second}
    if item.reference is not None:
        fields["reference"] = item.reference
    if item.criteria is not None:
        fields["criteria"] = item.criteria
    return template.render(**{k: v for k, v in fields.items() if k in template.placeholders})


def item_hash(item: PairItem) -> str:
    """Short hash of everything of a pair that goes into its prompts."""
    return inputs_hash(item.question, item.answer_x, item.answer_y, item.reference, item.criteria)


def _pair_differs(methods: Sequence[Method]) -> Any:
    def differs(stored: JudgmentRecord, task: Task) -> str | None:
        if stored.models != task.models:
            return f"compares {' vs '.join(stored.models)}, not {' vs '.join(task.models)}"
        if task.input_hash is not None and stored.input_hash != task.input_hash:
            return "was judged on another question, answers, reference or criteria"
        return lacks_methods(stored.verdicts, methods)

    return differs


def plan_pairs(
    items: Sequence[PairItem],
    template: JudgeTemplate,
    settings: JudgeSettings,
    output: Path,
    *,
    methods: Sequence[Method] = METHODS,
    benchmark: str = "answers",
    pending_criteria: bool = False,
) -> JudgePlan[JudgmentRecord]:
    """The run that judges every pair into ``output`` (hyoka's judgment lines).

    ``pending_criteria``: the criteria are still to be generated; the plan then serves
    only to check, before they cost any call, that ``output`` can be continued (its
    prompts are not rendered and the inputs of pairs are compared without them)."""
    check_items(template, items, criteria=not pending_criteria)
    tasks = []
    for item in items:
        # One key for every pair and order: at temperature 0 the request alone decides the
        # reply, so (Y, X) judged after (X, Y), under any id, reuses both replies.
        prompts = () if pending_criteria else tuple(render_order(template, item, o) for o in ORDERS)
        unknown = pending_criteria and "criteria" in template.placeholders
        tasks.append(
            Task(
                id=item.id, key=item.id, label=f"pair {item.id!r}",
                models=(item.model_x, item.model_y), prompts=prompts,
                sample_keys=("pairwise", "pairwise"),
                input_hash=None if unknown else item_hash(item),
            )
        )  # fmt: skip
    output_format: VerdictOutput = (
        "verdict-after-reasons" if template.output == "verdict-after-reasons" else "verdict"
    )
    run = JudgeRun(
        kind="judge-pairwise", benchmark=benchmark,
        data=inputs_hash(sorted(t.input_hash or t.id for t in tasks)), settings=settings,
        template=f"{template.name}@{template.version}", methods=tuple(methods),
    )  # fmt: skip
    protocol = PairwiseJudging(
        settings, template.name, template.version, methods=methods, output=output_format
    )
    lines = hyoka_lines(_pair_differs(methods), tasks)
    return JudgePlan(output, run, protocol, lines, tuple(tasks))


#: default reply budgets: a bare letter, or reasons then [[X]]
MAX_TOKENS_RESULT = 16
MAX_TOKENS_REASONS = 1024


def template_name(criteria: str, reasons: bool) -> str:
    """The packaged seed-001 template for ``--criteria auto|none`` and ``--reasons``."""
    if criteria not in ("auto", "none"):
        raise InputError(f"`criteria` must be auto or none, got {criteria!r}")
    middle = "-criteria" if criteria == "auto" else ""
    return f"pairwise{middle}-{'reasons' if reasons else 'result'}"


def check_criteria_use(template: JudgeTemplate, criteria: str) -> None:
    """``--criteria auto`` needs a template with ``{criteria}``, ``none`` one without."""
    uses = "criteria" in template.placeholders
    if uses and criteria == "none":
        raise InputError(f"template {template.name!r} uses {{criteria}}: give `criteria` auto")
    if not uses and criteria == "auto":
        raise InputError(
            f"`criteria` auto, but template {template.name!r} has no {{criteria}} field"
        )


def default_max_tokens(template: JudgeTemplate) -> int:
    """The reply budget a template's output needs: a letter, or reasons and a verdict."""
    if template.output == "verdict-after-reasons":
        return MAX_TOKENS_REASONS
    return MAX_TOKENS_RESULT


def default_output(root: Path, judge: str, items: Sequence[PairItem], template: str) -> Path:
    """``<root>/<judge>/<X>_vs_<Y>.<template>.jsonl``, from sanitised names only."""
    first = items[0]
    folder = path_under(root, judge, what="`judge`")
    stem = f"{first.model_x}_vs_{first.model_y}.{template}"
    return path_under(folder, stem, what="model name", suffix=".jsonl")


async def fill_criteria(
    client: ModelClient,
    items: Sequence[PairItem],
    *,
    judge: str,
    store: Path,
    max_tokens: int,
    thinking: ThinkingRule = DEFAULT_THINKING,
    on_done: Callable[[], None] | None = None,
) -> list[PairItem]:
    """The items with their question's criteria, generated once per question (seed 001)
    and read from the judge's replies by ``thinking``."""
    template = load_template(CRITERIA_TEMPLATE)
    questions = [CriteriaQuestion(i.id, i.question, i.reference) for i in items]
    found = await generate_criteria(
        client, template, questions, judge=judge, store=CriteriaStore(store),
        max_tokens=max_tokens, thinking=thinking, on_done=on_done,
    )  # fmt: skip
    return [replace(item, criteria=found[item.id]) for item in items]
