"""``hyoka judge pairwise``: two answer files compared by a judge, both orders (seed 001)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hyoka._jsonl import drop_partial_tail
from hyoka.cli._common import (
    DataDirOption,
    RateColumn,
    console,
    err_console,
    provider_options,
    reports_errors,
)
from hyoka.errors import InputError
from hyoka.judge.criteria import (
    DEFAULT_TEMPLATE as CRITERIA_TEMPLATE,
)
from hyoka.judge.criteria import (
    CriteriaQuestion,
    CriteriaStore,
    generate_criteria,
)
from hyoka.judge.pair_answers import Answer, load_pairs, read_answers
from hyoka.judge.pairwise import (
    PairItem,
    PairwisePlan,
    PairwiseReport,
    check_items,
    check_judge,
    check_output,
    judge_pairs,
    parse_methods,
    read_judgments,
)
from hyoka.judge.pairwise_summary import PairwiseSummary, export_verdicts, summarise
from hyoka.judge.records import JudgeSettings
from hyoka.judge.templates import JudgeTemplate, load_template
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.judge import run_answers
from hyoka.providers.client import ModelClient, ResponseCache
from hyoka.providers.registry import load_provider

#: where judgments go unless --output says otherwise
RESULTS = Path("results") / "judge" / "pairwise"
#: default reply budgets: a bare letter, or reasons then [[X]]
MAX_TOKENS_RESULT = 16
MAX_TOKENS_REASONS = 1024


def _template(name: str | None, criteria: str, reasons: bool) -> JudgeTemplate:
    if criteria not in ("auto", "none"):
        raise InputError(f"--criteria must be auto or none, got {criteria!r}")
    if name is None:
        middle = "-criteria" if criteria == "auto" else ""
        name = f"pairwise{middle}-{'reasons' if reasons else 'result'}"
    template = load_template(name)
    uses = "criteria" in template.placeholders
    if uses and criteria == "none":
        raise InputError(f"template {template.name!r} uses {{criteria}}: give --criteria auto")
    if not uses and criteria == "auto":
        raise InputError(
            f"--criteria auto, but template {template.name!r} has no {{criteria}} field"
        )
    return template


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
        TimeElapsedColumn(), console=err_console,
    )  # fmt: skip


def _rate(value: float | int | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _print_summary(summary: PairwiseSummary, model_x: str, model_y: str) -> None:
    table = Table(title=f"X = {escape(model_x)}, Y = {escape(model_y)}: {summary.pairs} pair(s)")
    for column in ("method", "X wins", "Y wins", "ties", "invalid", "X win rate", "X adjusted",
                   "Y win rate", "Y adjusted"):  # fmt: skip
        table.add_column(column, justify="left" if column == "method" else "right")
    for name, counts in summary.methods.items():
        row = counts.to_json()
        table.add_row(
            name, *(str(row[key]) for key in ("x_wins", "y_wins", "ties", "invalid")),
            *(_rate(row[f"{side}{kind}win_rate"]) for side in ("x_", "y_")
              for kind in ("", "adjusted_")),
        )  # fmt: skip
    console.print(table)
    both = summary.agree + summary.disagree
    console.print(
        f"robustness (orders agree): {_rate(summary.robustness)} ({summary.agree} of {both}); "
        f"{summary.missing_letter} pair(s) with a reply lacking a verdict letter",
        highlight=False,
    )


async def _fill_criteria(
    client: ModelClient, items: list[PairItem], judge: str, store_path: Path, max_tokens: int
) -> list[PairItem]:
    template = load_template(CRITERIA_TEMPLATE)
    questions = [CriteriaQuestion(i.id, i.question, i.reference) for i in items]
    store = CriteriaStore(store_path)
    with _progress() as bar:
        task = bar.add_task("criteria", total=len(questions))
        found = await generate_criteria(
            client, template, questions, judge=judge, store=store, max_tokens=max_tokens,
            on_done=lambda: bar.advance(task),
        )  # fmt: skip
        bar.update(task, completed=len(questions))
    return [dataclasses.replace(item, criteria=found[item.id]) for item in items]


def _answer_reader(
    per_question: int | None, data_dir: Path | None
) -> Callable[[Path], dict[str, Answer]]:
    """JSONL files as they are; folders as pfgen runs (the benchmark loaded once, if needed)."""
    benchmarks: list[PfgenBenchmark] = []

    def read(path: Path) -> dict[str, Answer]:
        if not path.is_dir():
            if per_question is not None:
                raise InputError(f"--per-question applies to pfgen run folders, not {path}")
            return read_answers(path)
        if not benchmarks:
            benchmarks.append(PfgenBenchmark.load(data_dir))
        return run_answers(path, benchmarks[0], per_question=per_question)

    return read


@reports_errors
def pairwise_command(
    answers_x: Annotated[
        Path, typer.Argument(help="Answers of model X (JSONL), or a pfgen run folder.")
    ],
    answers_y: Annotated[
        Path, typer.Argument(help="Answers of model Y (JSONL, same ids), or a pfgen run folder.")
    ],
    judge: Annotated[
        str, typer.Option("--judge", "-j", help="PROVIDER/MODEL of the judge.", show_default=False)
    ],
    method: Annotated[str, typer.Option(help="prob, bs1, bs2 or all.")] = "all",
    criteria: Annotated[
        str, typer.Option(help="auto: generate criteria per question (seed 001); none.")
    ] = "none",
    reasons: Annotated[
        bool, typer.Option("--reasons/--no-reasons", help="Reasons before the verdict.")
    ] = False,
    template: Annotated[
        str | None,
        typer.Option(help="Template name or .toml path (default: from --criteria/--reasons)."),
    ] = None,
    output: Annotated[Path | None, typer.Option(help="Judgment file (JSONL, appended).")] = None,
    export_verdicts_to: Annotated[
        Path | None,
        typer.Option("--export-verdicts", help="Write verdicts for `hyoka judge agreement`."),
    ] = None,
    export_method: Annotated[
        str | None,
        typer.Option(
            "--export-method",
            help="Method whose verdicts are exported (default: --method, or prob for all).",
        ),
    ] = None,
    criteria_file: Annotated[
        Path | None,
        typer.Option(help="Generated criteria (JSON); default criteria.json beside --output."),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            min=1, help=f"Reply budget (default {MAX_TOKENS_RESULT}, reasons {MAX_TOKENS_REASONS})."
        ),
    ] = None,
    criteria_max_tokens: Annotated[
        int, typer.Option(min=1, help="Reply budget for each question's criteria.")
    ] = MAX_TOKENS_REASONS,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N pairs.")] = None,
    per_question: Annotated[
        int | None,
        typer.Option(min=1, help="pfgen run folders: the first N answers to each question."),
    ] = None,
    data_dir: DataDirOption = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight.")] = 8,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible server URL.")
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Backend option KEY=VALUE.")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not cache responses.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Judge every pair in both orders; verdicts by prob (seed 001), bs1 and bs2 (resumable).

    Answer files: JSONL lines {id, question, answer, reference?, model?, category?}; or two
    pfgen-bench run folders, whose answers pair up by question and position, with each
    question's sample answer as the reference.

    Examples:

      hyoka judge pairwise a.jsonl b.jsonl -j openai/gpt-4o --criteria auto --reasons

      hyoka judge pairwise a.jsonl b.jsonl -j openai/local --base-url http://127.0.0.1:8000/v1

      hyoka judge pairwise a.jsonl b.jsonl -j llamacpp/smollm2 --export-verdicts prob.jsonl

      hyoka judge pairwise results/org/a/1234abc results/org/b/5678def -j openai/gpt-4o \
          --per-question 3
    """
    methods = parse_methods(method)
    exported = parse_methods(export_method or (method if method != "all" else "prob"))
    if export_verdicts_to is not None and (len(exported) != 1 or exported[0] not in methods):
        raise InputError(f"--export-method must be one of the judged methods ({method})")
    chosen = _template(template, criteria, reasons)
    items = load_pairs(answers_x, answers_y, _answer_reader(per_question, data_dir))
    items = items[: limit or None]
    check_items(chosen, items, criteria=False)
    budget = max_tokens or (
        MAX_TOKENS_REASONS if chosen.output == "verdict-after-reasons" else MAX_TOKENS_RESULT
    )
    settings = JudgeSettings(
        judge=judge, base_url=base_url, temperature=0.0, max_tokens=budget,
        top_logprobs=20 if "prob" in methods else None,
    )  # fmt: skip
    model_x, model_y = items[0].model_x, items[0].model_y
    slug = judge.replace("/", "_")
    out = output or RESULTS / slug / f"{model_x}_vs_{model_y}.{chosen.name}.jsonl".replace("/", "_")
    plan = PairwisePlan(output=out, settings=settings, template=chosen, methods=methods)
    drop_partial_tail(out)
    check_output(plan, items, criteria=False)  # before the criteria cost any call
    provider = load_provider(judge, **provider_options(option or [], base_url))
    client = ModelClient(
        provider, cache=None if no_cache else ResponseCache(), concurrency=concurrency
    )
    check_judge(client, plan)
    err_console.print(f"Judgment file: {out}", highlight=False, soft_wrap=True)

    async def go() -> PairwiseReport:
        nonlocal items
        async with client:
            if "criteria" in chosen.placeholders:
                store = criteria_file or out.parent / "criteria.json"
                items = await _fill_criteria(client, items, judge, store, criteria_max_tokens)
            with _progress() as bar:
                task = bar.add_task("pairs", total=len(items))
                report = await judge_pairs(client, plan, items, lambda: bar.advance(task))
                bar.advance(task, report.done_before)
                return report

    report = asyncio.run(go())
    wanted = {item.id for item in items}
    records = [r for r in read_judgments(out) if r.id in wanted]
    summary = summarise(records, methods)
    if not as_json:
        _print_summary(summary, model_x, model_y)
    if summary.no_logprobs:
        shown = ", ".join(summary.no_logprobs[:10])
        err_console.print(
            f"[bold yellow]warning:[/] {len(summary.no_logprobs)} pair(s) came back without "
            f"log probabilities, so without a prob verdict: {escape(shown)}",
            highlight=False, soft_wrap=True,
        )  # fmt: skip
    if export_verdicts_to is not None:
        categories = {item.id: item.category for item in items}
        count = export_verdicts(records, exported[0], export_verdicts_to, categories)
        err_console.print(
            f"{count} {exported[0]} verdict(s) -> {export_verdicts_to}", highlight=False,
            soft_wrap=True,
        )  # fmt: skip
    stats = client.stats
    if as_json:
        run = {
            "output": str(out), "template": chosen.name, "template_version": chosen.version,
            "judge": judge, "model_x": model_x, "model_y": model_y, "judged": report.judged,
            "done_before": report.done_before, "judge_calls": stats.requests,
            "cache_hits": stats.cache_hits, "run_usage": stats.usage.model_dump(),
        }  # fmt: skip
        typer.echo(json.dumps({**run, **summary.to_json()}, ensure_ascii=False, indent=1))
        return
    typer.echo(
        f"{report.judged} pair(s) judged, {report.done_before} already done; "
        f"{stats.requests} judge call(s), {stats.cache_hits} from cache; tokens: "
        f"{stats.usage.prompt_tokens} in, {stats.usage.completion_tokens} out "
        f"(all judgments in the file: {summary.usage.prompt_tokens} in, "
        f"{summary.usage.completion_tokens} out)"
    )
