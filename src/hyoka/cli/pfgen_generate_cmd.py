"""``hyoka pfgen generate`` and ``hyoka pfgen run``: ask a model, write a run, score it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import (
    BaseUrlOption,
    ConcurrencyOption,
    DataDirOption,
    JsonOption,
    LimitOption,
    MaxTokensOption,
    ModelNameOption,
    ModelOption,
    NoCacheOption,
    NumExamplesOption,
    ProviderOptionsOption,
    ResultsDirOption,
    SeedTextOption,
    TemperatureOption,
    TopKOption,
    TopPOption,
    TrialsOption,
    reports_errors,
)
from hyoka.cli._thinking import ThinkingOption

# the flags' choices and defaults, needed at import; they load nothing heavy
from hyoka.pfgen import PROTOCOL, Mode
from hyoka.providers import ThinkingChoice

#: The flags only these two commands take.
ModeOption = Annotated[Mode, typer.Option("--mode", help="Prompt style.")]
PrefixOption = Annotated[
    str | None, typer.Option("--prefix", help="Text put before the prompt.", show_default=False)
]


@reports_errors
def generate_command(
    model: ModelOption,
    mode: ModeOption = Mode.CHAT,
    trials: TrialsOption = PROTOCOL.trials,
    temperature: TemperatureOption = PROTOCOL.temperature,
    top_p: TopPOption = PROTOCOL.top_p,
    top_k: TopKOption = PROTOCOL.top_k,
    max_tokens: MaxTokensOption = PROTOCOL.max_tokens,
    num_examples: NumExamplesOption = PROTOCOL.num_examples,
    seed: SeedTextOption = "",
    prefix: PrefixOption = None,
    concurrency: ConcurrencyOption = 8,
    limit: LimitOption = None,
    results_dir: ResultsDirOption = Path("results"),
    name: ModelNameOption = None,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
    data_dir: DataDirOption = None,
    thinking: ThinkingOption = ThinkingChoice.STRIP_THINK,
    as_json: JsonOption = False,
) -> None:
    """Generate a pfgen-bench run (resumable: run it again to continue).

    Examples:

      hyoka pfgen generate -m openai/gpt-4o-mini --trials 10

      hyoka pfgen generate -m openai/my-model --base-url http://127.0.0.1:8000/v1

      hyoka pfgen generate -m llamacpp/smollm2 --trials 1 --limit 3
    """
    from hyoka.cli._common import provider_options
    from hyoka.cli._context import generate
    from hyoka.pfgen import GenerateSettings, PfgenBenchmark

    settings = GenerateSettings(
        model=model, mode=mode, trials=trials, temperature=temperature, top_p=top_p,
        top_k=top_k, max_tokens=max_tokens, num_examples=num_examples, seed=seed, prefix=prefix,
        concurrency=concurrency, limit=limit, results_dir=results_dir, name=name,
        base_url=base_url, options=provider_options(option), no_cache=no_cache,
        thinking=thinking.value,
    )  # fmt: skip
    generate(settings, PfgenBenchmark.load(data_dir), as_json=as_json)


@reports_errors
def run_command(
    model: ModelOption,
    mode: ModeOption = Mode.CHAT,
    trials: TrialsOption = PROTOCOL.trials,
    temperature: TemperatureOption = PROTOCOL.temperature,
    top_p: TopPOption = PROTOCOL.top_p,
    top_k: TopKOption = PROTOCOL.top_k,
    max_tokens: MaxTokensOption = PROTOCOL.max_tokens,
    num_examples: NumExamplesOption = PROTOCOL.num_examples,
    seed: SeedTextOption = "",
    prefix: PrefixOption = None,
    concurrency: ConcurrencyOption = 8,
    limit: LimitOption = None,
    results_dir: ResultsDirOption = Path("results"),
    name: ModelNameOption = None,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
    data_dir: DataDirOption = None,
    thinking: ThinkingOption = ThinkingChoice.STRIP_THINK,
    as_json: JsonOption = False,
) -> None:
    """Generate a pfgen-bench run, score it, and show it beside the public leaderboard.

    Examples:

      hyoka pfgen run -m openai/gpt-4o-mini --trials 10

      hyoka pfgen run -m llamacpp/smollm2 --trials 1 --limit 3
    """
    from hyoka.cli._common import provider_options
    from hyoka.cli._context import generate_and_score
    from hyoka.pfgen import GenerateSettings

    settings = GenerateSettings(
        model=model, mode=mode, trials=trials, temperature=temperature, top_p=top_p,
        top_k=top_k, max_tokens=max_tokens, num_examples=num_examples, seed=seed, prefix=prefix,
        concurrency=concurrency, limit=limit, results_dir=results_dir, name=name,
        base_url=base_url, options=provider_options(option), no_cache=no_cache,
        thinking=thinking.value,
    )  # fmt: skip
    generate_and_score(settings, data_dir, as_json=as_json)
