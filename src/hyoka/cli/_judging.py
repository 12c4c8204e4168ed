"""What the judging commands show alike: runs with a progress bar, totals, signatures.

Shared here, not in any command module, so that command modules never import each other
(``judge single``, ``pfgen judge`` and ``mtbench judge`` all grade and report), with the
judging flags whose choices are the judge's enums. Importing this module loads the judge
package (the flags need its enums); everything else heavy waits inside the functions.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli import _common
from hyoka.cli._common import progress_bar
from hyoka.errors import HyokaError

# the flags' choices: typer needs them when it builds a judging command
from hyoka.judge import GRADING, AggregateChoice, JudgeWatcher, MethodChoice, StyleControlChoice

if TYPE_CHECKING:
    from rich.table import Table

    from hyoka.judge import (
        AddTask,
        JudgedBy,
        JudgeReport,
        SingleRun,
        WinCounts,
    )
    from hyoka.providers import ClientStats
    from hyoka.signature import Signature
    from hyoka.stats import LengthControlled, RawAndControlled


AggregateOption = Annotated[
    AggregateChoice, typer.Option("--aggregate", help="How repeats combine.")
]
#: ``--aggregate``'s default: the library's (``judge.GRADING``)
DEFAULT_AGGREGATE = AggregateChoice(GRADING.aggregate)
MethodOption = Annotated[
    MethodChoice, typer.Option("--method", help="Pairwise verdict method, or all of them.")
]
ControlFeaturesOption = Annotated[
    list[StyleControlChoice] | None,
    typer.Option(
        "--control-features",
        help="Style held equal in the style-controlled Bradley-Terry ratings (repeatable; "
        "default both): length, markdown (headers, lists, bold).",
    ),
]


def control_features(given: Sequence[StyleControlChoice] | None) -> tuple[str, ...]:
    """The feature groups of ``--control-features``, each once, in the library's order."""
    from hyoka.stats import STYLE_CONTROLS

    chosen = {choice.value for choice in given or StyleControlChoice}
    return tuple(name for name in STYLE_CONTROLS if name in chosen)


class ShownJudging(JudgeWatcher):
    """Shows a judging run as it goes (``judge.JudgeWatcher``): the judgment file on
    stderr when ``announce`` formats it, and a progress bar per stage."""

    def __init__(self, announce: str | None = None) -> None:
        self.announce = announce

    def planned(self, output: Path) -> None:
        if self.announce is not None:
            _common.say(self.announce.format(output), err=True)

    @contextlib.contextmanager
    def progress(self, *, rate: bool = True) -> Iterator[AddTask]:
        with progress_bar(rate=rate) as bar:

            def add(label: str, total: int) -> Callable[[int], None]:
                return functools.partial(bar.advance, bar.add_task(label, total=total))

            yield add


def print_signature(signature: Signature) -> None:
    """The line that says how the numbers were produced, beside them."""
    _common.say(f"signature: {signature.line}")


def print_batch(stats: ClientStats, as_json: bool) -> None:
    """With ``--batch``: what the batch rounds did and whether to run the command again
    (on stderr, so the numbers printed stay the same)."""
    if stats.batch is not None and not as_json:
        for line in stats.batch.line().splitlines():  # a notice each, then the summary
            _common.say(line, err=True)


def print_judge(judges: Iterable[JudgedBy]) -> None:
    """The line that names the judge that answered, beside the numbers it made
    (``judge.judged_by``: each judge once; a script's numbers said to be a dry run)."""
    from hyoka.judge import judges_shown

    _common.say(f"judged by: {judges_shown(judges)}")


def dry_run_title(title: str, judges: Iterable[JudgedBy]) -> str:
    """A table's title, marked ``(dry run)`` where a script made its numbers
    (``judge.dry_run_title``)."""
    from hyoka.judge import dry_run_title as titled

    return titled(title, judges)


def single_table(run: SingleRun) -> Table:
    """The end-of-run table of a single grading: the grades, then what the calls cost."""
    from rich.table import Table

    summary, report, stats = run.summary, run.report, run.stats
    table = Table(title=dry_run_title("Judge summary", [run.judge]), show_header=False)
    table.add_column("", style="bold")
    table.add_column("", justify="right")
    shown_mean = "-" if summary.mean is None else f"{summary.mean:.3f}"
    rows = [
        ("mean score", shown_mean),
        ("graded (n)", str(summary.n)),
        ("failures (no rating, score -1)", str(summary.failures)),
        ("judged now / done before", f"{report.judged} / {report.done_before}"),
        (
            "judge calls",
            f"{report.judge_calls} ({stats.cache_hits} from the cache, "
            f"{stats.requests} to the provider)",
        ),
        ("tokens in / out (this run)",
         f"{stats.usage.prompt_tokens} / {stats.usage.completion_tokens}"),
    ]  # fmt: skip
    if run.cost_usd is not None:
        rows.append(("cost (this run)", f"${run.cost_usd:.4f}"))
    for row in rows:
        table.add_row(*row)
    return table


class NothingGradedError(HyokaError):
    """Every judgment failed: the judge wrote no rating (single grading) or no verdict
    (pairwise) in any reply. A run with no grade is not a result, so the command exits
    non-zero rather than reporting an empty mean or a table of invalid verdicts."""


def fail_if_nothing_graded(graded: int, failures: int, judge: str, judgments: object) -> None:
    """Raise :class:`NothingGradedError` (one line, exit 1) when there were grades to make
    and none got a rating; called after the totals are shown so the counts stay visible."""
    if graded == 0 and failures > 0:
        raise NothingGradedError(
            f"no grade: {judge} wrote no rating in any reply (graded 0, failures {failures}); "
            f"its replies are kept in {judgments}"
        )


def fail_if_no_verdict(report: JudgeReport, judge: str, judgments: object, what: str) -> None:
    """Raise :class:`NothingGradedError` (one line, exit 1) when this run asked the judge
    about some ``what`` (pairs, turns) and no method got a verdict from any of them; called
    after the totals are shown. A run with nothing left to ask passes."""
    asked = report.asked
    if asked == 0 or report.undecided < asked:
        return
    why = f"{report.no_verdict} of {2 * asked} replies without a verdict letter"
    if report.no_logprobs:
        why += f", {len(report.no_logprobs)} {what} without log probabilities"
    raise NothingGradedError(
        f"no verdict: {judge} gave no verdict on any of the {asked} {what} judged now ({why}); "
        f"its replies are kept in {judgments}"
    )


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def win_table(
    counts: dict[str, dict[str, WinCounts]],
    turns: int,
    controlled: Mapping[str, LengthControlled] | None = None,
    judges: Iterable[JudgedBy] = (),
) -> Table:
    """Per method and model: wins, losses, ties, invalid verdicts and FastChat's rates;
    with ``controlled`` (per method, against a baseline) each model's length-controlled
    win rate beside them (``-`` for the baseline and a method without one); titled a dry
    run where a script of ``judges`` gave the verdicts."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=dry_run_title(f"pairwise verdicts: {turns} turn(s) compared", judges))
    columns = ["method", "model", "wins", "losses", "ties", "invalid", "win rate", "adjusted"]
    if controlled is not None:
        columns.append("length-controlled")
    for column in columns:
        table.add_column(column, justify="left" if column in ("method", "model") else "right")
    for method, models in counts.items():
        rates = controlled[method].by_model() if controlled and method in controlled else {}
        for row in models.values():
            cells = [
                method, escape(row.model), str(row.wins), str(row.losses), str(row.ties),
                str(row.invalid), _rate(row.win_rate), _rate(row.adjusted_win_rate),
            ]  # fmt: skip
            if controlled is not None:
                rate = rates.get(row.model)
                cells.append("-" if rate is None else rate.controlled.format())
            table.add_row(*cells)
    return table


def style_table(per_method: Mapping[str, RawAndControlled], title: str) -> Table:
    """Per method and model: the raw Bradley–Terry rating and the style-controlled one,
    each with its interval (raw order, best first)."""
    from rich.markup import escape
    from rich.table import Table

    from hyoka.stats import rating_text

    table = Table(title=title)
    for column in ("method", "model", "rating", "style-controlled", "games"):
        table.add_column(column, justify="left" if column in ("method", "model") else "right")
    for method, rated in per_method.items():
        for raw, controlled in rated.rows():
            table.add_row(
                method, escape(raw.model), escape(rating_text(raw)),
                escape(rating_text(controlled)), str(raw.games),
            )  # fmt: skip
    return table


def print_style_control(per_method: Mapping[str, RawAndControlled]) -> None:
    """The ratings table, each method's style coefficients, what the column means and the
    controlled ratings' signature (one for every method: the same settings)."""
    if not per_method:
        return
    from hyoka.cli._tables import print_table

    print_table(style_table(per_method, "Bradley-Terry ratings, raw and style-controlled"))
    for method, rated in per_method.items():
        _common.say(f"{method}: {rated.coefficients_line()}")
        for why in rated.separation_lines():  # they quote model names: never read as markup
            _common.say(f"{method}: {why}")
    from hyoka.stats import held_equal

    features = held_equal(next(iter(per_method.values())).controlled.features)
    _common.console.print(
        f"style-controlled: the rating with the answers' {features} held equal, fitted "
        "jointly (arena-hard's features; lengths in characters); γ > 0: the judge prefers "
        "more of that feature",
        highlight=False,
        soft_wrap=True,
    )
    print_signature(next(iter(per_method.values())).controlled.signature)
