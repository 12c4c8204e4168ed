"""``hyoka pfgen judge``: grade a pfgen run's answers 1-10 with an LLM judge (seed 000 §4.2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import DataDirOption, console, err_console, reports_errors
from hyoka.cli.judge_single_cmd import (
    AggregateOption,
    AttemptsOption,
    BaseUrlOption,
    ConcurrencyOption,
    JsonOption,
    JudgeOption,
    MaxTokensOption,
    NoCacheOption,
    OptionsOption,
    PriceInOption,
    PriceOutOption,
    RepeatsOption,
    TemperatureOption,
    judge_settings,
    make_client,
    run_with_progress,
    totals_table,
)
from hyoka.judge.single import read_judgments, summarise
from hyoka.judge.templates import load_template
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.judge import DEFAULT_TEMPLATE, JUDGMENTS_FILE, collect_items, write_summary


@reports_errors
def judge_command(
    result_dir: Annotated[
        Path,
        typer.Argument(help="One pfgen run folder (with its trials file).", show_default=False),
    ],
    judge: JudgeOption,
    per_question: Annotated[
        int | None,
        typer.Option(
            "--per-question",
            min=1,
            help="Judge the first N answers to each question (default: all).",
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first Q questions (by id).")
    ] = None,
    template: Annotated[
        str, typer.Option("--template", "-t", help="Packaged template name, or a .toml file.")
    ] = DEFAULT_TEMPLATE,
    repeats: RepeatsOption = 1,
    aggregate: AggregateOption = "mean",
    temperature: TemperatureOption = 0.0,
    max_tokens: MaxTokensOption = 1024,
    max_attempts: AttemptsOption = 3,
    concurrency: ConcurrencyOption = 8,
    base_url: BaseUrlOption = None,
    option: OptionsOption = None,
    no_cache: NoCacheOption = False,
    price_in: PriceInOption = 0.0,
    price_out: PriceOutOption = 0.0,
    as_json: JsonOption = False,
    data_dir: DataDirOption = None,
) -> None:
    """Grade a run's answers 1-10 against the hand-written sample answers (resumable).

    Writes RESULT_DIR/judge/<judge>/judgments.jsonl and summary.json (the run's mean judge
    score, which `hyoka pfgen correlate` compares with its pfgen score).

    Examples:

      hyoka pfgen judge results/my-org/my-model/abc1234 -j openai/gpt-4o --per-question 1

      hyoka pfgen judge results/x/y/abc1234 -j openai/local --base-url http://127.0.0.1:8000/v1
    """
    chosen_template = load_template(template)
    settings = judge_settings(judge, base_url, temperature, max_tokens, repeats, aggregate)
    benchmark = PfgenBenchmark.load(data_dir)
    chosen = collect_items(result_dir, benchmark, per_question=per_question, limit=limit)
    output = chosen.folder(judge) / JUDGMENTS_FILE
    client = make_client(judge, base_url, option, concurrency, no_cache)
    report = run_with_progress(
        chosen.items, chosen_template, settings, client, output, max_attempts,
        f"judging {chosen.model}",
    )  # fmt: skip
    summary_path, data = write_summary(chosen, judge, chosen_template)
    overall = summarise(read_judgments(output), chosen.question_ids)
    table, totals = totals_table(overall, report, client, price_in, price_out)
    err_console.print(
        f"judgments: {output}\nsummary: {summary_path}", highlight=False, soft_wrap=True
    )
    if as_json:
        typer.echo(json.dumps({**data, **totals, "summary": str(summary_path)}, ensure_ascii=False))
    else:
        console.print(table)
