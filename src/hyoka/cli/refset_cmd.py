"""``hyoka refset ...``: build pfgen-style reference answer sets, stage by stage.

Every stage reads and writes files under one work folder and can be run again to resume;
``build`` runs stages 2–7 from a settings file. What each stage removed, and why, is
appended to ``<work>/<stage>/audit.jsonl``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hyoka.cli._common import DataDirOption, console, err_console, provider_options, reports_errors
from hyoka.cli.pfgen_generate_cmd import ModelOption
from hyoka.errors import HyokaError
from hyoka.pfgen.prompts import Mode
from hyoka.refset.build import benchmark_source, build
from hyoka.refset.config import load_build_config
from hyoka.refset.executor import Executor
from hyoka.refset.generate import GenerateConfig
from hyoka.refset.pipeline import run_stage, stage_params, summary_of
from hyoka.refset.publish import publish
from hyoka.refset.run_generation import import_answers, run_generation

refset_app = typer.Typer(
    help="Build reference answer sets: generate, normalise, filter, select, publish.",
    no_args_is_help=True,
)

Work = Annotated[Path, typer.Argument(help="Work folder holding every stage's files.")]
Questions = Annotated[
    list[str] | None,
    typer.Option(
        "--question", "-q", help="Only this question id (repeatable).", show_default=False
    ),
]
ExecutorOption = Annotated[
    Executor, typer.Option("--executor", help="Run jobs here or on Ray (Ray Data).")
]
Benchmark = Annotated[
    Path | None,
    typer.Option(
        "--benchmark",
        help="Benchmark definition folder (questions.jsonl + Qxx.json); default: pfgen-bench "
        "in the data directory.",
        show_default=False,
    ),
]
AllowFewer = Annotated[
    bool, typer.Option("--allow-fewer", help="Keep a smaller pool whole instead of failing.")
]


def _print_reports(stage: str, reports: list[dict[str, Any]]) -> None:
    table = Table(title=stage)
    for column in ("Question", "Before", "After", "Removed", "Note"):
        table.add_column(column, justify="left" if column in ("Question", "Note") else "right")
    for report in reports:
        s = summary_of(report)
        before, after = int(s.get("before", 0)), int(s.get("after", 0))
        note = "up to date" if report["skipped"] else ""
        climb = s.get("climb")
        if isinstance(climb, dict) and climb:
            note += "; ".join(
                f"{k}: MSE {v['mse_before']:.3g} -> {v['mse_after']:.3g}, {v['swaps']} swaps"
                for k, v in climb.items()
            )
        table.add_row(report["qid"], str(before), str(after), str(before - after), note)
    console.print(table)


def _stage(
    work: Path,
    name: str,
    params: dict[str, Any],
    questions: list[str] | None,
    executor: Executor,
) -> None:
    reports = run_stage(work, name, stage_params(name, **params), questions, executor)
    _print_reports(name, reports)


@refset_app.command("generate")
@reports_errors
def generate_command(
    work: Work,
    model: ModelOption,
    set_name: Annotated[
        str, typer.Option("--set-name", help="Reference-set name for this model (P, S, T ...).")
    ],
    answers: Annotated[int, typer.Option(min=1, help="Answers per question.")] = 1000,
    mode: Annotated[Mode, typer.Option(help="Prompt style.")] = Mode.CHAT,
    num_examples: Annotated[int, typer.Option("--num-examples", min=0)] = 20,
    temperature: Annotated[float, typer.Option()] = 1.0,
    top_p: Annotated[float, typer.Option("--top-p")] = 0.98,
    top_k: Annotated[int, typer.Option("--top-k", min=1)] = 1000,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1)] = 300,
    seed: Annotated[str, typer.Option(help="Seed string for examples, snippets, sampling.")] = "",
    batch_size: Annotated[int, typer.Option("--batch-size", min=1)] = 100,
    shards: Annotated[int, typer.Option(min=1, help="Shard files per question.")] = 1,
    snippets: Annotated[
        Path | None, typer.Option(help="JSONL of retrieval passages {question_id, text}.")
    ] = None,
    snippets_k: Annotated[int, typer.Option("--snippets-k", min=0)] = 5,
    concurrency: Annotated[int, typer.Option(min=1)] = 8,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Backend option KEY=VALUE.")
    ] = None,
    cache: Annotated[
        bool, typer.Option("--cache", help="Also keep responses in the response cache.")
    ] = False,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
    benchmark: Benchmark = None,
    data_dir: DataDirOption = None,
) -> None:
    """Stage 1: generate answers with many-shot prompts into sharded files (resumable).

    Example: hyoka refset generate work -m vllm/pfnet/plamo-100b --set-name P --answers 100000
    """
    try:
        config = GenerateConfig(
            model=model, set_name=set_name, mode=mode, num_examples=num_examples,
            temperature=temperature, top_p=top_p, top_k=top_k, max_tokens=max_tokens, seed=seed,
            batch_size=batch_size, snippets_k=snippets_k, options=provider_options(option or []),
            answers=answers, shards=shards, concurrency=concurrency,
        )  # fmt: skip
    except ValueError as exc:
        raise HyokaError(f"invalid generation setting: {exc}") from None
    source = benchmark_source(benchmark, data_dir)
    chosen = source.select(question)
    cache_dir = None
    if cache:
        from hyoka.providers.client import default_cache_dir

        cache_dir = default_cache_dir()
    with Progress(
        TextColumn("answers"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err_console,
    ) as bar:  # fmt: skip
        task = bar.add_task("answers", total=len(chosen) * answers)
        reports = run_generation(
            work, config, source, question, snippets, executor, cache_dir,
            lambda n: bar.advance(task, n),
        )  # fmt: skip
    made = sum(r["answers"] for r in reports)
    damaged = sum(r["damaged_bytes"] for r in reports)
    console.print(
        f"{made} answer(s) generated in {sum(r['batches'] for r in reports)} batch(es); "
        f"{sum(r['failed'] for r in reports)} empty after retries; "
        f"{damaged} damaged byte(s) dropped from shard tails",
        highlight=False,
    )
    for report in reports:
        for note in report["notes"]:
            err_console.print(note, highlight=False)


@refset_app.command("import")
@reports_errors
def import_command(
    data: Annotated[Path, typer.Argument(help="Folder of Qxx.json files whose sets to import.")],
    work: Work,
    question: Questions = None,
) -> None:
    """Put existing reference sets into the work folder as if generated (to rebuild them)."""
    counts = import_answers(data, work, question)
    total = sum(sum(v.values()) for v in counts.values())
    console.print(f"imported {total} answers of {len(counts)} question(s)", highlight=False)


@refset_app.command("normalise")
@reports_errors
def normalise_command(
    work: Work,
    rules: Annotated[
        Path | None, typer.Option(help="Rewrite rules (TOML); default: official-document style.")
    ] = None,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
) -> None:
    """Stage 2: apply the regex rewrites, merge equal answers (counts add up)."""
    _stage(work, "normalise", {"rules": str(rules) if rules else None}, question, executor)


@refset_app.command("filter-rules")
@reports_errors
def filter_rules_command(
    work: Work,
    rules: Annotated[Path | None, typer.Option(help="NG rules (TOML, [[ng]] entries).")] = None,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
) -> None:
    """Stage 3: drop answers matching a question's NG patterns; counts per rule."""
    _stage(work, "filter-rules", {"rules": str(rules) if rules else None}, question, executor)


@refset_app.command("filter-rare")
@reports_errors
def filter_rare_command(
    work: Work,
    n: Annotated[int, typer.Option("--n", min=0, max=20, help="n-gram length (0: off).")] = 5,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
) -> None:
    """Stage 4: drop answers holding a character n-gram that occurs once in the question."""
    _stage(work, "filter-rare", {"n": n}, question, executor)


@refset_app.command("select-length")
@reports_errors
def select_length_command(
    work: Work,
    size: Annotated[int, typer.Option(min=1, help="Answers kept per set (N).")] = 30_000,
    target: Annotated[int, typer.Option(min=1, help="Target length in characters.")] = 100,
    allow_fewer: AllowFewer = False,
    question: Questions = None,
) -> None:
    """Stage 5: keep the N answers per set closest to the target length."""
    params = {"size": size, "target": target, "allow_fewer": allow_fewer}
    _stage(work, "select-length", params, question, Executor.LOCAL)


@refset_app.command("select-representative")
@reports_errors
def select_representative_command(
    work: Work,
    size: Annotated[int, typer.Option(min=1, help="Answers kept per set (M).")] = 1_000,
    max_n: Annotated[int, typer.Option("--max-n", min=1, max=10)] = 10,
    seed: Annotated[int, typer.Option()] = 0,
    allow_fewer: AllowFewer = False,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
) -> None:
    """Stage 6: hill-climb the M answers whose 1–10-gram distribution matches the N's."""
    params = {"size": size, "max_n": max_n, "seed": seed, "allow_fewer": allow_fewer}
    _stage(work, "select-representative", params, question, executor)


@refset_app.command("publish")
@reports_errors
def publish_command(
    work: Work,
    out: Annotated[Path, typer.Argument(help="Output data directory (use as --data-dir).")],
    question: Questions = None,
    benchmark: Benchmark = None,
    data_dir: DataDirOption = None,
) -> None:
    """Stage 7: write question files in pfgen-bench's layout under OUT/pfgen-bench/data."""
    files = publish(work, benchmark_source(benchmark, data_dir), out, question)
    console.print(f"{len(files)} question file(s) written; score with --data-dir {out}")


@refset_app.command("build")
@reports_errors
def build_command(
    config: Annotated[Path, typer.Argument(help="Build settings (TOML).")],
    data_dir: DataDirOption = None,
) -> None:
    """Stages 2–7 from a settings file (see docs); each stage resumes as on its own."""
    settings = load_build_config(config)
    files = build(settings, data_dir, _print_reports)
    console.print(f"{len(files)} question file(s) written; score with --data-dir {settings.out}")
