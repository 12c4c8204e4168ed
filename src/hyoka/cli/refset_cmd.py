"""``hyoka refset ...``: build pfgen-style reference answer sets, stage by stage.

Every stage reads and writes files under one work folder and can be run again to resume;
``build`` runs stages 2–7 from a settings file. What each stage removed, and why, is
appended to ``<work>/<stage>/audit.jsonl``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hyoka.cli._common import (
    BaseUrlOption,
    ConcurrencyOption,
    CpusPerWorkerOption,
    DataDirOption,
    GpusPerWorkerOption,
    JsonOption,
    MaxTokensOption,
    NumExamplesOption,
    OptionalModelOption,
    ProviderOptionsOption,
    SeedTextOption,
    TemperatureOption,
    TopKOption,
    TopPOption,
    console,
    echo_json,
    progress_bar,
    provider_options,
    reports_errors,
    say,
)
from hyoka.cli._tables import print_table
from hyoka.errors import HyokaError, InputError, setting_problems

# the two enums are flag types and the protocol the flags' defaults, so typer needs them
# when it builds the commands (they load nothing heavy)
from hyoka.pfgen import REFSET_PROTOCOL, Mode
from hyoka.providers import CONCURRENCY
from hyoka.refset import Executor

if TYPE_CHECKING:
    from hyoka.refset import (
        GenerateConfig,
        GenerationWatcher,
        PlanSection,
        StageOutcome,
        WorkerRates,
    )

Work = Annotated[Path, typer.Argument(help="Work folder holding every stage's files.")]
Questions = Annotated[
    list[str] | None,
    typer.Option(
        "--question", "-q", help="Only this question id (repeatable).", show_default=False
    ),
]
ExecutorOption = Annotated[
    Executor,
    typer.Option(
        "--executor",
        help="Run jobs here or on Ray (the cluster of RAY_ADDRESS, which must answer within "
        "HYOKA_RAY_CONNECT_TIMEOUT seconds, 30 by default).",
    ),
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
#: ``GenerateConfig`` fields whose flag is not ``--field-name``
_FLAGS = {"model": "--model", "options": "--option"}
AllowFewer = Annotated[
    bool, typer.Option("--allow-fewer", help="Keep a smaller pool whole instead of failing.")
]


def _print_outcomes(stage: str, reports: list[dict[str, Any]]) -> None:
    from rich.table import Table

    from hyoka.refset import stage_outcome

    table = Table(title=stage)
    for column in ("Question", "Before", "After", "Removed", "Note"):
        table.add_column(column, justify="left" if column in ("Question", "Note") else "right")
    for outcome in map(stage_outcome, reports):
        table.add_row(
            outcome.question_id,
            str(outcome.before),
            str(outcome.after),
            str(outcome.removed),
            _note(outcome),
        )
    print_table(table)


def _note(outcome: StageOutcome) -> str:
    note = "up to date" if outcome.skipped else ""
    return note + "; ".join(
        f"{name}: MSE {c['mse_before']:.3g} -> {c['mse_after']:.3g}, {c['swaps']} swaps"
        for name, c in outcome.climb.items()
    )


def _stage(
    work: Path,
    name: str,
    params: dict[str, Any],
    questions: list[str] | None,
    executor: Executor,
    as_json: bool,
) -> None:
    from hyoka.refset import run_stage, stage_params

    reports = run_stage(work, name, stage_params(name, **params), questions, executor)
    if as_json:
        echo_json({"stage": name, "questions": _outcomes_json(reports)})
    else:
        _print_outcomes(name, reports)


def _outcomes_json(reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from hyoka.refset import stage_outcome

    return [stage_outcome(report).to_json() for report in reports]


@reports_errors
def generate_command(
    ctx: typer.Context,
    work: Annotated[
        Path | None,
        typer.Argument(help="Work folder holding every stage's files.", show_default=False),
    ] = None,
    model: OptionalModelOption = None,
    set_name: Annotated[
        str | None,
        typer.Option(
            "--set-name",
            help="Reference-set name for this model (P, S, T ...).",
            show_default=False,
        ),
    ] = None,
    answers: Annotated[int, typer.Option(min=1, help="Answers per question.")] = 1000,
    mode: Annotated[Mode, typer.Option(help="Prompt style.")] = Mode.CHAT,
    num_examples: NumExamplesOption = REFSET_PROTOCOL.num_examples,
    temperature: TemperatureOption = REFSET_PROTOCOL.temperature,
    top_p: TopPOption = REFSET_PROTOCOL.top_p,
    top_k: TopKOption = REFSET_PROTOCOL.top_k,
    max_tokens: MaxTokensOption = REFSET_PROTOCOL.max_tokens,
    seed: SeedTextOption = "",
    batch_size: Annotated[int, typer.Option("--batch-size", min=1)] = 100,
    shards: Annotated[int, typer.Option(min=1, help="Shard files per question.")] = 1,
    snippets: Annotated[
        Path | None, typer.Option(help="JSONL of retrieval passages {question_id, text}.")
    ] = None,
    snippets_k: Annotated[int, typer.Option("--snippets-k", min=0)] = 5,
    concurrency: ConcurrencyOption = CONCURRENCY,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    cache: Annotated[
        bool, typer.Option("--cache", help="Also keep responses in the response cache.")
    ] = False,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
    workers: Annotated[
        int, typer.Option("--workers", min=1, help="Ray workers, each loading the model once.")
    ] = 1,
    cpus_per_worker: CpusPerWorkerOption = 1.0,
    gpus_per_worker: GpusPerWorkerOption = 0.0,
    benchmark: Benchmark = None,
    config_file: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="Generation settings file (TOML, the one hyoka refset plan reads): WORK, "
            "the model, every setting and the workers from it; no other flag but --cache.",
            show_default=False,
        ),
    ] = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Stage 1: generate answers with many-shot prompts into sharded files (resumable).

    With --executor ray, --workers long-lived workers (on the cluster of RAY_ADDRESS, else a
    Ray started here) each load the model once and make batches; a lost worker costs only
    its batch in flight.

    --base-url names a local OpenAI-compatible server (a settings file gives it as
    options.base_url); it is kept in generation.json with any secret in it redacted.

    Examples: hyoka refset generate work -m vllm/pfnet/plamo-100b --set-name P --answers
    100000; hyoka refset generate work -m openai/my-model --base-url
    http://127.0.0.1:8000/v1 --set-name S; hyoka refset generate --config generate.toml
    (the file hyoka refset plan reads).
    """
    from hyoka.refset import generate_sets

    chosen = _settings(
        ctx, config_file, work, question, snippets, executor, workers, cpus_per_worker,
        gpus_per_worker, benchmark, model=model, set_name=set_name, mode=mode,
        num_examples=num_examples, temperature=temperature, top_p=top_p, top_k=top_k,
        max_tokens=max_tokens, seed=seed, batch_size=batch_size, snippets_k=snippets_k,
        options=option, base_url=base_url, answers=answers, shards=shards,
        concurrency=concurrency,
    )  # fmt: skip
    config, folder, source, questions, passages, plan = chosen
    with _shown_generation() as watcher:
        done = generate_sets(
            folder, config, benchmark=source, questions=questions, snippets=passages,
            plan=plan, cache=cache, data_dir=data_dir, watcher=watcher,
        )  # fmt: skip
    if as_json:
        echo_json(done.to_json())
        return
    totals = done.totals
    console.print(
        f"{totals.answers} answer(s) generated in {totals.batches} batch(es); "
        f"{totals.failed} empty after retries; "
        f"{totals.damaged_bytes} damaged byte(s) dropped from shard tails",
        highlight=False,
    )
    for note in totals.notes:
        say(note, err=True)
    if done.rates is not None:
        say(done.rates.summary(), err=True)


#: what ``_settings`` hands back: the generation's settings, the work folder, the
#: benchmark folder, the questions, the snippets file and the workers' plan
Settings = tuple[
    "GenerateConfig", Path, "Path | None", "list[str] | None", "Path | None", "PlanSection"
]


def _settings(
    ctx: typer.Context,
    config_file: Path | None,
    work: Path | None,
    question: list[str] | None,
    snippets: Path | None,
    executor: Executor,
    workers: int,
    cpus_per_worker: float,
    gpus_per_worker: float,
    benchmark: Path | None,
    *,
    model: str | None,
    set_name: str | None,
    options: list[str] | None,
    base_url: str | None,
    **fields: Any,
) -> Settings:
    """The generation's settings from --config FILE (and no generation flag beside it),
    else from the flags; a setting out of bounds is one error naming its flag."""
    from hyoka.refset import GenerateConfig, PlanSection, load_generate_file

    if config_file is not None:
        _only_the_file(ctx, config_file)
        read = load_generate_file(config_file)
        return (read.generation, read.work, read.benchmark, list(read.questions) or None,
                read.snippets, read.plan)  # fmt: skip
    if work is None or model is None or set_name is None:
        raise InputError("give WORK, --model and --set-name, or --config FILE")
    from pydantic import ValidationError

    given = provider_options(options)
    if base_url:  # where the file keeps it: the provider's option, redacted when kept
        given["base_url"] = base_url
    try:
        config = GenerateConfig(model=model, set_name=set_name, options=given, **fields)
        plan = PlanSection(
            workers=workers, cpus_per_worker=cpus_per_worker, gpus_per_worker=gpus_per_worker,
            executor=executor,
        )  # fmt: skip
    except ValidationError as exc:
        raise HyokaError(setting_problems("generation", exc.errors(), _FLAGS)) from None
    return config, work, benchmark, question, snippets, plan


@contextmanager
def _shown_generation() -> Iterator[GenerationWatcher]:
    """A progress bar of the answers, its line the workers' rates as they come."""
    from hyoka.refset import GenerationWatcher

    with progress_bar(rate=True, remaining=True) as bar:
        task = bar.add_task("answers", total=None)

        class Shown(GenerationWatcher):
            def started(self, total: int) -> None:
                bar.update(task, total=total)

            def advanced(self, answers: int) -> None:
                bar.advance(task, answers)

            def heard(self, rates: WorkerRates) -> None:
                bar.update(task, description=f"answers {rates.line()}".rstrip())

        yield Shown()


def _only_the_file(ctx: typer.Context, config_file: Path) -> None:
    """With --config, a generation flag given too is an error: the file alone decides, so
    that the answers (and the plan measured from the same file) never depend on which
    flags were typed."""
    allowed = {"ctx", "config_file", "cache", "data_dir", "as_json"}
    for param in ctx.command.params:
        if param.name in allowed or param.name is None:
            continue
        source = ctx.get_parameter_source(param.name)
        if source is not None and source.name == "COMMANDLINE":
            shown = param.opts[0] if param.opts and param.opts[0].startswith("-") else "WORK"
            raise InputError(
                f"{shown}: not with --config {config_file}; the file holds the settings"
            )


@reports_errors
def import_command(
    data: Annotated[Path, typer.Argument(help="Folder of Qxx.json files whose sets to import.")],
    work: Work,
    question: Questions = None,
    as_json: JsonOption = False,
) -> None:
    """Put existing reference sets into the work folder as if generated (to rebuild them)."""
    from hyoka.refset import import_answers

    counts = import_answers(data, work, question)
    total = sum(sum(v.values()) for v in counts.values())
    if as_json:
        echo_json({"imported": total, "questions": counts})
        return
    console.print(f"imported {total} answers of {len(counts)} question(s)", highlight=False)


@reports_errors
def normalise_command(
    work: Work,
    rules: Annotated[
        Path | None, typer.Option(help="Rewrite rules (TOML); default: official-document style.")
    ] = None,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
    as_json: JsonOption = False,
) -> None:
    """Stage 2: apply the regex rewrites, merge equal answers (counts add up)."""
    params = {"rules": str(rules) if rules else None}
    _stage(work, "normalise", params, question, executor, as_json)


@reports_errors
def filter_rules_command(
    work: Work,
    rules: Annotated[
        Path | None, typer.Option(help="NG rules (TOML, an array of ng tables).")
    ] = None,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
    as_json: JsonOption = False,
) -> None:
    """Stage 3: drop answers matching a question's NG patterns; counts per rule."""
    params = {"rules": str(rules) if rules else None}
    _stage(work, "filter-rules", params, question, executor, as_json)


@reports_errors
def filter_rare_command(
    work: Work,
    n: Annotated[int, typer.Option("--n", min=0, max=20, help="n-gram length (0: off).")] = 5,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
    as_json: JsonOption = False,
) -> None:
    """Stage 4: drop answers holding a character n-gram that occurs once in the question."""
    _stage(work, "filter-rare", {"n": n}, question, executor, as_json)


@reports_errors
def select_length_command(
    work: Work,
    size: Annotated[int, typer.Option(min=1, help="Answers kept per set (N).")] = 30_000,
    target: Annotated[int, typer.Option(min=1, help="Target length in characters.")] = 100,
    allow_fewer: AllowFewer = False,
    question: Questions = None,
    as_json: JsonOption = False,
) -> None:
    """Stage 5: keep the N answers per set closest to the target length."""
    params = {"size": size, "target": target, "allow_fewer": allow_fewer}
    _stage(work, "select-length", params, question, Executor.LOCAL, as_json)


@reports_errors
def select_representative_command(
    work: Work,
    size: Annotated[int, typer.Option(min=1, help="Answers kept per set (M).")] = 1_000,
    max_n: Annotated[int, typer.Option("--max-n", min=1, max=10)] = 10,
    seed: Annotated[int, typer.Option()] = 0,
    allow_fewer: AllowFewer = False,
    question: Questions = None,
    executor: ExecutorOption = Executor.LOCAL,
    as_json: JsonOption = False,
) -> None:
    """Stage 6: hill-climb the M answers whose 1–10-gram distribution matches the N's."""
    params = {"size": size, "max_n": max_n, "seed": seed, "allow_fewer": allow_fewer}
    _stage(work, "select-representative", params, question, executor, as_json)


@reports_errors
def publish_command(
    work: Work,
    out: Annotated[
        Path,
        typer.Argument(
            help="Output data directory (use as --data-dir); its pfgen-bench/data must be new, "
            "empty or published by hyoka."
        ),
    ],
    question: Questions = None,
    benchmark: Benchmark = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Stage 7: write question files in pfgen-bench's layout under OUT/pfgen-bench/data."""
    from hyoka.refset import benchmark_source, publish

    files = publish(work, benchmark_source(benchmark, data_dir), out, question)
    if as_json:
        echo_json({"files": [str(f) for f in files], "data_dir": str(out)})
        return
    say(f"{len(files)} question file(s) written; score with --data-dir {out}")


@reports_errors
def build_command(
    config: Annotated[Path, typer.Argument(help="Build settings (TOML).")],
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Stages 2–7 from a settings file (see docs); each stage resumes as on its own."""
    from hyoka.refset import build, load_build_config

    settings = load_build_config(config)
    stages: dict[str, list[dict[str, Any]]] = {}

    def kept(name: str, reports: list[dict[str, Any]]) -> None:
        stages[name] = _outcomes_json(reports)

    files = build(settings, data_dir, kept if as_json else _print_outcomes)
    if as_json:
        written = [str(f) for f in files]
        echo_json({"stages": stages, "files": written, "data_dir": str(settings.out)})
        return
    say(f"{len(files)} question file(s) written; score with --data-dir {settings.out}")
