"""The results matrix a sweep ends with: models down, suites across (a judged suite once per
judge), each cell its headline number with its interval, in every leaderboard format
(``md``, ``csv``, ``json``), and every cell signed.

A cell's number is the one its suite's own leaderboard shows (pfgen-bench's score,
a judged benchmark's overall mean on its scale, M-IFEval-Ja's strict prompt-level accuracy
in percent, JFBench's success rate in percent, a ranked suite's Bradley-Terry rating of the
model among the plan's models: Rakuda's bootstrap median with its 16th-84th percentile
band, a pairwise suite's raw rating with its 95% interval), and a judged number names the
judge that produced it: the column says which judge, and the notes under the table give
each column's variant, judge and signature (a scripted judge's numbers are marked a dry
run). A cell that failed shows ``failed`` and its
error; one waiting on batches (``batch = true``) ``waiting (batch)`` and their ids; one
not yet run shows ``-``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hyoka.printable import one_line, table_text
from hyoka.sweep.cells import CellResult

MatrixFormat = Literal["md", "csv", "json"]
#: the formats the matrix is written in, as every leaderboard's
FORMATS: tuple[MatrixFormat, ...] = ("md", "csv", "json")


@dataclass(frozen=True)
class Column:
    """One column: a suite (``bench`` or ``bench.variant``), with its judge where judged."""

    suite: str
    judge: str | None

    @property
    def label(self) -> str:
        return self.suite if self.judge is None else f"{self.suite} ({self.judge})"


@dataclass(frozen=True)
class ResultsMatrix:
    """Models × columns, each cell a ``CellResult`` (absent: not run yet)."""

    models: tuple[str, ...]
    columns: tuple[Column, ...]
    cells: tuple[CellResult, ...]

    def cell(self, model: str, column: Column) -> CellResult | None:
        for found in self.cells:
            if (found.model, found.suite, found.judge) == (model, column.suite, column.judge):
                return found
        return None

    def text_of(self, found: CellResult | None) -> str:
        """A cell as the tables show it: number, interval, (partial), (dry run); ``failed``;
        ``-`` not run yet."""
        if found is None:
            return "-"
        if found.waiting is not None:
            return "waiting (batch)"
        if not found.done:
            return "failed"
        if found.score is None:
            return "n/a"
        text = f"{found.score:.3f}" if found.scale == "0-1" else f"{found.score:.2f}"
        if found.low is not None and found.high is not None:
            digits = 3 if found.scale == "0-1" else 2
            text += f" [{found.low:.{digits}f}, {found.high:.{digits}f}]"
        if not found.complete:
            text += " (partial)"
        if found.dry_run:
            text += " (dry run)"
        return text

    def notes(self) -> list[str]:
        """Under the table: each column's metric, scale, variant and judge, then every
        cell's signature, then each failed cell's error."""
        lines = []
        for column in self.columns:
            done = [c for c in (self.cell(m, column) for m in self.models) if c and c.done]
            first = done[0] if done else None
            what = f"{column.label}: " + (
                "not run yet" if first is None else f"{first.metric} ({first.scale})"
            )
            if first is not None and first.variant is not None:
                what += f", variant {first.variant}"
            if first is not None and first.judge is not None:
                what += f", judged by {first.judge_shown}"
            lines.append(what)
        lines.append(
            "95% bootstrap intervals in brackets unless a column says otherwise; (partial): "
            "not every question asked"
        )
        for found in self.cells:
            if found.done:
                lines.append(f"signature {found.key}: {found.signature_line or '(none)'}")
        for found in self.cells:
            if found.waiting is not None:
                lines.append(f"batch {found.key}: {found.waiting_line}")
                # what its batch rounds did that the waiting line does not say (``cells``)
                said = [note for note in found.notes if note.startswith("batch: ")]
                lines.extend(f"batch {found.key}: {note.removeprefix('batch: ')}" for note in said)
            elif not found.done:
                lines.append(f"failed {found.key}: {found.error}")
        return lines

    def render(self, fmt: MatrixFormat) -> str:
        """The matrix in ``fmt``: a Markdown table with its notes, CSV (each cell's number,
        interval and note in four columns; the notes as ``#`` lines), or JSON."""
        if fmt == "json":
            import json

            return json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"
        if fmt == "csv":
            header = ["model"]
            for column in self.columns:
                header += [column.label, f"{column.label} low", f"{column.label} high",
                           f"{column.label} note"]  # fmt: skip
            rows = [
                [model, *(field for c in self.columns for field in _csv_cells(self.cell(model, c)))]
                for model in self.models
            ]
            return table_text(header, rows, self.notes(), "csv") + "\n"
        header = ["model", *(column.label for column in self.columns)]
        rows = [
            [model, *(self.text_of(self.cell(model, c)) for c in self.columns)]
            for model in self.models
        ]
        table = table_text(header, rows, [], "md")  # the notes a list below, apart from it
        return "\n".join([table, "", *(f"- {one_line(note)}" for note in self.notes())]) + "\n"

    def to_json(self) -> dict[str, Any]:
        """The models, the columns and every cell (``CellResult.to_json``: number, interval,
        judge, variant, signature, status)."""
        return {
            "models": list(self.models),
            "columns": [
                {"suite": c.suite, "judge": c.judge, "label": c.label} for c in self.columns
            ],
            "cells": [found.to_json() for found in self.cells],
        }


def _csv_cells(found: CellResult | None) -> list[str]:
    """A cell's number, interval and note: the number columns hold numbers only, and the
    note says what the tables say beside them (``failed``, ``n/a``, ``not run``, ``partial``,
    ``dry run``)."""
    if found is None:
        return ["", "", "", "not run"]
    if found.waiting is not None:
        return ["", "", "", "batch: waiting"]
    if not found.done:
        return ["", "", "", "failed"]
    marks = ["n/a"] if found.score is None else []
    marks += [] if found.complete else ["partial"]
    marks += ["dry run"] if found.dry_run else []
    numbers = [_number(found.score), _number(found.low), _number(found.high)]
    return [*numbers, "; ".join(marks)]


def _number(value: float | None) -> str:
    return "" if value is None else repr(value)


def build_matrix(
    models: Sequence[str], columns: Sequence[Column], cells: Sequence[CellResult]
) -> ResultsMatrix:
    """The matrix of ``cells`` in the plan's order of ``models`` and ``columns``."""
    return ResultsMatrix(tuple(models), tuple(columns), tuple(cells))
