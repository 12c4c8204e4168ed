"""``hyoka report``: one static site over whatever the given paths hold.

The site is a folder of HTML pages that share one stylesheet and one script in ``assets/``;
links are relative and nothing is loaded from the network, so it opens from ``file://``,
offline, wherever it is copied. Pages are built in memory first, then written into a folder
beside ``-o`` and swapped in whole, so a failed build leaves the previous site as it was.
``-o`` must be new, empty or a previous hyoka site: a user's own files are never replaced.

Cost is kept to what the user asked about: public pfgen runs are leaderboard rows read from
their ``result.json``; only runs named on the command line are scored answer by answer and
get pages with explanations.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hyoka.data import resolve_data_dir
from hyoka.errors import HyokaError, InputError
from hyoka.report import assets
from hyoka.report.html import ASSET_CSS, ASSET_JS, esc, page
from hyoka.report.inputs import Inputs, discover
from hyoka.report.options import ReportOptions
from hyoka.store import (
    WriteError,
    atomic_write_text,
    owned_folder,
    path_under,
    replacing_folder,
)

if TYPE_CHECKING:
    from hyoka.mtbench import Bench

#: Where the public pfgen-bench results are, inside a data directory.
PUBLIC_RESULTS = Path("pfgen-bench") / "results"

Progress = Callable[[str], None]
#: The kind of output a site folder is marked as (``store.owned_folder``).
SITE_KIND = "report"
#: Files written at once.
WRITERS = 16


@dataclass
class ReportResult:
    out: Path
    pages: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def size(self) -> int:
        return sum(len(text.encode("utf-8")) for text in self.pages.values())

    def to_json(self) -> dict[str, Any]:
        """The site's folder and index page, the files written (by name), their size in
        bytes, the seconds taken and the notes."""
        return {
            "out": str(self.out), "index": str(self.out / "index.html"),
            "files": sorted(self.pages), "bytes": self.size, "seconds": self.seconds,
            "notes": list(self.notes),
        }  # fmt: skip


def public_results(options: ReportOptions) -> Path | None:
    if not options.public:
        return None
    if options.public_dir is not None:
        return options.public_dir
    candidate = resolve_data_dir(options.data_dir) / PUBLIC_RESULTS
    return candidate if candidate.is_dir() else None


def build_report(
    paths: list[Path], out: Path, options: ReportOptions, progress: Progress | None = None
) -> ReportResult:
    """Build every page, then write them under ``out``."""
    started = time.perf_counter()
    say = progress or (lambda _: None)
    owned_folder(out, SITE_KIND)  # a folder that is not ours is refused before the work
    public = public_results(options)
    inputs = discover(paths, public)
    result = ReportResult(out, notes=list(inputs.notes))
    pages = result.pages
    pages[ASSET_CSS] = assets.CSS
    pages[ASSET_JS] = assets.JS
    sections: list[str] = []
    if inputs.sweep_files:  # a sweep's results matrix is the first thing the index shows
        from hyoka.report.sweep_section import sweep_section

        say("results matrix")
        sections.append(sweep_section(inputs.sweep_files))
    say("pfgen-bench")
    from hyoka.report.pfgen_sections import pfgen_section

    sections.append(pfgen_section(inputs, public, options, pages, result.notes))
    say("MT-bench judgments")
    sections.append(_mtbench(inputs, options, pages))
    say("pairwise judgments")
    sections.append(_pairwise(inputs, options, pages, result.notes))
    sections.append(_rule_boards(inputs, pages))
    if options.judges:
        say("judges")
        sections.append(_judges(options, pages))
    if not any(sections):  # and why each file given was skipped, where one was
        skipped = f" (skipped: {'; '.join(result.notes)})" if result.notes else ""
        raise InputError(
            "nothing to report: no pfgen run, judgment file or public pfgen result found in "
            + ", ".join(str(p) for p in paths)
            + skipped
        )
    notes = "".join(f"<li>{esc(n)}</li>" for n in result.notes)
    body = "".join(sections) + (f"<h2>Skipped</h2><ul>{notes}</ul>" if notes else "")
    pages["index.html"] = page("hyoka report", body, path="index.html")
    say("writing")
    _write(out, pages)
    result.seconds = time.perf_counter() - started
    return result


def _write(out: Path, pages: dict[str, str]) -> None:
    """Write the site aside and swap it in for ``out``: only into a new or empty folder or
    over a previous hyoka site (``store.replacing_folder``), all pages or none."""
    with replacing_folder(out, SITE_KIND) as staging:
        targets = {
            path_under(staging, *relative.split("/"), what="page"): text
            for relative, text in pages.items()
        }

        def write(item: tuple[Path, str]) -> None:
            target, text = item
            try:
                atomic_write_text(target, text)  # makes the folders it needs
            except WriteError as exc:  # said of the page under ``out``, not the staging copy
                shown = out / target.relative_to(staging)
                raise WriteError(str(exc).replace(str(target), str(shown), 1)) from None

        # each write waits on its own fsync: overlapping them is most of the speed-up
        with ThreadPoolExecutor(max_workers=WRITERS) as pool:
            list(pool.map(write, targets.items()))


def _mtbench(inputs: Inputs, options: ReportOptions, pages: dict[str, str]) -> str:
    """A page per benchmark and variant the single-grading files hold (each file's told by
    ``BenchFinder.identify``), a judge set per judge, and the question pages."""
    from hyoka.report import mtbench_pages as mt

    finder = mt.BenchFinder(options.data_dir)
    by_bench: dict[str, tuple[Bench, dict[str, list[tuple[Path, mt.Identified]]]]] = {}
    for folder in sorted(inputs.single_sets):
        for path in inputs.single_sets[folder]:
            for found in finder.identify(path):  # one per variant the file's rows are
                key = mt.bench_key(found.bench)
                groups = by_bench.setdefault(key, (found.bench, {}))[1]
                groups.setdefault(mt.set_name(path), []).append((path, found))
    shown = []
    for key, (bench, groups) in sorted(by_bench.items()):
        sets = [
            mt.load_judge_set(
                f"{key}-{number}",
                name,
                [path for path, _ in files],
                bench,
                [found.how for _, found in files],
                {path: found.models for path, found in files if found.models is not None},
            )
            for number, (name, files) in enumerate(sorted(groups.items()), 1)
        ]
        try:
            answers = mt.find_answers(bench, sets)
        except HyokaError as exc:  # shown on the question pages only when asked for
            if options.answers:
                raise
            lengths = [mt.LengthResult(None, f"the answers beside it: {exc}") for _ in sets]
            answers = {}
        else:
            lengths = [mt.length_result(s, answers, options.rounds, options.seed) for s in sets]
        pages[mt.bench_path(bench)] = mt.bench_page(bench, sets, lengths)
        pages.update(mt.question_pages(bench, sets, answers if options.answers else None))
        shown.append((bench, sets))
    graded = _graded(inputs, pages)
    pages[mt.INDEX_PATH] = mt.index_page(shown, graded)
    sections = []
    for bench, sets in shown:
        links = "".join(
            f'<li><a href="{esc(mt.set_path(s))}">{esc(s.label)}</a>: {len(s.board.models)} '
            f"models, {len(s.lines)} turns judged by {esc(s.judge_named)}</li>"
            for s in sets
        )
        title = f'<a href="{esc(mt.bench_path(bench))}">{esc(mt.bench_label(bench))}</a>'
        sections.append(f"<h2>{title}</h2><ul>{links}</ul>")
    if graded:
        links = "".join(f'<li><a href="{esc(p)}">{esc(n)}</a></li>' for n, p in graded)
        sections.append(f"<h2>Single grading (hyoka judge single)</h2><ul>{links}</ul>")
    return "".join(sections)


def _graded(inputs: Inputs, pages: dict[str, str]) -> list[tuple[str, str]]:
    """A page per ``hyoka judge single`` file (``report.grading_pages``): (name, path)."""
    from hyoka.report import grading_pages as gr

    entries = []
    for number, path in enumerate(inputs.grading_files, 1):
        target = f"mtbench/graded{number}.html"
        grading = gr.read_grading(path)
        pages[target] = gr.grading_page(grading, target)
        entries.append((grading.name, target))
    return entries


def _pairwise(
    inputs: Inputs, options: ReportOptions, pages: dict[str, str], notes: list[str]
) -> str:
    from hyoka.report import pairwise_pages as pw
    from hyoka.report.pairwise_styles import with_styles

    entries: list[tuple[str, str, str]] = []
    for number, path in enumerate(inputs.pair_files, 1):
        try:
            outcomes = pw.read_pairs(path, options.data_dir)
        except HyokaError as exc:
            notes.append(str(exc))
            continue
        if not outcomes:
            notes.append(f"{path}: skipped: no pairwise judgments")
            continue
        target = f"pairwise/p{number}.html"
        title = pw.bench_title(path, options.data_dir)
        judge = pw.file_judge(path, outcomes)
        name = path.name if title is None else f"{title}: {path.name}"
        name += " (dry run)" if judge.dry_run else ""
        outcomes, without = with_styles(path, outcomes, options.data_dir)
        pages[target] = pw.pairwise_page(
            name, target, outcomes, options.rounds, options.seed, without, judge
        )
        entries.append((name, target, f"{len(outcomes)} items"))
    entries += _rankings(inputs, pages)
    pages[pw.INDEX_PATH] = pw.index_page(entries)
    if not entries:
        return ""
    links = "".join(f'<li><a href="{esc(p)}">{esc(n)}</a> ({esc(c)})</li>' for n, p, c in entries)
    return f"<h2>Pairwise judgments</h2><ul>{links}</ul>"


def _rankings(inputs: Inputs, pages: dict[str, str]) -> list[tuple[str, str, str]]:
    """A page per Rakuda ranking file, listed with the pairwise judgments it ranks."""
    from hyoka.report import ranking_pages as rk

    entries = []
    for number, path in enumerate(inputs.ranking_files, 1):
        ranking = rk.read_ranking(path)
        if ranking is None:  # read at discovery; changed since
            continue
        target = f"pairwise/ranking{number}.html"
        pages[target] = rk.ranking_page(path, target, ranking)
        entries.append((f"Rakuda ranking: {path.name}", target, f"{len(ranking.ranking)} models"))
    return entries


def _rule_boards(inputs: Inputs, pages: dict[str, str]) -> str:
    """A page per M-IFEval-Ja or JFBench leaderboard file (``report.rule_pages``)."""
    from hyoka.report import rule_pages as rp

    links = []
    for number, path in enumerate(inputs.board_files, 1):
        board = rp.read_board(path)
        if board is None:  # read at discovery; changed since
            continue
        target = f"rules/board{number}.html"
        pages[target] = rp.board_page(board, target)
        links.append(f'<li><a href="{esc(target)}">{esc(board.title)}: {esc(path.name)}</a></li>')
    if not links:
        return ""
    return f"<h2>Benchmarks decided by rules</h2><ul>{''.join(links)}</ul>"


def _judges(options: ReportOptions, pages: dict[str, str]) -> str:
    """The judges page over the published judgments (``metaeval.judge_meta``)."""
    from hyoka.metaeval import JudgeMetaSettings, judge_meta, published_sources
    from hyoka.report.judges_page import PATH, judges_page

    sources = published_sources(resolve_data_dir(options.data_dir))
    meta = judge_meta(sources, JudgeMetaSettings(resamples=options.rounds, seed=options.seed))
    pages[PATH] = judges_page(meta)
    return (
        f'<h2>Judges</h2><ul><li><a href="{PATH}">{len(meta.rows)} judges and suites '
        f"measured</a>, {len(meta.faults)} faults named</li></ul>"
    )
