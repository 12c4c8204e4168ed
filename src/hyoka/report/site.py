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

    say("pfgen-bench")
    from hyoka.report.pfgen_sections import pfgen_section

    sections.append(pfgen_section(inputs, public, options, pages, result.notes))
    say("MT-bench judgments")
    sections.append(_mtbench(inputs, options, pages))
    say("pairwise judgments")
    sections.append(_pairwise(inputs, options, pages, result.notes))
    if options.judges:
        say("judges")
        sections.append(_judges(options, pages))
    if not any(sections):
        raise InputError(
            "nothing to report: no pfgen run, judgment file or public pfgen result found in "
            + ", ".join(str(p) for p in paths)
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
    from hyoka.report import mtbench_pages as mt

    if not inputs.single_sets:
        pages[mt.INDEX_PATH] = mt.index_page([])
        return ""
    files = [f for fs in inputs.single_sets.values() for f in fs]
    bench = mt.load_bench(files, options.data_dir)
    sets = []
    for number, (folder, group) in enumerate(sorted(inputs.single_sets.items())):
        name = folder.name
        set_id = f"{bench.spec.name}-{number + 1}"
        judge_set = mt.load_judge_set(set_id, name, group, bench)
        pages[mt.set_path(judge_set)] = mt.judge_set_page(judge_set)
        sets.append(judge_set)
    answers = mt.find_answers(bench, sets) if options.answers else None
    pages.update(mt.question_pages(bench, sets, answers))
    pages[mt.INDEX_PATH] = mt.index_page([(bench, sets)])
    links = "".join(
        f'<li><a href="{esc(mt.set_path(s))}">{esc(s.name)}</a>: {len(s.board.models)} models, '
        f"{len(s.lines)} judged turns</li>"
        for s in sets
    )
    return f"<h2>{esc(bench.spec.title)}</h2><ul>{links}</ul>"


def _pairwise(
    inputs: Inputs, options: ReportOptions, pages: dict[str, str], notes: list[str]
) -> str:
    from hyoka.report import pairwise_pages as pw

    entries: list[tuple[str, str, int]] = []
    for number, path in enumerate(inputs.pair_files, 1):
        try:
            outcomes = pw.read_pairs(path)
        except HyokaError as exc:
            notes.append(str(exc))
            continue
        if not outcomes:
            notes.append(f"{path}: skipped: no pairwise judgments")
            continue
        target = f"pairwise/p{number}.html"
        pages[target] = pw.pairwise_page(path.name, target, outcomes, options.rounds, options.seed)
        entries.append((path.name, target, len(outcomes)))
    pages[pw.INDEX_PATH] = pw.index_page(entries)
    if not entries:
        return ""
    links = "".join(f'<li><a href="{esc(p)}">{esc(n)}</a> ({c} items)</li>' for n, p, c in entries)
    return f"<h2>Pairwise judgments</h2><ul>{links}</ul>"


def _judges(options: ReportOptions, pages: dict[str, str]) -> str:
    """The judges page over the published judgments (``mtbench.judge_meta``)."""
    from hyoka.mtbench import JudgeMetaSettings, judge_meta, published_sources
    from hyoka.report.judges_page import PATH, judges_page

    sources = published_sources(resolve_data_dir(options.data_dir))
    meta = judge_meta(sources, JudgeMetaSettings(resamples=options.rounds, seed=options.seed))
    pages[PATH] = judges_page(meta)
    return (
        f'<h2>Judges</h2><ul><li><a href="{PATH}">{len(meta.rows)} judges and suites '
        f"measured</a>, {len(meta.faults)} faults named</li></ul>"
    )
