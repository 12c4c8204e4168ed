"""``hyoka judge single``: grade answers 1-10 with an LLM judge (resumable, cached).

The option types and the run/report helpers here are shared with ``hyoka pfgen judge``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hyoka._jsonl import read_objects, read_records
from hyoka.cli._common import (
    RateColumn,
    console,
    cost_usd,
    err_console,
    provider_options,
    reports_errors,
)
from hyoka.errors import InputError
from hyoka.judge.records import Aggregate, JudgeSettings
from hyoka.judge.single import (
    SingleItem,
    SingleReport,
    SingleSummary,
    judge_single,
    read_judgments,
    summarise,
)
from hyoka.judge.templates import JudgeTemplate, load_template
from hyoka.providers.client import ModelClient, ResponseCache
from hyoka.providers.registry import load_provider

JudgeOption = Annotated[
    str,
    typer.Option("--judge", "-j", help="PROVIDER/MODEL of the judge.", show_default=False),
]
BaseUrlOption = Annotated[
    str | None, typer.Option("--base-url", help="OpenAI-compatible server URL of the judge.")
]
OptionsOption = Annotated[
    list[str] | None, typer.Option("--option", "-o", help="Backend option KEY=VALUE.")
]
ConcurrencyOption = Annotated[
    int, typer.Option("--concurrency", min=1, help="Judge calls in flight.")
]
MaxTokensOption = Annotated[
    int, typer.Option("--max-tokens", min=1, help="Longest judge reply, in tokens.")
]
TemperatureOption = Annotated[
    float, typer.Option("--temperature", min=0.0, help="Judge sampling temperature.")
]
RepeatsOption = Annotated[
    int, typer.Option("--repeats", min=1, help="Grade each answer K times and aggregate.")
]
AggregateOption = Annotated[
    str, typer.Option("--aggregate", help="How repeats combine: mean or median.")
]
AttemptsOption = Annotated[
    int,
    typer.Option(
        "--max-attempts", min=1, help="Judge calls per grade when replies hold no rating."
    ),
]
NoCacheOption = Annotated[bool, typer.Option("--no-cache", help="Do not cache judge replies.")]
PriceInOption = Annotated[
    float, typer.Option("--price-in", min=0.0, help="USD per million prompt tokens, for a cost.")
]
PriceOutOption = Annotated[
    float, typer.Option("--price-out", min=0.0, help="USD per million completion tokens.")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]


def judge_settings(
    judge: str,
    base_url: str | None,
    temperature: float,
    max_tokens: int,
    repeats: int,
    aggregate: str,
) -> JudgeSettings:
    if aggregate not in ("mean", "median"):
        raise InputError(f"--aggregate must be mean or median, got {aggregate!r}")
    how: Aggregate = "median" if aggregate == "median" else "mean"
    return JudgeSettings(
        judge=judge,
        base_url=base_url,
        temperature=temperature,
        max_tokens=max_tokens,
        repeats=repeats,
        aggregate=how,
    )


def make_client(
    judge: str, base_url: str | None, option: list[str] | None, concurrency: int, no_cache: bool
) -> ModelClient:
    provider = load_provider(judge, **provider_options(option or [], base_url))
    cache = None if no_cache else ResponseCache()
    return ModelClient(provider, cache=cache, concurrency=concurrency)


def run_with_progress(
    items: Sequence[SingleItem],
    template: JudgeTemplate,
    settings: JudgeSettings,
    client: ModelClient,
    output: Path,
    max_attempts: int,
    label: str,
) -> SingleReport:
    """Grade with a progress bar on stderr; the client is closed afterwards."""

    async def go() -> SingleReport:
        async with client:
            with Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                TimeElapsedColumn(), console=err_console,
            ) as bar:  # fmt: skip
                task = bar.add_task(label, total=len(items))

                def advance() -> None:
                    bar.advance(task)

                report = await judge_single(
                    items, template, settings, client, output,
                    max_attempts=max_attempts, progress=advance,
                )  # fmt: skip
                bar.advance(task, report.done_before)
                return report

    return asyncio.run(go())


def totals_table(
    summary: SingleSummary,
    report: SingleReport,
    client: ModelClient,
    price_in: float,
    price_out: float,
) -> tuple[Table, dict[str, Any]]:
    """The end-of-run table: the grades, then what the judge calls cost in this run."""
    usage = client.stats.usage
    cost = cost_usd(usage, price_in, price_out)
    data: dict[str, Any] = {
        "mean": summary.mean,
        "n": summary.n,
        "failures": summary.failures,
        "judged_now": report.judged,
        "done_before": report.done_before,
        "failed_repeats_now": report.failed_repeats,
        "judge_calls": report.judge_calls,
        "provider_calls": client.stats.requests,
        "cache_hits": client.stats.cache_hits,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
    }
    if price_in or price_out:
        data["cost_usd"] = round(cost, 6)
    table = Table(title="Judge summary", show_header=False)
    table.add_column("", style="bold")
    table.add_column("", justify="right")
    shown_mean = "-" if summary.mean is None else f"{summary.mean:.3f}"
    rows = [
        ("mean score", shown_mean),
        ("graded (n)", str(summary.n)),
        ("failures (no rating, score -1)", str(summary.failures)),
        ("judged now / done before", f"{report.judged} / {report.done_before}"),
        (
            "judge calls",
            f"{report.judge_calls} ({client.stats.cache_hits} from the cache, "
            f"{client.stats.requests} to the provider)",
        ),
        ("tokens in / out (this run)", f"{usage.prompt_tokens} / {usage.completion_tokens}"),
    ]  # fmt: skip
    if "cost_usd" in data:
        rows.append(("cost (this run)", f"${cost:.4f}"))
    for row in rows:
        table.add_row(*row)
    return table, data


def read_items(path: Path, references: Path | None) -> list[SingleItem]:
    """``{id, question, answer, reference?, model?}`` lines, with references from a second file."""
    items: list[SingleItem] = []
    lines: dict[str, int] = {}
    for number, item in read_records(path, SingleItem):
        if item.id in lines:
            raise InputError(f"{path}:{number}: id {item.id!r} also on line {lines[item.id]}")
        lines[item.id] = number
        items.append(item)
    if not items:
        raise InputError(f"{path}: no answers in file")
    if references is None:
        return items
    extra: dict[str, str] = {}
    for number, raw in read_objects(references):
        key, text = raw.get("id"), raw.get("reference")
        if key is None or not isinstance(text, str):
            raise InputError(f"{references}:{number}: expected {{id, reference}} with a string")
        if str(key) not in lines:
            raise InputError(f"{references}:{number}: id {key!r} is not in {path}")
        extra[str(key)] = text
    return [
        item.model_copy(update={"reference": extra[item.id]}) if item.id in extra else item
        for item in items
    ]


@reports_errors
def single_command(
    answers: Annotated[
        Path,
        typer.Argument(
            help="JSONL of {id, question, answer, reference?, model?} lines.", show_default=False
        ),
    ],
    judge: JudgeOption,
    template: Annotated[
        str,
        typer.Option("--template", "-t", help="Packaged template name, or a .toml file."),
    ] = "single-ref",
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
    repeats: RepeatsOption = 1,
    aggregate: AggregateOption = "mean",
    temperature: TemperatureOption = 0.0,
    max_tokens: MaxTokensOption = 1024,
    max_attempts: AttemptsOption = 3,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N answers.")
    ] = None,
    concurrency: ConcurrencyOption = 8,
    base_url: BaseUrlOption = None,
    option: OptionsOption = None,
    no_cache: NoCacheOption = False,
    price_in: PriceInOption = 0.0,
    price_out: PriceOutOption = 0.0,
    as_json: JsonOption = False,
) -> None:
    """Grade answers 1-10 against references with an LLM judge (resumable).

    A reply without a rating is asked again (--max-attempts); an answer that never gets one
    scores -1, is kept with the judge's replies, left out of the mean and counted.

    Examples:

      hyoka judge single answers.jsonl -j openai/gpt-4o-mini

      hyoka judge single answers.jsonl -j llamacpp/smollm2 --repeats 3 --aggregate median

      hyoka judge single a.jsonl -j openai/local --base-url http://127.0.0.1:8000/v1 -t my.toml
    """
    chosen = load_template(template)
    items = read_items(answers, references)[: limit or None]
    settings = judge_settings(judge, base_url, temperature, max_tokens, repeats, aggregate)
    target = output or answers.with_name(answers.name.removesuffix(".jsonl") + ".judged.jsonl")
    client = make_client(judge, base_url, option, concurrency, no_cache)
    report = run_with_progress(
        items, chosen, settings, client, target, max_attempts, f"judging ({chosen.name})"
    )
    summary = summarise(read_judgments(target), [item.id for item in items])
    table, data = totals_table(summary, report, client, price_in, price_out)
    err_console.print(f"judgments: {target}", highlight=False, soft_wrap=True)
    if as_json:
        typer.echo(json.dumps({**data, "output": str(target)}, ensure_ascii=False))
    else:
        console.print(table)
