"""The pfgen-bench leaderboard: every ``result.json`` under a folder, best score first.

``collect`` gathers the runs (skipping, with a warning, files that are not pfgen-bench
results) and ``render`` writes them as a Markdown table in the style of the upstream
README, as CSV, or as JSON. Every format carries the signature most rows share and flags,
with a marker and a footnote naming the fields, each row whose numbers were produced
differently (another summation, other benchmark data ...). The data is compared for every
row: a row hyoka wrote names it in its signature, an upstream row by its ``metadata_hash``;
the footer names the data most rows share and whether it is the pinned release. Otherwise
rows without a signature (upstream's own files) are not flagged: nothing says how they
were made.

``upstream`` is the exception: the table exactly as upstream's README lays it out (cells in
``<code>``, mode markers, ``score (±std/√trials)``, headers padded with ``&nbsp;``), and
nothing else, so that a maintainer can paste it between the README's leaderboard markers,
except a marker on a row scored with other data, explained under the table: such a row is
not one of the leaderboard's. ``collect_upstream`` gathers the rows as upstream's generator
does (a checkout's ``result/`` and ``data/``, ties in path order), so that on a pfgen-bench
checkout the table is byte for byte the one its README holds.
"""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka import arguments
from hyoka.errors import HyokaWarning, InputError
from hyoka.pfgen.choices import LeaderboardFormat
from hyoka.pfgen.provenance import CUSTOM_DATA, data_id, number_differences, pinned_metadata_hash
from hyoka.pfgen.summary import RunSummary, UnusableResultError
from hyoka.printable import (
    csv_text,
    markdown_cell,
    markdown_link_target,
    markdown_link_text,
    one_line,
    shown_alike,
)
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
    "data",
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
    "run_marks",
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
    a one-line reason in ``problems``, for one that is unreadable or not a usable result,
    or whose answers changed since it was scored (``run_result_problem``)."""
    try:
        result = pfgen_runs.read_json_object(path, "result")
    except pfgen_runs.UnreadableJsonError as exc:
        problems.append(f"{path}: skipped: {exc.reason}")
        return None
    try:
        summary = RunSummary.from_result(path.parent, result, root)
    except UnusableResultError as exc:
        problems.append(f"{path}: skipped: {exc.reason}")
        return None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        problems.append(f"{path}: skipped: malformed pfgen-bench result ({exc!r})")
        return None
    return summary, result  # non-finite numbers and no trials are run_result_problem's


@dataclass(frozen=True)
class CommonData:
    """The benchmark data most rows were scored with, to compare every row's with.

    Every row counts, upstream's included (their ``metadata_hash``); on a tie the pinned
    release wins. A row that records no data identity is neither counted nor marked.
    """

    common: str | None
    sharing: int
    known: int

    @classmethod
    def of(cls, rows: Sequence[RunSummary]) -> CommonData:
        counts = Counter(r.data for r in rows if r.data is not None)
        if not counts:
            return cls(None, 0, 0)
        order = {data: i for i, data in reversed(list(enumerate(r.data for r in rows)))}
        common = max(counts, key=lambda d: (counts[d], CUSTOM_DATA not in d, -order[d]))
        return cls(common, counts[common], counts.total())

    def difference(self, row: RunSummary) -> str | None:
        """``data: theirs vs common`` when ``row`` was scored with other data."""
        if row.data is None or self.common is None or row.data == self.common:
            return None
        return f"data: {row.data} vs {self.common}"

    def to_json(self) -> dict[str, Any] | None:
        """What JSON leaderboards store under ``data``."""
        if self.common is None:
            return None
        return {
            "common": self.common,
            "pinned": CUSTOM_DATA not in self.common,
            "rows": self.sharing,
            "of": self.known,
        }

    def line(self) -> str | None:
        """The footer line naming the common data and whether it is the pinned release."""
        if self.common is None:
            return None
        if CUSTOM_DATA in self.common:
            pinned = data_id(pinned_metadata_hash())
            what = f"not the pinned pfgen-bench release ({pinned})"
        else:
            what = "the pinned pfgen-bench release"
        return f"data: {self.common}, {what}; {self.sharing} of {self.known} rows"


@dataclass(frozen=True)
class Flags:
    """The signature rows share, and each flagged row's footnote number and differences.

    The common signature's ``data`` field is the data most rows were scored with
    (``CommonData``), not whatever the rows written by hyoka say: among public runs, the
    one run scored with edited data is the one marked.
    """

    common: Signature | None
    marks: dict[int, int]  # row position -> footnote number
    notes: dict[int, list[str]]  # footnote number -> the differing fields
    data: CommonData = CommonData(None, 0, 0)
    #: footnotes of rows without a signature (upstream's): only their data can differ
    unsigned: frozenset[int] = frozenset()

    @classmethod
    def of(cls, rows: Sequence[RunSummary]) -> Flags:
        data = CommonData.of(rows)
        common = common_signature(r.signature for r in rows)
        if common is not None and data.common is not None:
            common = common.with_field("data", data.common)
        marks: dict[int, int] = {}
        numbers: dict[tuple[bool, tuple[str, ...]], int] = {}
        for position, row in enumerate(rows):
            found = [d for d in [data.difference(row)] if d is not None]
            if row.signature is not None and common is not None:
                found += [
                    d
                    for d in number_differences(row.signature, common)
                    if d.partition(":")[0] != "data"  # compared above, by data identity
                ]
            if found:
                key = (row.signature is not None, tuple(found))
                marks[position] = numbers.setdefault(key, len(numbers) + 1)
        notes = {number: list(key[1]) for key, number in numbers.items()}
        unsigned = frozenset(number for key, number in numbers.items() if not key[0])
        return cls(common, marks, notes, data, unsigned)

    def marker(self, position: int) -> str:
        number = self.marks.get(position)
        return "" if number is None else f"{MARKER}{number}"

    def data_marker(self, position: int) -> str:
        """The marker of a row scored with other data than the common; else empty."""
        number = self.marks.get(position)
        if number is None or not self.notes[number][0].startswith("data:"):
            return ""
        return f"{MARKER}{number}"

    def note_line(self, number: int) -> str:
        """What footnote ``number`` says, on one line (its fields come from files)."""
        what = "data" if number in self.unsigned else "signature"
        return one_line(
            f"{MARKER}{number} {what} differs from the common one: " + "; ".join(self.notes[number])
        )

    def footer(self) -> list[str]:
        """The lines under a table: the common signature and data, then the footnotes, each
        one line (a signature's and a data's fields come from files)."""
        line = self.common.line if self.common is not None else "none (no row written by hyoka)"
        lines = [f"signature: {line}"]
        data = self.data.line()
        if data is not None:
            lines.append(data)
        lines.extend(self.note_line(number) for number in self.notes)
        return [one_line(line) for line in lines]


def run_marks(rows: Sequence[RunSummary]) -> list[str]:
    """For each row, what tells it apart from the other rows of its label (the same model
    in the same mode: two trials, two settings): the shortest end of its run folder that no
    other such row's folder shares (``abc1234``, ``greedy/abc1234``); empty for a row whose
    label is its own. CSV and JSON carry every row's whole folder; the upstream table links
    to it; the Markdown table shows this beside the model."""
    groups: dict[str, list[int]] = {}
    for position, row in enumerate(rows):
        groups.setdefault(shown_alike(row.label), []).append(position)
    marks = [""] * len(rows)
    for positions in groups.values():
        if len(positions) < 2:
            continue
        folders = [rows[p].folder.absolute().parts for p in positions]
        for position, parts in zip(positions, folders, strict=True):
            others = [other for other in folders if other is not parts]
            depth = 1
            while depth < len(parts) and any(o[-depth:] == parts[-depth:] for o in others):
                depth += 1
            marks[position] = "/".join(parts[-depth:])
    return marks


def _render_markdown(rows: Sequence[RunSummary], first_rank: int) -> str:
    lines = [
        "| Rank | Score | Model | Length | Fluency | Truthfulness | Helpfulness |",
        "|---:|---:|:---|---:|---:|---:|---:|",
    ]
    flags = Flags.of(rows)
    runs = run_marks(rows)
    for position, (number, s) in enumerate(enumerate(rows, first_rank)):
        marker = flags.marker(position)
        run = f" [run {runs[position]}]" if runs[position] else ""
        cells = (
            _rank_cell(number, s),
            f"{s.score:.4f} (±{s.score_sem:.4f})",
            markdown_cell(s.label + run) + (f" {marker}" if marker else ""),
            f"{s.length:.1f} (±{s.length_std:.1f})",
            f"{s.fluency:.3f}",
            f"{s.truthfulness:.3f}",
            f"{s.helpfulness:.3f}",
        )
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.extend(flags.footer())
    return "\n".join(lines) + "\n"


def _render_csv(rows: Sequence[RunSummary], first_rank: int) -> str:
    flags = Flags.of(rows)
    records: list[Sequence[object]] = [CSV_COLUMNS]
    for position, (number, s) in enumerate(enumerate(rows, first_rank)):
        records.append(
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
                s.data or "",
            )
        )
    return csv_text(records, flags.footer())


def _render_json(rows: Sequence[RunSummary], first_rank: int) -> str:
    flags = Flags.of(rows)
    objects: list[dict[str, Any]] = []
    for position, (number, s) in enumerate(enumerate(rows, first_rank)):
        mark = flags.marks.get(position)
        differs = flags.notes[mark] if mark is not None else []
        rank = number if s.complete else None
        objects.append({"rank": rank, **s.to_json(), "signature_differs": differs})
    common = None if flags.common is None else flags.common.to_json()
    document = {SIGNATURE_KEY: common, "data": flags.data.to_json(), "runs": objects}
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
    flags = Flags.of(rows)
    for position, s in enumerate(rows):
        ranked = _upstream_ranked(s)
        table.append(
            (
                str(number) if ranked else "N/A",
                f"{s.score:.4f} (±{s.score_std:.4f}/√{s.num_trials})",
                f"{upstream_marker(s)} {_upstream_label(s)}{_upstream_data_mark(flags, position)}",
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
        link = f"[{markdown_link_text(cells[2])}]({markdown_link_target(target)})"
        shown = (*cells[:2], link, *cells[3:])
        lines.append("".join(f"| <code>{cell}</code> " for cell in shown) + "|")
    lines.extend(_upstream_data_notes(flags))
    return "\n".join(lines) + "\n"


def _upstream_data_mark(flags: Flags, position: int) -> str:
    """Upstream's table shows nothing of how numbers were made, except this: a row scored
    with other benchmark data than the rest is marked, never pasted as one of them."""
    marker = flags.data_marker(position)
    return f" {marker}" if marker else ""


def _upstream_data_notes(flags: Flags) -> list[str]:
    """Under upstream's table, only when a row is marked: what its marker means."""
    numbers = sorted({flags.marks[p] for p in flags.marks if flags.data_marker(p)})
    if not numbers:
        return []
    return ["", *(flags.note_line(number) for number in numbers)]


@dataclass(frozen=True)
class Leaderboard:
    """The ranked runs of a results folder (``rows``, best first) and their table written
    in ``fmt`` (``text``)."""

    rows: list[RunSummary]
    fmt: LeaderboardFormat
    text: str

    def to_json(self) -> Any:
        """The rows as ``--format json`` writes them."""
        from hyoka.store import parse_json

        return parse_json(render(self.rows, LeaderboardFormat.JSON), "the leaderboard's JSON")


def leaderboard(results_dir: Path, fmt: LeaderboardFormat = LeaderboardFormat.MD) -> Leaderboard:
    """Every scored run under ``results_dir`` ranked, best score first, and written in
    ``fmt`` (``upstream``: the pfgen-bench README's own table, its rows and links as that
    checkout has them). A result.json that is no pfgen-bench result is skipped with a
    ``HyokaWarning``, each said even when no usable result is left (the error then)."""
    arguments.path("results_dir", results_dir)
    skipped: list[str] = []
    links_from = None
    try:
        if fmt is LeaderboardFormat.UPSTREAM:
            rows, links_from = collect_upstream(results_dir, warnings=skipped)
        else:
            rows = collect(results_dir, warnings=skipped)
    finally:  # the skipped files explain an error about having no usable result, too
        for message in skipped:
            warnings.warn(message, HyokaWarning, stacklevel=2)
    return Leaderboard(rows, fmt, render(rows, fmt.value, links_from=links_from))
