"""``hyoka judge agreement``: how well label sets agree (humans, judges, methods)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hyoka.cli._common import (
    BootstrapSeedOption,
    JsonOption,
    ResamplesOption,
    console,
    echo_json,
    reports_errors,
)
from hyoka.cli._tables import print_table
from hyoka.errors import InputError
from hyoka.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from hyoka.stats import AgreementReport, LabelTable


@reports_errors
def agreement_command(
    human: Annotated[
        Path | None,
        typer.Option(
            "--human",
            help="Human labels, JSONL or CSV: item, rater, label (A/B/C), optional category.",
            show_default=False,
        ),
    ] = None,
    auto: Annotated[
        list[Path] | None,
        typer.Option(
            "--auto",
            help="Automatic verdicts, JSONL: item, verdict (A/B/C or null), optional "
            "order_xy/order_yx. Repeatable; each file is named by its stem.",
            show_default=False,
        ),
    ] = None,
    single: Annotated[
        list[Path] | None,
        typer.Option(
            "--single",
            help="Twice: two judges' single-grading folders (FastChat model_judgment layout); "
            "their 1-10 grades become pairwise preferences between models. The first is "
            "the reference.",
            show_default=False,
        ),
    ] = None,
    questions: Annotated[
        Path | None,
        typer.Option(
            "--questions",
            help="question.jsonl giving each question's category for --single "
            "(default: the one two folders above the first judgment folder, if any).",
            show_default=False,
        ),
    ] = None,
    by_category: Annotated[
        bool, typer.Option("--by-category/--no-by-category", help="Per-category breakdown.")
    ] = True,
    resamples: ResamplesOption = DEFAULT_RESAMPLES,
    seed: BootstrapSeedOption = DEFAULT_SEED,
    as_json: JsonOption = False,
) -> None:
    """Concordance, Fleiss' and Cohen's kappa, robustness, confusion and per-category tables.

    Examples:

      hyoka judge agreement --human labels.csv --auto prob.jsonl --auto bs1.jsonl

      hyoka judge agreement --single model_judgment/gpt-4o_single
      --single model_judgment/gpt-4o-mini_single --json
    """
    from hyoka.stats import agreement_report

    notes: dict[str, Any] = {}
    if single:
        if human is not None or auto:
            raise InputError("--single cannot be combined with --human/--auto")
        table, notes = _from_single_grades(single, questions)
    else:
        table = _from_label_files(human, auto or [])
    report = agreement_report(table, resamples=resamples, seed=seed, by_category=by_category)
    if as_json:
        echo_json({**notes, **report.to_json()})
        return
    _print(report, notes)


def _from_label_files(human: Path | None, auto: list[Path]) -> LabelTable:
    from hyoka.stats import label_table_from_files

    if human is None and len(auto) < 2:
        raise InputError("give --human with --auto, or at least two --auto files, or --single")
    return label_table_from_files(human, auto)


def _from_single_grades(
    folders: list[Path], questions: Path | None
) -> tuple[LabelTable, dict[str, Any]]:
    from hyoka.metaeval import preferences_from_folders

    if len(folders) != 2:
        raise InputError(f"--single takes exactly two judgment folders, got {len(folders)}")
    result = preferences_from_folders(folders[0], folders[1], questions)
    return result.table, result.notes()


def _print(report: AgreementReport, notes: dict[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from hyoka.stats import LETTERS, VERDICT_NAMES

    if notes:
        console.print(
            f"{escape(notes['judges'][1])} vs {escape(notes['judges'][0])} over "
            f"{len(notes['models'])} models; left out: "
            f"{escape(str(notes['models_left_out']))}, "
            f"{notes['comparisons_left_out_for_failed_grades']} comparisons with a failed grade"
        )
    raters = ", ".join(report.raters) or "none"
    console.print(f"{report.n_items} items; reference raters: {escape(raters)}")
    if report.fleiss is not None:
        console.print(f"Fleiss' kappa among raters: {report.fleiss.format()}")
    if report.concordance or report.robustness:
        view = Table(title="Methods against the raters")
        for name in ("Method", "Concordance [95% CI]", "Per rater", "Robustness [95% CI]"):
            view.add_column(name)
        for method in report.methods:
            ci = report.concordance.get(method)
            per = report.concordance_per_rater.get(method, {})
            robust = report.robustness.get(method)
            view.add_row(
                escape(method),
                ci.format() if ci else "-",
                escape(", ".join(f"{r} {v:.3f}" for r, v in per.items())) or "-",
                f"{robust[0].format()} (n={robust[1]})" if robust else "-",
            )
        print_table(view)
    pairs = Table(title="Label sets pairwise")
    for name in ("First", "Second", "Agreement [95% CI]", "Cohen's kappa [95% CI]"):
        pairs.add_column(name)
    for p in report.pairs:
        pairs.add_row(escape(p.first), escape(p.second), p.agreement.format(), p.kappa.format())
    print_table(pairs)
    for method, matrices in report.confusion.items():
        for reference, matrix in matrices.items():
            view = Table(title=f"Confusion: rows {reference}, columns {method}")
            view.add_column("")
            for name in VERDICT_NAMES:
                view.add_column(name, justify="right")
            for letter, row in zip(LETTERS, matrix, strict=True):
                view.add_row(letter, *map(str, row))
            print_table(view)
    if report.by_category:
        view = Table(title="By category")
        view.add_column("Category")
        view.add_column("Items", justify="right")
        for method in report.concordance:
            view.add_column(f"Concordance {escape(method)}")
        if report.pairs:
            first = report.pairs[0]
            view.add_column(f"kappa {escape(first.first)}~{escape(first.second)}")
        if report.fleiss is not None:
            view.add_column("Fleiss")
        for name, sub in report.by_category.items():
            cells = [escape(name), str(sub.n_items)]
            cells += [sub.concordance[m].format() for m in report.concordance]
            if report.pairs:
                cells.append(sub.pairs[0].kappa.format())
            if report.fleiss is not None:
                cells.append(sub.fleiss.format() if sub.fleiss else "-")
            view.add_row(*cells)
        print_table(view)
