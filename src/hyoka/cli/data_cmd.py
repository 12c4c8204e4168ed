"""``hyoka data ...``: fetch and check benchmark data.

Parsing and printing only: what is pinned lives in ``hyoka.data.manifest``, downloading and
checking in ``hyoka.data.fetch`` (both imported when a command runs).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli import _common
from hyoka.cli._common import DataDirOption, JsonOption, reports_errors
from hyoka.data import manifest_names  # the argument's help lists every manifest
from hyoka.errors import DataError, HyokaError

if TYPE_CHECKING:
    from hyoka.data import FetchReport, FileProblem, Group, Manifest

_ALL = "all"


def _complete_benchmark(incomplete: str) -> list[str]:
    return [n for n in (*manifest_names(), _ALL) if n.startswith(incomplete)]


# A plain string rather than an Enum so a typo gets our one-line error, not a usage panel.
BenchmarkArgument = Annotated[
    str,
    typer.Argument(
        help=f"{', '.join(manifest_names())}, or {_ALL}.",
        autocompletion=_complete_benchmark,
        show_default=False,
    ),
]
WithPublishedOption = Annotated[
    bool,
    typer.Option(
        "--with-published",
        help="Include the upstream model answers and judgments (pfmt-fin, about 80 MB), "
        "needed only to reproduce the published leaderboard.",
    ),
]

WithSourcesOption = Annotated[
    bool,
    typer.Option(
        "--with-sources",
        help="Include upstream's source files hyoka reads for the exact texts it sends "
        "(JFBench's prompt wording, ELYZA-tasks-100's shaberi-2025 prompt file).",
    ),
]


# The defaults are hyoka.data.fetch's DEFAULT_TIMEOUT_S and DEFAULT_MIN_RATE (kept as
# numbers here so that --help loads nothing; a test holds them equal).
TimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.001,
        help="Seconds to connect, and the longest silence of the server, before an attempt "
        "fails (and is retried).",
    ),
]
MinRateOption = Annotated[
    float,
    typer.Option(
        "--min-rate",
        min=0.001,
        help="Slowest average download speed in kB/s: a file gets timeout + size/min-rate "
        "seconds in all, then the fetch stops with one line.",
    ),
]


@reports_errors
def fetch_command(
    benchmark: BenchmarkArgument,
    data_dir: DataDirOption = None,
    with_published: WithPublishedOption = False,
    with_sources: WithSourcesOption = False,
    timeout: TimeoutOption = 30.0,
    min_rate: MinRateOption = 10.0,
    as_json: JsonOption = False,
) -> None:
    """Download benchmark data pinned to an upstream commit, checking each SHA-256.

    Intact files are kept, so running it again is cheap; corrupt or
    truncated ones are downloaded again. HYOKA_DATA_BASE_URL points it
    at a mirror laid out like raw.githubusercontent.com. Every wait is
    bounded: --timeout seconds of silence fail an attempt (retried 3
    times), and a file slower than --min-rate on average stops the fetch.

    Examples:

      hyoka data fetch pfgen

      hyoka data fetch all --with-published --data-dir ./data

      hyoka data fetch jfbench --with-sources
    """
    from hyoka.data import resolve_data_dir

    groups = _groups(with_published, with_sources)
    root = resolve_data_dir(data_dir)
    reports = []
    for selected in _select(benchmark):
        report = _fetch_with_progress(selected, root, groups, timeout, min_rate * 1000)
        reports.append(report.to_json())
        if not as_json:
            _common.say(_summary(report))
    if as_json:
        _common.echo_json(reports)


@reports_errors
def verify_command(
    benchmark: BenchmarkArgument,
    data_dir: DataDirOption = None,
    with_published: WithPublishedOption = False,
    with_sources: WithSourcesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Check benchmark data against the pinned sizes and SHA-256s, offline.

    Exits non-zero if a file is missing or corrupt, naming the fetch
    command that repairs it. Published and source files are checked when
    present, and required with --with-published and --with-sources.

    Examples:

      hyoka data verify all

      hyoka data verify pfmt-fin --with-published --data-dir ./data
    """
    from hyoka.data import ALL_GROUPS, resolve_data_dir, verify

    root = resolve_data_dir(data_dir)
    broken: list[Manifest] = []
    wanted = _groups(with_published, with_sources)
    needed: set[Group] = set()
    strays, rows = False, []
    for selected in _select(benchmark):
        report = verify(selected, root, ALL_GROUPS)
        problems = [p for p in report.problems if p.group in wanted or p.kind == "corrupt"]
        checked = report.checked - (len(report.problems) - len(problems))
        rows.append({"benchmark": selected.name, "data_dir": str(root), "checked": checked,
                     "problems": [p.to_json() for p in problems]})  # fmt: skip
        if not as_json:
            _print_problems(selected, root, problems, checked)
        if any(p.kind != "extra" for p in problems):
            broken.append(selected)
            needed |= {p.group for p in problems}
        strays |= any(p.kind == "extra" for p in problems)
    if as_json:
        _common.echo_json(rows)
    _verdict(broken, strays, root, data_dir, needed)


def _groups(with_published: bool, with_sources: bool) -> frozenset[Group]:
    """The manifest groups a fetch or verify covers: ``core``, and each optional group
    asked for by its flag (``GROUP_FLAGS``)."""
    from hyoka.data import CORE

    asked: set[Group] = {"published"} if with_published else set()
    asked |= {"sources"} if with_sources else set()
    return CORE | asked


def _verdict(
    broken: list[Manifest], strays: bool, root: Path, data_dir: Path | None, needed: set[Group]
) -> None:
    """One error line when the data cannot be used as it is: how to repair what a fetch
    can mend, and files the manifest does not pin (which no fetch removes) to move out."""
    move = "move out the files not in the pinned release (named above)"
    if broken:
        titles = " and ".join(m.title for m in broken)
        repair = _repair_line(broken, data_dir, needed)
        also = f", and {move}" if strays else ""
        raise DataError(f"{titles} data is incomplete in {root}; run `{repair}` to repair it{also}")
    if strays:
        raise DataError(f"{root} holds files that would be read as benchmark data; {move}")


def _select(name: str) -> tuple[Manifest, ...]:
    from hyoka.data import all_manifests, manifest, manifest_names

    if name == _ALL:
        return all_manifests()
    known = manifest_names()
    if name not in known:
        raise HyokaError(f"unknown benchmark {name!r}; choose one of: {', '.join(known)}, {_ALL}")
    return (manifest(name),)


def _fetch_with_progress(
    selected: Manifest, root: Path, groups: frozenset[Group], timeout: float, min_rate: float
) -> FetchReport:
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    from hyoka.data import FetchEvent, fetch

    total = sum(f.size for f in selected.select(groups))
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    # Off when stderr is not a terminal: logs get the summary line, not redraw debris.
    hidden = not _common.err_console.is_terminal
    with Progress(*columns, console=_common.err_console, transient=True, disable=hidden) as bar:
        task = bar.add_task(selected.title, total=total)

        def on_event(event: FetchEvent) -> None:
            if event.kind in ("present", "bytes"):
                bar.advance(task, event.nbytes)
            elif event.kind == "retry":
                bar.advance(task, -event.nbytes)
                bar.console.print(
                    f"[yellow]retrying[/] {escape(event.file.path)}: {escape(event.detail)}",
                    highlight=False,
                    soft_wrap=True,
                )
            elif event.kind == "corrupt":
                bar.console.print(
                    f"[yellow]corrupt:[/] {escape(event.file.path)} ({escape(event.detail)}); "
                    "downloading again",
                    highlight=False,
                    soft_wrap=True,
                )

        return fetch(
            selected, root, groups=groups, progress=on_event, timeout=timeout, min_rate=min_rate
        )


def _summary(report: FetchReport) -> str:
    size = f" ({report.bytes_downloaded / 1e6:.1f} MB)" if report.bytes_downloaded else ""
    not_made = "".join(
        f"; not made: {file.path} (nothing to download: {file.derived})" for file in report.not_made
    )
    return (
        f"{report.manifest.title}: {report.total} files in {report.data_dir}: "
        f"{report.present} already present, {report.downloaded} downloaded, "
        f"{report.refetched} re-fetched{size}{not_made}"
    )


def _print_problems(
    selected: Manifest, root: Path, problems: list[FileProblem], checked: int
) -> None:
    if not problems:
        _common.say(f"{selected.title}: all {checked} files verified in {root}")
        return
    if len(problems) == checked and all(p.kind == "missing" for p in problems):
        _common.say(f"{selected.title}: not downloaded in {root}", err=True)
        problems = [p for p in problems if p.derived]  # a fetch cannot make these
    for problem in problems:
        _common.say(
            f"{selected.title}: {problem.kind}: {problem.path}"
            + ("" if problem.kind == "missing" and not problem.derived else f" ({problem.detail})"),
            err=True,
        )


def _repair_line(broken: list[Manifest], data_dir: Path | None, needed: set[Group]) -> str:
    from hyoka.data import GROUP_FLAGS

    words = ["hyoka", "data", "fetch", broken[0].name if len(broken) == 1 else _ALL]
    words += [flag for group, flag in GROUP_FLAGS.items() if group in needed]
    if data_dir is not None:
        words += ["--data-dir", str(data_dir)]
    return shlex.join(words)
