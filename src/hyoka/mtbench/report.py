"""The leaderboard as Markdown, CSV or JSON: both turns together, then each turn alone.

Markdown and CSV show numbers rounded half-up to two decimals (``round_half_up``) as
decimal strings; JSON gives them at full precision (the exact mean as the nearest float,
what upstream's pandas prints before rounding); a category with no rated turn is empty
(``null`` in JSON).

Beside each "Avg." stands its 95% interval over questions and trials (``mtbench.trials``:
a two-level bootstrap, over questions only where there is one trial), and for Swallow's
variant swallow-evaluation's own figure, the mean of the per-trial means ± their standard
deviation; the interval's resamples and seed are in the table's signature. Under the table
(in JSON, in every row, like the headline rule) stands the table's separability: the share
of the complete rows' model pairs whose intervals (over both turns) do not overlap, from the
same draws (``trials.table_separability``); none under two complete rows.

Every format says how the numbers were produced and which rows are not like the others:
a row not judged on every turn is marked ``(incomplete)`` and ranked last, a row with
turns the judge gave no rating (-1, left out of its means) is marked ``(N unrated)``, a
row whose signature differs from the table's is marked ``(differs)``, a row with turns
judged again in one file (counted again, as FastChat's ``show_result.py`` and Shaberi's
notebook count them: ``BenchSpec.repeated_turns``) ``(N repeated)``; Markdown and CSV end
with the table's signature, how "Avg." is computed and each marked row's notes (CSV as
``#`` comment lines); JSON gives every row its signature, its differences, whether it is
complete and how many turns are unrated.

Every format names the judge that answered (``judge.judged_by``: what a file's hyoka
manifest records, else the name its lines give): Markdown and CSV under the signature
(``judged by: ...``, and per row where the rows had different judges), JSON in every row
(``judged_by``, ``dry_run``); a row a script graded is marked ``(dry run)``.

Given the answers (``--answers``: a ``LengthColumn``), the table of both turns gains a
"length-adj." column after the interval: each model's length-adjusted mean
(``mtbench.length_columns``), empty for a model with a judged turn whose answer is missing;
the notes say what it is, with the within-question partial correlation of score with length
and the fit's signature, and count each model's missing answers; JSON gives every row a
``length_adjusted`` object. Without the answers every format is as it was.

Given the single grades' Bradley–Terry ratings too (``--style-control``: a
``GradeRatings``, ``mtbench.grade_battles``), that table gains a "BT" and a
"style-controlled BT" column (each rating with its interval, n/a where the fit has no
maximum), the notes what they are, the judge's style coefficients γ, why any number is
n/a, and the signature; JSON gives every row a ``bradley_terry_from_grades`` object.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, Literal

from hyoka.judge import DRY_RUN, JudgedBy, any_dry_run, judges_json, judges_shown
from hyoka.mtbench.grade_battles import GradeRatings
from hyoka.mtbench.leaderboard import Leaderboard, ModelScores, display_name, round_half_up
from hyoka.mtbench.length_columns import HEADER as LENGTH_HEADER
from hyoka.mtbench.length_columns import LengthColumn
from hyoka.mtbench.trials import (
    IntervalSettings,
    interval_estimate,
    mean_interval,
    swallow_figure,
    table_separability,
)
from hyoka.printable import csv_text, markdown_cell, one_line
from hyoka.signature import SIGNATURE_KEY
from hyoka.stats import Interval, rating_text

Format = Literal["md", "csv", "json"]
_TITLES = {None: "Both turns", 1: "Turn 1", 2: "Turn 2"}


def _cell(value: Fraction | None) -> str:
    return "" if value is None else str(round_half_up(value))


def _number(value: Fraction | None) -> float | None:
    """Full precision: the float nearest the exact mean."""
    return None if value is None else float(value)


def _interval_cell(interval: Interval | None) -> str:
    """``[low, high]``, each rounded half-up like the means."""
    if interval is None:
        return ""
    low, high = (round_half_up(Fraction(bound)) for bound in (interval.low, interval.high))
    return f"[{low}, {high}]"


def _swallow_cell(model: ModelScores, turn: int | None) -> str:
    figure = swallow_figure(model, turn)
    if figure is None:
        return ""
    mean = round_half_up(figure.mean)
    if figure.stdev is None:
        return str(mean)
    return f"{mean} ± {round_half_up(Fraction(figure.stdev))}"


#: what the interval and Swallow's columns are, in the notes under a table
INTERVAL_NOTE = (
    "95% CI: percentile bootstrap of the mean of the question means, over questions, then "
    "each question's trials (with one trial, over questions only)"
)
SWALLOW_NOTE = (
    "Swallow: swallow-evaluation show_result.py's score ± stdev: the mean over the judged "
    "turns per trial, then the mean and sample standard deviation over the trials"
)


def board_judges(board: Leaderboard) -> list[JudgedBy]:
    """The judges that answered the table's rows (``judge.judged_by`` of each file), each
    once, best row first."""
    return list(dict.fromkeys(judge for model in board.ranked() for judge in model.judges))


def row_label(board: Leaderboard, model: ModelScores) -> str:
    """The model's name, marked when its row is incomplete, has unrated turns, was
    produced another way or by a script (a dry run)."""
    marks = [] if board.complete(model) else ["incomplete"]
    if model.unrated:
        marks.append(f"{model.unrated} unrated")
    if model.repeated:
        marks.append(f"{model.repeated} repeated")
    if board.differences(model):
        marks.append("differs")
    if any_dry_run(model.judges):
        marks.append(DRY_RUN)
    name = display_name(model.model, board.bench)
    return f"{name} ({', '.join(marks)})" if marks else name


def notes(
    board: Leaderboard,
    interval: IntervalSettings | None = None,
    turns: tuple[int | None, ...] = (None,),
    length: LengthColumn | None = None,
    grades: GradeRatings | None = None,
) -> list[str]:
    """The table's signature (with how its intervals were drawn) and the judge that
    answered, then what each marked row lacks or does differently (its judge, where the
    rows had several), and, for each row and table (``turns``) whose interval is of
    another mean than its "Avg." (``trials.interval_estimate``), which mean."""
    interval = interval or IntervalSettings()
    lines = []
    if board.signature is not None:
        signed = board.signature.with_field("interval", interval.signed)
        lines.append(f"signature: {signed.with_field('headline', board.headline.name).line}")
    judges = board_judges(board)
    if judges:
        lines.append(f"judged by: {judges_shown(judges)}")
    lines.append(INTERVAL_NOTE)
    separated = table_separability(board, None, interval)
    if separated is not None:
        lines.append(separated.line)
    if board.bench.trial_lines:
        lines.append(SWALLOW_NOTE)
    shaberi = board.bench.spec.question_format.upstream_judgments
    lines.append(
        "Avg.: mean of every rated task, no rating (-1, null) left out (Shaberi's mean "
        "score, its results notebook's pandas mean; a row its files repeat counts again)"
        if shaberi
        else board.headline.note
    )
    if length is not None:
        lines.append(length.note)
        lines.append(f"{LENGTH_HEADER} signature: {length.fit.signature.line}")
    if grades is not None:
        lines += _grade_notes(grades)
    for model in board.ranked():
        name = display_name(model.model, board.bench)
        if not board.complete(model):
            lines.append(
                f"{name}: incomplete, {model.judged} of {board.expected(model)} turns judged"
            )
        if model.unrated:
            lines.append(
                f"{name}: {model.unrated} of {model.judged} judged turns unrated (no rating, "
                f"-1), {board.headline.unrated_note}"
            )
        if model.repeated:
            lines.append(
                f"{name}: {model.repeated} turn(s) judged again in its file, each judgment "
                "counted in its means as upstream's mean counts them"
            )
        differences = board.differences(model)
        if differences:
            lines.append(f"{name}: differs: {'; '.join(differences)}")
        if len(judges) > 1:
            lines.append(f"{name}: judged by {judges_shown(model.judges)}")
        lines += _interval_of(name, model, turns)
        if grades is not None and model.model in grades.missing:
            lines.append(
                f"{name}: {grades.missing[model.model]} judged turn(s) without an answer in "
                f"--answers, no {BT_HEADERS[0]}"
            )
        if length is not None and model.model in length.missing:
            lines.append(
                f"{name}: {length.missing[model.model]} judged turn(s) without an answer in "
                f"--answers, no {LENGTH_HEADER} mean"
            )
    return lines


#: the columns of the single grades' Bradley–Terry ratings, raw and style-controlled
BT_HEADERS = ("BT", "style-controlled BT")


def _grade_notes(grades: GradeRatings) -> list[str]:
    """What the BT columns are, γ, why any is n/a, and the signature."""
    controlled = grades.rated.controlled
    return [
        grades.note,
        f"{BT_HEADERS[1]}: {grades.rated.coefficients_line()}",
        *(f"{BT_HEADERS[0]}: {why}" for why in grades.rated.raw.separation_lines()),
        *(f"{BT_HEADERS[1]}: {why}" for why in controlled.separation_lines()),
        f"{BT_HEADERS[1]} signature: {controlled.signature.line}",
    ]


def _grade_cells(grades: GradeRatings, model: ModelScores) -> list[str]:
    """The row's raw and controlled rating; empty where the model was left out."""
    raw = grades.rated.raw.by_model().get(model.model)
    controlled = grades.rated.controlled.ratings.by_model().get(model.model)
    if raw is None or controlled is None:
        return ["", ""]
    return [rating_text(raw), rating_text(controlled)]


def _grade_json(grades: GradeRatings, model: ModelScores) -> dict[str, Any]:
    """The row's raw and controlled rating (``null`` where left out) with the fit's γ,
    separation, counts and signature."""
    raw = grades.rated.raw.by_model().get(model.model)
    controlled = grades.rated.controlled.ratings.by_model().get(model.model)
    fit = grades.rated.controlled.to_json()
    return {
        "raw": None if raw is None else raw.to_json(),
        "style_controlled": None if controlled is None else controlled.to_json(),
        "missing_answers": grades.missing.get(model.model, 0),
        "battles": grades.battles,
        "resampled": {"unit": "question", "count": grades.questions},
        "raw_separation": grades.rated.raw.separation_lines(),
        **{key: fit[key] for key in ("style_coefficients", "separation", SIGNATURE_KEY)},
    }


def _interval_of(name: str, model: ModelScores, turns: tuple[int | None, ...]) -> list[str]:
    """A note per table where the row's interval, as shown, is not about its "Avg."."""
    lines = []
    for turn in turns:
        estimate, overall = interval_estimate(model, turn), model.overall(turn)
        if estimate is None or overall is None:
            continue
        shown = round_half_up(Fraction(estimate))
        if shown != round_half_up(overall):
            table = "" if turn is None else f" (turn {turn})"
            lines.append(
                f"{name}: 95% CI{table}: interval of the mean of question means, {shown} "
                f"(Avg. {round_half_up(overall)})"
            )
    return lines


def table_rows(
    board: Leaderboard,
    turn: int | None = None,
    interval: IntervalSettings | None = None,
    length: LengthColumn | None = None,
    grades: GradeRatings | None = None,
) -> list[list[str]]:
    """Header, then one row per model: name, Avg., its 95% interval (given ``length``, in
    the table of both turns, the length-adjusted mean; Swallow's variant: upstream's
    figure), the categories in benchmark order."""
    categories = board.bench.spec.categories
    swallow = ["Swallow"] if board.bench.trial_lines else []
    adjusted = length if turn is None else None
    rated = grades if turn is None else None
    extra = [LENGTH_HEADER] if adjusted is not None else []
    extra += list(BT_HEADERS) if rated is not None else []
    rows = [
        ["Model", "Avg.", "95% CI", *extra, *swallow, *map(board.bench.spec.column, categories)]
    ]
    for model in board.ranked(turn):
        means = model.means(turn)
        rows.append(
            [
                row_label(board, model),
                _cell(model.overall(turn)),
                _interval_cell(mean_interval(model, turn, interval)),
                *([_adjusted_cell(adjusted, model)] if adjusted is not None else []),
                *(_grade_cells(rated, model) if rated is not None else []),
                *([_swallow_cell(model, turn)] if swallow else []),
                *(_cell(means[c]) for c in categories),
            ]
        )
    return rows


def _adjusted_cell(length: LengthColumn, model: ModelScores) -> str:
    """The model's length-adjusted mean, rounded half-up like the means; empty where
    it was left out."""
    found = length.adjusted(model.model)
    return "" if found is None else str(round_half_up(Fraction(found.estimate)))


def _markdown(rows: list[list[str]]) -> str:
    """The table in Markdown, each cell one (``markdown_cell``: a model's name comes from
    a file)."""
    lines = [
        "| " + " | ".join(rows[0]) + " |",
        "|" + "|".join(["---"] + ["--:"] * (len(rows[0]) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(markdown_cell(cell) for cell in row) + " |" for row in rows[1:]]
    return "\n".join(lines)


def render(
    board: Leaderboard,
    fmt: Format,
    *,
    per_turn: bool = True,
    interval: IntervalSettings | None = None,
    length: LengthColumn | None = None,
    grades: GradeRatings | None = None,
) -> str:
    # a table per judged turn where there is more than one (Japanese Vicuna QA has one
    # turn; Stability's variants judge turn 1 only)
    several = per_turn and len(board.bench.turns) > 1
    turns: list[int | None] = [None, *board.bench.turns] if several else [None]
    if fmt == "json":
        found = to_json(board, interval, length, grades)
        return json.dumps(found, ensure_ascii=False, indent=2) + "\n"
    if fmt == "csv":
        records: list[list[object]] = []
        for turn in turns:
            rows = table_rows(board, turn, interval, length, grades)
            records.append(["Turns", *rows[0]])
            label = "both" if turn is None else str(turn)
            records += ([label, *row] for row in rows[1:])
        return csv_text(records, notes(board, interval, tuple(turns), length, grades))
    titles = {**_TITLES, None: "All questions"} if len(board.bench.turns) == 1 else _TITLES
    parts = [
        f"### {titles[turn]}\n\n{_markdown(table_rows(board, turn, interval, length, grades))}\n"
        for turn in turns
    ]
    return "\n".join(parts) + "".join(
        f"\n{one_line(note)}\n" for note in notes(board, interval, tuple(turns), length, grades)
    )


def _interval_json(
    model: ModelScores, turn: int | None, interval: IntervalSettings
) -> dict[str, Any] | None:
    found = mean_interval(model, turn, interval)
    if found is None:
        return None
    return {**found.to_json(), "seed": interval.seed, "method": interval.signed}


def _swallow_json(model: ModelScores, turn: int | None) -> dict[str, Any] | None:
    figure = swallow_figure(model, turn)
    if figure is None:
        return None
    return {"score": float(figure.mean), "stdev": figure.stdev, "trials": figure.trials}


def _length_json(length: LengthColumn, model: ModelScores) -> dict[str, Any]:
    """The row's length-adjusted mean (``null`` where left out) with the fit it comes
    from: the partial correlation, γ, the signature, and the answers missing."""
    found = length.fit.by_model().get(model.model)
    return {
        "mean": None if found is None else found.adjusted.to_json(),
        "mean_log_length_above_question": None if found is None else found.relative_length,
        "missing_answers": length.missing.get(model.model, 0),
        "partial_correlation_within_question": length.fit.partial_correlation.to_json(),
        "length_coefficient": length.fit.length_coefficient.to_json(),
        "questions": length.fit.questions,
        "resampled": {"unit": length.fit.unit, "count": length.fit.clusters},
        SIGNATURE_KEY: length.fit.signature.to_json(),
    }


def to_json(
    board: Leaderboard,
    interval: IntervalSettings | None = None,
    length: LengthColumn | None = None,
    grades: GradeRatings | None = None,
) -> list[dict[str, Any]]:
    """One object per model, best first: overall with its interval (and, for Swallow's
    variant, upstream's figure; given ``length``, the length-adjusted mean), category
    means, the same per turn."""
    interval = interval or IntervalSettings()
    categories = board.bench.spec.categories
    swallow = board.bench.trial_lines
    separated = table_separability(board, None, interval)
    out: list[dict[str, Any]] = []
    for model in board.ranked():
        entry: dict[str, Any] = {
            "model": display_name(model.model, board.bench),
            "overall": _number(model.overall()),
            "interval": _interval_json(model, None, interval),
            **({"length_adjusted": _length_json(length, model)} if length is not None else {}),
            **(
                {"bradley_terry_from_grades": _grade_json(grades, model)}
                if grades is not None
                else {}
            ),
            **({"swallow": _swallow_json(model, None)} if swallow else {}),
            "categories": {c: _number(m) for c, m in model.means().items()},
        }
        for turn in board.bench.turns:
            entry[f"turn{turn}"] = {
                "overall": _number(model.overall(turn)),
                "interval": _interval_json(model, turn, interval),
                **({"swallow": _swallow_json(model, turn)} if swallow else {}),
                "categories": {c: _number(model.category_mean(c, turn)) for c in categories},
            }
        entry["headline"] = board.headline.name
        entry["separability"] = None if separated is None else separated.to_json()
        entry["trials"] = model.trials
        entry["judged_turns"] = model.judged
        entry["unrated_turns"] = model.unrated
        entry["repeated_rows"] = model.repeated
        entry["complete"] = board.complete(model)
        entry[SIGNATURE_KEY] = None if model.signature is None else model.signature.to_json()
        entry["signature_differs"] = board.differences(model)
        entry["judged_by"] = judges_json(model.judges)
        entry["dry_run"] = any_dry_run(model.judges)
        out.append(entry)
    return out
