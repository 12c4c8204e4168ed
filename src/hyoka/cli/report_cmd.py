"""``hyoka report`` (the offline site) and ``hyoka pfgen explain`` (one answer, explained)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli._common import (
    BootstrapSeedOption,
    DataDirOption,
    JsonOption,
    WorkersOption,
    echo_json,
    reports_errors,
)

if TYPE_CHECKING:
    from rich.text import Text

    from hyoka.pfgen import Explanation


@reports_errors
def report_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="pfgen run folders or trials files, folders of them, judgment files or "
            "folders of judgment files (single grading or pairwise), `hyoka pfgen stability "
            "--json` outputs, Rakuda rankings (`hyoka mtbench leaderboard --bench rakuda "
            "--format json`).",
            metavar="PATH...",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="Folder the site is written to: new, empty, or an earlier hyoka site (replaced "
            "whole).",
            file_okay=False,
        ),
    ] = Path("report"),
    public_dir: Annotated[
        Path | None,
        typer.Option(
            "--public",
            help="Public pfgen results to rank your runs among (default: the data "
            "directory's pfgen-bench/results).",
            show_default=False,
        ),
    ] = None,
    no_public: Annotated[
        bool, typer.Option("--no-public", help="Show only the runs given, no public runs.")
    ] = False,
    rounds: Annotated[
        int,
        typer.Option("--rounds", min=0, help="Bootstrap rounds of the Bradley–Terry intervals."),
    ] = 1000,
    seed: BootstrapSeedOption = 0,
    data_dir: DataDirOption = None,
    workers: WorkersOption = None,
    answers: Annotated[
        bool,
        typer.Option(
            "--answers",
            help="Show the judged models' answers on the MT-bench question pages (found in "
            "model_answer/ beside model_judgment/; makes the site larger).",
        ),
    ] = False,
    stability: Annotated[
        bool,
        typer.Option(
            "--stability",
            help="Score every pfgen run with answers (yours and the public ones) with each "
            "reference set alone and plot it against the ensemble (slow: a minute or more for "
            "the 49 public runs). A `hyoka pfgen stability --json` file given is plotted "
            "without this.",
        ),
    ] = False,
    judges: Annotated[
        bool,
        typer.Option(
            "--judges",
            help="Add the judges page: `hyoka judge meta` over the published judgments in "
            "the data directory (agreement, rank correlations, order, position and length bias).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Write one static, offline site over pfgen runs and judgments: open OUT/index.html.

    The pfgen leaderboard ranks the runs given among the public runs (95% bootstrap
    intervals, sortable, signature on hover); each run given gets a page with its answers
    explained; two runs given are compared question by question. Single-grading judgment
    files of every judged benchmark give a page per benchmark and variant (as the file's
    manifest names them, else as its judged questions match) with the per-category table,
    a radar, the variant and the signature, and one page per question; a `hyoka judge
    single` file gives a page of each model's mean grade, graded count and failures, the
    signature and every item's grade; pairwise files (`hyoka judge pairwise`'s too) give
    win/tie/loss matrices and Bradley–Terry ratings, a Rakuda ranking its intervals.
    Reference-set stability (each run's score with one reference set against another) is
    plotted from a `hyoka pfgen stability --json` file given, or computed with --stability.

    Examples:

      hyoka report results/my-model -o report/

      hyoka report results/a results/b -o report/

      hyoka report model_judgment/gpt-4o_single model_judgment/gpt-4o_pair.jsonl

      hyoka report results/my-model --stability -o report/

      hyoka pfgen stability --json > stability.json && hyoka report stability.json

      hyoka report results/my-model --judges -o report/
    """
    from rich.markup import escape

    from hyoka.cli._common import err_console
    from hyoka.report import ReportOptions, build_report

    options = ReportOptions(
        data_dir=data_dir,
        public_dir=public_dir,
        public=not no_public,
        rounds=rounds,
        seed=seed,
        workers=workers,
        answers=answers,
        stability=stability,
        judges=judges,
    )
    result = build_report(
        paths, out, options, progress=lambda step: err_console.print(f"[dim]{escape(step)}…[/]")
    )
    for note in result.notes:
        err_console.print(f"[bold yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
    if as_json:
        echo_json(result.to_json())
    err_console.print(
        f"Wrote {len(result.pages)} files ({result.size / 1e6:.1f} MB) in "
        f"{result.seconds:.1f} s: open {escape(str(out / 'index.html'))}",
        highlight=False,
        soft_wrap=True,
    )


@reports_errors
def explain_command(
    source: Annotated[
        Path,
        typer.Argument(help="A pfgen run folder or trials file.", metavar="RUN_OR_ANSWERS"),
    ],
    question: Annotated[str, typer.Argument(help="Question id, e.g. Q07.", metavar="QUESTION")],
    trial: Annotated[
        int, typer.Option("--trial", "-t", min=1, help="Which answer to the question (1 = first).")
    ] = 1,
    as_json: JsonOption = False,
    data_dir: DataDirOption = None,
) -> None:
    """Explain one answer's pfgen score: rare 3-grams, fluent stretches, rules, references.

    Rare 3-grams (likely hallucinations) are shown on red, stretches of frequent 10-grams
    on green; the rules met and missed, where the length discount starts and the nearest
    reference answers follow.

    Examples:

      hyoka pfgen explain results/my-model Q07

      hyoka pfgen explain trials.jsonl Q01 --trial 3
    """
    from hyoka.errors import InputError
    from hyoka.pfgen import PfgenBenchmark, explain
    from hyoka.store.pfgen_runs import find_runs, read_trials

    benchmark = PfgenBenchmark.load(data_dir)
    info = benchmark.question(question)
    sources = find_runs(source)
    if len(sources) != 1:
        raise InputError(f"{source}: holds {len(sources)} runs; name one run folder or trials file")
    records = benchmark.group_by_question(read_trials(sources[0]), keep={info.question_id})
    answers = [r["answer"] for r in records.get(info.question_id, [])]
    if not answers:
        raise InputError(f"{source}: no answer to {info.question_id}")
    if trial > len(answers):
        raise InputError(
            f"--trial {trial}: {source} has {len(answers)} answers to {info.question_id}"
        )
    explanation = explain(benchmark, info.question_id, answers[trial - 1])
    if as_json:
        echo_json(explanation.to_json())
        return
    print_explanation(explanation, trial, len(answers))


def highlighted(explanation: Explanation) -> Text:
    """The answer with rare 3-grams on red and frequent 10-grams on green, each character
    made printable (``hyoka.printable``: the answer is a model's text) with its style."""
    from rich.text import Text

    from hyoka.printable import printable

    votes = [sum(s.frequent[i] for s in explanation.sets) for i in range(explanation.length)]
    half = max(len(explanation.sets), 1) / 2
    text = Text()
    for i, (char, weak) in enumerate(zip(explanation.answer, explanation.weak, strict=True)):
        styles = []
        if weak:
            styles.append("bold white on red")
        elif votes[i] and votes[i] >= half:
            styles.append("black on green")
        if i >= explanation.discount_zero:
            styles.append("dim")
        text.append(printable(char, lines=True), " ".join(styles))
    return text


def print_explanation(explanation: Explanation, trial: int, total: int) -> None:
    from rich.markup import escape

    from hyoka.cli._common import console

    s = explanation.score
    console.print(
        f"[bold]{explanation.question_id}[/] {escape(explanation.question)}  "
        f"[dim](answer {trial} of {total})[/]",
        soft_wrap=True,
    )
    console.print(highlighted(explanation))
    console.print(
        f"average [bold]{s.average:.3f}[/]  fluency {s.fluency:.3f}  truthfulness "
        f"{s.truthfulness:.3f}  helpfulness {s.helpfulness:.3f}  length {explanation.length}"
    )
    spans = explanation.weak_spans()
    if spans:
        shown = "、".join(escape(explanation.answer[a:b]) for a, b in spans[:8])
        console.print(
            f"[red]rare 3-grams[/] ({explanation.weak_share:.0%} of counted characters): {shown}"
        )
    else:
        console.print("[green]no rare 3-grams[/]: every character is well supported")
    peaks = ", ".join(f"{s_.name} {s_.best_prefix}" for s_ in explanation.sets)
    console.print(
        f"fluency: {explanation.frequent_share:.0%} in frequent 10-grams; peaks at prefix {peaks}"
    )
    console.print(
        f"length discount from {explanation.discount_start} characters (0 at "
        f"{explanation.discount_zero}); this answer: {explanation.length}"
    )
    for rule in explanation.rules:
        where = f" at character {rule.end}" if rule.end is not None else ""
        mark = "[green]met[/]" if rule.met else "[bold red]missed[/]"
        console.print(f"  {mark} {escape(rule.name)}{where}", soft_wrap=True)
    if explanation.over_length:
        console.print(f"  [bold red]over length[/] {escape(explanation.over_length)}")
    for n in explanation.nearest:
        console.print(
            f"[dim]nearest ({n.set_name}, {n.similarity:.2f}):[/] {escape(n.text)}", soft_wrap=True
        )
