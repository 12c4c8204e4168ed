"""What the pfgen commands show alike: the score table with its signatures, generation with
progress bars, and a new run among the public leaderboard's runs, for a sense of scale.

The work is the library's (``hyoka.pfgen.run_pfgen``, ``make_run``, ``score_new_run``,
``public_neighbours``); this module only shows it. Shared here, not in any command module,
so that command modules never import each other (``pfgen run`` and ``demo`` both generate,
score and show). Everything heavy is imported inside the functions: importing this module
costs nothing until a command runs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from hyoka.cli._common import progress_bar
from hyoka.cli._tables import print_table

if TYPE_CHECKING:
    from rich.progress import TaskID
    from rich.table import Table

    from hyoka.pfgen import (
        GeneratedRun,
        GenerateSettings,
        PfgenBenchmark,
        PfgenRun,
        PlannedRun,
        RunSummary,
        RunWatcher,
    )
    from hyoka.signature import Signature


def score_table(summaries: Sequence[tuple[RunSummary, bool]]) -> Table:
    """The runs' headline numbers, one row each (``True``: left as it was, up to date); an
    incomplete run says so beside its name, and two runs of one model are told apart as the
    leaderboard tells them (``[run abc1234]``: ``pfgen.leaderboard.run_marks``)."""
    from rich.markup import escape
    from rich.table import Table

    from hyoka.pfgen import run_marks

    table = Table(title="pfgen-bench")
    table.add_column("Model", overflow="fold", min_width=24)
    table.add_column("Mode")
    for name in ("Trials", "Score", "Length", "Fluency", "Truthful", "Helpful"):
        table.add_column(name, justify="right", no_wrap=True)
    marks = run_marks([s for s, _ in summaries])
    for (s, skipped), mark in zip(summaries, marks, strict=True):
        table.add_row(
            escape(
                s.model
                + (f" [{s.incomplete}]" if s.incomplete else "")
                + (f" [run {mark}]" if mark else "")
            )
            + (" (up to date)" if skipped else ""),
            s.mode,
            str(s.num_trials),
            f"{s.score:.4f} (±{s.score_sem:.4f})",
            f"{s.length:.1f}",
            f"{s.fluency:.3f}",
            f"{s.truthfulness:.3f}",
            f"{s.helpfulness:.3f}",
        )
    return table


def signature_lines(summaries: Sequence[RunSummary]) -> list[str]:
    """How the numbers were produced: one line when every run shares a signature, else one
    per run; an upstream result.json left as it was carries none."""

    def shown(signature: Signature | None) -> str:
        return signature.line if signature is not None else "none (upstream result.json)"

    from hyoka.pfgen import run_marks

    distinct = {shown(s.signature) for s in summaries}
    if len(distinct) == 1:
        return [f"signature: {distinct.pop()}"]
    marks = [f" [run {mark}]" if mark else "" for mark in run_marks(summaries)]
    return [
        f"signature of {s.label}{mark}: {shown(s.signature)}"
        for s, mark in zip(summaries, marks, strict=True)
    ]


def print_scores(summaries: Sequence[tuple[RunSummary, bool]]) -> None:
    """The score table, then the signature line(s) beside it."""
    from hyoka.cli._common import print_warning, say

    if not summaries:
        return
    print_table(score_table(summaries))
    for line in signature_lines([s for s, _ in summaries]):
        say(line)
    for s, _ in summaries:
        if s.incomplete:
            print_warning(
                f"{s.folder}: {s.incomplete}; its score is not comparable with a whole "
                "run's and is not ranked among them"
            )


def show_beside_public(ours: RunSummary, data_dir: Path | None) -> None:
    """Print the nearest public rows around ``ours``, if the data directory has results."""
    from hyoka.cli._common import echo, say
    from hyoka.pfgen import public_neighbours, render_leaderboard

    beside = public_neighbours(ours, data_dir)
    if beside is None:
        return
    say("")
    say(f"Beside the public results in {beside.public}:")
    echo(render_leaderboard(beside.rows, "md", first_rank=beside.first_rank))


@contextmanager
def _shown_run(account: bool = True) -> Iterator[RunWatcher]:
    """A watcher that shows a run as it goes: the run folder and progress bars on stderr,
    then (the bars gone) the generation's account, before any scoring (``account``: not
    where the command prints JSON instead)."""
    from hyoka.cli._common import say
    from hyoka.pfgen import RunWatcher

    with progress_bar(rate=True, remaining=True) as bar:

        class Shown(RunWatcher):
            answers: TaskID | None = None
            trials: TaskID | None = None

            def planned(self, planned: PlannedRun) -> None:
                say(f"Run folder: {planned.plan.folder}", err=True)
                total = planned.plan.num_trials
                self.answers = bar.add_task("answers", total=total * len(planned.questions))
                self.trials = bar.add_task("trials ", total=total)

            def advanced(self, kind: str, trial: int) -> None:
                task = self.answers if kind == "answer" else self.trials
                if task is not None:
                    bar.advance(task)

            def generated(self, generated: GeneratedRun) -> None:
                bar.stop()
                if account:
                    print_report(generated)

        yield Shown()


def generate(
    settings: GenerateSettings, benchmark: PfgenBenchmark, *, as_json: bool = False
) -> GeneratedRun:
    """Generate a run through the library, shown as it goes (``as_json``: its account
    printed as JSON at the end instead)."""
    from hyoka.cli._common import echo_json
    from hyoka.pfgen import make_run

    with _shown_run(not as_json) as watcher:
        generated = make_run(settings, benchmark, watcher)
    if as_json:
        echo_json(generated.to_json())
    return generated


def print_report(generated: GeneratedRun) -> None:
    """One line: what generation did and what its calls cost."""
    from hyoka.cli._common import console

    report, stats = generated.report, generated.stats
    console.print(
        f"{report.trials_generated} trial(s) generated, {report.trials_done_before} already "
        f"done; {stats.requests} request(s), {stats.cache_hits} from cache, "
        f"{stats.retries} retried, {report.empty_retries} empty answer(s) asked again"
        + (
            f" ({report.unclosed_thinking} whose thinking never closed)"
            if report.unclosed_thinking
            else ""
        )
        + "; "
        f"tokens: {stats.usage.prompt_tokens} in, {stats.usage.completion_tokens} out",
        highlight=False,
    )


def warn_if_custom_data(benchmark: PfgenBenchmark) -> None:
    """One ``warning:`` line when the question files are not the pinned release: scoring
    with one's own reference sets is legitimate, and is named (the signature's ``+custom``)."""
    from hyoka.cli._common import print_warning

    note = benchmark.data_note()
    if note is not None:
        print_warning(note)


def show_scored(ours: RunSummary, data_dir: Path | None) -> None:
    """A freshly scored run with its signature, then beside the public runs."""
    print_scores([(ours, False)])
    show_beside_public(ours, data_dir)


def score_and_show(folder: Path, benchmark: PfgenBenchmark, data_dir: Path | None) -> RunSummary:
    """Score one run (always afresh), print it with its signature and beside the public runs."""
    from hyoka.pfgen import score_new_run

    warn_if_custom_data(benchmark)
    ours = score_new_run(folder, benchmark)
    show_scored(ours, data_dir)
    return ours


def generate_and_score(
    settings: GenerateSettings, data_dir: Path | None, *, as_json: bool = False
) -> PfgenRun:
    """Generate, score, print the result beside the public leaderboard (``as_json``: the
    run as JSON instead)."""
    from hyoka.cli._common import echo_json
    from hyoka.pfgen import PfgenBenchmark, run_pfgen

    benchmark = PfgenBenchmark.load(data_dir)
    warn_if_custom_data(benchmark)
    with _shown_run(not as_json) as watcher:
        done = run_pfgen(settings, benchmark, watcher)
    if as_json:
        echo_json(done.to_json())
    else:
        show_scored(done.summary, data_dir)
    return done
