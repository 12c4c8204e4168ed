"""Generating a pfgen-bench run: prompts to a model, answers to trial files, resumably.

Crash safety comes from three rules. A trial file appears whole or not at all (written to a
temporary name, then renamed), so a finished trial is never generated again. Every answer
goes through the persistent response cache before it is used, so the answers of a trial
that was cut short come back from the cache, unchanged, when the run starts again. And the
requests are deterministic (seeded prompts; each trial's sampling seed where upstream's
script for the engine sends one, ``SEEDED_ENGINES``), so a restarted run asks exactly the
same questions. Killed at any moment and restarted, a run ends with the answers it would
have had: none lost, none duplicated.

A model that thinks aloud is read by the run's thinking rule (``providers.thinking``),
where the answer is made, as upstream's ``run-openai.py`` takes a server's ``content``
without its ``reasoning_content``: a trial line's ``answer`` is the answer after the
thinking, and the thinking is kept beside it (``thinking``, only on lines that had some,
so every other line is upstream's). Scoring then reads ``answer`` as upstream does. A reply
whose thinking never closed is an empty answer, asked again as upstream asks again for
any empty answer; when no try closes it (the model runs out of ``max_tokens`` while
thinking), the rule's empty answer is the line, its thinking beside it, and a warning
says how many and why, where an answer empty for no reason fails the trial as upstream's
does. ``keep`` (named in ``config.json``, so in the run folder) takes the text as the
model wrote it.

``plan_generation`` turns the settings a user gives (``GenerateSettings``: the flags of
``hyoka pfgen generate``, ``run`` and ``demo``) into a ``GenerationPlan``: validated sampling
parameters, the upstream ``config.json`` and the run folder it names.
"""

from __future__ import annotations

import asyncio
import datetime
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hyoka.errors import HyokaError, HyokaWarning, setting_problems
from hyoka.pfgen.benchmark import PfgenBenchmark, SampleAnswer
from hyoka.pfgen.prompts import Mode, build_prompt, clean_answer, stops_for, trial_seed
from hyoka.pfgen.protocol import PROTOCOL
from hyoka.pfgen.run_config import (
    ENGINE_NAMES,
    ENGINE_SETTINGS,
    config_text,
    make_config,
    run_folder,
)
from hyoka.providers import (
    CONCURRENCY,
    DEFAULT_THINKING,
    EMBEDDED_MODEL,
    ModelClient,
    SamplingParams,
    ThinkingRule,
    parse_model_string,
    reply_of,
    signed_rule,
)
from hyoka.store import (
    atomic_write_bytes,
    atomic_write_text,
    kept,
    pfgen_runs,
    read_bytes,
    write_jsonl,
    writer_lock_async,
)

#: Upstream gives a question ten tries to produce a non-empty answer. Only sampled tries
#: are made: at temperature 0 a retry would repeat the empty answer, so it fails at once.
MAX_ATTEMPTS = 10

Progress = Callable[[str, int], None]


#: Folder names for models whose ``--model`` string is not a hub-style name.
DISPLAY_NAMES = {EMBEDDED_MODEL: "HuggingFaceTB/SmolLM2-135M-Instruct"}


@dataclass
class GenerateSettings:
    """What a user asks for: the flags shared by ``generate``, ``run`` and ``demo``; the
    protocol's settings default to upstream's (``PROTOCOL``)."""

    model: str
    mode: Mode = Mode.CHAT
    trials: int = PROTOCOL.trials
    temperature: float = PROTOCOL.temperature
    top_p: float = PROTOCOL.top_p
    top_k: int | None = PROTOCOL.top_k
    max_tokens: int = PROTOCOL.max_tokens
    num_examples: int = PROTOCOL.num_examples
    seed: str = ""
    prefix: str | None = None
    concurrency: int = CONCURRENCY
    limit: int | None = None
    results_dir: Path = Path("results")
    name: str | None = None
    base_url: str | None = None
    #: Provider options (``--option KEY=VALUE``, values already read).
    options: dict[str, Any] = field(default_factory=dict)
    no_cache: bool = False
    #: how a reply that thinks aloud is read (``providers.thinking``)
    thinking: ThinkingRule = DEFAULT_THINKING
    #: send each trial's sampling seed to an engine whose upstream script sends none
    #: (``run-openai.py``, ``run-gemini.py``): recorded in ``config.json``
    send_seed: bool = False


#: the engines whose upstream script samples with each trial's seed (pfgen-bench 03db7c4:
#: ``run-vllm.py`` passes it to vLLM, ``run-hf.py`` to ``torch.manual_seed``), and hyoka's
#: llama.cpp, which runs here too; hosted engines get no seed, as ``run-openai.py`` and
#: ``run-gemini.py`` send none, unless ``send_seed`` asks for it
SEEDED_ENGINES = frozenset({"vllm", "hf", "llama-cpp"})


def sampling_error(exc: ValidationError) -> str:
    """Pydantic's report as one line naming each setting as a parameter, e.g.
    ```top_p` 2.0: must be <= 1`` (a command shows ``--top-p``)."""
    return setting_problems("sampling", exc.errors())


@dataclass(frozen=True)
class GenerationPlan:
    """What to generate: settings that are also written to ``config.json``."""

    folder: Path
    config: dict[str, Any]
    mode: Mode
    num_trials: int
    num_examples: int = PROTOCOL.num_examples
    seed: str = ""
    prefix: str = ""
    params: SamplingParams = field(default_factory=SamplingParams)
    thinking: ThinkingRule = DEFAULT_THINKING
    #: whether requests carry each trial's sampling seed (``SEEDED_ENGINES``, or asked)
    seeded: bool = True


@dataclass
class GenerationReport:
    folder: Path
    trials_done_before: int = 0
    trials_generated: int = 0
    answers: int = 0
    empty_retries: int = 0
    #: replies whose thinking never closed (``max_tokens`` ran out): empty, asked again
    unclosed_thinking: int = 0
    #: the tries of each answer recorded empty because no try's thinking closed
    thinking_cut: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PlannedRun:
    """A plan with the examples and questions it asks."""

    plan: GenerationPlan
    samples: list[SampleAnswer]
    questions: list[str]


def plan_generation(settings: GenerateSettings, benchmark: PfgenBenchmark) -> PlannedRun:
    """Check the settings and work out the run: a bad setting is a ``HyokaError`` naming
    its flag, raised before any folder is made or any request sent."""
    s = settings
    provider_name = s.model.partition("/")[0]
    if "/" in s.model and provider_name not in ENGINE_NAMES:  # a run's config names its engine
        able = ", ".join(sorted(ENGINE_NAMES))
        raise HyokaError(
            f"`model`: pfgen-bench runs are generated by {able} models (an engine upstream's "
            f"config.json can name), not {provider_name!r} ({s.model!r})"
        )
    provider_name, model_id = parse_model_string(s.model)
    try:
        params = SamplingParams(
            temperature=s.temperature, top_p=s.top_p, top_k=s.top_k, max_tokens=s.max_tokens,
            stop=tuple(stops_for(s.mode)),
        )  # fmt: skip
    except ValidationError as exc:
        raise HyokaError(sampling_error(exc)) from None
    if not 0 <= s.num_examples <= 49:
        raise HyokaError("`num_examples` must be between 0 and 49")
    samples = benchmark.sample_answers()
    questions = [sample.question for sample in samples][: s.limit or None]
    engine = ENGINE_NAMES[provider_name]
    extra = dict(ENGINE_SETTINGS.get(engine, {}))
    if signed_rule(s.thinking) is not None:  # another rule, another run (and folder)
        extra["thinking"] = s.thinking
    seeded = engine in SEEDED_ENGINES or s.send_seed
    if seeded and engine not in SEEDED_ENGINES:  # not upstream's request: another run
        extra["send_seed"] = True
    config = make_config(
        engine=engine, model=s.name or DISPLAY_NAMES.get(s.model, model_id),
        mode=s.mode, num_examples=s.num_examples, max_tokens=s.max_tokens,
        temperature=s.temperature, top_p=s.top_p, top_k=s.top_k, seed=s.seed, prefix=s.prefix,
        extra=extra,
    )  # fmt: skip
    folder = run_folder(s.results_dir, config["model"], config)
    plan = GenerationPlan(
        folder=folder, config=config, mode=s.mode, num_trials=s.trials,
        num_examples=s.num_examples, seed=s.seed, prefix=s.prefix or "", params=params,
        thinking=s.thinking, seeded=seeded,
    )  # fmt: skip
    return PlannedRun(plan, samples, questions)


def prepare_folder(plan: GenerationPlan) -> None:
    """Create the run folder with its config; a different config already there is an error."""
    plan.folder.mkdir(parents=True, exist_ok=True)
    config_file = plan.folder / pfgen_runs.CONFIG_FILE
    text = config_text(plan.config)
    if config_file.exists():
        existing = read_bytes(config_file).decode("utf-8", errors="replace").strip()
        if existing != text:
            raise HyokaError(f"{config_file} holds different settings; refusing to mix runs")
        return
    atomic_write_text(config_file, text + "\n")


async def generate_run(
    plan: GenerationPlan,
    client: ModelClient,
    samples: Sequence[SampleAnswer],
    questions: Sequence[str],
    progress: Progress | None = None,
) -> GenerationReport:
    """Generate every missing trial of ``plan``, then (re)write ``trials.jsonl.xz``.

    ``questions`` are the question texts to ask, in benchmark order (all 50, or fewer).
    Trials run concurrently; the client's concurrency limit bounds the requests in flight.
    The run folder is locked for the whole run (one writer per run: a second generation
    into it stops at once, naming this one, instead of paying for the same trials again).
    """
    async with writer_lock_async(plan.folder / pfgen_runs.TRIALS_XZ, what="pfgen run"):
        return await _generate_missing(plan, client, samples, questions, progress)


async def _generate_missing(
    plan: GenerationPlan,
    client: ModelClient,
    samples: Sequence[SampleAnswer],
    questions: Sequence[str],
    progress: Progress | None,
) -> GenerationReport:
    prepare_folder(plan)
    kept.remember(plan.folder, "trials", lambda: len(pfgen_runs.trial_parts(plan.folder)))
    report = GenerationReport(plan.folder)
    pending = [
        t
        for t in range(1, plan.num_trials + 1)
        if not pfgen_runs.trial_file(plan.folder, t).exists()
    ]
    report.trials_done_before = plan.num_trials - len(pending)

    async def one_trial(trial: int) -> None:
        answers = await asyncio.gather(
            *(_answer(plan, client, samples, q, trial, report, progress) for q in questions)
        )
        write_jsonl(pfgen_runs.trial_file(plan.folder, trial), answers)
        report.trials_generated += 1
        report.answers += len(answers)
        if progress is not None:
            progress("trial", trial)

    await asyncio.gather(*(one_trial(t) for t in pending))
    write_trials_xz(plan.folder)
    if report.thinking_cut:
        count, tries = len(report.thinking_cut), max(report.thinking_cut)
        warnings.warn(
            HyokaWarning(
                f"{count} answer{'' if count == 1 else 's'} recorded empty: the model's thinking "
                f"never closed within `max_tokens` {plan.params.max_tokens} "
                f"({tries} tr{'y' if tries == 1 else 'ies'}); a larger `max_tokens` lets it finish"
            ),
            stacklevel=2,
        )
    return report


async def _answer(
    plan: GenerationPlan,
    client: ModelClient,
    samples: Sequence[SampleAnswer],
    question: str,
    trial: int,
    report: GenerationReport,
    progress: Progress | None,
) -> dict[str, str]:
    """One answer to ``question``: upstream's line, plus the thinking where there was some."""
    prompt = build_prompt(
        samples, question, plan.mode, trial,
        num_examples=plan.num_examples, seed=plan.seed, prefix=plan.prefix,
    )  # fmt: skip
    base_seed = trial_seed(trial, plan.seed)
    params = _attempt_params(plan, base_seed, 0)
    for attempt in range(MAX_ATTEMPTS):
        response = await client.generate(
            prompt.to_request(params), sample_key=f"pfgen:{trial}:{attempt}"
        )
        reply = reply_of(response, plan.thinking)
        report.unclosed_thinking += reply.unclosed
        answer = clean_answer(reply.answer, plan.mode, stops_for(plan.mode))
        retry = _attempt_params(plan, base_seed, attempt + 1)
        if answer or (
            reply.unclosed
            and (attempt + 1 == MAX_ATTEMPTS or not params.retry_can_change_reply(retry))
        ):  # an answer, or the empty one of thinking that no try could close
            if not answer:
                report.thinking_cut.append(attempt + 1)
            if progress is not None:
                progress("answer", trial)
            timestamp = datetime.datetime.now().isoformat()
            line = {"question": question, "answer": answer, "timestamp": timestamp}
            if reply.thinking is not None:
                line["thinking"] = reply.thinking
            return line
        if attempt + 1 == MAX_ATTEMPTS:
            break
        if not params.retry_can_change_reply(retry):
            raise HyokaError(
                f"no answer for {question!r} in trial {trial}: the reply was empty and was not "
                "asked again, since at temperature 0 (greedy decoding) the same request repeats "
                "the same reply; a `temperature` above 0 lets a retry differ"
            )
        report.empty_retries += 1
        params = retry
    raise HyokaError(f"no answer for {question!r} in trial {trial} after {MAX_ATTEMPTS} tries")


def _attempt_params(plan: GenerationPlan, base_seed: int, attempt: int) -> SamplingParams:
    """The sampling parameters of ``attempt`` (0-based): each try has its own seed, so that
    a sampled retry can give an answer where the last one was empty; no seed where the
    plan sends none (a sampled retry differs by chance, as upstream's does)."""
    if not plan.seeded:
        return plan.params
    return plan.params.model_copy(update={"seed": (base_seed + attempt) % 2**31})


def write_trials_xz(folder: Path) -> Path:
    """All trial files' lines, sorted bytewise (as ``LC_ALL=C sort``), compressed as
    ``xz -9`` compresses them: upstream's bytes, so upstream's ``input_hash``."""
    target = folder / pfgen_runs.TRIALS_XZ
    content = pfgen_runs.sorted_trial_lines(folder)
    atomic_write_bytes(target, pfgen_runs.compress_trials(content))
    return target
