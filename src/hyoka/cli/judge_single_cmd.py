"""``hyoka judge single``: grade answers 1-10 with an LLM judge (resumable, cached)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import (
    AttemptsOption,
    BaseUrlOption,
    BatchOption,
    ConcurrencyOption,
    JsonOption,
    JudgeOption,
    JudgeTemplateOption,
    LimitOption,
    MaxTokensOption,
    NoCacheOption,
    PriceInOption,
    PriceOutOption,
    ProviderOptionsOption,
    RepeatsOption,
    TemperatureOption,
    echo_json,
    reports_errors,
    say,
)
from hyoka.cli._judging import DEFAULT_AGGREGATE, AggregateOption
from hyoka.cli._tables import print_table
from hyoka.cli._thinking import ThinkingOption
from hyoka.judge import GRADING
from hyoka.providers import CONCURRENCY, ThinkingChoice


@reports_errors
def single_command(
    answers: Annotated[
        Path,
        typer.Argument(
            help="JSONL of {id, question, answer, reference?, model?} lines.", show_default=False
        ),
    ],
    judge: JudgeOption,
    template: JudgeTemplateOption = "single-ref",
    references: Annotated[
        Path | None,
        typer.Option("--references", help="JSONL of {id, reference} lines.", show_default=False),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="Judgment file (default: ANSWERS with .judged.jsonl).",
            show_default=False,
        ),
    ] = None,
    repeats: RepeatsOption = GRADING.repeats,
    aggregate: AggregateOption = DEFAULT_AGGREGATE,
    temperature: TemperatureOption = GRADING.temperature,
    max_tokens: MaxTokensOption = GRADING.max_tokens,
    max_attempts: AttemptsOption = GRADING.max_attempts,
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = CONCURRENCY,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
    batch: BatchOption = False,
    price_in: PriceInOption = 0.0,
    price_out: PriceOutOption = 0.0,
    as_json: JsonOption = False,
    thinking: ThinkingOption = ThinkingChoice.STRIP_THINK,
) -> None:
    """Grade answers 1-10 against references with an LLM judge (resumable).

    A reply without a rating is asked again (--max-attempts); an answer that never gets one
    scores -1, is kept with the judge's replies, left out of the mean and counted.

    Examples:

      hyoka judge single answers.jsonl -j openai/gpt-4o-mini

      hyoka judge single answers.jsonl -j llamacpp/smollm2 --repeats 3 --aggregate median

      hyoka judge single a.jsonl -j openai/local --base-url http://127.0.0.1:8000/v1 -t my.toml
    """
    from hyoka.cli._common import provider_options
    from hyoka.cli._judging import (
        ShownJudging,
        fail_if_nothing_graded,
        print_batch,
        print_judge,
        print_signature,
        single_table,
    )
    from hyoka.judge import Connection, judge_single

    run = judge_single(
        answers, judge, template=template, references=references, output=output,
        repeats=repeats, aggregate=aggregate.value, temperature=temperature,
        max_tokens=max_tokens, max_attempts=max_attempts, limit=limit, thinking=thinking.value,
        connection=Connection(base_url, provider_options(option), no_cache, concurrency, batch),
        price_in=price_in, price_out=price_out, watcher=ShownJudging(),
    )  # fmt: skip
    say(f"judgments: {run.output}", err=True)
    print_batch(run.stats, as_json)
    if as_json:
        echo_json(run.to_json(), indent=None)
    else:
        print_table(single_table(run))
        print_judge([run.judge])
        print_signature(run.signature)
    fail_if_nothing_graded(run.summary.n, run.summary.failures, judge, run.output)
