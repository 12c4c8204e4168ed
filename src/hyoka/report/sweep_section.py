"""The report's first section where the paths given hold a sweep (``hyoka sweep``): its
results matrix, models down and suites across, each cell's number with its interval, the
judge of every judged column named beside it, each cell's signature on hover and listed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hyoka.report.html import cell, esc, table


def sweep_section(manifests: Sequence[Path]) -> str:
    """One results matrix per sweep manifest (``sweep.json``), in the order given."""
    from hyoka.sweep import read_matrix

    parts = []
    for path in manifests:
        matrix = read_matrix(path)
        headers = ["model", *(column.label for column in matrix.columns)]
        rows = []
        for model in matrix.models:
            row = [cell(esc(model))]
            for column in matrix.columns:
                found = matrix.cell(model, column)
                title = None
                if found is not None and found.waiting is not None:
                    title = found.waiting_line  # its batches, named
                elif found is not None:
                    title = found.error if not found.done else found.signature_line or None
                score = None if found is None or found.score is None else found.score
                row.append(cell(esc(matrix.text_of(found)), score, title))
            rows.append(row)
        notes = "".join(f"<li>{esc(note)}</li>" for note in matrix.notes())
        shown = table(headers, rows, classes="narrow")  # many suites still fit the window
        parts.append(f"<h2>Results matrix</h2><p>{esc(path)}</p>{shown}<ul>{notes}</ul>")
    return "".join(parts)
