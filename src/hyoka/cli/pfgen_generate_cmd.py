"""``hyoka pfgen generate`` and ``hyoka pfgen run``: ask a model, write a run, score it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from hyoka.cli._common import (
    DataDirOption,
    RateColumn,
    console,
    err_console,
    provider_options,
    reports_errors,
)
from hyoka.cli._context import show_beside_public
from hyoka.cli.pfgen_cmd import score_table
from hyoka.errors import HyokaError
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.generate import GenerationPlan, GenerationReport, generate_run
from hyoka.pfgen.prompts import Mode, stops_for
from hyoka.pfgen.run_config import ENGINE_NAMES, make_config, run_folder
from hyoka.pfgen.runs import score_run
from hyoka.pfgen.summary import RunSummary
from hyoka.providers.client import ModelClient, ResponseCache
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.providers.registry import load_provider, parse_model_string
from hyoka.providers.types import SamplingParams

#: Folder names for models whose ``--model`` string is not a hub-style name.
_DISPLAY_NAMES = {EMBEDDED_MODEL: "HuggingFaceTB/SmolLM2-135M-Instruct"}

ModelOption = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        help="PROVIDER/MODEL: openai/…, anthropic/…, google/…, hf/…, vllm/…, llamacpp/FILE.gguf "
        "or llamacpp/smollm2 (the embedded model).",
        show_default=False,
    ),
]


@dataclass
class GenerateSettings:
    """The generation flags shared by ``generate``, ``run`` and ``demo``."""

    model: str
    mode: Mode = Mode.CHAT
    trials: int = 10
    temperature: float = 1.0
    top_p: float = 0.98
    top_k: int | None = None
    max_tokens: int = 300
    num_examples: int = 20
    seed: str = ""
    prefix: str | None = None
    concurrency: int = 8
    limit: int | None = None
    results_dir: Path = Path("results")
    name: str | None = None
    base_url: str | None = None
    options: list[str] = field(default_factory=list)
    no_cache: bool = False


_FLAGS = {"temperature": "--temperature", "top_p": "--top-p", "top_k": "--top-k"}


def sampling_error(exc: ValidationError) -> str:
    """Pydantic's report as one line per flag, e.g. ``--top-p 2.0: must be <= 1``."""
    parts = []
    for problem in exc.errors():
        field_name = str(problem["loc"][0]) if problem["loc"] else ""
        flag = _FLAGS.get(field_name, f"--{field_name.replace('_', '-')}")
        message = str(problem["msg"]).removeprefix("Value error, ")
        parts.append(f"{flag} {problem.get('input')!r}: {message}")
    return "invalid sampling setting: " + "; ".join(parts)


def generate(
    settings: GenerateSettings, benchmark: PfgenBenchmark
) -> tuple[Path, GenerationReport, ModelClient]:
    """Build the plan and the client from flags, then generate with progress bars."""
    s = settings
    provider_name, model_id = parse_model_string(s.model)
    try:
        params = SamplingParams(
            temperature=s.temperature, top_p=s.top_p, top_k=s.top_k, max_tokens=s.max_tokens,
            stop=tuple(stops_for(s.mode)),
        )  # fmt: skip
    except ValidationError as exc:
        raise HyokaError(sampling_error(exc)) from None
    if not 0 <= s.num_examples <= 49:
        raise HyokaError("--num-examples must be between 0 and 49")
    samples = benchmark.sample_answers()
    questions = [sample.question for sample in samples][: s.limit or None]
    options = provider_options(s.options, s.base_url)
    config = make_config(
        engine=ENGINE_NAMES[provider_name], model=s.name or _DISPLAY_NAMES.get(s.model, model_id),
        mode=s.mode, num_examples=s.num_examples, max_tokens=s.max_tokens,
        temperature=s.temperature, top_p=s.top_p, top_k=s.top_k, seed=s.seed, prefix=s.prefix,
    )  # fmt: skip
    folder = run_folder(s.results_dir, config["model"], config)
    plan = GenerationPlan(
        folder=folder, config=config, mode=s.mode, num_trials=s.trials,
        num_examples=s.num_examples, seed=s.seed, prefix=s.prefix or "", params=params,
    )  # fmt: skip
    provider = load_provider(s.model, **options)
    client = ModelClient(
        provider, cache=None if s.no_cache else ResponseCache(), concurrency=s.concurrency
    )
    err_console.print(f"Run folder: {folder}", highlight=False)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
        TimeElapsedColumn(), TimeRemainingColumn(), console=err_console,
    ) as bar:  # fmt: skip
        answers = bar.add_task("answers", total=s.trials * len(questions))
        trials = bar.add_task("trials ", total=s.trials)

        def progress(kind: str, _trial: int) -> None:
            bar.advance(answers if kind == "answer" else trials)

        async def go() -> GenerationReport:
            async with client:
                return await generate_run(plan, client, samples, questions, progress)

        report = asyncio.run(go())
    return folder, report, client


def print_report(report: GenerationReport, client: ModelClient) -> None:
    stats = client.stats
    console.print(
        f"{report.trials_generated} trial(s) generated, {report.trials_done_before} already "
        f"done; {stats.requests} request(s), {stats.cache_hits} from cache, "
        f"{stats.retries} retried, {report.empty_retries} empty answer(s) asked again; "
        f"tokens: {stats.usage.prompt_tokens} in, {stats.usage.completion_tokens} out",
        highlight=False,
    )


Mode_ = Annotated[Mode, typer.Option(help="Prompt style.")]
Trials = Annotated[int, typer.Option(min=1, help="Trials (answers per question).")]
Temperature = Annotated[float, typer.Option()]
TopP = Annotated[float, typer.Option("--top-p")]
TopK = Annotated[int | None, typer.Option("--top-k")]
MaxTokens = Annotated[int, typer.Option("--max-tokens", min=1)]
NumExamples = Annotated[int, typer.Option("--num-examples")]
Seed = Annotated[str, typer.Option(help="Seed string for example order and sampling.")]
Prefix = Annotated[str | None, typer.Option(help="Text put before the prompt.")]
Concurrency = Annotated[int, typer.Option(min=1, help="Requests in flight.")]
Limit = Annotated[int | None, typer.Option(min=1, help="Only the first N questions.")]
ResultsDir = Annotated[Path, typer.Option("--results-dir")]
Name = Annotated[str | None, typer.Option(help="Model name for the run folder.")]
BaseUrl = Annotated[str | None, typer.Option("--base-url")]
Options = Annotated[
    list[str] | None, typer.Option("--option", "-o", help="Backend option KEY=VALUE.")
]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Do not cache responses.")]


@reports_errors
def generate_command(
    model: ModelOption,
    mode: Mode_ = Mode.CHAT,
    trials: Trials = 10,
    temperature: Temperature = 1.0,
    top_p: TopP = 0.98,
    top_k: TopK = None,
    max_tokens: MaxTokens = 300,
    num_examples: NumExamples = 20,
    seed: Seed = "",
    prefix: Prefix = None,
    concurrency: Concurrency = 8,
    limit: Limit = None,
    results_dir: ResultsDir = Path("results"),
    name: Name = None,
    base_url: BaseUrl = None,
    option: Options = None,
    no_cache: NoCache = False,
    data_dir: DataDirOption = None,
) -> None:
    """Generate a pfgen-bench run (resumable: run it again to continue).

    Examples:

      hyoka pfgen generate -m openai/gpt-4o-mini --trials 10

      hyoka pfgen generate -m openai/my-model --base-url http://127.0.0.1:8000/v1

      hyoka pfgen generate -m llamacpp/smollm2 --trials 1 --limit 3
    """
    settings = GenerateSettings(
        model, mode, trials, temperature, top_p, top_k, max_tokens, num_examples, seed, prefix,
        concurrency, limit, results_dir, name, base_url, option or [], no_cache,
    )  # fmt: skip
    _folder, report, client = generate(settings, PfgenBenchmark.load(data_dir))
    print_report(report, client)


@reports_errors
def run_command(
    model: ModelOption,
    mode: Mode_ = Mode.CHAT,
    trials: Trials = 10,
    temperature: Temperature = 1.0,
    top_p: TopP = 0.98,
    top_k: TopK = None,
    max_tokens: MaxTokens = 300,
    num_examples: NumExamples = 20,
    seed: Seed = "",
    prefix: Prefix = None,
    concurrency: Concurrency = 8,
    limit: Limit = None,
    results_dir: ResultsDir = Path("results"),
    name: Name = None,
    base_url: BaseUrl = None,
    option: Options = None,
    no_cache: NoCache = False,
    data_dir: DataDirOption = None,
) -> None:
    """Generate a pfgen-bench run, score it, and show it beside the public leaderboard.

    Examples:

      hyoka pfgen run -m openai/gpt-4o-mini --trials 10

      hyoka pfgen run -m llamacpp/smollm2 --trials 1 --limit 3
    """
    settings = GenerateSettings(
        model, mode, trials, temperature, top_p, top_k, max_tokens, num_examples, seed, prefix,
        concurrency, limit, results_dir, name, base_url, option or [], no_cache,
    )  # fmt: skip
    generate_and_score(settings, data_dir)


def generate_and_score(settings: GenerateSettings, data_dir: Path | None) -> RunSummary:
    """Generate, score, print the result beside the public leaderboard."""
    benchmark = PfgenBenchmark.load(data_dir)
    folder, report, client = generate(settings, benchmark)
    print_report(report, client)
    outcome = score_run(folder, benchmark, force=True)
    ours = RunSummary.from_result(outcome.folder, outcome.result)
    console.print(score_table([(ours, False)]))
    show_beside_public(ours, data_dir)
    return ours
