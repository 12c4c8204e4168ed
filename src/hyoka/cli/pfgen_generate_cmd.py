"""``hyoka pfgen generate`` and ``hyoka pfgen run``: ask a model, write a run, score it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
from hyoka.cli._parsed import takes_flags_of
from hyoka.cli._thinking import ThinkingOption

# the flags' choices and defaults, needed at import; they load nothing heavy
from hyoka.pfgen import PROTOCOL, Mode
from hyoka.providers import CONCURRENCY, ThinkingChoice

if TYPE_CHECKING:
    from hyoka.pfgen import GenerateSettings

#: The flags only these two commands take.
ModeOption = Annotated[Mode, typer.Option("--mode", help="Prompt style.")]
PrefixOption = Annotated[
    str | None, typer.Option("--prefix", help="Text put before the prompt.", show_default=False)
]
SendSeedOption = Annotated[
    bool,
    typer.Option(
        "--send-seed",
        help="Send each trial's sampling seed to a hosted model (upstream's run-openai.py "
        "sends none; local engines always get it); recorded in config.json.",
    ),
]


@dataclass(frozen=True)
class Generation:
    """What ``pfgen generate`` and ``pfgen run`` are asked: the run's settings, where the
    benchmark's data is, and whether to print JSON."""

    settings: GenerateSettings
    data_dir: Path | None
    as_json: bool


def generation_flags(
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
    concurrency: ConcurrencyOption = CONCURRENCY,
    limit: LimitOption = None,
    results_dir: ResultsDirOption = Path("results"),
    name: ModelNameOption = None,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
    data_dir: DataDirOption = None,
    thinking: ThinkingOption = ThinkingChoice.STRIP_THINK,
    send_seed: SendSeedOption = False,
    as_json: JsonOption = False,
) -> Generation:
    """The flags of both commands, declared once (``takes_flags_of``), read into what
    they ask."""
    from hyoka.cli._common import provider_options
    from hyoka.pfgen import GenerateSettings

    settings = GenerateSettings(
        model=model, mode=mode, trials=trials, temperature=temperature, top_p=top_p,
        top_k=top_k, max_tokens=max_tokens, num_examples=num_examples, seed=seed, prefix=prefix,
        concurrency=concurrency, limit=limit, results_dir=results_dir, name=name,
        base_url=base_url, options=provider_options(option), no_cache=no_cache,
        thinking=thinking.value, send_seed=send_seed,
    )  # fmt: skip
    return Generation(settings, data_dir, as_json)


@reports_errors
@takes_flags_of(generation_flags)
def generate_command(asked: Generation) -> None:
    """Generate a pfgen-bench run (resumable: run it again to continue).

    Examples:

      hyoka pfgen generate -m openai/gpt-4o-mini --trials 10

      hyoka pfgen generate -m openai/my-model --base-url http://127.0.0.1:8000/v1

      hyoka pfgen generate -m llamacpp/smollm2 --trials 1 --limit 3
    """
    from hyoka.cli._context import generate
    from hyoka.pfgen import PfgenBenchmark

    generate(asked.settings, PfgenBenchmark.load(asked.data_dir), as_json=asked.as_json)


@reports_errors
@takes_flags_of(generation_flags)
def run_command(asked: Generation) -> None:
    """Generate a pfgen-bench run, score it, and show it beside the public leaderboard.

    Examples:

      hyoka pfgen run -m openai/gpt-4o-mini --trials 10

      hyoka pfgen run -m llamacpp/smollm2 --trials 1 --limit 3
    """
    from hyoka.cli._context import generate_and_score

    generate_and_score(asked.settings, asked.data_dir, as_json=asked.as_json)
