"""The leaderboard as Markdown, CSV or JSON: both turns together, then each turn alone.

Markdown and CSV show numbers rounded half-up to two decimals (``round_half_up``) as
decimal strings; JSON gives them at full precision (the exact mean as the nearest float,
what upstream's pandas prints before rounding); a category with no rated turn is empty
(``null`` in JSON).

Every format says how the numbers were produced and which rows are not like the others:
a row not judged on every turn is marked ``(incomplete)`` and ranked last, a row with
turns the judge gave no rating (-1, left out of its means) is marked ``(N unrated)``, a
row whose signature differs from the table's is marked ``(differs)``, a row with turns
judged again in one file (counted again, as FastChat's ``show_result.py`` and Shaberi's
notebook count them: ``BenchSpec.repeated_turns``) ``(N repeated)``; Markdown and CSV end
with the table's signature, how "Avg." is computed and each marked row's notes (CSV as
``#`` comment lines); JSON gives every row its signature, its differences, whether it is
complete and how many turns are unrated.
"""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from typing import Any, Literal

from hyoka.mtbench.bench import SHORT_NAMES
from hyoka.mtbench.leaderboard import Leaderboard, ModelScores, display_name, round_half_up
from hyoka.signature import SIGNATURE_KEY

Format = Literal["md", "csv", "json"]
_TITLES = {None: "Both turns", 1: "Turn 1", 2: "Turn 2"}


def _cell(value: Fraction | None) -> str:
    return "" if value is None else str(round_half_up(value))


def _number(value: Fraction | None) -> float | None:
    """Full precision: the float nearest the exact mean."""
    return None if value is None else float(value)


#: how each headline rule reads in the notes under a table
HEADLINE_NOTES = {
    "category-mean": "Avg.: mean of the category means (upstream's make_leaderboard.py)",
    "turn-mean": "Avg.: mean of every rated turn (FastChat's show_result.py)",
}


def row_label(board: Leaderboard, model: ModelScores) -> str:
    """The model's name, marked when its row is incomplete, has unrated turns or was
    produced another way."""
    marks = [] if board.complete(model) else ["incomplete"]
    if model.unrated:
        marks.append(f"{model.unrated} unrated")
    if model.repeated:
        marks.append(f"{model.repeated} repeated")
    if board.differences(model):
        marks.append("differs")
    name = display_name(model.model, board.bench)
    return f"{name} ({', '.join(marks)})" if marks else name


def notes(board: Leaderboard) -> list[str]:
    """The table's signature, then what each marked row lacks or does differently."""
    lines = []
    if board.signature is not None:
        lines.append(f"signature: {board.signature.line}")
    shaberi = board.bench.spec.question_format == "shaberi"
    lines.append(
        "Avg.: mean of every rated task, no rating (-1, null) left out (Shaberi's mean "
        "score, its results notebook's pandas mean; a row its files repeat counts again)"
        if shaberi
        else HEADLINE_NOTES[board.bench.spec.headline]
    )
    for model in board.ranked():
        name = display_name(model.model, board.bench)
        if not board.complete(model):
            lines.append(
                f"{name}: incomplete, {model.judged} of {board.expected_turns} turns judged"
            )
        if model.unrated:
            lines.append(
                f"{name}: {model.unrated} of {model.judged} judged turns unrated (no rating, "
                "-1), left out of its means"
            )
        if model.repeated:
            lines.append(
                f"{name}: {model.repeated} turn(s) judged again in its file, each judgment "
                "counted in its means as upstream's mean counts them"
            )
        differences = board.differences(model)
        if differences:
            lines.append(f"{name}: differs: {'; '.join(differences)}")
    return lines


def table_rows(board: Leaderboard, turn: int | None = None) -> list[list[str]]:
    """Header, then one row per model: name, Avg., the categories in benchmark order."""
    categories = board.bench.spec.categories
    rows = [["Model", "Avg.", *(SHORT_NAMES.get(c, c) for c in categories)]]
    for model in board.ranked(turn):
        means = model.means(turn)
        rows.append(
            [
                row_label(board, model),
                _cell(model.overall(turn)),
                *(_cell(means[c]) for c in categories),
            ]
        )
    return rows


def _markdown(rows: list[list[str]]) -> str:
    lines = [
        "| " + " | ".join(rows[0]) + " |",
        "|" + "|".join(["---"] + ["--:"] * (len(rows[0]) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines)


def render(board: Leaderboard, fmt: Format, *, per_turn: bool = True) -> str:
    # a table per judged turn where there is more than one (Japanese Vicuna QA has one
    # turn; Stability's variants judge turn 1 only)
    several = per_turn and len(board.bench.turns) > 1
    turns: list[int | None] = [None, *board.bench.turns] if several else [None]
    if fmt == "json":
        return json.dumps(to_json(board), ensure_ascii=False, indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        for turn in turns:
            rows = table_rows(board, turn)
            writer.writerow(["Turns", *rows[0]])
            label = "both" if turn is None else str(turn)
            writer.writerows([label, *row] for row in rows[1:])
        return buffer.getvalue() + "".join(f"# {note}\n" for note in notes(board))
    titles = {**_TITLES, None: "All questions"} if len(board.bench.turns) == 1 else _TITLES
    parts = [f"### {titles[turn]}\n\n{_markdown(table_rows(board, turn))}\n" for turn in turns]
    return "\n".join(parts) + "".join(f"\n{note}\n" for note in notes(board))


def to_json(board: Leaderboard) -> list[dict[str, Any]]:
    """One object per model, best first: overall, category means, the same per turn."""
    categories = board.bench.spec.categories
    out: list[dict[str, Any]] = []
    for model in board.ranked():
        entry: dict[str, Any] = {
            "model": display_name(model.model, board.bench),
            "overall": _number(model.overall()),
            "categories": {c: _number(m) for c, m in model.means().items()},
        }
        for turn in board.bench.turns:
            entry[f"turn{turn}"] = {
                "overall": _number(model.overall(turn)),
                "categories": {c: _number(model.category_mean(c, turn)) for c in categories},
            }
        entry["headline"] = board.bench.spec.headline
        entry["judged_turns"] = model.judged
        entry["unrated_turns"] = model.unrated
        entry["repeated_rows"] = model.repeated
        entry["complete"] = board.complete(model)
        entry[SIGNATURE_KEY] = None if model.signature is None else model.signature.to_json()
        entry["signature_differs"] = board.differences(model)
        out.append(entry)
    return out
