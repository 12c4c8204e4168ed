"""``hyoka demo``: an end-to-end run that needs nothing but the installed package and data.

Until model providers exist it scores a tiny run of hand-written answers that ships with
the package (two answers, one good and one poor, to five questions) and shows it among the
public leaderboard rows found in the data directory, so a new user sees every stage once.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from hyoka.cli._common import DataDirOption, console, reports_errors
from hyoka.cli._context import show_beside_public
from hyoka.cli.pfgen_cmd import score_table
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.runs import score_run
from hyoka.pfgen.summary import RunSummary

EXAMPLE = "examples/pfgen-tiny"


@reports_errors
def demo_command(
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the demo run (created or replaced).")
    ] = Path("hyoka-demo"),
    data_dir: DataDirOption = None,
) -> None:
    """Score a bundled example run end to end and rank it beside public results.

    Example:

      HYOKA_DATA_DIR=../shared/data hyoka demo
    """
    benchmark = PfgenBenchmark.load(data_dir)
    if out.exists():
        shutil.rmtree(out)
    with resources.as_file(resources.files("hyoka") / EXAMPLE) as example:
        shutil.copytree(example, out)
    (run_folder,) = [p.parent for p in out.rglob("trials.jsonl")]
    console.print(f"Scoring the bundled example run in {run_folder} ...")
    outcome = score_run(run_folder, benchmark, force=True)
    ours = RunSummary.from_result(outcome.folder, outcome.result)
    console.print(score_table([(ours, False)]))
    show_beside_public(ours, data_dir)
    console.print(f"\nresult.json written to {outcome.folder / 'result.json'}")
