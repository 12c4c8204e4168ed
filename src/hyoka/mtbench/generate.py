"""Answer every dialogue of a benchmark with one model, two turns each, resumably.

The benchmark's definition supplies the defaults its authors used (``GenerationDefaults``):
per-category temperatures, the reply budget, and the repetition penalty for locally run
models (pfmt-bench-fin-ja: 1.1; MT-bench: none, as FastChat's ``gen_model_answer``), and
how the dialogue is shown (``DialogueStyle``), with the system message upstream's
generation script sends (``--system-message``/``--no-system-message`` choose another,
named in the signature). Answers are written in FastChat's answer format (``question_id``,
``answer_id``, ``model_id``, ``choices[i].turns``, ``tstamp``), and the signature of how
they were made is stored in the manifest beside them.

A model that thinks aloud is read by the plan's thinking rule (``providers.thinking``):
the answer after the thinking is the turn, the thinking is kept beside it (the choice's
``thinking``), and a turn whose thinking never closed is empty (counted). The second
request carries the first question, the model's own (cleaned) first answer and the second
question: the answer, not the thinking, as the chat templates of Qwen3 and DeepSeek-R1
(and vLLM's and OpenAI's chat APIs) carry earlier turns. Each finished dialogue is
appended to the answer file at once, so an interrupted run loses at most the dialogues in
flight; a re-run skips the ones in the file and the response cache replays any turn
already generated.

``trials`` answers each dialogue N times, one choice each (``choices[0..N-1]``), as
swallow-evaluation's ``gen_model_answer.py --num-choices 5`` does: every choice is asked
for, temperature-0 categories too (upstream decodes them greedily once per choice, so a
deterministic model repeats itself; hyoka does not copy one answer N times, as the later
swallow-evaluation-instruct does). Choice ``i`` is sampled with seed ``--seed + i`` and its
own response-cache key, so a re-run replays the choices already made. The variant's trial
count is the default (Swallow: 5); the count is in the file's identity and signature.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, Literal, cast

from hyoka._aio import gather_or_cancel
from hyoka.errors import InputError
from hyoka.mtbench.bench import Answered, AnswerSet, Asked, Bench
from hyoka.mtbench.dialogue import (
    DialogueStyle,
    Injection,
    as_transcript,
    base_prompt,
    chat_messages,
    clean_answer,
    with_system_line,
    with_system_message,
)
from hyoka.mtbench.rakuda import RakudaBench
from hyoka.mtbench.records import AnswerChoice
from hyoka.mtbench.registry import definition
from hyoka.mtbench.spec import (
    CONSTRAINT_CHECKED,
    DRAWN_MATCHES,
    FASTCHAT_JUDGING,
    RULE_CHECKED,
    BenchSpec,
    JudgingProtocol,
)
from hyoka.providers import (
    DEFAULT_THINKING,
    BatchClient,
    Deferred,
    GenerationRequest,
    ModelClient,
    ProviderError,
    Reply,
    SamplingParams,
    ThinkingRule,
    backend_packages,
    batch_round,
    gather_deferring,
    reply_of,
    signed_as,
    signed_batch,
    signed_rule,
)
from hyoka.signature import Signature, SignatureType, only_when_set
from hyoka.store import JsonlLog, Manifest

#: ``completions``: the question alone as a raw prompt, upstream's legacy-completions
#: protocol where the benchmark has one (``DialogueStyle.completions``)
Template = Literal["auto", "chat", "base", "completions"]


def answer_set(
    name: str, data_dir: Path | str | None = None, variant: str | None = None
) -> AnswerSet:
    """The benchmark ``name``'s questions as ``generate`` answers them: Rakuda's own files
    (``RakudaBench``: text ids, one turn) or a FastChat-style benchmark's (``Bench``), its
    questions alone: answering needs no judge prompt or reference, so a data folder without
    them (ELYZA-tasks-100 without Shaberi's prompt file) still answers."""
    spec = definition(name)
    return ANSWER_SETS[spec.judging](spec, data_dir, variant)


def _bench_questions(spec: BenchSpec, data_dir: Path | str | None, variant: str | None) -> Bench:
    return Bench.load(spec.name, data_dir, variant, questions_only=True)


def _rakuda_questions(
    spec: BenchSpec, data_dir: Path | str | None, variant: str | None
) -> RakudaBench:
    spec.variant(variant)  # Rakuda has none: a name given is refused
    return RakudaBench.load(data_dir)


#: how ``generate`` reads the questions of a benchmark of each judging protocol: a new
#: protocol adds its reader here, not a branch in ``answer_set``
ANSWER_SETS: Mapping[
    JudgingProtocol, Callable[[BenchSpec, Path | str | None, str | None], AnswerSet]
] = MappingProxyType({
    FASTCHAT_JUDGING: _bench_questions,
    DRAWN_MATCHES: _rakuda_questions,
    RULE_CHECKED: _bench_questions,
    CONSTRAINT_CHECKED: _bench_questions,
})  # fmt: skip


def default_temperatures(
    spec: BenchSpec, bench: AnswerSet | None = None, model: str = ""
) -> dict[str, float]:
    """The benchmark's temperature for each of its categories (``bench``'s variant's, when
    it sets its own; upstream's one for ``model``'s name where it fixes one: Shaberi's
    ``gpt-5`` names, temperature 1)."""
    generation = spec.generation if bench is None else bench.generation
    fixed = None if bench is None else bench.dialogue.temperature(model)
    return {c: generation.temperature(c) if fixed is None else fixed for c in spec.categories}


def default_repetition_penalty(
    bench: AnswerSet, provider_name: str, served_model: str = ""
) -> float | None:
    """The benchmark's repetition penalty for ``served_model`` run by ``provider_name``:
    for models run here (a backend whose replies local packages compute,
    ``providers.backend_packages``) upstream's for the name where upstream decodes by name
    (jp-stable's ``gen_model_answer.py``: 1.1), else the benchmark's local penalty; none for
    models served elsewhere, an OpenAI-compatible server included: the penalty is no
    standard parameter (vLLM's extension, which the official API refuses), so it is sent
    only when asked (``--repetition-penalty``) and the signature says which."""
    if not backend_packages(provider_name):
        return None
    by_name = bench.dialogue.repetition_penalty(served_model)
    return by_name if by_name is not None else bench.spec.generation.local_repetition_penalty


def parse_temperatures(pairs: list[str], bench: AnswerSet, model: str = "") -> dict[str, float]:
    """``CATEGORY=T`` flags over the defaults (``model``'s); an unknown category names
    the flag."""
    temperatures = default_temperatures(bench.spec, bench, model)
    for pair in pairs:
        category, sep, raw = pair.partition("=")
        if not sep or category not in temperatures:
            known = ", ".join(bench.spec.categories)
            raise InputError(f"`temperature` {pair!r}: expected CATEGORY=T with one of: {known}")
        try:
            value = float(raw)
        except ValueError:
            raise InputError(f"`temperature` {pair!r}: {raw!r} is not a number") from None
        if not 0.0 <= value <= 5.0:
            raise InputError(f"`temperature` {pair!r}: must be between 0 and 5")
        temperatures[category] = value
    return temperatures


@dataclass
class GeneratePlan:
    answer_file: Path
    model_id: str
    template: Template = "auto"
    #: reply budget per turn; ``None``: the benchmark's (pfmt 4096, MT-bench 1024)
    max_tokens: int | None = None
    #: by category; ``None``: the benchmark's (``default_temperatures``)
    temperatures: dict[str, float] | None = None
    #: ``None``: no penalty (``default_repetition_penalty`` gives the benchmark's)
    repetition_penalty: float | None = None
    injection: Injection = "strict"
    limit: int | None = None
    seed: int | None = None
    #: the system message of chat requests instead of the benchmark's (``None``: its own)
    system_message: str | None = None
    #: send no system message in chat requests (the model's own default applies)
    no_system_message: bool = False
    #: how a reply that thinks aloud is read (``providers.thinking``)
    thinking: ThinkingRule = DEFAULT_THINKING
    #: answers per dialogue (FastChat's ``--num-choices``); ``None``: the variant's, else 1
    trials: int | None = None
    #: the model's name as its server knows it (the model string's part after the
    #: provider): where upstream picks the system message by name, it is picked by this
    served_model: str = ""
    #: the model string (``PROVIDER/MODEL``) that answers: in the file's identity, since
    #: ``model_id`` is ``--name``'s where one is given and names the file, not the model
    model: str = ""


def plan_trials(plan: GeneratePlan, bench: AnswerSet) -> int:
    """How many answers to each dialogue ``plan`` makes: its own count, else its variant's."""
    if plan.trials is not None:
        return plan.trials
    return bench.variant.trials if bench.variant is not None else 1


def signed_trials(trials: int, bench: AnswerSet) -> int | None:
    """The trial count as identity and signature carry it: ``None`` for one answer per
    dialogue where the variant (if any) makes one too, so such files sign as before trials
    existed; otherwise the count (one answer under Swallow's 5 says so)."""
    variant_trials = bench.variant.trials if bench.variant is not None else 1
    return None if trials == 1 == variant_trials else trials


@dataclass
class GenerateReport:
    generated: int = 0
    done_before: int = 0
    injections: int = 0
    empty: int = 0
    #: turns whose thinking never closed (``max_tokens`` ran out): empty answers
    unclosed_thinking: int = 0
    template: str = ""
    #: dialogues left undone for the model's batch (``providers.batch``): a later run
    deferred: int = 0
    #: how the answers were made (``answers_signature``), as stored beside them
    signature: Signature | None = None


class _Run:
    def __init__(self, plan: GeneratePlan, bench: AnswerSet, client: ModelClient) -> None:
        self.plan = plan
        self.bench = bench
        self.client = client
        self.style = chosen_style(plan, bench)
        self.completions = bench.dialogue.completions if plan.template == "completions" else None
        self.temperatures = plan.temperatures or default_temperatures(
            bench.spec, bench, plan.served_model
        )
        budget = bench.dialogue.max_tokens(plan.served_model, bench.generation.max_tokens)
        if self.completions is not None:  # upstream's one temperature and budget
            self.temperatures = dict.fromkeys(self.temperatures, self.completions.temperature)
            budget = self.completions.max_tokens
        self.max_tokens = plan.max_tokens or budget
        # upstream's top_p for the name (jp-stable's local script's 0.9), or the legacy
        # completions protocol's
        self.top_p = bench.dialogue.top_p(plan.served_model)
        if self.completions is not None:
            self.top_p = self.completions.top_p
        # upstream's frequency penalty for the name (Shaberi's vLLM branch: 1.0)
        self.frequency_penalty = bench.dialogue.frequency_penalty(plan.served_model)
        # ``auto`` starts as chat and falls back to the transcript (``_ask``)
        self.template: Template = "chat" if plan.template == "auto" else plan.template
        self.probing = plan.template == "auto"
        self.trials = plan_trials(plan, bench)
        self.report = GenerateReport()
        self._lock = asyncio.Lock()

    def _request(self, question: Asked, answers: list[str], trial: int) -> GenerationRequest:
        asked = question.turns[: len(answers) + 1]
        # strict mode must see a marker to empty the answer, so it cannot stop there
        stop = self.style.role_markers if self.plan.injection == "lenient" else ()
        params = SamplingParams(
            temperature=self.temperatures[question.category],
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            repetition_penalty=self.plan.repetition_penalty,
            frequency_penalty=self.frequency_penalty,
            stop=stop,
            seed=None if self.plan.seed is None else self.plan.seed + trial,
        )
        if self.completions is not None:  # the question alone, as upstream's template
            return GenerationRequest(prompt=asked[-1], params=params)
        if self.template == "chat":
            messages = chat_messages(asked, answers, self.style)
            return GenerationRequest(messages=messages, params=params)
        return GenerationRequest(prompt=base_prompt(asked, answers, self.style), params=params)

    async def _ask(self, question: Asked, answers: list[str], trial: int) -> Reply:
        key = f"mtbench:{question.written_id}:{len(answers) + 1}"
        if trial:  # choice 0 keeps the key a one-answer run had: its cache replays it
            key += f":trial{trial}"
        request = self._request(question, answers, trial)
        try:
            response = await self.client.generate(request, sample_key=key)
        except ProviderError as exc:
            if not (self.probing and self.template == "chat" and "cannot do chat" in str(exc)):
                raise
            async with self._lock:  # the model has no chat template: use the transcript
                self.template, self.probing = "base", False
            request = self._request(question, answers, trial)
            response = await self.client.generate(request, sample_key=key)
        if self.probing:
            self.probing = False
        return reply_of(response, self.plan.thinking)

    async def _choice(self, question: Asked, trial: int) -> AnswerChoice:
        answers: list[str] = []
        thoughts: list[str | None] = []
        for _ in question.turns:
            reply = await self._ask(question, answers, trial)
            text, injected = clean_answer(
                reply.answer, self.plan.injection, self.style.role_markers
            )
            self.report.injections += injected
            self.report.empty += not text
            self.report.unclosed_thinking += reply.unclosed
            answers.append(text)
            thoughts.append(reply.thinking)
        thinking = tuple(thoughts) if any(t is not None for t in thoughts) else None
        return AnswerChoice(index=trial, turns=tuple(answers), thinking=thinking)

    async def dialogue(self, question: Asked) -> Answered:
        """Every choice of one dialogue (one line: the file is resumed per dialogue, the
        response cache replays a choice already made)."""
        if isinstance(self.client, BatchClient):  # every trial in this run's one batch
            choices = await gather_deferring(self._choice(question, i) for i in range(self.trials))
        else:
            choices = [await self._choice(question, 0)]  # settles an ``auto`` template first
            choices += await gather_or_cancel(
                self._choice(question, i) for i in range(1, self.trials)
            )
        return self.bench.answer(
            {
                "question_id": question.written_id,  # as the question file writes it
                "answer_id": uuid.uuid4().hex[:22],
                "model_id": self.plan.model_id,
                "choices": tuple(choices),
                "tstamp": time.time(),
            }
        )


def chosen_style(plan: GeneratePlan, bench: AnswerSet) -> DialogueStyle:
    """The dialogue style of ``plan``'s requests: the system message it gives (signed
    ``custom@…``) or none when told, else upstream's for the model's name (a benchmark
    whose upstream picks it by name: FastChat's conversation templates), else the
    benchmark's (or its variant's) own. A base transcript sends no chat message: its style
    is signed and recorded by the line it opens with (the benchmark's, the one given, or
    none), and a legacy-completions run sends none either."""
    style = bench.dialogue
    if plan.template == "completions":
        return replace(with_system_message(style, None), system_name="none (completions)")
    given = None if plan.no_system_message else plan.system_message
    if plan.template == "base":  # the transcript's opening line is what is sent
        if plan.no_system_message or plan.system_message is not None:
            return as_transcript(with_system_line(style, given))
        return as_transcript(style)
    if plan.no_system_message or plan.system_message is not None:
        return with_system_message(style, given)
    return style.for_model(plan.served_model, bench.folder)


def check_plan(plan: GeneratePlan, bench: AnswerSet, *, temperature_flags: bool) -> None:
    """Refuse, before any call, what ``plan`` cannot send as it says: ``completions``
    where the benchmark's upstream has no legacy-completions protocol, or with a
    temperature or system message of another (the protocol is upstream's as a whole), and a
    model name whose upstream template's message hyoka does not carry (``chosen_style``)."""
    if plan.template == "completions":
        if bench.dialogue.completions is None:
            raise InputError(
                f"`template` completions: {bench.spec.title}'s upstream has no "
                "legacy-completions protocol; use chat, base or auto"
            )
        if temperature_flags or plan.system_message is not None or plan.no_system_message:
            raise InputError(
                "`template` completions sends upstream's one temperature and no system "
                "message: `temperature`, `system_message` and `no_system_message` do not apply"
            )
    chosen_style(plan, bench)


@dataclass(frozen=True, kw_only=True)
class AnswersSignature(SignatureType):
    """How the answers were made: the benchmark, the template (``completions``: upstream's
    legacy-completions protocol), the system message chat requests open with (by name:
    the conversation template upstream's adapter table picked for the model,
    ``<table>-<template>`` as ``fastchat-chatgpt``, ``fastchat-one_shot``,
    ``swallow-fastchat-llama-3``, with ``+custom@<sha256>`` of the text where it was
    read from another file than upstream's pinned one; a fixed one's, ``pfmt-upstream``;
    ``none``; or an
    override, ``custom@<sha256>``), the sampling settings and the injection rule; for a benchmark
    with variants, the variant and its question file (what was answered); the thinking
    rule only when it is not the default (``providers.signed_rule``: an answer without
    thinking reads alike under every rule, so answer files written before the rule
    existed keep their signature).

    Signed with the versions of the packages that computed the answers where they ran here
    (``providers.backend_packages``: llama-cpp-python; transformers and torch; vllm and
    torch): the same settings and seed give other answers under another version. A hosted
    model's server computes them: no version is known."""

    kind: ClassVar[str] = "mtbench-answers"
    bench: str
    template: str
    system: str
    max_tokens: int
    temperatures: tuple[str, ...]
    repetition_penalty: float | None
    injection: str
    seed: int | None
    variant: str | None = only_when_set()
    #: what worded the questions where their file alone does not (JFBench's build:
    #: ``prompts@…+source@…``): answers to other words are other answers
    data: str | None = only_when_set()
    thinking: str | None = only_when_set()
    #: answers per dialogue, where more than one or not the variant's (choice ``i``
    #: sampled with seed + ``i``)
    trials: int | None = only_when_set()
    #: the batch API that asked (``providers.batch``), where one did
    batch: str | None = only_when_set()
    #: ``top_p`` sent with every request, where upstream sends one (jp-stable's local
    #: script's 0.9; a completions run's is its template's)
    top_p: float | None = only_when_set()
    #: ``frequency_penalty`` sent with every request, where upstream sends one for the
    #: model's name (Shaberi's vLLM/custom branch: 1.0)
    frequency_penalty: float | None = only_when_set()


def answers_signature(plan: GeneratePlan, bench: AnswerSet, run: _Run) -> Signature:
    """The run's ``AnswersSignature``, with its backend's package versions."""
    return AnswersSignature(
        bench=bench.spec.name, template=plan.template, system=run.style.system_name,
        max_tokens=run.max_tokens,
        temperatures=tuple(f"{c}={t!r}" for c, t in sorted(run.temperatures.items())),
        repetition_penalty=plan.repetition_penalty, injection=plan.injection, seed=plan.seed,
        variant=None if bench.variant is None else bench.variant.signed(),
        data=bench.wording,
        thinking=signed_rule(plan.thinking),
        trials=signed_trials(run.trials, bench),
        batch=run.client.api.name if isinstance(run.client, BatchClient) else None,
        top_p=None if run.completions is not None else run.top_p,
        frequency_penalty=run.frequency_penalty,
    ).signature(backend_packages(run.client.provider.name))  # fmt: skip


def answers_manifest(plan: GeneratePlan, bench: AnswerSet, run: _Run) -> Manifest:
    """What an answer file holds: one model's answers to one benchmark, made with these
    settings (the system message included); another model or other settings never
    continue it."""
    return Manifest(
        kind=f"answers/{bench.spec.name}",
        identity={
            "benchmark": bench.spec.name,
            "model_id": plan.model_id,
            # the model that answers (another under the same `--name` never continues)
            **({"model": plan.model} if plan.model else {}),
            "template": plan.template,
            "system_message": run.style.system_message,
            "max_tokens": run.max_tokens,
            "temperatures": dict(sorted(run.temperatures.items())),
            "repetition_penalty": plan.repetition_penalty,
            # top_p where one is sent beside the template's (as the signature)
            **({} if run.completions is not None or run.top_p is None else {"top_p": run.top_p}),
            **({} if (fp := run.frequency_penalty) is None else {"frequency_penalty": fp}),
            "injection": plan.injection,
            "seed": plan.seed,
            # the questions answered (a variant's own file); absent for the others
            **({} if bench.variant is None else {"questions": bench.variant.questions.sha256}),
            # what worded the questions where their file alone does not (JFBench's build)
            **({} if bench.wording is None else {"data": bench.wording}),
            # the thinking rule where it is not the default (as the signature)
            **({} if signed_rule(plan.thinking) is None else {"thinking": plan.thinking}),
            # answers per dialogue; absent for one (files made before trials existed)
            **({} if (n := signed_trials(run.trials, bench)) is None else {"trials": n}),
        },
        signature=answers_signature(plan, bench, run).to_json(),
    )


async def generate_answers(
    plan: GeneratePlan,
    bench: AnswerSet,
    client: ModelClient,
    progress: Callable[[], None] | None = None,
) -> GenerateReport:
    """Answer the dialogues not yet in ``plan.answer_file``, appending each when done.

    The file is continued only when its manifest says it holds this model's answers made
    with these settings (``hyoka.store``); a file hyoka did not write is never touched.
    """
    run = _Run(plan, bench, client)
    run.report.signature = answers_signature(plan, bench, run)
    with JsonlLog.open(
        plan.answer_file, answers_manifest(plan, bench, run), bench.answer_type, key=_answer_key
    ) as log:
        async with batch_round(client, log):
            report = await _answer_missing(plan, bench, run, log, progress)
        # what made the file's records, online or a batch's or both (``signed_batch``)
        signed = report.signature and signed_as(report.signature, signed_batch(log, client))
        if signed is not None and signed != report.signature:
            report.signature = signed
            log.sign(signed.to_json())
        return report


async def _answer_missing(
    plan: GeneratePlan,
    bench: AnswerSet,
    run: _Run,
    log: JsonlLog[Any],
    progress: Callable[[], None] | None,
) -> GenerateReport:
    known = {q.question_id for q in bench.questions}
    for record in log.records.values():
        answered = cast(Answered, record)
        if answered.question_id not in known or answered.model_id != plan.model_id:
            raise InputError(
                f"{plan.answer_file}: question_id {answered.written_id} of "
                f"{answered.model_id!r} is not this run's; choose another `output`"
            )
    questions = list(bench.questions[: plan.limit or None])
    todo = [q for q in questions if q.question_id not in log]
    run.report.done_before = len(questions) - len(todo)
    if todo and run.probing and not isinstance(run.client, BatchClient):
        # settle the template on one dialogue before the rest (a batch API is chat's)
        log.append(await run.dialogue(todo[0]))
        run.report.generated += 1
        if progress:
            progress()
        todo = todo[1:]

    async def one(question: Asked) -> None:
        try:
            answered = await run.dialogue(question)
        except Deferred:  # in the model's batch: a later run writes it
            run.report.deferred += 1
            return
        await log.append_async(answered)  # on disk, off the loop
        run.report.generated += 1
        if progress:
            progress()

    await gather_or_cancel(one(q) for q in todo)
    run.report.template = run.template
    if run.report.generated:
        # dialogues finish out of order; leave the file sorted by id, as upstream's
        # ``reorg_answer_file`` does (FastChat's integers, Rakuda's text)
        log.rewrite(_answer_key)
    return run.report


def _answer_key(record: Any) -> int | str:
    """An answer line's question id (FastChat's as an integer, ``"11"`` too): the key and
    the order of an answer file."""
    return cast(Answered, record).question_id
