"""Entry point of the ``hyoka`` console script, and the map of every command.

``COMMANDS`` names each group and command, the line its parent's help shows, and the
``module:function`` that implements it. Nothing here imports a command module: a command's
module is imported when that command runs or shows its own ``--help`` (see ``_lazy``), so
``hyoka --help`` stays fast and ``hyoka pfgen score`` imports what scoring needs only.

To add a command, write a plain function in a ``*_cmd.py`` module (typed parameters, flags
from ``_common``, a docstring whose first paragraph is its one-line help) and add a line
here with that same first paragraph.
"""

from __future__ import annotations

import gc
import signal

import typer

from hyoka import __version__
from hyoka.cli._lazy import CommandSpec, GroupSpec, LazyGroup

_CLI = "hyoka.cli."

COMMANDS: dict[str, CommandSpec | GroupSpec] = {
    "data": GroupSpec(
        "Download and verify benchmark data.",
        {
            "fetch": CommandSpec(
                _CLI + "data_cmd:fetch_command",
                "Download benchmark data pinned to an upstream commit, checking each SHA-256.",
            ),
            "verify": CommandSpec(
                _CLI + "data_cmd:verify_command",
                "Check benchmark data against the pinned sizes and SHA-256s, offline.",
            ),
        },
    ),
    "pfgen": GroupSpec(
        "pfgen-bench: the judge-free Japanese generation benchmark.",
        {
            "score": CommandSpec(
                _CLI + "pfgen_cmd:score_command",
                "Score pfgen-bench runs and write result.json beside each.",
            ),
            "verify": CommandSpec(
                _CLI + "pfgen_cmd:verify_command",
                "Check that each run's result.json follows exactly from its answers.",
            ),
            "leaderboard": CommandSpec(
                _CLI + "pfgen_leaderboard_cmd:leaderboard_command",
                "Rank the scored pfgen-bench runs under RESULTS_DIR, best score first.",
            ),
            "generate": CommandSpec(
                _CLI + "pfgen_generate_cmd:generate_command",
                "Generate a pfgen-bench run (resumable: run it again to continue).",
            ),
            "run": CommandSpec(
                _CLI + "pfgen_generate_cmd:run_command",
                "Generate a pfgen-bench run, score it, and show it beside the public leaderboard.",
            ),
            "judge": CommandSpec(
                _CLI + "pfgen_judge_cmd:judge_command",
                "Grade a run's answers 1-10 against the hand-written sample answers (resumable).",
            ),
            "explain": CommandSpec(
                _CLI + "report_cmd:explain_command",
                "Explain one answer's pfgen score: rare 3-grams, fluent stretches, rules, "
                "references.",
            ),
            "correlate": CommandSpec(
                _CLI + "pfgen_analysis_cmd:correlate_command",
                "Pearson and Spearman between pfgen scores and judge scores across models.",
            ),
            "stability": CommandSpec(
                _CLI + "pfgen_analysis_cmd:stability_command",
                "Score runs with each single reference set instead of the ensemble and correlate.",
            ),
        },
    ),
    "refset": GroupSpec(
        "Build reference answer sets: generate, normalise, filter, select, publish.",
        {
            "generate": CommandSpec(
                _CLI + "refset_cmd:generate_command",
                "Stage 1: generate answers with many-shot prompts into sharded files (resumable).",
            ),
            "import": CommandSpec(
                _CLI + "refset_cmd:import_command",
                "Put existing reference sets into the work folder as if generated (to "
                "rebuild them).",
            ),
            "normalise": CommandSpec(
                _CLI + "refset_cmd:normalise_command",
                "Stage 2: apply the regex rewrites, merge equal answers (counts add up).",
            ),
            "filter-rules": CommandSpec(
                _CLI + "refset_cmd:filter_rules_command",
                "Stage 3: drop answers matching a question's NG patterns; counts per rule.",
            ),
            "filter-rare": CommandSpec(
                _CLI + "refset_cmd:filter_rare_command",
                "Stage 4: drop answers holding a character n-gram that occurs once in the "
                "question.",
            ),
            "select-length": CommandSpec(
                _CLI + "refset_cmd:select_length_command",
                "Stage 5: keep the N answers per set closest to the target length.",
            ),
            "select-representative": CommandSpec(
                _CLI + "refset_cmd:select_representative_command",
                "Stage 6: hill-climb the M answers whose 1–10-gram distribution matches the N's.",
            ),
            "publish": CommandSpec(
                _CLI + "refset_cmd:publish_command",
                "Stage 7: write question files in pfgen-bench's layout under OUT/pfgen-bench/data.",
            ),
            "build": CommandSpec(
                _CLI + "refset_cmd:build_command",
                "Stages 2–7 from a settings file (see docs); each stage resumes as on its own.",
            ),
            "plan": CommandSpec(
                _CLI + "refset_plan_cmd:plan_command",
                "Estimate answers, tokens and time from a short measured run; the papers' in "
                "GPU-hours.",
            ),
        },
    ),
    "judge": GroupSpec(
        "Judge answers with an LLM (single grading, pairwise) and measure agreement.",
        {
            "single": CommandSpec(
                _CLI + "judge_single_cmd:single_command",
                "Grade answers 1-10 against references with an LLM judge (resumable).",
            ),
            "pairwise": CommandSpec(
                _CLI + "judge_pairwise_cmd:pairwise_command",
                "Judge every pair in both orders; verdicts by prob (seed 001), bs1 and bs2 "
                "(resumable).",
            ),
            "agreement": CommandSpec(
                _CLI + "judge_agreement_cmd:agreement_command",
                "Concordance, Fleiss' and Cohen's kappa, robustness, confusion and "
                "per-category tables.",
            ),
            "meta": CommandSpec(
                _CLI + "judge_meta_cmd:meta_command",
                "How far each judge can be trusted: agreement, rank correlation, order and "
                "length bias.",
            ),
            "rankings": CommandSpec(
                _CLI + "judge_rankings_cmd:rankings_command",
                "Do two rankings of models agree, and how confidently: separability, "
                "agreement, Brier.",
            ),
            "curve": CommandSpec(
                _CLI + "judge_rankings_cmd:curve_command",
                "How many questions a benchmark needs: separability as it keeps fewer questions.",
            ),
        },
    ),
    "mtbench": GroupSpec(
        "Multi-turn benchmarks judged by an LLM: generate answers, judge them, rank models.",
        {
            "generate": CommandSpec(
                _CLI + "mtbench_cmd:generate_command",
                "Answer the benchmark's two-turn dialogues (resumable: run it again to continue).",
            ),
            "judge": CommandSpec(
                _CLI + "mtbench_cmd:judge_command",
                "Grade every turn with the benchmark's judge prompts and rating rules (resumable).",
            ),
            "verify": CommandSpec(
                _CLI + "mtbench_cmd:verify_command",
                "Check that judgment files are sound and every score and verdict follows from "
                "their stored replies.",
            ),
            "leaderboard": CommandSpec(
                _CLI + "mtbench_cmd:leaderboard_command",
                "Rank models by category: the mean of both turns' scores, overall as upstream "
                "has it.",
            ),
            "variants": CommandSpec(
                _CLI + "mtbench_cmd:variants_command",
                "List a benchmark's named variants with every setting that changes its numbers.",
            ),
        },
    ),
    "ifeval": GroupSpec(
        "M-IFEval-Ja: Japanese instruction following, checked by rules as upstream checks it.",
        {
            "score": CommandSpec(
                _CLI + "ifeval_cmd:score_command",
                "Score response files: strict and loose accuracy, per prompt and per instruction.",
            ),
            "verify": CommandSpec(
                _CLI + "ifeval_cmd:verify_command",
                "Rescore upstream evaluation files and compare every verdict.",
            ),
        },
    ),
    "jfbench": GroupSpec(
        "JFBench: PFN's Japanese instruction following, built and counted as upstream does.",
        {
            "build": CommandSpec(
                _CLI + "jfbench_cmd:build_command",
                "Build the benchmark as upstream's build.py builds it.",
            ),
            "score": CommandSpec(
                _CLI + "jfbench_cmd:score_command",
                "Summarise result files as upstream's analyze.py does, with 95% intervals.",
            ),
        },
    ),
    "report": CommandSpec(
        _CLI + "report_cmd:report_command",
        "Write one static, offline site over pfgen runs and judgments: open OUT/index.html.",
    ),
    "batch": GroupSpec(
        "Batch APIs (--batch): the batches submitted and not yet read back.",
        {
            "status": CommandSpec(
                _CLI + "batch_cmd:status_command",
                "List the batches in flight (submitted by --batch) and their state.",
            ),
            "release": CommandSpec(
                _CLI + "batch_cmd:release_command",
                "Drop batches from a results file's note: the next run asks their requests again.",
            ),
        },
    ),
    "sweep": CommandSpec(
        _CLI + "sweep_cmd:sweep_command",
        "Run many models on many suites with one or more judges, ending in one results matrix.",
    ),
    "demo": CommandSpec(
        _CLI + "demo_cmd:demo_command",
        "Run pfgen-bench end to end on the embedded model and rank it beside public results.",
    ),
}


class HyokaGroup(LazyGroup):
    """The ``hyoka`` group: typer builds it with ``cls=`` and it takes ``COMMANDS``."""

    entries = COMMANDS


app = typer.Typer(
    name="hyoka",
    cls=HyokaGroup,
    help="hyoka (評価): measure how well language models write Japanese.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from hyoka.cli._common import echo

        echo(f"hyoka {__version__}")
        raise typer.Exit()


def run() -> None:
    """The ``hyoka`` console script and ``python -m hyoka``: the command, then every object
    it made frozen (``gc.freeze``) before the interpreter exits, so that Python's last full
    collection does not walk them all again: about 15 ms after scoring one run, a twentieth
    of its time. Nothing is left unwritten by it: every file hyoka writes is closed (and
    renamed into place) before its writer returns, and exit handlers still run.

    Ctrl-C ends every command with 130 and one ``interrupted:`` line, also one that came
    before the command ran (``say_interrupted_once``)."""
    try:
        app(prog_name="hyoka")
    except SystemExit as stop:
        if stop.code == 128 + signal.SIGINT:  # _common.INTERRUPTED, not imported for --help
            from hyoka.cli._common import say_interrupted_once

            say_interrupted_once()
        raise
    finally:
        gc.freeze()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """hyoka (評価): measure how well language models write Japanese."""
