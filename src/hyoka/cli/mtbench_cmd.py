"""``hyoka mtbench ...``: multi-turn benchmarks judged by an LLM (pfmt-bench-fin-ja)."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hyoka.cli._common import (
    DataDirOption,
    cost_usd,
    err_console,
    provider_options,
    reports_errors,
)
from hyoka.data.paths import resolve_data_dir
from hyoka.errors import InputError
from hyoka.mtbench.answers import load_answers
from hyoka.mtbench.bench import Bench, bench_spec
from hyoka.mtbench.generate import (
    LOCAL_PROVIDERS,
    LOCAL_REPETITION_PENALTY,
    GeneratePlan,
    GenerateReport,
    Template,
    generate_answers,
    parse_temperatures,
)
from hyoka.mtbench.judge import DEFAULT_JUDGE, JudgePlan, JudgeReport, judge_answers
from hyoka.mtbench.langcheck import CHECKS, Check
from hyoka.mtbench.leaderboard import build_leaderboard, judgment_files
from hyoka.mtbench.radar import write_radar
from hyoka.mtbench.report import Format, render
from hyoka.providers.client import ModelClient, ResponseCache
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.providers.registry import load_provider, parse_model_string

mtbench_app = typer.Typer(
    help="Multi-turn benchmarks judged by an LLM: generate answers, judge them, rank models.",
    no_args_is_help=True,
)

#: the judgments the paper's Table 1 is computed from, inside the benchmark's data folder
PUBLISHED_JUDGMENTS = Path("model_judgment") / "gpt-4o-mini_single"

BenchOption = Annotated[
    str, typer.Option("--bench", help="Benchmark: pfmt-fin (pfmt-bench-fin-ja).")
]


@mtbench_app.command("leaderboard")
@reports_errors
def leaderboard_command(
    bench: BenchOption = "pfmt-fin",
    judgments: Annotated[
        list[Path] | None,
        typer.Option(
            "--judgments",
            help="Folder of judgment files (*.jsonl) or one file; repeat to combine. "
            "Default: the published gpt-4o-mini judgments in the data directory.",
        ),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="md, csv or json.")] = "md",
    per_turn: Annotated[
        bool, typer.Option("--per-turn/--no-per-turn", help="Also a table per turn.")
    ] = True,
    radar: Annotated[
        list[Path] | None,
        typer.Option("--radar", help="Write the radar chart: FILE.png or FILE.html; repeatable."),
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Rank models by category: the mean of both turns' scores, overall = mean of categories.

    Rule-based zeros (no answer, wrong language) count; unrated turns (-1) do not.
    Means are rounded half-up to two decimals.

    Examples:

      hyoka mtbench leaderboard --bench pfmt-fin

      hyoka mtbench leaderboard --judgments my_judgments/ --format json

      hyoka mtbench leaderboard --radar radar.png --radar radar.html
    """
    if fmt not in ("md", "csv", "json"):
        raise InputError(f"--format must be md, csv or json, got {fmt!r}")
    for path in radar or []:
        if path.suffix.lower() not in (".png", ".html"):
            raise InputError(f"--radar: {path} must end in .png or .html")
    spec = bench_spec(bench)
    folders = judgments or [resolve_data_dir(data_dir) / spec.folder / PUBLISHED_JUDGMENTS]
    loaded = Bench.load(bench, data_dir)
    board = build_leaderboard(loaded, judgment_files(folders))
    for model in board.incomplete():
        err_console.print(
            f"[yellow]warning:[/] {model.model}: {model.judged} of {board.expected_turns} "
            "turns judged",
            highlight=False,
            soft_wrap=True,
        )
    output: Format = "md" if fmt == "md" else "csv" if fmt == "csv" else "json"
    typer.echo(render(board, output, per_turn=per_turn), nl=False)
    for path in radar or []:
        write_radar(board, path, title=spec.title)
        err_console.print(f"radar chart: {path}", highlight=False, soft_wrap=True)


#: where answers and judgments go unless --output says otherwise
RESULTS = Path("results") / "mtbench"
_DISPLAY_NAMES = {EMBEDDED_MODEL: "HuggingFaceTB/SmolLM2-135M-Instruct"}

ResultsDirOption = Annotated[
    Path, typer.Option("--results-dir", help="Root of answer and judgment files.")
]
BaseUrlOption = Annotated[
    str | None, typer.Option("--base-url", help="OpenAI-compatible server URL.")
]
OptionsOption = Annotated[
    list[str] | None, typer.Option("--option", "-o", help="Backend option KEY=VALUE.")
]
ConcurrencyOption = Annotated[int, typer.Option(min=1, help="Requests in flight.")]
NoCacheOption = Annotated[bool, typer.Option("--no-cache", help="Do not cache responses.")]
LimitOption = Annotated[int | None, typer.Option(min=1, help="Only the first N dialogues.")]


def model_file_name(spec: str, name: str | None) -> str:
    """Upstream's model id: the model name with ``/`` written as ``_``."""
    if name:
        return name.replace("/", "_")
    _provider, model = parse_model_string(spec)
    return _DISPLAY_NAMES.get(spec, model).replace("/", "_")


def _progress_bar() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=err_console,
    )  # fmt: skip


@mtbench_app.command("generate")
@reports_errors
def generate_command(
    model: Annotated[
        str, typer.Option("--model", "-m", help="PROVIDER/MODEL.", show_default=False)
    ],
    bench: BenchOption = "pfmt-fin",
    template: Annotated[
        str,
        typer.Option(
            help="chat (the model's chat template), base (the Japanese dialogue template) or auto."
        ),
    ] = "auto",
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1)] = 4096,
    temperature: Annotated[
        list[str] | None,
        typer.Option("--temperature", help="CATEGORY=T over upstream's defaults; repeatable."),
    ] = None,
    repetition_penalty: Annotated[
        float | None,
        typer.Option("--repetition-penalty", help="Default: 1.1 for local models, else unset."),
    ] = None,
    injection: Annotated[
        str,
        typer.Option(
            help="strict: an answer that writes a role marker becomes empty; lenient: cut there."
        ),
    ] = "strict",
    name: Annotated[str | None, typer.Option(help="Model id in the answer file.")] = None,
    output: Annotated[Path | None, typer.Option("--output", help="Answer file (JSONL).")] = None,
    results_dir: ResultsDirOption = RESULTS,
    seed: Annotated[int | None, typer.Option(help="Sampling seed.")] = None,
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = 8,
    base_url: BaseUrlOption = None,
    option: OptionsOption = None,
    no_cache: NoCacheOption = False,
    data_dir: DataDirOption = None,
) -> None:
    """Answer the benchmark's two-turn dialogues (resumable: run it again to continue).

    Examples:

      hyoka mtbench generate --bench pfmt-fin -m openai/gpt-4o-mini

      hyoka mtbench generate -m llamacpp/model.gguf --template base --injection lenient

      hyoka mtbench generate -m llamacpp/smollm2 --limit 2 --max-tokens 64
    """
    if template not in ("auto", "chat", "base"):
        raise InputError(f"--template must be auto, chat or base, got {template!r}")
    if injection not in ("strict", "lenient"):
        raise InputError(f"--injection must be strict or lenient, got {injection!r}")
    provider_name, _model = parse_model_string(model)
    loaded = Bench.load(bench, data_dir)
    model_id = model_file_name(model, name)
    answer_file = output or results_dir / loaded.spec.name / "model_answer" / f"{model_id}.jsonl"
    if repetition_penalty is None and provider_name in LOCAL_PROVIDERS:
        repetition_penalty = LOCAL_REPETITION_PENALTY
    chosen: Template = "chat" if template == "chat" else "base" if template == "base" else "auto"
    plan = GeneratePlan(
        answer_file=answer_file, model_id=model_id, template=chosen, max_tokens=max_tokens,
        temperatures=parse_temperatures(temperature or [], loaded),
        repetition_penalty=repetition_penalty,
        injection="strict" if injection == "strict" else "lenient", limit=limit, seed=seed,
    )  # fmt: skip
    provider = load_provider(model, **provider_options(option or [], base_url))
    client = ModelClient(
        provider, cache=None if no_cache else ResponseCache(), concurrency=concurrency
    )
    total = len(loaded.questions[: limit or None])
    err_console.print(f"Answer file: {answer_file}", highlight=False, soft_wrap=True)
    with _progress_bar() as bar:
        task = bar.add_task("dialogues", total=total)

        async def go() -> GenerateReport:
            async with client:
                return await generate_answers(plan, loaded, client, lambda: bar.advance(task))

        report = asyncio.run(go())
    stats = client.stats
    typer.echo(
        f"{report.generated} dialogue(s) answered, {report.done_before} already done "
        f"({report.template or template} template); {report.injections} injection(s) caught "
        f"({injection}), {report.empty} empty answer(s); {stats.requests} request(s), "
        f"{stats.cache_hits} from cache; tokens: {stats.usage.prompt_tokens} in, "
        f"{stats.usage.completion_tokens} out"
    )


_COUNTS = ("judged", "done_before", "no_answer", "wrong_language", "unrated", "judge_calls")


@mtbench_app.command("judge")
@reports_errors
def judge_command(
    judge: Annotated[
        str, typer.Option("--judge", "-j", help="PROVIDER/MODEL of the judge.", show_default=False)
    ],
    answers: Annotated[
        list[Path],
        typer.Option("--answers", "-a", help="Answer file(s) to judge (FastChat JSONL)."),
    ],
    bench: BenchOption = "pfmt-fin",
    judge_name: Annotated[
        str | None,
        typer.Option("--judge-name", help=f"Judge name in the records (default {DEFAULT_JUDGE})."),
    ] = None,
    lang_check: Annotated[
        str, typer.Option("--lang-check", help="upstream (fastText, 20 characters) or script.")
    ] = "upstream",
    output_dir: Annotated[
        Path | None, typer.Option("--output-dir", help="Folder for the judgment files.")
    ] = None,
    results_dir: ResultsDirOption = RESULTS,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1)] = 2048,
    price_in: Annotated[
        float, typer.Option("--price-in", help="USD per million prompt tokens, for the cost.")
    ] = 0.0,
    price_out: Annotated[
        float, typer.Option("--price-out", help="USD per million completion tokens.")
    ] = 0.0,
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = 8,
    base_url: BaseUrlOption = None,
    option: OptionsOption = None,
    no_cache: NoCacheOption = False,
    data_dir: DataDirOption = None,
    mode: Annotated[
        str, typer.Option(help="single (grade each answer) or pairwise (compare answer files).")
    ] = "single",
    baseline: Annotated[
        str | None,
        typer.Option(help="Pairwise: compare each model with this one (default: every pair)."),
    ] = None,
    method: Annotated[str, typer.Option(help="Pairwise: prob, bs1, bs2 or all.")] = "all",
) -> None:
    """Grade every turn with the benchmark's Japanese judge prompts (resumable).

    Empty answers and answers in the wrong language score 0 without a judge call (pairwise:
    they lose to a valid answer, or tie with another such answer, without a judge call).

    Examples:

      hyoka mtbench judge -j openai/gpt-4o-mini -a results/mtbench/pfmt-fin/model_answer/m.jsonl

      hyoka mtbench judge -j openai/local --base-url http://127.0.0.1:8000/v1 -a m.jsonl

      hyoka mtbench judge --mode pairwise -j openai/gpt-4o -a x.jsonl -a y.jsonl --method bs2
    """
    if lang_check not in CHECKS:
        raise InputError(f"--lang-check must be one of {', '.join(CHECKS)}, got {lang_check!r}")
    if mode not in ("single", "pairwise"):
        raise InputError(f"--mode must be single or pairwise, got {mode!r}")
    if mode == "single" and (baseline is not None or method != "all"):
        raise InputError("--baseline and --method are for --mode pairwise")
    loaded = Bench.load(bench, data_dir)
    # every answer file is checked before the first judge call
    loaded_answers = [
        (path, load_answers(path, loaded, complete=limit is None)) for path in answers
    ]
    name = judge_name or DEFAULT_JUDGE
    folder = output_dir or results_dir / loaded.spec.name / "model_judgment" / f"{name}_single"
    provider = load_provider(judge, **provider_options(option or [], base_url))
    client = ModelClient(
        provider, cache=None if no_cache else ResponseCache(), concurrency=concurrency
    )
    check: Check = "script" if lang_check == "script" else "upstream"
    if mode == "pairwise":
        from hyoka.cli.mtbench_pairwise_cmd import judge_pairwise

        judge_pairwise(
            bench=loaded, answers=loaded_answers, client=client, judge_name=name, judge=judge,
            base_url=base_url,
            output=(output_dir or folder.parent) / f"{name}_pair.jsonl", baseline=baseline,
            method=method, check=check, max_tokens=max_tokens, limit=limit,
            price_in=price_in, price_out=price_out,
        )  # fmt: skip
        return
    totals = JudgeReport()

    async def go() -> None:
        async with client:
            with _progress_bar() as bar:
                for path, by_id in loaded_answers:
                    model = next(iter(by_id.values())).model_id
                    plan = JudgePlan(
                        output=folder / f"{model}.jsonl", judge_name=name, lang_check=check,
                        max_tokens=max_tokens, limit=limit,
                    )  # fmt: skip
                    task = bar.add_task(model, total=2 * len(loaded.questions[: limit or None]))
                    report = await judge_answers(
                        plan, loaded, by_id, model, client, functools.partial(bar.advance, task)
                    )
                    bar.advance(task, report.done_before)
                    for attr in _COUNTS:
                        setattr(totals, attr, getattr(totals, attr) + getattr(report, attr))
                    totals.usage = totals.usage + report.usage
                    err_console.print(f"{path} -> {plan.output}", highlight=False, soft_wrap=True)

    asyncio.run(go())
    usage = client.stats.usage
    cost = cost_usd(usage, price_in, price_out)
    typer.echo(
        f"{totals.judged} turn(s) judged, {totals.done_before} already done: "
        f"{totals.no_answer} no answer, {totals.wrong_language} wrong language ({check}), "
        f"{totals.unrated} without a rating; {totals.judge_calls} judge call(s), "
        f"{client.stats.cache_hits} from cache; tokens: {usage.prompt_tokens} in, "
        f"{usage.completion_tokens} out; cost ${cost:.4f}"
    )
