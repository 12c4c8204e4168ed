"""``hyoka judge meta``: a leaderboard of judges from their published (or your) judgments."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import (
    BootstrapSeedOption,
    DataDirOption,
    JsonOption,
    OutputOption,
    PriceInOption,
    PriceOutOption,
    ResamplesOption,
    echo,
    reports_errors,
)
from hyoka.mtbench import FormatChoice  # an enum the flag needs
from hyoka.stats import DEFAULT_RESAMPLES, DEFAULT_SEED


@reports_errors
def meta_command(
    scores: Annotated[
        list[Path] | None,
        typer.Option(
            "--scores",
            help="A table of grades, JSON Lines (.xz/.gz/.zst too): judge, suite, model, "
            "item, score (a number or null). Human labels: a table whose judge is, e.g., "
            "human, with --reference human. Repeatable.",
            show_default=False,
        ),
    ] = None,
    single: Annotated[
        list[Path] | None,
        typer.Option(
            "--single",
            help="A FastChat single-grading folder (model_judgment/<judge>_single) or file "
            "(<judge>_single.jsonl); one row per template too, a turn graded twice a repeat; "
            "answer lengths from model_answer/ beside it. Repeatable.",
            show_default=False,
        ),
    ] = None,
    pairwise: Annotated[
        list[Path] | None,
        typer.Option(
            "--pairwise",
            help="FastChat pairwise judgments, both orders per line (a file or a folder). "
            "Repeatable.",
            show_default=False,
        ),
    ] = None,
    reference: Annotated[
        list[str] | None,
        typer.Option(
            "--reference",
            help="The judge (or human labels) others are compared with; repeatable, the "
            "first grading a suite is its reference (default: the judge sharing the most "
            "graded items with the others of its suite).",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        FormatChoice,
        typer.Option("--format", "-f", help="How the table is written.", case_sensitive=False),
    ] = FormatChoice.MD,
    as_json: JsonOption = False,
    output: OutputOption = None,
    resamples: ResamplesOption = DEFAULT_RESAMPLES,
    seed: BootstrapSeedOption = DEFAULT_SEED,
    price_in: PriceInOption = 0.0,
    price_out: PriceOutOption = 0.0,
    data_dir: DataDirOption = None,
) -> None:
    """How far each judge can be trusted: agreement, rank correlation, order and length bias.

    Without files, the published judgments under the data directory: the Shaberi table
    (six judges on ELYZA-tasks-100, Rakuda, Tengu, one-shot JMT-bench), pfmt-bench-fin-ja's
    gpt-4o and gpt-4o-mini, Stability's GPT-4 grades of JMT-bench (four turns judged
    twice), Japanese Vicuna QA's GPT-4 verdicts in both orders. One row per judge and
    suite, and one per template where a judge used several. Missing and off-scale grades
    are counted and named under the table, and left out of every number; the notes say
    why a cell is empty.

    Examples:

      hyoka judge meta

      hyoka judge meta --reference gpt-4.1-2025-04-14 --reference gpt-4o --format csv
      --output judges.csv

      hyoka judge meta --scores my-grades.jsonl --scores human.jsonl --reference human
    """
    from hyoka.cli._common import say
    from hyoka.data import resolve_data_dir
    from hyoka.metaeval import (
        JudgeMetaSettings,
        JudgeSources,
        judge_meta,
        published_sources,
        render_judge_meta,
    )
    from hyoka.store import check_output, write_output

    check_output(output)  # refused before the work, not after
    if scores or single or pairwise:
        sources = JudgeSources(
            tuple(scores or ()), tuple(single or ()), tuple(pairwise or ()), data_dir=data_dir
        )
    else:
        sources = published_sources(resolve_data_dir(data_dir))
    settings = JudgeMetaSettings(
        reference=tuple(reference or ()), resamples=resamples, seed=seed, price_in=price_in,
        price_out=price_out,
    )  # fmt: skip
    shown = FormatChoice.JSON if as_json else fmt  # --json: --format json
    text = render_judge_meta(judge_meta(sources, settings), shown.value)
    if output is None:
        echo(text, nl=False, json_text=shown.value == "json", csv_text=shown.value == "csv")
        return
    write_output(output, text)
    say(f"wrote {output}", err=True)
