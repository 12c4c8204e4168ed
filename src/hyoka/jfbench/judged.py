"""JFBench's 43 LLM-judged constraints, asked through hyoka's judging engine as upstream asks.

Upstream (pfnet-research/jfbench c8fed01) decides a judged constraint by sending its judge
the constraint's own question about the response (its ``_prompt(text)``, worded here by
``texts.Source.judge_prompt`` from upstream's source read at run time: hyoka holds none of
it) as the only user message, three times (``BenchmarkData._evaluate_single_constraint``
awaits the evaluation and two more), each reply read stripped (``True...`` passes,
anything else fails: ``texts.judge_verdict``), the majority deciding
(``texts.majority``). ``EnglishStyleConstraint`` and ``JapaneseStyleConstraint`` fail an
empty response without a call. Upstream's default judge is gpt-oss-120b on OpenRouter
(``openai/gpt-oss-120b``, reasoning effort medium), asked with its client's defaults:
temperature 0.1 and 4096 tokens (``JUDGE_TEMPERATURE``, ``JUDGE_MAX_TOKENS``).

Each (response, constraint) is one task and one line of hyoka's judgment log (a
``JudgmentRecord``: the prompt, the three replies, the votes as ``scores``, 1 passed and 0
failed, and the majority as ``score``), written as it finishes: a run killed midway is
continued by the next, which asks only what the log lacks, and the provider's response
cache replays any vote already paid for (each vote has its own cache key). A log is
continued only by the same judge with the same settings (the engine's rule).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hyoka.jfbench.build import Entry
from hyoka.jfbench.texts import JUDGE_VOTES, Source, judge_verdict, majority
from hyoka.judge import (
    JudgePlan,
    JudgeReport,
    JudgeRun,
    JudgeSettings,
    JudgmentRecord,
    Protocol,
    Task,
    hyoka_lines,
    inputs_hash,
)
from hyoka.providers import (
    KEEP,
    BatchClient,
    GaveUpError,
    GenerationRequest,
    GenerationResponse,
    Message,
    ModelClient,
    ProviderError,
    ThinkingRule,
    TransientError,
    Usage,
    gather_deferring,
    reply_of,
)

#: upstream's default judge, by the name its result files give it
UPSTREAM_JUDGE = "gpt-oss-120b"
#: upstream's ``LLMClient`` defaults, which its judge is asked with
JUDGE_TEMPERATURE = 0.1
JUDGE_MAX_TOKENS = 4096
#: the classes that fail an empty response before asking their judge
EMPTY_FAILS = frozenset({"EnglishStyleConstraint", "JapaneseStyleConstraint"})
#: the reason a record gives for a verdict made without a call
EMPTY_RESPONSE = "Empty response"
#: the kind of a JFBench judgment file, in its manifest and signature
KIND = "jfbench-judged"
#: how a verdict is read from the votes
DECISION = f"majority-of-{JUDGE_VOTES}"
#: how the judge's reply is read: as it is (upstream reads ``message.content`` raw, so a
#: ``<think>`` block before ``True`` fails), whatever rule reads the answers
JUDGE_THINKING: ThinkingRule = KEEP
#: how a vote whose call failed for good (HTTP 400) is kept among the replies: upstream's
#: ``_evaluate_single_constraint`` records the constraint false and goes on
FAILED_CALL = "(judge call failed) "


@dataclass(frozen=True)
class Response:
    """One model's response to one built entry (``position``: the entry's place in the
    build, upstream's ``prompt_index``), and what the model thought before it, where it
    thought aloud (upstream's ``reasoning_content``)."""

    position: int
    entry: Entry
    text: str
    reasoning: str | None = None


class ConstraintVotes(Protocol):
    """Ask a judged constraint's question ``JUDGE_VOTES`` times and take the majority."""

    kind = "single"

    async def ask(self, client: ModelClient, task: Task) -> JudgmentRecord:
        params = self.settings.params()
        request = GenerationRequest(messages=task.prompts[0], params=params)

        async def vote(number: int) -> GenerationResponse | ProviderError:
            key = f"{task.sample_keys[0]}#v{number}"
            try:
                return await client.generate(request, sample_key=key)
            except (TransientError, GaveUpError):
                raise  # the server away: the run stops, its log kept for the next
            except ProviderError as refused:  # this request refused for good (HTTP 400)
                return refused

        if isinstance(client, BatchClient):  # the three votes in this run's one batch
            outcomes = await gather_deferring(vote(number) for number in range(JUDGE_VOTES))
        else:
            outcomes = [await vote(number) for number in range(JUDGE_VOTES)]
        replies: list[str] = []
        votes: list[bool] = []
        usage = Usage()
        failed = False
        for response in outcomes:
            if isinstance(response, ProviderError):
                failed = True
                replies.append(FAILED_CALL + str(response))
                votes.append(False)
                continue
            usage = usage + response.usage
            reply = reply_of(response, self.settings.thinking_rule).answer
            replies.append(reply)
            votes.append(judge_verdict(reply))
        passed = majority(votes) and not failed  # upstream: any call failing fails it
        return self.record(
            task, replies=tuple(replies), score=int(passed),
            scores=tuple(float(v) for v in votes), usage=usage,
        )  # fmt: skip

    def decide(self, task: Task) -> JudgmentRecord:
        return self.record(task, score=0, scores=(0.0,) * JUDGE_VOTES)

    def count(self, report: JudgeReport, record: JudgmentRecord) -> None:
        if not record.rule:
            report.judge_calls += len(record.replies)


def _judged_elsewhere(stored: JudgmentRecord, task: Task) -> str | None:
    if stored.input_hash == task.input_hash:
        return None
    return "was judged on another response or judge question"


def task_id(position: int, name: str) -> str:
    """The id of one response's verdict on one constraint: the entry's place in the build
    and the constraint's class (upstream keys its results by class name)."""
    return f"{position}:{name}"


def judge_settings(judge: str, **fields: object) -> JudgeSettings:
    """The settings ``judge`` is asked with: upstream's temperature and budget unless
    ``fields`` say otherwise, ``JUDGE_VOTES`` calls a verdict."""
    asked: dict[str, object] = {
        "temperature": JUDGE_TEMPERATURE,
        "max_tokens": JUDGE_MAX_TOKENS,
        **fields,
        "repeats": JUDGE_VOTES,
        "aggregate": "majority",  # the votes' majority decides (``DECISION``), no mean
    }
    return JudgeSettings.for_judge(judge, **asked)


def plan_judged(
    model: str,
    responses: Sequence[Response],
    documents: Sequence[str],
    source: Source,
    settings: JudgeSettings,
    output: Path,
    *,
    data: str,
) -> JudgePlan[JudgmentRecord]:
    """The run that asks every judged constraint of ``responses`` into ``output``; ``data``
    names what was built (the prompts' and upstream source's digests)."""
    tasks: list[Task] = []
    for response in responses:
        document = documents[response.entry.prompt]
        for constraint in response.entry.constraints:
            factory = constraint.factory
            if not factory.judged:
                continue
            question = source.judge_prompt(factory, constraint.seed, document, response.text)
            messages = (Message(role="user", content=question),)
            rules: Mapping[str, str] = {}
            if factory.name in EMPTY_FAILS and not response.text:
                rules = {"answer": EMPTY_RESPONSE}
            ident = task_id(response.position, factory.name)
            tasks.append(
                Task(
                    id=ident, key=ident, label=f"entry {response.entry.data_id}: {factory.name}",
                    models=(model,), prompts=(messages,), sample_keys=(ident,),
                    input_hash=inputs_hash(messages), rules=rules,
                )
            )  # fmt: skip
    run = JudgeRun(
        kind=KIND, benchmark="jfbench", data=data, settings=settings,
        template=f"jfbench-constraint@{source.digest[:12]}", models=(model,),
        rating=DECISION, rules=("empty-response",),
    )  # fmt: skip
    protocol = ConstraintVotes(settings, "jfbench-constraint", source.digest[:12])
    # hyoka's judgment lines, one per (response, constraint), in the build's order (not
    # the order the judge's replies came in: an online run and a batch's give one file)
    lines = hyoka_lines(_judged_elsewhere, tasks)
    return JudgePlan(output, run, protocol, lines, tuple(tasks))


def failed_calls(lines: Sequence[JudgmentRecord]) -> list[str]:
    """Each task recorded false because a judge call failed, as ``id: why`` (the first
    failed call's)."""
    found = []
    for line in lines:
        why = next((r for r in line.replies if r.startswith(FAILED_CALL)), None)
        if why is not None:
            found.append(f"{line.id}: {why.removeprefix(FAILED_CALL)}")
    return found


def verdicts_of(lines: Sequence[JudgmentRecord]) -> dict[str, bool]:
    """Each task's verdict (by ``task_id``): the majority its line recorded."""
    return {line.id: line.score == 1 for line in lines}
