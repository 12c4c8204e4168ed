"""``hyoka sweep PLAN``: many models on many suites, with one or more judges, from one plan
file, ending in one results matrix (``hyoka.sweep``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli._common import (
    CpusPerWorkerOption,
    DataDirOption,
    GpusPerWorkerOption,
    JsonOption,
    echo,
    echo_json,
    reports_errors,
)
from hyoka.mtbench import FormatChoice
from hyoka.refset import Executor

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hyoka.refset import WorkerRates
    from hyoka.sweep import Cell, CellResult, RayExecutor, SweepEstimate, SweepRun, SweepWatcher


@reports_errors
def sweep_command(
    plan_file: Annotated[
        Path,
        typer.Argument(
            help="The sweep's plan: a TOML file of models, judges and suites tables.",
            metavar="PLAN",
        ),
    ],
    estimate: Annotated[
        bool,
        typer.Option(
            "--plan",
            help="Only show each cell's calls, tokens, price at list prices and time, and "
            "what is already done; ask nothing.",
        ),
    ] = False,
    fmt: Annotated[
        FormatChoice, typer.Option("--format", help="How the results matrix is printed.")
    ] = FormatChoice.MD,
    executor: Annotated[
        Executor,
        typer.Option(
            "--executor",
            help="local: every model here; ray: models computed locally (llamacpp/, hf/, "
            "vllm/) on Ray workers, each loading it once (the cluster of RAY_ADDRESS, else "
            "a Ray started here).",
        ),
    ] = Executor.LOCAL,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", min=1, help="With --executor ray: Ray workers for each local model."
        ),
    ] = 2,
    cpus_per_worker: CpusPerWorkerOption = 1.0,
    gpus_per_worker: GpusPerWorkerOption = 0.0,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Ask every model and judge whose provider has a batch API (openai/, "
            "anthropic/) through it, as batch = true on each; the others online.",
        ),
    ] = False,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run many models on many suites with one or more judges, ending in one results matrix.

    Each cell (a model on a suite, by a judge where the suite is judged) runs through the
    same library calls as `hyoka pfgen run`, `hyoka mtbench generate / judge /
    leaderboard` and `hyoka ifeval score`, writing under the plan's `out` folder (OUT).
    Resumable: run it again after a stop and done cells are taken from OUT/sweep.json, a
    cell stopped half way resumes its files and the response cache, so nothing is paid
    twice. A cell that fails is reported and the
    others go on (exit 1 at the end). The matrix (models x suites: score, 95% interval,
    judge, variant, signature) is written as OUT/results.md, .csv and .json; `hyoka report
    OUT` opens with it.

    A model or judge with batch = true in the plan (or every one whose provider has a
    batch API, with --batch) is asked through its batch API at about half price: a cell
    whose requests went into a batch waits (exit 0); run the same command again to collect
    the ended batches and move its cells on (a dialogue's next turn, the judge after the
    answers), until every cell is done.

    A model computed here (llamacpp/, hf/, vllm/) loads once for all its cells; with
    --executor ray it runs on --workers Ray workers instead, each loading it once, every
    cell's requests shared among them (a lost node costs only its requests in flight; the
    files are written here). A model's base_url may list several servers, used together.

    Examples:

      hyoka sweep sweep.toml --plan

      hyoka sweep sweep.toml

      hyoka sweep sweep.toml --format csv

      RAY_ADDRESS=auto hyoka sweep sweep.toml --executor ray --workers 4
    """
    from hyoka.sweep import batched, estimate_sweep, read_plan, run_sweep, statuses

    plan = read_plan(plan_file)
    if batch:
        plan = batched(plan)
    if estimate:
        found = estimate_sweep(plan, statuses(plan), data_dir)
        echo_json(found.to_json()) if as_json else _print_estimate(found)
        return
    ray = executor is Executor.RAY
    runner, rates = _ray(workers, cpus_per_worker, gpus_per_worker) if ray else (None, None)
    done = run_sweep(
        plan, data_dir=data_dir, executor=runner, watcher=None if as_json else _watcher()
    )
    if as_json:
        echo_json(done.to_json())
    else:
        _print_done(done, fmt, rates)
    if done.failed:
        raise typer.Exit(1)


def _ray(workers: int, cpus: float, gpus: float) -> tuple[RayExecutor, WorkerRates]:
    """The Ray executor of ``--executor ray`` and the rates its workers report."""
    from hyoka.refset import WorkerRates, WorkerResources
    from hyoka.sweep import RayExecutor

    rates = WorkerRates()
    return RayExecutor(WorkerResources(workers, cpus, gpus), on_event=rates.add), rates


def _print_done(done: SweepRun, fmt: FormatChoice, rates: WorkerRates | None) -> None:
    from hyoka.cli._common import say

    if rates is not None:
        say(f"ray: {rates.summary()}")
    _print_run(done, fmt)
    if done.waiting:
        say(f"batch: {done.waiting} cell(s) wait on batches: run the same command again to "
            f"collect them and go on (`hyoka batch status {done.out}` lists them)")  # fmt: skip


def _print_estimate(found: SweepEstimate) -> None:
    from rich.table import Table

    from hyoka.cli._common import console, say
    from hyoka.cli._tables import print_table

    table = Table("cell", "status", "calls", "tokens in/out", "USD", "time")
    for cell in found.cells:
        tokens_in = cell.generation.prompt_tokens + cell.judging.prompt_tokens
        tokens_out = cell.generation.completion_tokens + cell.judging.completion_tokens
        usd = "n/a" if cell.usd is None else f"{cell.usd:.4f}"
        calls = f"{cell.generation.calls}+{cell.judging.calls}"
        table.add_row(cell.key, cell.status, calls, f"{tokens_in:,}/{tokens_out:,}", usd,
                      _time(cell.seconds))  # fmt: skip
    print_table(table, console)
    usd = (
        "n/a (a price not known: give price_in/price_out)"
        if found.usd is None
        else (f"{found.usd:.4f} USD")
    )
    say(f"to run: {len(found.to_run)} of {len(found.cells)} cells, {usd}, about "
        f"{_time(found.seconds)} at concurrency {found.concurrency}")  # fmt: skip
    say(f"calls: the model's + the judge's; estimate {found.to_json()['method']} (tokens: one "
        "a character, every reply its full budget: an upper estimate)")  # fmt: skip


def _time(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{rest:02d}s"


def _watcher() -> SweepWatcher:
    from hyoka.cli._common import say
    from hyoka.sweep import SweepWatcher

    class Shown(SweepWatcher):
        """One line a cell: ``[3/8] model × suite × judge: number`` as each finishes."""

        total = 0
        count = 0
        begun = 0  # cells started (several at once on Ray), each its own number

        def planned(self, cells: Sequence[Cell], reused: int) -> None:
            self.total = len(cells)
            say(f"sweep: {len(cells)} cells, {reused} done before")

        def started(self, cell: Cell) -> None:
            self.begun = max(self.begun, self.count) + 1
            say(f"[{self.begun}/{self.total}] {cell.key} ...")

        def finished(self, result: CellResult, reused: bool) -> None:
            self.count += 1
            say(f"[{self.count}/{self.total}] {result.key}: {_outcome(result, reused)}")

    return Shown()


def _outcome(result: CellResult, reused: bool) -> str:
    if result.waiting is not None:
        said = [n for n in result.notes if n.startswith(("settings changed", "batch: "))]
        notes = f"; {said[0]}; {len(result.notes)} note(s) in sweep.json" if said else ""
        calls = f"{result.calls} call(s), {result.cache_hits} from cache"
        return f"{result.waiting_line} ({calls}){notes}"
    if not result.done:
        return f"failed: {result.error}"
    score = "n/a" if result.score is None else f"{result.score:.4g}"
    how = "done before" if reused else f"{result.calls} call(s), {result.cache_hits} from cache"
    notes = f"; {len(result.notes)} note(s) in sweep.json" if result.notes else ""
    if result.notes and result.notes[0].startswith("settings changed"):
        notes = f"; {result.notes[0]}" + notes  # the earlier files kept: where, in one line
    return f"{result.metric} {score} ({how}){notes}"


def _print_run(done: SweepRun, fmt: FormatChoice) -> None:
    from hyoka.cli._common import say

    say("")
    text = done.matrix.render(fmt.value).rstrip("\n")
    echo(text, csv_text=fmt is FormatChoice.CSV, json_text=fmt is FormatChoice.JSON)
    say("")
    waiting = f", {done.waiting} waiting on batches" if done.waiting else ""
    say(f"{done.ran} cell(s) run, {done.reused} done before, {done.failed} failed{waiting}")
    for path in done.files:
        say(f"written: {path}")
