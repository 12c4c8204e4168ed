"""The pfgen-bench leaderboard: every ``result.json`` under a folder, best score first.

``collect`` gathers the runs (skipping, with a warning, files that are not pfgen-bench
results) and ``render`` writes them as a Markdown table in the style of the upstream
README, as CSV, or as JSON.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.pfgen.summary import RunSummary

RESULT_JSON = "result.json"

#: Top-level keys every pfgen-bench ``result.json`` has (``config`` is optional).
_REQUIRED_KEYS = ("num_trials", "score", "score_std", "length", "length_std", "scores")

CSV_COLUMNS = (
    "rank",
    "model",
    "mode",
    "score",
    "score_sem",
    "score_std",
    "length",
    "length_std",
    "fluency",
    "truthfulness",
    "helpfulness",
    "num_trials",
    "folder",
)


class LeaderboardFormat(StrEnum):
    """How ``render`` writes the leaderboard."""

    MD = "md"
    CSV = "csv"
    JSON = "json"


def collect(results_dir: Path, *, warnings: list[str] | None = None) -> list[RunSummary]:
    """Every pfgen-bench run under ``results_dir`` (searched recursively), ranked.

    A ``result.json`` that cannot be read or is not a pfgen-bench result is skipped, and a
    one-line message saying why is appended to ``warnings`` (when given). A folder that does
    not exist, or holds no usable result at all, is an ``InputError``.
    """
    problems: list[str] = [] if warnings is None else warnings
    if not results_dir.exists():
        raise InputError(f"{results_dir}: no such folder")
    if not results_dir.is_dir():
        raise InputError(f"{results_dir}: not a folder")

    runs: list[RunSummary] = []
    found = 0
    for path in _result_files(results_dir, problems):
        found += 1
        summary = _read_summary(path, problems)
        if summary is not None:
            runs.append(summary)
    if not runs:
        if found:
            raise InputError(
                f"{results_dir}: none of the {found} {RESULT_JSON} files found is a "
                "usable pfgen-bench result"
            )
        raise InputError(
            f"{results_dir}: no {RESULT_JSON} found (run 'hyoka pfgen score' on the runs first)"
        )
    return rank(runs)


def rank(runs: Sequence[RunSummary]) -> list[RunSummary]:
    """``runs`` best first: by score descending, ties by model name (then mode, folder)."""
    return sorted(runs, key=lambda s: (-s.score, s.model, s.mode, str(s.folder)))


def render(
    rows: Sequence[RunSummary],
    fmt: LeaderboardFormat | str = LeaderboardFormat.MD,
    first_rank: int = 1,
) -> str:
    """The leaderboard as text, ending in a newline; ``rows`` are ranked in the order given.

    ``first_rank`` numbers a slice of a longer leaderboard by its place in the whole.
    """
    try:
        kind = LeaderboardFormat(fmt)
    except ValueError:
        choices = ", ".join(f.value for f in LeaderboardFormat)
        raise ValueError(
            f"unknown leaderboard format {fmt!r} (expected one of {choices})"
        ) from None
    if kind is LeaderboardFormat.CSV:
        return _render_csv(rows, first_rank)
    if kind is LeaderboardFormat.JSON:
        return _render_json(rows, first_rank)
    return _render_markdown(rows, first_rank)


def _result_files(results_dir: Path, problems: list[str]) -> list[Path]:
    """The ``result.json`` files under ``results_dir``, in a stable order."""

    def unreadable(exc: OSError) -> None:
        problems.append(f"{exc.filename}: cannot read folder: {exc.strerror}")

    files: list[Path] = []
    for top, dirnames, filenames in os.walk(results_dir, onerror=unreadable):
        dirnames.sort()
        if RESULT_JSON in filenames:
            path = Path(top) / RESULT_JSON
            if path.is_file():
                files.append(path)
    return files


def _read_summary(path: Path, problems: list[str]) -> RunSummary | None:
    """The run ``path`` describes, or ``None`` with a message in ``problems``."""
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        problems.append(f"{path}: skipped: cannot read: {exc.strerror}")
        return None
    except ValueError as exc:  # bad JSON or bad UTF-8
        problems.append(f"{path}: skipped: not valid JSON ({exc})")
        return None
    reason = _not_a_result(result)
    if reason is not None:
        problems.append(f"{path}: skipped: {reason}")
        return None
    try:
        summary = RunSummary.from_result(path.parent, result)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        problems.append(f"{path}: skipped: malformed pfgen-bench result ({exc!r})")
        return None
    numbers = (
        summary.score,
        summary.score_std,
        summary.length,
        summary.length_std,
        summary.fluency,
        summary.truthfulness,
        summary.helpfulness,
    )
    if not all(math.isfinite(x) for x in numbers) or summary.num_trials < 1:
        problems.append(f"{path}: skipped: malformed pfgen-bench result (non-finite numbers)")
        return None
    return summary


def _not_a_result(result: object) -> str | None:
    """Why ``result`` is not a pfgen-bench ``result.json`` object, or ``None`` if it is one."""
    if not isinstance(result, dict):
        return "not a pfgen-bench result (expected a JSON object)"
    missing = [key for key in _REQUIRED_KEYS if key not in result]
    if missing:
        return f"not a pfgen-bench result (no {', '.join(repr(k) for k in missing)})"
    scores = result["scores"]
    if (
        not isinstance(scores, dict)
        or not isinstance(scores.get("fluency"), dict)
        or not isinstance(scores.get("truthfulness"), dict)
        or "helpfulness" not in scores
    ):
        return "not a pfgen-bench result (malformed 'scores')"
    config = result.get("config")
    if config is not None and not isinstance(config, dict):
        return "not a pfgen-bench result (malformed 'config')"
    return None


def _markdown_cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell: one line, ``|`` and ``\\`` escaped."""
    one_line = " ".join(text.splitlines())
    return one_line.replace("\\", "\\\\").replace("|", "\\|")


def _model_label(s: RunSummary) -> str:
    return s.model if s.mode == "?" else f"{s.model} ({s.mode})"


def _render_markdown(rows: Sequence[RunSummary], first_rank: int) -> str:
    lines = [
        "| Rank | Score | Model | Length | Fluency | Truthfulness | Helpfulness |",
        "|---:|---:|:---|---:|---:|---:|---:|",
    ]
    for number, s in enumerate(rows, first_rank):
        cells = (
            str(number),
            f"{s.score:.4f} (±{s.score_sem:.4f})",
            _markdown_cell(_model_label(s)),
            f"{s.length:.1f} (±{s.length_std:.1f})",
            f"{s.fluency:.3f}",
            f"{s.truthfulness:.3f}",
            f"{s.helpfulness:.3f}",
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _render_csv(rows: Sequence[RunSummary], first_rank: int) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for number, s in enumerate(rows, first_rank):
        writer.writerow(
            (
                number,
                s.model,
                s.mode,
                s.score,
                s.score_sem,
                s.score_std,
                s.length,
                s.length_std,
                s.fluency,
                s.truthfulness,
                s.helpfulness,
                s.num_trials,
                str(s.folder),
            )
        )
    return buffer.getvalue()


def _render_json(rows: Sequence[RunSummary], first_rank: int) -> str:
    objects: list[dict[str, Any]] = [
        {"rank": number, **s.to_json()} for number, s in enumerate(rows, first_rank)
    ]
    return json.dumps(objects, ensure_ascii=False, indent=2) + "\n"
