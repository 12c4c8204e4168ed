"""``hyoka pfgen judge``: grade a pfgen run's answers 1-10 with an LLM judge (seed 000 §4.2)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import (
    AttemptsOption,
    BaseUrlOption,
    BatchOption,
    ConcurrencyOption,
    DataDirOption,
    JsonOption,
    JudgeOption,
    JudgeTemplateOption,
    MaxTokensOption,
    NoCacheOption,
    PerQuestionOption,
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

#: ``hyoka.pfgen.judge.DEFAULT_TEMPLATE``, spelt out so ``--help`` imports nothing heavy
DEFAULT_TEMPLATE = "pfgen-single"


@reports_errors
def judge_command(
    result_dir: Annotated[
        Path,
        typer.Argument(help="One pfgen run folder (with its trials file).", show_default=False),
    ],
    judge: JudgeOption,
    per_question: PerQuestionOption = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first Q questions (by id).")
    ] = None,
    template: JudgeTemplateOption = DEFAULT_TEMPLATE,
    repeats: RepeatsOption = GRADING.repeats,
    aggregate: AggregateOption = DEFAULT_AGGREGATE,
    temperature: TemperatureOption = GRADING.temperature,
    max_tokens: MaxTokensOption = GRADING.max_tokens,
    max_attempts: AttemptsOption = GRADING.max_attempts,
    concurrency: ConcurrencyOption = CONCURRENCY,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
    batch: BatchOption = False,
    price_in: PriceInOption = 0.0,
    price_out: PriceOutOption = 0.0,
    as_json: JsonOption = False,
    data_dir: DataDirOption = None,
    thinking: ThinkingOption = ThinkingChoice.STRIP_THINK,
) -> None:
    """Grade a run's answers 1-10 against the hand-written sample answers (resumable).

    Writes RESULT_DIR/judge/<judge>/judgments.jsonl and summary.json (the run's mean judge
    score, which `hyoka pfgen correlate` compares with its pfgen score, and the signature
    of how it was produced).

    Examples:

      hyoka pfgen judge results/my-org/my-model/abc1234 -j openai/gpt-4o --per-question 1

      hyoka pfgen judge results/x/y/abc1234 -j openai/gpt-4o --batch  (again to finish)

      hyoka pfgen judge results/x/y/abc1234 -j openai/local --base-url http://127.0.0.1:8000/v1
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
    from hyoka.judge import Connection
    from hyoka.pfgen import judge_pfgen_run

    done = judge_pfgen_run(
        result_dir, judge, per_question=per_question, limit=limit, template=template,
        repeats=repeats, aggregate=aggregate.value, temperature=temperature, data_dir=data_dir,
        max_tokens=max_tokens, max_attempts=max_attempts, thinking=thinking.value,
        connection=Connection(base_url, provider_options(option), no_cache, concurrency, batch),
        price_in=price_in, price_out=price_out, watcher=ShownJudging(),
    )  # fmt: skip
    run = done.run
    say(f"judgments: {run.output}", err=True)
    say(f"summary: {done.summary}", err=True)
    print_batch(run.stats, as_json)
    if as_json:
        echo_json(done.to_json(), indent=None)
    else:
        print_table(single_table(run))
        print_judge([run.judge])
        print_signature(run.signature)
    fail_if_nothing_graded(run.summary.n, run.summary.failures, judge, run.output)
