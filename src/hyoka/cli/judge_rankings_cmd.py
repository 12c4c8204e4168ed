"""``hyoka judge rankings`` and ``hyoka judge curve``: how far a ranking of models can be
trusted (separability, agreement with confidence, pair-rank Brier, rank correlations) and
how many questions a benchmark needs to tell its models apart."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli._benches import (
    RegisteredName,
    VariantOption,
    bench_help,
    graded_bench,
    graded_bench_names,
)
from hyoka.cli._common import (
    BootstrapSeedOption,
    DataDirOption,
    JsonOption,
    OutputOption,
    ResamplesOption,
    echo,
    reports_errors,
)
from hyoka.errors import InputError
from hyoka.judge import BrierTiesChoice  # an enum the flag needs
from hyoka.mtbench import FormatChoice  # an enum the flag needs
from hyoka.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from hyoka.metaeval import Ranking
    from hyoka.mtbench import IntervalSettings

JudgmentsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--judgments",
        help="Single-grade judgments of an MT-bench-family benchmark (a folder of *.jsonl, "
        "Shaberi's *.json for elyza-tasks-100, or one file), read as `hyoka mtbench "
        "leaderboard` reads them.",
        show_default=False,
    ),
]
JudgeNameOption = Annotated[
    list[str] | None,
    typer.Option(
        "--judge",
        help="A judge of the score table (--scores; default the Shaberi table in the data "
        "directory), by name or a unique part of it (athenev2).",
        show_default=False,
    ),
]
ScoresOption = Annotated[
    Path | None,
    typer.Option(
        "--scores",
        help="A table of grades (judge, suite, model, item, score; JSON Lines, .xz too) for "
        "--judge (default: shaberi-judgments/scores.jsonl.xz in the data directory).",
        show_default=False,
    ),
]
SuiteOption = Annotated[
    str | None,
    typer.Option(
        "--suite",
        help="The suite of the score table the --judge grades are taken from, by name or a "
        "unique part of it (ELYZA); needed where the judge graded several.",
        show_default=False,
    ),
]
RankingBenchOption = Annotated[
    str,
    typer.Option(
        "--bench",
        click_type=RegisteredName("benchmark", graded_bench_names, graded_bench),
        is_eager=True,  # before --variant, which is checked against it
        help=bench_help("The benchmark of --judgments", graded_bench_names()),
    ),
]
ConfidenceOption = Annotated[
    float,
    typer.Option(
        "--confidence",
        min=0.5,
        max=0.999,
        help="Confidence of the intervals that decide whether two models are told apart.",
    ),
]
FormatOption = Annotated[
    FormatChoice,
    typer.Option("--format", "-f", help="How the result is written.", case_sensitive=False),
]


@reports_errors
def rankings_command(
    judgments: JudgmentsOption = None,
    judge: JudgeNameOption = None,
    reference: Annotated[
        Path | None,
        typer.Option(
            "--reference",
            help="A published ranking to measure against, without draws: the JSON `hyoka "
            "mtbench leaderboard --format json` writes, or a CSV/TSV/JSON Lines table with "
            "model and score.",
            show_default=False,
        ),
    ] = None,
    scores: ScoresOption = None,
    suite: SuiteOption = None,
    bench: RankingBenchOption = "pfmt-fin",
    variant: VariantOption = None,
    confidence: ConfidenceOption = 0.95,
    brier_ties: Annotated[
        BrierTiesChoice,
        typer.Option(
            "--brier-ties",
            case_sensitive=False,
            help="A pair the reference ties, in the pair-rank Brier score: upstream scores it "
            "as arena-hard's notebook does (outcome: the name that sorts first is not below, "
            "so it depends on the names), omit leaves it out. In the signature.",
        ),
    ] = BrierTiesChoice.UPSTREAM,
    fmt: FormatOption = FormatChoice.MD,
    as_json: JsonOption = False,
    output: OutputOption = None,
    resamples: ResamplesOption = DEFAULT_RESAMPLES,
    seed: BootstrapSeedOption = DEFAULT_SEED,
    data_dir: DataDirOption = None,
) -> None:
    """Do two rankings of models agree, and how confidently: separability, agreement, Brier.

    Give two rankings: two of --judgments and --judge (the first measured, the second the
    reference: --judgments in the order given, then --judge), or one of them and a
    --reference file. Over the models both rank (those on one side only are counted and
    named): each ranking's separability (the share of model pairs whose intervals do not
    overlap), agreement with confidence (over the pairs the reference separates: +1 same
    order, -1 opposite, 0 not separated), strict agreement, the pair-rank Brier score, and
    Spearman and Kendall's tau-b with intervals over the models drawn, as arena-hard defines
    them. A --reference file has no draws: its separability and the agreement with
    confidence need them and are shown as n/a. The intervals are the leaderboard's (two-level
    bootstrap over questions, then trials; a score table's over items), with --resamples,
    --seed and --confidence in the signature line.

    Examples:

      hyoka judge rankings --judgments data/pfmt-bench-fin-ja/model_judgment/gpt-4o-mini_single
      --judgments data/pfmt-bench-fin-ja/model_judgment/gpt-4o_single

      hyoka judge rankings --judge athenev2 --judge llama33 --suite ELYZA

      hyoka judge rankings --judgments judged/ --reference leaderboard.json --format json
    """
    from hyoka.metaeval import rankings_report, render_rankings
    from hyoka.mtbench import IntervalSettings

    settings = IntervalSettings(resamples=resamples, seed=seed, confidence=confidence)
    given = len(judgments or ()) + len(judge or ()) + (reference is not None)
    if given != 2:
        raise InputError(
            f"give two rankings (--judgments, --judge, --reference), not {given}: two of "
            "--judgments/--judge, or one of them and --reference"
        )
    published = None
    if reference is not None:  # read first: a bad file is named before the judgments load
        from hyoka.metaeval import reference_ranking

        published = reference_ranking(reference)
    rankings = _rankings(judgments, judge, scores, suite, bench, variant, settings, data_dir)
    if published is not None:
        rankings.append(published)
    report = rankings_report(rankings[0], rankings[1], settings, brier_ties=brier_ties.value)
    shown = FormatChoice.JSON if as_json else fmt  # --json: --format json
    _write(render_rankings(report, shown.value), output, shown.value)


@reports_errors
def curve_command(
    judgments: JudgmentsOption = None,
    judge: JudgeNameOption = None,
    scores: ScoresOption = None,
    suite: SuiteOption = None,
    bench: RankingBenchOption = "pfmt-fin",
    variant: VariantOption = None,
    target: Annotated[
        float,
        typer.Option("--target", help="The separability to find the question count for."),
    ] = 0.8,
    sizes: Annotated[
        str | None,
        typer.Option(
            "--sizes",
            help="Question counts, comma-separated (default: eight steps up to all).",
            show_default=False,
        ),
    ] = None,
    repeats: Annotated[
        int, typer.Option("--repeats", min=1, help="Question subsets drawn per count.")
    ] = 10,
    confidence: ConfidenceOption = 0.95,
    fmt: FormatOption = FormatChoice.MD,
    as_json: JsonOption = False,
    output: OutputOption = None,
    resamples: ResamplesOption = DEFAULT_RESAMPLES,
    seed: BootstrapSeedOption = DEFAULT_SEED,
    data_dir: DataDirOption = None,
) -> None:
    """How many questions a benchmark needs: separability as it keeps fewer questions.

    For one ranking (--judgments, or --judge of a score table): for each question count,
    --repeats subsets of that many questions drawn without replacement, each ranked again
    with its own intervals; the mean separability over the subsets with the lowest and
    highest, and the agreement with confidence of each subset's ranking with all the
    questions' ranking. With all the questions the point is the ranking's own separability
    (the leaderboard's separability line, for the same --resamples and --seed). Then the
    fewest questions whose mean separability reaches --target, or that it is not reached
    within the benchmark's questions. A score table's curve ranks the models graded on every
    item.

    Examples:

      hyoka judge curve --judgments data/pfmt-bench-fin-ja/model_judgment/gpt-4o-mini_single

      hyoka judge curve --judge athenev2 --suite ELYZA --target 0.9 --sizes 10,25,50,100
    """
    from hyoka.metaeval import question_curve, render_curve
    from hyoka.mtbench import IntervalSettings

    settings = IntervalSettings(resamples=resamples, seed=seed, confidence=confidence)
    given = len(judgments or ()) + len(judge or ())
    if given != 1:
        raise InputError(f"give one ranking (--judgments or --judge), not {given}")
    (ranking,) = _rankings(judgments, judge, scores, suite, bench, variant, settings, data_dir)
    report = question_curve(
        ranking, _sizes(sizes), repeats=repeats, target=target, settings=settings
    )
    shown = FormatChoice.JSON if as_json else fmt  # --json: --format json
    _write(render_curve(report, shown.value), output, shown.value)


def _sizes(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise InputError(f"--sizes {text}: whole numbers, comma-separated") from None


def _rankings(
    judgments: list[Path] | None,
    judges: list[str] | None,
    scores: Path | None,
    suite: str | None,
    bench: str,
    variant: str | None,
    settings: IntervalSettings,
    data_dir: Path | None,
) -> list[Ranking]:
    """The rankings of --judgments (in order), then of --judge (in order)."""
    from hyoka.data import resolve_data_dir
    from hyoka.metaeval import judgments_rankings, score_table_path, table_rankings
    from hyoka.mtbench import Bench

    found = []
    if judgments:
        loaded = Bench.load(bench, data_dir, variant, questions_only=True)
        found += judgments_rankings(loaded, judgments, settings)
    if judges:
        table = score_table_path(scores, resolve_data_dir(data_dir))
        found += table_rankings(table, judges, suite, settings)
    elif scores is not None or suite is not None:
        raise InputError("--scores and --suite go with --judge")
    return found


def _write(text: str, output: Path | None, fmt: str) -> None:
    if output is None:
        echo(text, nl=False, json_text=fmt == "json", csv_text=fmt == "csv")
        return
    from hyoka.cli._common import say
    from hyoka.store import write_output

    write_output(output, text)
    say(f"wrote {output}", err=True)
