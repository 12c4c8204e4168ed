"""``hyoka refset plan``: what a reference set's generation will cost, before it is run.

The plan reads the same settings file a generation runs from, so the measured calibration
and the run it stands for cannot differ in model, prompt or sampling.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli import _common
from hyoka.cli._common import BaseUrlOption, DataDirOption, reports_errors
from hyoka.cli._tables import print_table

if TYPE_CHECKING:
    from hyoka.refset import Calibration, Estimate, PaperScale


@reports_errors
def plan_command(
    config: Annotated[
        Path, typer.Argument(help="Generation settings (TOML; see generate-example.toml).")
    ],
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", min=1,
            help="Workers to calibrate and plan for (default: the file's plan.workers).",
            show_default=False,
        ),
    ] = None,
    calibration_answers: Annotated[
        int | None,
        typer.Option(
            "--calibration-answers", min=1,
            help="Answers per worker in the calibration (default: the file's "
            "plan.calibration_answers, else 20).",
            show_default=False,
        ),
    ] = None,
    no_calibration: Annotated[
        bool,
        typer.Option(
            "--no-calibration",
            help="Run nothing: answers, and the papers' scale on the stated defaults.",
        ),
    ] = False,
    json_file: Annotated[
        Path | None,
        typer.Option("--json", help="Also write the plan, signed, to this JSON file.",
                     dir_okay=False, show_default=False),
    ] = None,
    gpu: Annotated[
        str | None,
        typer.Option("--gpu", help="GPU named in the papers' scale (default: H100 SXM).",
                     show_default=False),
    ] = None,
    gpu_tflops: Annotated[
        float | None,
        typer.Option("--gpu-tflops", help="Its peak dense BF16 TFLOP/s (default: 989.4).",
                     show_default=False),
    ] = None,
    utilisation: Annotated[
        float | None,
        typer.Option("--utilisation", help="Share of that peak reached (default: 0.4).",
                     show_default=False),
    ] = None,
    prompt_tokens: Annotated[
        float | None,
        typer.Option("--prompt-tokens",
                     help="Prompt tokens per answer at the papers' scale (default: measured "
                     "with 20-shot prompts, else 2,500).", show_default=False),
    ] = None,
    completion_tokens: Annotated[
        float | None,
        typer.Option("--completion-tokens",
                     help="Completion tokens per answer there (default: measured with "
                     "20-shot prompts, else 100).", show_default=False),
    ] = None,
    base_url: BaseUrlOption = None,
    data_dir: DataDirOption = None,
) -> None:  # fmt: skip
    """Estimate answers, tokens and time from a short measured run; the papers' in GPU-hours.

    The calibration makes --calibration-answers answers per worker with the file's model,
    settings, executor and workers, in a temporary folder removed afterwards; the estimate
    scales it to the file's questions x answers, and the papers' 150 million answers (seed
    000 §3.2.1) are written in GPU-hours per model, every assumption printed beside them.
    --base-url names the OpenAI-compatible server the file's model is called at (the
    file's options.base_url otherwise), kept in --json with any secret in it redacted.
    Example: hyoka refset plan generate.toml --workers 4 --json plan.json
    """
    from hyoka.refset import plan_refsets

    def calibrating(per_worker: int, workers: int, executor: str) -> None:
        _common.err_console.print(
            f"calibrating: {per_worker} answer(s) per worker on {workers} worker(s) "
            f"({executor}) ...",
            highlight=False,
        )

    plan = plan_refsets(
        config, workers=workers, calibration_answers=calibration_answers,
        no_calibration=no_calibration, record_file=json_file, gpu=gpu,
        peak_tflops=gpu_tflops, utilisation=utilisation, prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens, base_url=base_url, data_dir=data_dir,
        calibrating=calibrating,
    )  # fmt: skip
    if plan.calibration is not None:
        _print_calibration(plan.calibration)
    _print_estimate(plan.estimate, plan.model)
    _print_paper(plan.paper)
    _common.say(f"signature: {plan.record['signature']['line']}")
    if json_file is not None:
        _common.say(f"wrote {json_file}", err=True)


def _print_calibration(calibration: Calibration) -> None:
    from rich.table import Table

    table = Table(
        title=f"Calibration: {calibration.model}, {calibration.answers} answer(s) of "
        f"{calibration.questions} question(s) on {calibration.workers} worker(s) "
        f"({calibration.executor})"
    )
    table.add_column("Measured")
    table.add_column("Value", justify="right")
    startup = calibration.startup_s
    rows = [
        ("start-up (model load)", "not separable" if startup is None else duration(startup)),
        ("answers/s (all workers)", _rate(calibration.rate)),
        ("prompt tokens/answer", _per_answer(calibration.prompt_tokens_per_answer)),
        ("completion tokens/answer", _per_answer(calibration.completion_tokens_per_answer)),
        ("model loads", str(calibration.loads)),
        ("kept (non-empty) answers", str(calibration.kept)),
        ("wall time", duration(calibration.wall_s)),
    ]
    for name, value in rows:
        table.add_row(name, value)
    print_table(table)
    _print_lines(calibration.notes)


def _print_estimate(run: Estimate, model: str) -> None:
    from rich.table import Table

    table = Table(
        title=f"This file's run: {run.questions} question(s) x {run.answers_per_question:,} "
        f"answers, {model} on {run.workers} worker(s)"
    )
    table.add_column("Estimated")
    table.add_column("Value", justify="right")
    wall = run.wall_s
    rows = [
        ("answers", f"{run.answers:,}"),
        ("prompt tokens", _count(run.prompt_tokens)),
        ("completion tokens", _count(run.completion_tokens)),
        ("answers/s (all workers)", _rate(run.answers_per_s)),
        ("start-up", "-" if run.startup_s is None else duration(run.startup_s)),
        ("wall time", "-" if wall is None else duration(wall)),
    ]  # fmt: skip
    for name, value in rows:
        table.add_row(name, value)
    print_table(table)
    _print_lines(run.assumptions)


def _print_paper(paper: PaperScale) -> None:
    from rich.table import Table

    table = Table(
        title=f"The papers' scale: {paper.questions} questions x "
        f"{paper.answers_per_question:,} answers per model ({paper.sections})"
    )
    for column in ("Model", "Params", "Active", "TFLOP/answer", "GPU-hours"):
        table.add_column(column, justify="left" if column == "Model" else "right")
    for row in paper.rows:
        table.add_row(
            row.model.name,
            f"{row.model.total_params / 1e9:g}B",
            f"{row.model.active_params / 1e9:g}B",
            f"{row.flops / row.answers / 1e12:,.0f}",
            f"{row.gpu_hours:,.0f}",
        )
    table.add_row(f"all {paper.answers:,} answers", "", "", "", f"{paper.gpu_hours:,.0f}")
    print_table(table)
    sizes = [f"{row.model.name}: {row.model.note}" for row in paper.rows]
    _print_lines([*paper.assumptions.lines(), *sizes, *paper.notes])


def _print_lines(lines: Sequence[str]) -> None:
    from rich.markup import escape

    for line in lines:
        _common.console.print(f"  - {escape(line)}", highlight=False)


def _per_answer(value: float | None) -> str:
    return "not reported" if value is None else f"{value:,.1f}"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _count(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def duration(seconds: float) -> str:
    """A duration a person reads at a glance: 42 s, 12.5 min, 3.4 h, 5.1 days."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.1f} days"
