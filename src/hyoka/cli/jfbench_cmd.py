"""``hyoka jfbench build`` and ``hyoka jfbench score``: JFBench as upstream builds and counts it.

Parsing and printing only: the build, the checks and the summary live in
``hyoka.jfbench`` (imported when a command runs, so that this module is cheap to import).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer._click.exceptions import UsageError

from hyoka.cli._common import (
    BootstrapSeedOption,
    DataDirOption,
    JsonOption,
    OutputOption,
    ResamplesOption,
    echo_json,
    reports_errors,
    say,
)

if TYPE_CHECKING:
    from hyoka.jfbench import Prompts, Summary

PromptsOption = Annotated[
    Path | None,
    typer.Option(
        "--prompts",
        help="JFBench's prompts file (default: jfbench/data/ifbench_ja_translated.jsonl in "
        "the data directory).",
        show_default=False,
        dir_okay=False,
    ),
]


@reports_errors
def build_command(
    constraint_set: Annotated[
        str,
        typer.Option("--constraint-set", help="Upstream's constraint set: train or test."),
    ] = "test",
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of upstream's shuffle (and of its draws).")
    ] = 42,
    n_constraints: Annotated[
        int,
        typer.Option(
            "--n-constraints",
            min=1,
            help="Constraints an entry: 1 pairs every prompt with every constraint; 2 or "
            "more draws --n-benchmark-data entries as upstream does.",
        ),
    ] = 1,
    n_benchmark_data: Annotated[
        int | None,
        typer.Option(
            "--n-benchmark-data",
            min=1,
            help="Keep only the first N entries, as upstream's eval.py does (needed, and "
            "the number drawn, with --n-constraints 2 or more).",
            show_default=False,
        ),
    ] = None,
    prompts: PromptsOption = None,
    upstream: Annotated[
        Path | None,
        typer.Option(
            "--upstream",
            help="A checkout of pfnet-research/jfbench at c8fed01: add each prompt's text, "
            "worded as upstream words it.",
            show_default=False,
            file_okay=False,
        ),
    ] = None,
    output: OutputOption = None,
    as_json: JsonOption = False,
    data_dir: DataDirOption = None,
) -> None:
    """Build the benchmark as upstream's build.py builds it.

    With one constraint an entry (the default), every prompt paired with every constraint
    of the set (rule-based, then judged), seeded and shuffled as upstream
    (pfnet-research/jfbench c8fed01) does; with --n-constraints 2 or more,
    --n-benchmark-data entries drawn from the seeded generator as upstream draws them
    (clashing constraints and repeated entries thrown back). --output writes one
    JSON line per entry: its id, prompt position, and each constraint's name, group,
    parameters and seed. With --upstream, each line also carries the prompt a model is shown
    ("text"), worded from upstream's source (hyoka copies none of it); upstream draws
    MarkdownFormatConstraint's wording without a seed, so those entries have none.

    Examples:

      hyoka jfbench build --n-benchmark-data 3

      hyoka jfbench build --constraint-set train --output train.jsonl

      hyoka jfbench build --n-constraints 3 --n-benchmark-data 100 --output multi.jsonl
    """
    from hyoka.jfbench import build_benchmark
    from hyoka.store import write_output

    if n_constraints > 1 and n_benchmark_data is None:
        raise UsageError("--n-benchmark-data is needed with --n-constraints 2 or more")
    found = _prompts(prompts, data_dir)
    shown = build_benchmark(found, constraint_set, seed, n_benchmark_data, upstream, n_constraints)
    if output is not None:
        write_output(output, shown.lines, flag="--output")
    if as_json:
        echo_json(shown.to_json())
        return
    for line in shown.described(found.path):
        say(line)
    if output is not None:
        say(f"  written to {output}")


def _prompts(path: Path | None, data_dir: Path | None) -> Prompts:
    from hyoka.data import data_file
    from hyoka.jfbench import PROMPTS_IN_DATA, read_prompts

    if path is None:
        path = data_file(PROMPTS_IN_DATA, "jfbench", "JFBench prompts", data_dir, flag="--prompts")
    return read_prompts(path)


@reports_errors
def score_command(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Upstream's result files (JSON lines eval.py writes) or folders of them.",
            show_default=False,
        ),
    ],
    resamples: ResamplesOption = 2000,
    seed: BootstrapSeedOption = 0,
    as_json: JsonOption = False,
) -> None:
    """Summarise result files as upstream's analyze.py does, with 95% intervals.

    Per prompt source, number of constraints and model: records generated, evaluated,
    pending, succeeded (every constraint's verdict true) and the success rate in percent,
    with a percentile bootstrap interval over evaluated records; then each model's share
    of constraints satisfied per constraint group.

    Examples:

      hyoka jfbench score data/benchmark_results

      hyoka jfbench score results.jsonl --json
    """
    from hyoka.jfbench import jfbench_signature, read_records, score

    records = read_records(results)  # one record per item across the files
    summary = score(records, resamples=resamples, seed=seed)
    signature = jfbench_signature(resamples, 0.95, seed)
    if as_json:
        echo_json({"signature": signature.to_json(), **summary.to_json()})
        return
    for line in _table(summary):
        say(line)
    say(f"signature: {signature.line}")


def _table(summary: Summary) -> list[str]:
    """Upstream's summary table, each success rate with its interval, then the shares."""
    lines = [
        f"{'source':<10} {'n':>3} {'model':<28} {'generated':>9} {'evaluated':>9} "
        f"{'pending':>7} {'success':>7} {'success%':>8}  95% interval"
    ]
    for key, tally in sorted(summary.groups.items()):
        interval = tally.interval
        shown = "" if interval is None else f"[{interval.low:.1f}, {interval.high:.1f}]"
        lines.append(
            f"{key.prompt_source:<10} {key.n_constraints:>3} {key.model:<28} "
            f"{tally.generated:>9} {tally.evaluated:>9} {tally.pending:>7} "
            f"{tally.success:>7} {tally.shown_rate:>8}  {shown}"
        )
    total = summary.total
    lines.append(
        f"{'TOTAL':<10} {'':>3} {'':<28} {total.generated:>9} {total.evaluated:>9} "
        f"{total.pending:>7} {total.success:>7} {total.shown_rate:>8}"
    )
    for model, shares in sorted(summary.constraint_groups.items()):
        parts = ", ".join(f"{name} {s.satisfied}/{s.total}" for name, s in sorted(shares.items()))
        lines.append(f"  {model}: {parts}")
    return lines
