"""Single grading: a rating per answer, read by a benchmark's rating rules, with repeats.

A protocol over the judging engine (``hyoka.judge.engine``): each task's prompt is sent
until the reply holds a rating (``hyoka.judge.rating``: hyoka's strict rules by default,
a benchmark's own where it reproduces an upstream protocol). With ``repeats`` k > 1 each
item is graded k times under distinct cache keys and the ratings aggregated (mean or
median), for judges that vary even at temperature 0; a repeat without a rating is left out
of the aggregate and counted; an item with no rating at all scores -1, kept with its raw
replies. A task a rule decided (an empty answer ...) scores 0 without a call.

``plan_single`` is the generic ``hyoka judge single`` run: items graded through a template
into hyoka's own judgment file. Every problem a user can fix (duplicate ids, a missing
reference, a template of another kind) is reported before the first judge call.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from hyoka.errors import InputError
from hyoka.judge.engine import (
    JudgePlan,
    JudgeReport,
    JudgeRun,
    Protocol,
    Task,
    hyoka_lines,
    inputs_hash,
)
from hyoka.judge.rating import HYOKA, RatingRules, rate
from hyoka.judge.records import FAILED, JudgeSettings, JudgmentKind, JudgmentRecord
from hyoka.judge.templates import JudgeTemplate
from hyoka.providers import Message, ModelClient, Usage
from hyoka.store import read_objects, read_records


class SingleItem(BaseModel):
    """One answer to grade; ``reference`` is needed when the template uses it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    question: str
    answer: str
    reference: str | None = None
    model: str = ""

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


@dataclass(frozen=True)
class SingleSummary:
    """Means over the graded items; failures (score -1) are left out and counted."""

    mean: float | None
    n: int
    failures: int
    per_item: dict[str, float]  # id -> score (-1 for a failure)
    usage: Usage

    def to_json(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "n": self.n,
            "failures": self.failures,
            "per_item": self.per_item,
            "usage": self.usage.model_dump(),
        }


def aggregate(scores: Sequence[float], how: str) -> float:
    """The mean or median of the ratings that were given (``majority``: of pass/fail
    votes, 1 where more pass than fail); -1 when none was."""
    if not scores:
        return FAILED
    if how == "majority":
        return float(sum(scores) * 2 > len(scores))
    return float(statistics.median(scores) if how == "median" else statistics.fmean(scores))


class SingleGrading(Protocol):
    """Rate each task's prompt by ``rules``, ``settings.repeats`` times."""

    kind: JudgmentKind = "single"

    def __init__(
        self,
        settings: JudgeSettings,
        template: str,
        template_version: str,
        *,
        rules: RatingRules = HYOKA,
    ) -> None:
        super().__init__(settings, template, template_version)
        self.rules = rules

    async def ask(self, client: ModelClient, task: Task) -> JudgmentRecord:
        messages = task.prompts[0]
        params = self.settings.params()
        replies: list[str] = []
        thoughts: list[str | None] = []
        scores: list[float] = []
        written: int | float = FAILED
        usage = Usage()
        for repeat in range(self.settings.repeats):
            outcome = await rate(
                client, messages, params, rules=self.rules,
                max_attempts=self.settings.max_attempts,
                sample_key=f"{task.sample_keys[0]}#r{repeat}",
                thinking=self.settings.thinking_rule, reask=task.reask,
            )  # fmt: skip
            replies.extend(outcome.replies)
            thoughts.extend(outcome.thinking)
            usage = usage + outcome.usage
            scores.append(outcome.score if outcome.score is not None else FAILED)
            written = outcome.written_score
        given = [s for s in scores if s != FAILED]
        # one repeat: the rating as the judge wrote it (7, not 7.0), as FastChat keeps it
        score = written if len(scores) == 1 else aggregate(given, self.settings.aggregate)
        return self.record(
            task, replies=tuple(replies), score=score, scores=tuple(scores),
            failures=len(scores) - len(given), usage=usage,
            thinking=tuple(thoughts) if any(t is not None for t in thoughts) else None,
        )  # fmt: skip

    def decide(self, task: Task) -> JudgmentRecord:
        return self.record(task, score=0, scores=(0.0,))

    def count(self, report: JudgeReport, record: JudgmentRecord) -> None:
        if record.rule:
            return
        report.judge_calls += len(record.replies)
        report.unrated += record.failed
        report.failed_repeats += record.failures


def check_items(items: Sequence[SingleItem], template: JudgeTemplate) -> None:
    """Reject duplicate ids, a missing reference and a template of another kind."""
    template.require_kind("single", "single grading")
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise InputError(f"item id {item.id!r} appears more than once")
        seen.add(item.id)
        if "reference" in template.placeholders and item.reference is None:
            raise InputError(
                f"item {item.id!r} has no reference answer, which template {template.name!r} needs"
            )


def render_item(template: JudgeTemplate, item: SingleItem) -> tuple[Message, ...]:
    fields = {"question": item.question, "answer": item.answer}
    if item.reference is not None:
        fields["reference"] = item.reference
    return template.render(**{k: v for k, v in fields.items() if k in template.placeholders})


def _graded_elsewhere(stored: JudgmentRecord, task: Task) -> str | None:
    if stored.prompt == task.prompts[0]:
        return None
    # the same id sent otherwise: its grade is not this one's. The item's text is only in
    # the user message, so another system message is the template's text (a template
    # edited without a new name or version), not the data
    stored_system = [m for m in stored.prompt if m.role != "user"]
    system = [m for m in task.prompts[0] if m.role != "user"]
    if stored_system != system:
        return (
            "was graded with another judge prompt (the template's system prompt differs "
            "from the one it was graded with, though its name and version match)"
        )
    return (
        "was graded on another question, answer or reference, or with another prompt "
        "text of the template"
    )


def graded_by(
    settings: JudgeSettings, rules: RatingRules, max_attempts: int | None = None
) -> JudgeSettings:
    """``settings`` as a grading by ``rules`` uses them: with the most calls made for one
    rating (``max_attempts``, else the settings' own, else the rules'), which changes the
    grades and so belongs to the settings every record, identity and signature comes from."""
    attempts = max_attempts or settings.max_attempts or rules.max_attempts
    return settings.model_copy(update={"max_attempts": attempts})


def plan_single(
    items: Sequence[SingleItem],
    template: JudgeTemplate,
    settings: JudgeSettings,
    output: Path,
    *,
    benchmark: str = "answers",
    data: str | None = None,
    rules: RatingRules = HYOKA,
    max_attempts: int | None = None,
) -> JudgePlan[JudgmentRecord]:
    """The run that grades every item into ``output`` (hyoka's judgment lines); ``data``
    names the benchmark data in the signature (default: a hash of the items' prompts)."""
    check_items(items, template)
    settings = graded_by(settings, rules, max_attempts)
    tasks = []
    for item in items:
        messages = render_item(template, item)
        tasks.append(
            Task(
                id=item.id, key=item.id, label=f"item {item.id!r}",
                models=(item.model,) if item.model else (), prompts=(messages,),
                sample_keys=("single",), input_hash=inputs_hash(messages),
            )
        )  # fmt: skip
    run = JudgeRun(
        kind="judge-single", benchmark=benchmark,
        data=data or inputs_hash(sorted(t.input_hash or "" for t in tasks)), settings=settings,
        template=f"{template.name}@{template.version}", rating=rules.name,
    )  # fmt: skip
    protocol = SingleGrading(settings, template.name, template.version, rules=rules)
    lines = hyoka_lines(_graded_elsewhere, tasks)
    return JudgePlan(output, run, protocol, lines, tuple(tasks))


def summarise(records: Iterable[JudgmentRecord], ids: Iterable[str] | None = None) -> SingleSummary:
    """Mean, count and failures over single records (only those in ``ids`` when given)."""
    wanted = None if ids is None else set(ids)
    chosen = [r for r in records if r.kind == "single" and (wanted is None or r.id in wanted)]
    rated = [float(r.score) for r in chosen if not r.failed]
    usage = Usage()
    for record in chosen:
        usage = usage + record.usage
    return SingleSummary(
        mean=statistics.fmean(rated) if rated else None,
        n=len(rated),
        failures=len(chosen) - len(rated),
        per_item={r.id: float(r.score) for r in chosen},
        usage=usage,
    )


def read_items(path: Path, references: Path | None = None) -> list[SingleItem]:
    """``{id, question, answer, reference?, model?}`` lines, with the references of a second
    file of ``{id, reference}`` lines when given; every problem names file and line."""
    items: list[SingleItem] = []
    lines: dict[str, int] = {}
    for number, item in read_records(path, SingleItem):
        if item.id in lines:
            raise InputError(f"{path}:{number}: id {item.id!r} also on line {lines[item.id]}")
        lines[item.id] = number
        items.append(item)
    if not items:
        raise InputError(f"{path}: no answers in file")
    if references is None:
        return items
    extra: dict[str, str] = {}
    for number, raw in read_objects(references):
        key, text = raw.get("id"), raw.get("reference")
        if key is None or not isinstance(text, str):
            raise InputError(f"{references}:{number}: expected {{id, reference}} with a string")
        if str(key) not in lines:
            raise InputError(f"{references}:{number}: id {key!r} is not in {path}")
        extra[str(key)] = text
    return [
        item.model_copy(update={"reference": extra[item.id]}) if item.id in extra else item
        for item in items
    ]
