"""Evaluation criteria generated once per question (seed 001, appendix B).

The criteria variants of the pairwise prompt judge both orders of every pair against the
same bullet list of criteria, written by a judge from the question and its reference
answer. Generating them once per question, not per call, is what keeps the two orders on
a common footing, so they are kept in a JSON file keyed by question id, judge and template
(name and version): a rerun, or a second pair over the same questions, reads them from
there. The calls also go through the response cache, so a lost file costs no calls either.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from hyoka._aio import gather_or_cancel
from hyoka._atomic import atomic_write_text
from hyoka.errors import InputError
from hyoka.judge.templates import JudgeTemplate
from hyoka.providers.client import ModelClient
from hyoka.providers.types import GenerationRequest, SamplingParams, Usage

DEFAULT_TEMPLATE = "criteria-generate"


@dataclass(frozen=True)
class CriteriaQuestion:
    id: str
    question: str
    reference: str | None = None


class CriteriaEntry(BaseModel):
    """One question's criteria, with what produced them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question_id: str
    judge: str
    template: str
    template_version: str
    criteria: str
    usage: Usage = Usage()
    tstamp: float


def criteria_key(question_id: str, judge: str, template: JudgeTemplate) -> str:
    return f"{question_id}\t{judge}\t{template.name}@{template.version}"


class CriteriaStore:
    """The JSON file of generated criteria: ``{key: entry}``, rewritten whole on each save."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, CriteriaEntry] = {}
        if path.exists():
            self._read()

    def _read(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{self.path}: not a readable criteria file ({exc})") from None
        if not isinstance(data, dict):
            raise InputError(f"{self.path}: a criteria file holds one JSON object")
        for key, value in data.items():
            try:
                self.entries[key] = CriteriaEntry.model_validate(value)
            except ValidationError as exc:
                raise InputError(f"{self.path}: entry {key!r} is not valid ({exc})") from None

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {key: entry.model_dump(mode="json") for key, entry in self.entries.items()}
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


async def generate_criteria(
    client: ModelClient,
    template: JudgeTemplate,
    questions: Sequence[CriteriaQuestion],
    *,
    judge: str,
    store: CriteriaStore,
    max_tokens: int | None = None,
    on_done: Callable[[], None] | None = None,
) -> dict[str, str]:
    """Criteria for each question id: from the store when there, else from the judge
    (temperature 0), saved to the store as soon as all are in."""
    if template.kind != "criteria":
        raise InputError(f"template {template.name!r} ({template.source}) is not a criteria one")
    if "reference" in template.placeholders:
        missing = [q.id for q in questions if q.reference is None]
        if missing:
            raise InputError(
                f"criteria template {template.name!r} needs a reference answer; "
                f"none for {', '.join(missing[:5])}"
            )
    params = SamplingParams(temperature=0.0, max_tokens=max_tokens)
    result: dict[str, str] = {}
    todo: list[CriteriaQuestion] = []
    for question in questions:
        entry = store.entries.get(criteria_key(question.id, judge, template))
        if entry is not None:
            result[question.id] = entry.criteria
        elif question.id not in {q.id for q in todo}:
            todo.append(question)

    async def one(question: CriteriaQuestion) -> None:
        fields = {"question": question.question}
        if question.reference is not None:
            fields["reference"] = question.reference
        messages = template.render(
            **{k: v for k, v in fields.items() if k in template.placeholders}
        )
        response = await client.generate(
            GenerationRequest(messages=messages, params=params),
            sample_key=f"criteria:{question.id}",
        )
        text = response.text.strip()
        result[question.id] = text
        store.entries[criteria_key(question.id, judge, template)] = CriteriaEntry(
            question_id=question.id,
            judge=judge,
            template=template.name,
            template_version=template.version,
            criteria=text,
            usage=response.usage,
            tstamp=time.time(),
        )
        if on_done is not None:
            on_done()

    try:
        await gather_or_cancel(one(question) for question in todo)
    finally:
        if todo:
            store.save()
    return result
