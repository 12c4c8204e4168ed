"""``hyoka mtbench judge --mode pairwise``: answer files compared turn by turn, both orders.

The answer files given with ``--answers`` are the contestants: with ``--baseline MODEL``
each other model is compared with that one (FastChat's pairwise-baseline: the model is
``model_1``, the baseline ``model_2``), without it every pair of them (pairwise-all; two
files make one pair). All judgments go to one file, ``<judge name>_pair.jsonl``, as
upstream lays them out; its records name the judge model and settings, and a run with
another judge or other settings refuses to resume into it. Turns whose games came back
without log probabilities (so without a ``prob`` verdict) are listed with a warning.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from hyoka.cli._common import console, cost_usd, err_console
from hyoka.cli.mtbench_cmd import _progress_bar
from hyoka.errors import InputError
from hyoka.judge.pairwise import parse_methods
from hyoka.judge.winrate import WinCounts
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.langcheck import Check
from hyoka.mtbench.pair_records import PairJudgmentRecord
from hyoka.mtbench.pair_summary import method_counts, no_logprobs, turn_label
from hyoka.mtbench.pairwise import (
    Match,
    PairPlan,
    PairReport,
    check_judge,
    judge_matches,
    match_keys,
    read_pair_judgments,
)
from hyoka.mtbench.records import AnswerRecord
from hyoka.providers.client import ModelClient


def make_matches(
    answers: Sequence[tuple[Path, dict[int, AnswerRecord]]], baseline: str | None
) -> list[Match]:
    """The comparisons the answer files and ``--baseline`` ask for, in the order given."""
    by_model: dict[str, dict[int, AnswerRecord]] = {}
    for path, by_id in answers:
        model = next(iter(by_id.values())).model_id
        if model in by_model:
            raise InputError(f"{path}: a second answer file of {model!r}")
        by_model[model] = by_id
    if len(by_model) < 2:
        raise InputError("--mode pairwise needs at least two --answers files")
    if baseline is None:
        return [
            Match(one, by_model[one], two, by_model[two])
            for one, two in itertools.combinations(by_model, 2)
        ]
    if baseline not in by_model:
        raise InputError(
            f"--baseline {baseline!r} is none of the answer files' models: {', '.join(by_model)}"
        )
    return [
        Match(model, by_id, baseline, by_model[baseline])
        for model, by_id in by_model.items()
        if model != baseline
    ]


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_table(counts: dict[str, dict[str, WinCounts]], turns: int) -> None:
    table = Table(title=f"pairwise verdicts: {turns} turn(s) compared")
    for column in ("method", "model", "wins", "losses", "ties", "invalid", "win rate",
                   "adjusted"):  # fmt: skip
        table.add_column(column, justify="left" if column in ("method", "model") else "right")
    for method, models in counts.items():
        for row in models.values():
            table.add_row(
                method, escape(row.model), str(row.wins), str(row.losses), str(row.ties),
                str(row.invalid), _rate(row.win_rate), _rate(row.adjusted_win_rate),
            )  # fmt: skip
    console.print(table)


def judge_pairwise(
    *,
    bench: Bench,
    answers: Sequence[tuple[Path, dict[int, AnswerRecord]]],
    client: ModelClient,
    output: Path,
    judge_name: str,
    judge: str | None = None,
    base_url: str | None = None,
    baseline: str | None,
    method: str,
    check: Check,
    max_tokens: int,
    limit: int | None,
    price_in: float,
    price_out: float,
) -> None:
    """Judge, then print the table per method and the run's calls, tokens and cost."""
    methods = parse_methods(method)
    matches = make_matches(answers, baseline)
    check_judge(client, methods)  # before any call
    plan = PairPlan(
        output=output, judge_name=judge_name, judge=judge, base_url=base_url, methods=methods,
        lang_check=check, max_tokens=max_tokens, limit=limit,
    )  # fmt: skip
    questions = bench.questions[: limit or None]
    err_console.print(f"Judgment file: {output}", highlight=False, soft_wrap=True)

    async def go() -> PairReport:
        async with client:
            with _progress_bar() as bar:
                task = bar.add_task("turns", total=2 * len(questions) * len(matches))
                report = await judge_matches(
                    client, plan, bench, matches, lambda: bar.advance(task)
                )
                bar.advance(task, report.done_before)
                return report

    report = asyncio.run(go())
    wanted = {key for match in matches for key in match_keys(match, questions)}
    records: list[PairJudgmentRecord] = [
        r for r in read_pair_judgments(output) if (r.question_id, r.turn, r.models) in wanted
    ]
    print_table(method_counts(records, methods), len(records))
    lacking = no_logprobs(records) if "prob" in methods else []
    games = sum(len(which) for _record, which in lacking)
    if lacking:
        shown = ", ".join(turn_label(record, which) for record, which in lacking[:10])
        more = f" and {len(lacking) - 10} more" if len(lacking) > 10 else ""
        err_console.print(
            f"[bold yellow]warning:[/] {games} game(s) in {len(lacking)} turn(s) came back "
            f"without log probabilities, so without a prob verdict: {escape(shown)}{more}",
            highlight=False, soft_wrap=True,
        )  # fmt: skip
    usage = client.stats.usage
    cost = cost_usd(usage, price_in, price_out)
    typer.echo(
        f"{report.judged} turn(s) judged, {report.done_before} already done: "
        f"{report.ruled} decided by a rule (no answer or wrong language, {check}); "
        f"{report.judge_calls} judge call(s), {client.stats.cache_hits} from cache, "
        f"{report.no_verdict} without a verdict, {games} without log probabilities (in the "
        f"file); tokens: {usage.prompt_tokens} in, "
        f"{usage.completion_tokens} out; cost ${cost:.4f}"
    )
