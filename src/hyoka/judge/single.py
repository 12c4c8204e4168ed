"""Single grading of many answers: a 1-10 rating each, resumable, with optional repeats.

Every item is graded concurrently through one ``ModelClient`` (its limiter caps what is in
flight) and its record is appended to the judgment file as soon as it is done, so an
interrupted run keeps everything finished and a re-run grades only what is missing (a torn
last line is cut off first). With ``repeats`` k > 1 each item is graded k times under
distinct cache keys and the ratings aggregated (mean or median), for judges that vary
even at temperature 0; a repeat without a rating is left out of the aggregate and
counted; an item with no rating at all scores -1, kept with its raw replies.

Every problem a user can fix (duplicate ids, a missing reference, a wrong template, a file
of another judge or other settings) is reported before the first judge call.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from hyoka._aio import gather_or_cancel
from hyoka._jsonl import append_record, drop_partial_tail, read_records
from hyoka.errors import InputError
from hyoka.judge.rating import rate
from hyoka.judge.records import FAILED, JudgeSettings, JudgmentRecord
from hyoka.judge.templates import JudgeTemplate
from hyoka.providers.client import ModelClient
from hyoka.providers.types import Message, SamplingParams, Usage


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


@dataclass
class SingleReport:
    """What one call of ``judge_single`` did."""

    judged: int = 0
    done_before: int = 0
    failures: int = 0  # items without any rating
    failed_repeats: int = 0  # repeats without a rating, over all items judged now
    judge_calls: int = 0  # cached calls included
    usage: Usage = field(default_factory=Usage)


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
    """The mean or median of the ratings that were given; -1 when none was."""
    if not scores:
        return FAILED
    return float(statistics.median(scores) if how == "median" else statistics.fmean(scores))


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


def read_judgments(path: Path) -> list[JudgmentRecord]:
    """Every record of a judgment file (``InputError`` naming file and line if malformed)."""
    if not path.exists():
        return []
    return [record for _, record in read_records(path, JudgmentRecord)]


def _done(
    path: Path,
    template: JudgeTemplate,
    settings: JudgeSettings,
    prompts: dict[str, tuple[Message, ...]],
) -> set[str]:
    done: set[str] = set()
    if not path.exists():
        return done
    for number, record in read_records(path, JudgmentRecord):
        theirs = (record.kind, record.judge.judge, record.template, record.template_version)
        ours = ("single", settings.judge, template.name, template.version)
        if theirs != ours:
            raise InputError(
                f"{path}:{number}: a {record.kind} judgment by {record.judge.judge} with "
                f"template {record.template} v{record.template_version}, not "
                f"{settings.judge} with {template.name} v{template.version}; "
                "choose another output file"
            )
        if record.judge != settings:
            # another budget, temperature, number of repeats ... would mix two kinds of
            # grade in one mean
            old, new = record.judge.model_dump(), settings.model_dump()
            changed = [f"{k} {old[k]!r} -> {new[k]!r}" for k in old if old[k] != new[k]]
            raise InputError(
                f"{path}:{number}: item {record.id!r} was graded with other settings "
                f"({'; '.join(changed)}); choose another output file"
            )
        if record.id in prompts and record.prompt != prompts[record.id]:
            # the same id with another question, answer or reference: its grade is not
            # this item's
            raise InputError(
                f"{path}:{number}: item {record.id!r} was graded on another question, answer "
                "or reference; choose another output file"
            )
        done.add(record.id)
    return done


async def judge_single(
    items: Sequence[SingleItem],
    template: JudgeTemplate,
    settings: JudgeSettings,
    client: ModelClient,
    output: Path,
    *,
    max_attempts: int = 3,
    progress: Callable[[], None] | None = None,
) -> SingleReport:
    """Grade every item not yet in ``output``, appending one record per item."""
    check_items(items, template)
    prompts = {item.id: render_item(template, item) for item in items}
    drop_partial_tail(output)
    done = _done(output, template, settings, prompts)
    todo = [item for item in items if item.id not in done]
    report = SingleReport(done_before=len(items) - len(todo))
    params = SamplingParams(
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        logprobs=bool(settings.top_logprobs),
        top_logprobs=settings.top_logprobs,
    )

    async def one(item: SingleItem) -> None:
        messages = prompts[item.id]
        replies: list[str] = []
        scores: list[float] = []
        usage = Usage()
        for repeat in range(settings.repeats):
            outcome = await rate(
                client, messages, params, max_attempts=max_attempts, sample_key=f"single#r{repeat}"
            )
            replies.extend(outcome.replies)
            usage = usage + outcome.usage
            report.judge_calls += outcome.attempts
            scores.append(outcome.score if outcome.score is not None else FAILED)
        given = [s for s in scores if s != FAILED]
        record = JudgmentRecord(
            id=item.id,
            kind="single",
            judge=settings,
            template=template.name,
            template_version=template.version,
            models=(item.model,) if item.model else (),
            prompt=messages,
            replies=tuple(replies),
            score=aggregate(given, settings.aggregate),
            scores=tuple(scores),
            failures=len(scores) - len(given),
            usage=usage,
        )
        append_record(output, record)
        report.judged += 1
        report.failures += record.failed
        report.failed_repeats += record.failures
        report.usage = report.usage + usage
        if progress is not None:
            progress()

    await gather_or_cancel(one(item) for item in todo)
    return report


def summarise(records: Iterable[JudgmentRecord], ids: Iterable[str] | None = None) -> SingleSummary:
    """Mean, count and failures over single records (only those in ``ids`` when given)."""
    wanted = None if ids is None else set(ids)
    chosen = [r for r in records if r.kind == "single" and (wanted is None or r.id in wanted)]
    rated = [r.score for r in chosen if not r.failed]
    usage = Usage()
    for record in chosen:
        usage = usage + record.usage
    return SingleSummary(
        mean=statistics.fmean(rated) if rated else None,
        n=len(rated),
        failures=len(chosen) - len(rated),
        per_item={r.id: r.score for r in chosen},
        usage=usage,
    )
