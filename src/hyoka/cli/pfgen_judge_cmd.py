"""``hyoka pfgen judge``: grade a pfgen run's answers 1-10 with an LLM judge (seed 000 §4.2)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import (
    AttemptsOption,
    BaseUrlOption,
    ConcurrencyOption,
    DataDirOption,
    JsonOption,
    JudgeOption,
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
from hyoka.cli._judging import AggregateOption
from hyoka.cli._tables import print_table
from hyoka.cli._thinking import ThinkingOption
from hyoka.judge import AggregateChoice
from hyoka.providers import ThinkingChoice

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
    template: Annotated[
        str, typer.Option("--template", "-t", help="Packaged template name, or a .toml file.")
    ] = DEFAULT_TEMPLATE,
    repeats: RepeatsOption = 1,
    aggregate: AggregateOption = AggregateChoice.MEAN,
    temperature: TemperatureOption = 0.0,
    max_tokens: MaxTokensOption = 1024,
    max_attempts: AttemptsOption = 3,
    concurrency: ConcurrencyOption = 8,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
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

      hyoka pfgen judge results/x/y/abc1234 -j openai/local --base-url http://127.0.0.1:8000/v1
    """
    from hyoka.cli._common import provider_options
    from hyoka.cli._judging import (
        fail_if_nothing_graded,
        print_judge,
        print_signature,
        run_plans,
        single_settings,
        single_table,
    )
    from hyoka.judge import SingleRun, load_template, plan_single, run_judge, summarise
    from hyoka.pfgen import JUDGMENTS_FILE, PfgenBenchmark, collect_items, data_id, write_summary
    from hyoka.providers import connect

    chosen_template = load_template(template)
    settings = single_settings(
        judge, base_url, temperature, max_tokens, repeats, aggregate, thinking
    )
    benchmark = PfgenBenchmark.load(data_dir)
    chosen = collect_items(result_dir, benchmark, per_question=per_question, limit=limit)
    output = chosen.folder(judge) / JUDGMENTS_FILE
    plan = plan_single(
        chosen.items, chosen_template, settings, output, benchmark="pfgen",
        data=data_id(benchmark.metadata_hash), max_attempts=max_attempts,
    )  # fmt: skip
    client = connect(
        judge, base_url=base_url, options=provider_options(option), no_cache=no_cache,
        concurrency=concurrency, flag="--judge",
    )  # fmt: skip
    report, (judged,) = run_plans(client, [(f"judging {chosen.model}", plan)])
    signature = judged.run.signature()
    summary_path, data = write_summary(chosen, judge, chosen_template, signature, judged.lines)
    overall = summarise(judged.lines, chosen.question_ids)
    run = SingleRun(
        output, overall, report, client.stats, signature, run_judge(judged.run), price_in,
        price_out,
    )  # fmt: skip
    say(f"judgments: {output}", err=True)
    say(f"summary: {summary_path}", err=True)
    if as_json:
        payload = {**data, **run.to_json(), "summary": str(summary_path)}
        echo_json(payload, indent=None)
    else:
        print_table(single_table(run))
        print_judge([run.judge])
        print_signature(signature)
    fail_if_nothing_graded(overall.n, overall.failures, judge, output)
