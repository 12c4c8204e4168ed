"""The pfgen-bench leaderboard: every ``result.json`` under a folder, best score first.

``collect`` gathers the runs (skipping, with a warning, files that are not pfgen-bench
results) and ``render`` writes them as a Markdown table in the style of the upstream
README, as CSV, or as JSON. Every format carries the signature most rows share and flags,
with a marker and a footnote naming the fields, each row whose numbers were produced
differently (another summation, other benchmark data ...). Rows without a signature
(upstream's own files) are not flagged: nothing says how they were made.

``upstream`` is the exception: the table exactly as upstream's README lays it out (cells in
``<code>``, mode markers, ``score (±std/√trials)``, headers padded with ``&nbsp;``), and
nothing else, so that a maintainer can paste it between the README's leaderboard markers.
``collect_upstream`` gathers the rows as upstream's generator does (a checkout's ``result/``
and ``data/``, ties in path order), so that on a pfgen-bench checkout the table is byte for
byte the one its README holds.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.pfgen.choices import LeaderboardFormat
from hyoka.pfgen.provenance import number_differences
from hyoka.pfgen.summary import RunSummary, result_problem
from hyoka.signature import SIGNATURE_KEY, Signature, common_signature
from hyoka.store import pfgen_runs

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
    "questions",
    "folder",
    "flag",
)
__all__ = [
    "CSV_COLUMNS",
    "MARKER",
    "Flags",
    "LeaderboardFormat",
    "collect",
    "collect_upstream",
    "rank",
    "read_run",
    "render",
]

#: How a flagged row is marked; footnotes are numbered ``†1``, ``†2`` ...
MARKER = "†"


def collect(results_dir: Path, *, warnings: list[str] | None = None) -> list[RunSummary]:
    """Every pfgen-bench run under ``results_dir`` (searched recursively), ranked.

    A ``result.json`` that cannot be read or is not a pfgen-bench result is skipped, and a
    one-line message saying why is appended to ``warnings`` (when given). A folder that does
    not exist, or holds no usable result at all, is an ``InputError``.
    """
    problems: list[str] = [] if warnings is None else warnings
    _check_folder(results_dir)
    runs: list[RunSummary] = []
    found = 0
    for path in _result_files(results_dir, problems):
        found += 1
        summary = _read_summary(path, problems, results_dir)
        if summary is not None:
            runs.append(summary)
    if not runs:
        raise _nothing_usable(results_dir, found)
    return rank(runs)


def _check_folder(results_dir: Path) -> None:
    if not results_dir.exists():
        raise InputError(f"{results_dir}: no such folder")
    if not results_dir.is_dir():
        raise InputError(f"{results_dir}: not a folder")


def _nothing_usable(results_dir: Path, found: int) -> InputError:
    """The error for a folder without a single usable result among the ``found`` files."""
    if found:
        return InputError(
            f"{results_dir}: none of the {found} {pfgen_runs.RESULT_FILE} files found is a "
            "usable pfgen-bench result"
        )
    return InputError(
        f"{results_dir}: no {pfgen_runs.RESULT_FILE} found "
        "(run 'hyoka pfgen score' on the runs first)"
    )


def rank(runs: Sequence[RunSummary]) -> list[RunSummary]:
    """``runs`` best first: by score descending, ties by model name (then mode, folder);
    incomplete runs (fewer questions) after every complete one, never ranked among them."""
    return sorted(runs, key=lambda s: (not s.complete, -s.score, s.model, s.mode, str(s.folder)))


def _rank_cell(number: int, row: RunSummary) -> str:
    """A complete row's rank; ``N/A`` for an incomplete one (as upstream's README shows
    rows that are not ranked)."""
    return str(number) if row.complete else "N/A"


def render(
    rows: Sequence[RunSummary],
    fmt: LeaderboardFormat | str = LeaderboardFormat.MD,
    first_rank: int = 1,
    *,
    links_from: Path | None = None,
) -> str:
    """The leaderboard as text, ending in a newline; ``rows`` are ranked in the order given.

    ``first_rank`` numbers a slice of a longer leaderboard by its place in the whole.
    ``links_from`` is the folder the upstream table's links are relative to (its checkout
    root, see ``collect_upstream``); without it they are the run folders as found.
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
    if kind is LeaderboardFormat.UPSTREAM:
        return _render_upstream(rows, first_rank, links_from)
    return _render_markdown(rows, first_rank)


def _result_files(results_dir: Path, problems: list[str]) -> list[Path]:
    """The ``result.json`` files under ``results_dir``, in a stable order."""
    return [p for p in pfgen_runs.find_result_files(results_dir, problems) if p.is_file()]


def _read_summary(path: Path, problems: list[str], root: Path) -> RunSummary | None:
    """The run ``path`` describes, or ``None`` with a message in ``problems``."""
    found = read_run(path, problems, root)
    return None if found is None else found[0]


def read_run(
    path: Path, problems: list[str], root: Path
) -> tuple[RunSummary, dict[str, Any]] | None:
    """The summary and the whole result of the ``result.json`` at ``path``; ``None``, with
    a one-line reason in ``problems``, for one that is unreadable or not a usable result."""
    try:
        result = pfgen_runs.read_json_object(path, "result")
    except pfgen_runs.UnreadableJsonError as exc:
        problems.append(f"{path}: skipped: {exc.reason}")
        return None
    reason = result_problem(result)
    if reason is not None:
        problems.append(f"{path}: skipped: {reason}")
        return None
    try:
        summary = RunSummary.from_result(path.parent, result, root)
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
    return summary, result


@dataclass(frozen=True)
class Flags:
    """The signature rows share, and each flagged row's footnote number and differences."""

    common: Signature | None
    marks: dict[int, int]  # row position -> footnote number
    notes: dict[int, list[str]]  # footnote number -> the differing fields

    @classmethod
    def of(cls, rows: Sequence[RunSummary]) -> Flags:
        common = common_signature(r.signature for r in rows)
        marks: dict[int, int] = {}
        numbers: dict[tuple[str, ...], int] = {}
        for position, row in enumerate(rows):
            if row.signature is None or common is None:
                continue
            differences = tuple(number_differences(row.signature, common))
            if differences:
                marks[position] = numbers.setdefault(differences, len(numbers) + 1)
        notes = {number: list(differences) for differences, number in numbers.items()}
        return cls(common, marks, notes)

    def marker(self, position: int) -> str:
        number = self.marks.get(position)
        return "" if number is None else f"{MARKER}{number}"

    def footer(self) -> list[str]:
        """The lines under a table: the common signature, then one line per footnote."""
        line = self.common.line if self.common is not None else "none (no row written by hyoka)"
        lines = [f"signature: {line}"]
        for number, differences in self.notes.items():
            lines.append(
                f"{MARKER}{number} signature differs from the common one: " + "; ".join(differences)
            )
        return lines


def _markdown_cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell: one line, ``|`` and ``\\`` escaped."""
    one_line = " ".join(text.splitlines())
    return one_line.replace("\\", "\\\\").replace("|", "\\|")


def _render_markdown(rows: Sequence[RunSummary], first_rank: int) -> str:
    lines = [
        "| Rank | Score | Model | Length | Fluency | Truthfulness | Helpfulness |",
        "|---:|---:|:---|---:|---:|---:|---:|",
    ]
    flags = Flags.of(rows)
    for position, (number, s) in enumerate(enumerate(rows, first_rank)):
        marker = flags.marker(position)
        cells = (
            _rank_cell(number, s),
            f"{s.score:.4f} (±{s.score_sem:.4f})",
            _markdown_cell(s.label) + (f" {marker}" if marker else ""),
            f"{s.length:.1f} (±{s.length_std:.1f})",
            f"{s.fluency:.3f}",
            f"{s.truthfulness:.3f}",
            f"{s.helpfulness:.3f}",
        )
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.extend(" ".join(line.splitlines()) for line in flags.footer())
    return "\n".join(lines) + "\n"


def _render_csv(rows: Sequence[RunSummary], first_rank: int) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    flags = Flags.of(rows)
    for position, (number, s) in enumerate(enumerate(rows, first_rank)):
        writer.writerow(
            (
                _rank_cell(number, s),
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
                "" if s.questions is None else s.questions,
                str(s.folder),
                flags.marker(position),
            )
        )
    for line in flags.footer():
        buffer.write(f"# {line}\n")
    return buffer.getvalue()


def _render_json(rows: Sequence[RunSummary], first_rank: int) -> str:
    flags = Flags.of(rows)
    objects: list[dict[str, Any]] = []
    for position, (number, s) in enumerate(enumerate(rows, first_rank)):
        mark = flags.marks.get(position)
        differs = flags.notes[mark] if mark is not None else []
        rank = number if s.complete else None
        objects.append({"rank": rank, **s.to_json(), "signature_differs": differs})
    common = None if flags.common is None else flags.common.to_json()
    document = {SIGNATURE_KEY: common, "runs": objects}
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


#: Upstream's README marks a row by how its answers were made: by a chat/QA prompt, by a raw
#: completion prompt, or by the benchmark itself (the reference answers, the criteria).
UPSTREAM_MARKERS = {"chat": "💬", "qa": "💬", "completion": "🟢"}
UPSTREAM_SYSTEM_MARKERS = {"system/ground-truth": "👑", "system/criteria": "🎯"}
UPSTREAM_UNKNOWN_MARKER = "❔"
#: Upstream cuts longer model names to this many characters, ``...`` included.
UPSTREAM_NAME_WIDTH = 40
#: A pfgen-bench checkout's folder of runs, and the folders its README generator reads.
UPSTREAM_RESULT_FOLDER = "result"
UPSTREAM_RUN_FOLDERS = (UPSTREAM_RESULT_FOLDER, "data")
UPSTREAM_COLUMNS = (
    "Rank", "Score", "Model", "Length", "Fluency", "Truthfulness", "Helpfulness",
)  # fmt: skip


def upstream_marker(row: RunSummary) -> str:
    """The marker upstream's README puts before a model's name (its prompt mode wins)."""
    return UPSTREAM_MARKERS.get(
        row.mode, UPSTREAM_SYSTEM_MARKERS.get(row.model, UPSTREAM_UNKNOWN_MARKER)
    )


def _upstream_ranked(row: RunSummary) -> bool:
    """Upstream ranks neither its system rows nor, here, runs that miss questions."""
    return row.complete and row.mode != "system"


def _display_width(text: str) -> int:
    """Width as upstream counts it to pad its headers: two for any non-ASCII character."""
    return sum(1 if ord(c) < 128 else 2 for c in text)


def upstream_root(path: Path) -> tuple[Path, list[Path]]:
    """The folder the upstream table's links start from, and the folders searched for runs.

    A pfgen-bench checkout (a folder holding upstream's ``result/``) is its own root, and its
    rows are those of upstream's README generator: the runs under ``result/`` and the system
    rows under ``data/`` (nothing else: ``result_greedy/`` is not on its leaderboard). Any
    other folder (``~/pfgen-bench/result``, hyoka's ``results/``) is searched whole, and its
    links start from the folder above it, where a checkout's root would be.
    """
    if (path / UPSTREAM_RESULT_FOLDER).is_dir():
        return path, [path / name for name in UPSTREAM_RUN_FOLDERS]
    return path.absolute().parent, [path]


def collect_upstream(
    path: Path, *, warnings: list[str] | None = None
) -> tuple[list[RunSummary], Path]:
    """The rows of upstream's README table for ``path``, in its order, and their link root.

    Upstream lists the ``result.json`` files sorted by path and then sorts them by score
    alone, best first, so that runs of equal score keep path order (``rank`` orders them by
    name instead). Unusable files are skipped as ``collect`` skips them.
    """
    problems: list[str] = [] if warnings is None else warnings
    _check_folder(path)
    root, searched = upstream_root(path)
    found: list[tuple[str, Path]] = []
    for folder in searched:
        if folder.is_dir():
            for file in _result_files(folder, problems):
                found.append((_relative_posix(file, root), file))
    rows: list[RunSummary] = []
    for _, file in sorted(found):
        summary = _read_summary(file, problems, path)
        if summary is not None:
            rows.append(summary)
    if not rows:
        raise _nothing_usable(path, len(found))
    rows.sort(key=lambda row: -row.score)  # stable: ties keep path order
    return rows, root


def _relative_posix(path: Path, root: Path) -> str:
    """``path`` relative to ``root``, written with ``/`` as upstream's links are."""
    return Path(os.path.relpath(path.absolute(), root.absolute())).as_posix()


def _upstream_label(row: RunSummary) -> str:
    """The name upstream shows: the config's model name as recorded (``model`` otherwise,
    where upstream would have none), cut to ``UPSTREAM_NAME_WIDTH`` characters."""
    name = row.config_model if row.config_model is not None else row.model
    if len(name) > UPSTREAM_NAME_WIDTH:
        name = name[: UPSTREAM_NAME_WIDTH - 3] + "..."
    return name


def _render_upstream(
    rows: Sequence[RunSummary], first_rank: int, links_from: Path | None = None
) -> str:
    table: list[tuple[str, ...]] = []
    number = first_rank
    for s in rows:
        ranked = _upstream_ranked(s)
        table.append(
            (
                str(number) if ranked else "N/A",
                f"{s.score:.4f} (±{s.score_std:.4f}/√{s.num_trials})",
                f"{upstream_marker(s)} {_upstream_label(s)}",
                f"{s.length:.1f} (±{s.length_std:.1f})",
                f"{s.fluency:.3f}",
                f"{s.truthfulness:.3f}",
                f"{s.helpfulness:.3f}",
            )
        )
        number += ranked
    header = ""
    for column, title in enumerate(UPSTREAM_COLUMNS):
        width = max((_display_width(row[column]) for row in table), default=0)
        header += f"| <code>{title}{'&nbsp;' * max(0, width - len(title))}</code> "
    lines = [header + "|", "|-----" * len(UPSTREAM_COLUMNS) + "|"]
    for s, cells in zip(rows, table, strict=True):
        readme = s.folder / "README.md"
        target = readme.as_posix() if links_from is None else _relative_posix(readme, links_from)
        shown = (*cells[:2], f"[{cells[2]}]({target})", *cells[3:])
        lines.append("".join(f"| <code>{cell}</code> " for cell in shown) + "|")
    return "\n".join(lines) + "\n"
