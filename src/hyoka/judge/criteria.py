"""Evaluation criteria generated once per question (seed 001, appendix B).

The criteria variants of the pairwise prompt judge both orders of every pair against the
same bullet list of criteria, written by a judge from the question and its reference
answer. Generating them once per question, not per call, is what keeps the two orders on
a common footing.

"Once per question" means once per question *text*: item ids are no guide, since a pfgen
run folder gives the same question several ids (``Q07#0``, ``Q07#1``, one per answer) and
two datasets may reuse an id for different questions. So the criteria are kept in a JSON
file keyed by the judge, the template (name, version), the reply budget and a hash of
what the judge is shown (question, reference and the template's text): items sharing a
question share one criteria text and one judge call, and a changed question, reference,
template or budget is a new key, generated afresh rather than read back stale. A rerun,
or a second pair over the same questions, reads them from the file; the calls also go
through the response cache, so a lost file costs no calls either.

Files written before the keys were content hashes (entries keyed by question id, without
``content_hash``) are read as empty: their entries are skipped, regenerated when asked
for, and dropped when the file is next saved.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from hyoka._aio import gather_or_cancel
from hyoka.errors import InputError
from hyoka.judge.templates import JudgeTemplate
from hyoka.providers import (
    DEFAULT_THINKING,
    GenerationRequest,
    ModelClient,
    SamplingParams,
    ThinkingRule,
    Usage,
    reply_of,
    signed_rule,
)
from hyoka.store import read_json, write_json

DEFAULT_TEMPLATE = "criteria-generate"
#: the cache's sample key for every criteria call: the request itself (the rendered
#: question, reference and template, the reply budget, temperature 0) fully determines the
#: call, so the same question under another id is a cache hit too
SAMPLE_KEY = "criteria"


@dataclass(frozen=True)
class CriteriaQuestion:
    id: str
    question: str
    reference: str | None = None


class CriteriaEntry(BaseModel):
    """One question's criteria, with what produced them (``question_id``: the first id it
    was generated for; others with the same question share it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question_id: str
    content_hash: str
    judge: str
    template: str
    template_version: str
    max_tokens: int | None
    criteria: str
    usage: Usage = Usage()
    tstamp: float


def content_hash(question: CriteriaQuestion, template: JudgeTemplate) -> str:
    """What the judge is shown: question, reference and the template's wording (so an edit
    without a new version still regenerates)."""
    shown = [question.question, question.reference, template.system, template.user]
    canonical = json.dumps(shown, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def criteria_key(
    question: CriteriaQuestion,
    judge: str,
    template: JudgeTemplate,
    max_tokens: int | None,
    thinking: ThinkingRule = DEFAULT_THINKING,
) -> str:
    """The entry's key; the thinking rule the reply was read by is named only when it is
    not the default, so keys written before the rule existed still match."""
    budget = "default" if max_tokens is None else str(max_tokens)
    parts = [judge, f"{template.name}@{template.version}", budget, content_hash(question, template)]
    rule = signed_rule(thinking)
    return "\t".join(parts if rule is None else [*parts, f"thinking={rule}"])


def _old_entry(value: object) -> bool:
    """An entry of the earlier per-id format (no content hash)."""
    return (
        isinstance(value, dict)
        and "content_hash" not in value
        and {"question_id", "criteria"} <= value.keys()
    )


class CriteriaStore:
    """The JSON file of generated criteria: ``{key: entry}``, rewritten whole (atomically)
    on each save."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, CriteriaEntry] = {}
        #: entries of the earlier per-id format, skipped
        self.skipped_old = 0
        if path.exists():
            self._read()

    def _read(self) -> None:
        try:
            data = read_json(self.path, strict=False)
        except InputError as exc:
            raise InputError(f"not a readable criteria file: {exc}") from None
        if not isinstance(data, dict):
            raise InputError(f"{self.path}: a criteria file holds one JSON object")
        for key, value in data.items():
            if _old_entry(value):
                self.skipped_old += 1
                continue
            try:
                self.entries[key] = CriteriaEntry.model_validate(value)
            except ValidationError as exc:
                raise InputError(f"{self.path}: entry {key!r} is not valid ({exc})") from None

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {key: entry.model_dump(mode="json") for key, entry in self.entries.items()}
        write_json(self.path, data)


async def generate_criteria(
    client: ModelClient,
    template: JudgeTemplate,
    questions: Sequence[CriteriaQuestion],
    *,
    judge: str,
    store: CriteriaStore,
    max_tokens: int | None = None,
    thinking: ThinkingRule = DEFAULT_THINKING,
    on_done: Callable[[], None] | None = None,
) -> dict[str, str]:
    """Criteria for each question id: from the store when there, else from the judge
    (temperature 0, one call per distinct question; the criteria are its reply read by
    ``thinking``, so a reasoning judge's thinking is never taken for criteria), saved to
    the store as soon as all are in. ``on_done`` is called once per question id whose
    criteria were generated, so a progress bar over ``questions`` stays true when several
    ids share one call."""
    template.require_kind("criteria", "criteria generation")
    if "reference" in template.placeholders:
        missing = [q.id for q in questions if q.reference is None]
        if missing:
            raise InputError(
                f"criteria template {template.name!r} needs a reference answer; "
                f"none for {', '.join(missing[:5])}"
            )
    params = SamplingParams(temperature=0.0, max_tokens=max_tokens)
    key_of: dict[str, str] = {}
    texts: dict[str, str] = {}
    todo: dict[str, CriteriaQuestion] = {}
    sharing: dict[str, int] = {}  # ids waiting on each generated key
    for question in questions:
        key = criteria_key(question, judge, template, max_tokens, thinking)
        if key_of.setdefault(question.id, key) != key:
            raise InputError(
                f"question id {question.id!r} is given with two different questions "
                "or references: criteria are per question, so ids must be unique"
            )
        entry = store.entries.get(key)
        if entry is not None:
            texts[key] = entry.criteria
        else:
            todo.setdefault(key, question)
            sharing[key] = sharing.get(key, 0) + 1

    async def one(key: str, question: CriteriaQuestion) -> None:
        fields = {"question": question.question}
        if question.reference is not None:
            fields["reference"] = question.reference
        messages = template.render(
            **{k: v for k, v in fields.items() if k in template.placeholders}
        )
        response = await client.generate(
            GenerationRequest(messages=messages, params=params), sample_key=SAMPLE_KEY
        )
        text = reply_of(response, thinking).answer.strip()
        texts[key] = text
        store.entries[key] = CriteriaEntry(
            question_id=question.id,
            content_hash=content_hash(question, template),
            judge=judge,
            template=template.name,
            template_version=template.version,
            max_tokens=max_tokens,
            criteria=text,
            usage=response.usage,
            tstamp=time.time(),
        )
        if on_done is not None:
            for _ in range(sharing[key]):
                on_done()

    try:
        await gather_or_cancel(one(key, question) for key, question in todo.items())
    finally:
        if todo:
            store.save()
    return {qid: texts[key] for qid, key in key_of.items()}
