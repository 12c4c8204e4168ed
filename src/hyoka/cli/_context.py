"""What the pfgen commands show alike: the score table with its signatures, generation with
progress bars, and a new run among the public leaderboard's runs, for a sense of scale.

Shared here, not in any command module, so that command modules never import each other
(``pfgen run`` and ``demo`` both generate, score and show). Everything heavy is imported
inside the functions: importing this module costs nothing until a command runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hyoka.cli._common import progress_bar
from hyoka.cli._tables import print_table

if TYPE_CHECKING:
    from rich.table import Table

    from hyoka.pfgen import GenerateSettings, GenerationReport, PfgenBenchmark, RunSummary
    from hyoka.providers import ModelClient
    from hyoka.signature import Signature

#: Rows shown above and below the new run.
NEIGHBOURS = 3


def score_table(summaries: Sequence[tuple[RunSummary, bool]]) -> Table:
    """The runs' headline numbers, one row each (``True``: left as it was, up to date); an
    incomplete run says so beside its name."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="pfgen-bench")
    table.add_column("Model", overflow="fold", min_width=24)
    table.add_column("Mode")
    for name in ("Trials", "Score", "Length", "Fluency", "Truthful", "Helpful"):
        table.add_column(name, justify="right", no_wrap=True)
    for s, skipped in summaries:
        table.add_row(
            escape(s.model + (f" [{s.incomplete}]" if s.incomplete else ""))
            + (" (up to date)" if skipped else ""),
            s.mode,
            str(s.num_trials),
            f"{s.score:.4f} (±{s.score_sem:.4f})",
            f"{s.length:.1f}",
            f"{s.fluency:.3f}",
            f"{s.truthfulness:.3f}",
            f"{s.helpfulness:.3f}",
        )
    return table


def signature_lines(summaries: Sequence[RunSummary]) -> list[str]:
    """How the numbers were produced: one line when every run shares a signature, else one
    per run; an upstream result.json left as it was carries none."""

    def shown(signature: Signature | None) -> str:
        return signature.line if signature is not None else "none (upstream result.json)"

    distinct = {shown(s.signature) for s in summaries}
    if len(distinct) == 1:
        return [f"signature: {distinct.pop()}"]
    return [f"signature of {s.label}: {shown(s.signature)}" for s in summaries]


def print_scores(summaries: Sequence[tuple[RunSummary, bool]]) -> None:
    """The score table, then the signature line(s) beside it."""
    from hyoka.cli._common import console, print_warning

    if not summaries:
        return
    print_table(score_table(summaries))
    for line in signature_lines([s for s, _ in summaries]):
        console.print(line, highlight=False, soft_wrap=True)
    for s, _ in summaries:
        if s.incomplete:
            print_warning(
                f"{s.folder}: {s.incomplete}; its score is not comparable with a whole "
                "run's and is not ranked among them"
            )


def show_beside_public(ours: RunSummary, data_dir: Path | None) -> None:
    """Print the nearest public rows around ``ours``, if the data directory has results."""
    import typer

    from hyoka.cli._common import console
    from hyoka.data import resolve_data_dir
    from hyoka.pfgen import collect_leaderboard, rank, render_leaderboard

    public = resolve_data_dir(data_dir) / "pfgen-bench" / "results"
    if not public.is_dir():
        return
    rows = rank([*collect_leaderboard(public), ours])
    start = max(rows.index(ours) - NEIGHBOURS, 0)
    console.print(f"\nBeside the public results in {public}:", highlight=False)
    shown = rows[start : start + 2 * NEIGHBOURS + 1]
    typer.echo(render_leaderboard(shown, "md", first_rank=start + 1))


def generate(
    settings: GenerateSettings, benchmark: PfgenBenchmark
) -> tuple[Path, GenerationReport, ModelClient]:
    """Plan the run from the flags, connect to the model, and generate with progress bars."""
    import asyncio

    from hyoka.cli._common import err_console, provider_options
    from hyoka.pfgen import generate_run, plan_generation
    from hyoka.providers import connect

    s = settings
    planned = plan_generation(s, benchmark)
    client = connect(
        s.model,
        base_url=s.base_url,
        options=provider_options(s.options),
        no_cache=s.no_cache,
        concurrency=s.concurrency,
    )
    folder = planned.plan.folder
    err_console.print(f"Run folder: {folder}", highlight=False)
    with progress_bar(rate=True, remaining=True) as bar:
        answers = bar.add_task("answers", total=s.trials * len(planned.questions))
        trials = bar.add_task("trials ", total=s.trials)

        def progress(kind: str, _trial: int) -> None:
            bar.advance(answers if kind == "answer" else trials)

        async def go() -> GenerationReport:
            async with client:
                return await generate_run(
                    planned.plan, client, planned.samples, planned.questions, progress
                )

        report = asyncio.run(go())
    return folder, report, client


def print_report(report: GenerationReport, client: ModelClient) -> None:
    from hyoka.cli._common import console

    stats = client.stats
    console.print(
        f"{report.trials_generated} trial(s) generated, {report.trials_done_before} already "
        f"done; {stats.requests} request(s), {stats.cache_hits} from cache, "
        f"{stats.retries} retried, {report.empty_retries} empty answer(s) asked again; "
        f"tokens: {stats.usage.prompt_tokens} in, {stats.usage.completion_tokens} out",
        highlight=False,
    )


def warn_if_custom_data(benchmark: PfgenBenchmark) -> None:
    """One ``warning:`` line when the question files are not the pinned release: scoring
    with one's own reference sets is legitimate, and is named (the signature's ``+custom``)."""
    from hyoka.cli._common import print_warning

    note = benchmark.data_note()
    if note is not None:
        print_warning(note)


def score_and_show(folder: Path, benchmark: PfgenBenchmark, data_dir: Path | None) -> RunSummary:
    """Score one run (always afresh), print it with its signature and beside the public runs."""
    from hyoka.pfgen import RunSummary, score_run

    warn_if_custom_data(benchmark)
    outcome = score_run(folder, benchmark, force=True)
    ours = RunSummary.from_result(outcome.folder, outcome.result)
    print_scores([(ours, False)])
    show_beside_public(ours, data_dir)
    return ours


def generate_and_score(settings: GenerateSettings, data_dir: Path | None) -> RunSummary:
    """Generate, score, print the result beside the public leaderboard."""
    from hyoka.pfgen import PfgenBenchmark

    benchmark = PfgenBenchmark.load(data_dir)
    folder, report, client = generate(settings, benchmark)
    print_report(report, client)
    return score_and_show(folder, benchmark, data_dir)
