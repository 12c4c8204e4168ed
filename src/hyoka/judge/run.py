"""Judging from start to finish, as ``hyoka judge single`` and ``hyoka judge pairwise``
make it: read the answers, plan the run from the settings, connect to the judge, judge
every missing task into the judgment file (resumably) and sum up the file.

The command line only parses flags, calls these and shows what they hand back; a Python
user gets the same run, with the same file and numbers::

    from hyoka.judge import judge_single
    done = judge_single(Path("answers.jsonl"), "openai/gpt-4o-mini")
    done.summary.mean, done.output, done.to_json()

A ``JudgeWatcher`` hears the run as it goes (the judgment file before any call, then each
stage's progress: criteria, judgments), which is how the command line draws its progress
bars; by default nothing is shown. ``judge_plans`` runs plans a benchmark made (``pfgen
judge``, ``mtbench judge``) the same way. A library error names the parameter that gave
the value (`judge`), never a flag.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka._aio import gather_or_cancel
from hyoka._gc_pause import gc_relaxed
from hyoka.arguments import at_least_one
from hyoka.errors import HyokaWarning, InputError
from hyoka.judge.engine import (
    Judged,
    JudgePlan,
    JudgeReport,
    check_judge,
    judge_plan,
    open_log,
    plan_lines,
)
from hyoka.judge.judged_by import run_judge
from hyoka.judge.outcome import PairwiseRun, SingleRun
from hyoka.judge.pair_answers import Answer, load_pairs, read_answers
from hyoka.judge.pairwise import (
    Method,
    check_criteria_use,
    default_max_tokens,
    default_output,
    fill_criteria,
    pairwise_settings,
    parse_methods,
    plan_pairs,
    template_name,
)
from hyoka.judge.pairwise_summary import export_verdicts
from hyoka.judge.pairwise_summary import summarise as summarise_pairwise
from hyoka.judge.records import JudgeSettings
from hyoka.judge.single import plan_single, read_items, summarise
from hyoka.judge.templates import load_template
from hyoka.providers import (
    CONCURRENCY,
    DEFAULT_THINKING,
    BatchClient,
    Deferred,
    ModelClient,
    ThinkingRule,
    alias_note,
    batch_round,
    connect,
    signed_batch,
)
from hyoka.stats import STYLE_CONTROLS, StyleCounts
from hyoka.store import JsonlLog

#: what ``AddTask`` hands back: ``advance(steps)``
Advance = Callable[[int], None]
#: ``add(label, total)`` starts counting a stage and hands back ``advance(steps)``
AddTask = Callable[[str, int], Advance]

#: where ``judge_pairwise`` writes its judgments unless told a file
PAIRWISE_RESULTS = Path("results") / "judge" / "pairwise"

#: A plan made once the client is open: its label, the plan, and its log if the caller
#: already opened it (``None``: opened by ``judge_plans``).
Prepared = tuple[str, JudgePlan[Any], JsonlLog[Any] | None]


def _no_task(label: str, total: int) -> Advance:
    return lambda steps: None


class JudgeWatcher:
    """What a front end hears as a judging run goes; by default nothing is shown."""

    def planned(self, output: Path) -> None:
        """The judgment file is known and checked; no call has been made yet."""

    def progress(self, *, rate: bool = True) -> contextlib.AbstractContextManager[AddTask]:
        """A stage's counters, held while it runs (``rate``: items per second are worth
        showing); entered once per stage (criteria, then judgments)."""
        return contextlib.nullcontext(_no_task)


@dataclass(frozen=True)
class Grading:
    """How a single grading asks its judge where its caller does not say: the one home of
    these defaults, which ``judge_single``, ``pfgen.judge_pfgen_run`` and the flags of
    ``hyoka judge single`` and ``hyoka pfgen judge`` read (``GRADING``)."""

    repeats: int = 1
    aggregate: str = "mean"
    temperature: float = 0.0
    max_tokens: int = 1024
    max_attempts: int = 3


GRADING = Grading()


@dataclass(frozen=True)
class Connection:
    """How to reach the judge: its server, backend options, the response cache, and the
    requests in flight at once (``providers.connect``)."""

    base_url: str | None = None
    options: Mapping[str, Any] | None = None
    no_cache: bool = False
    concurrency: int = CONCURRENCY
    #: the judge's batch API instead of online calls (``providers.batch``)
    batch: bool = False

    def connect(self, spec: str, *, flag: str = "`judge`") -> ModelClient:
        """A client for ``spec`` (``provider/model``: the judge, or the parameter ``flag``
        names), ready for ``async with``."""
        return connect(
            spec, base_url=self.base_url, options=self.options, no_cache=self.no_cache,
            concurrency=self.concurrency, flag=flag, batch=self.batch,
        )  # fmt: skip


def judge_plans(
    client: ModelClient,
    plans: Sequence[tuple[str, JudgePlan[Any]]],
    *,
    watcher: JudgeWatcher | None = None,
    rate: bool = True,
    prepare: Callable[[AddTask], Awaitable[Sequence[Prepared]]] | None = None,
) -> tuple[JudgeReport, list[Judged[Any]]]:
    """Run every ``(label, plan)`` at once (the client's concurrency shared among them),
    and close the client: the reports added up, and each run's lines (``Judged``) to report
    from, in the plans' order. Every plan's log is opened (checked, read and locked) before
    the first call and held to the end, so each judgment file is read once; two plans
    writing one file are one error. ``prepare`` makes more plans with the client open first
    (criteria to generate, say; it is handed the watcher's counters), each with the log its
    caller opened and holds for it, or ``None`` to open it here. A judge whose name moves
    (``gpt-4o``) or that served several snapshots is named in a ``HyokaWarning``."""
    watcher = watcher or JudgeWatcher()
    with contextlib.ExitStack() as held:
        logs: list[JsonlLog[Any]] = []
        for label, plan in plans:  # every file checked before the first call
            check_judge(client, plan.protocol)
            earlier = zip(plans[: len(logs)], logs, strict=True)
            twice = [other for (other, _plan), log in earlier if log.path == plan.output]
            if twice:
                raise InputError(
                    f"{plan.output}: two runs of this command would write it ({twice[0]} and "
                    f"{label}): give each once"
                )
            logs.append(held.enter_context(open_log(plan)))

        async def go() -> tuple[JudgeReport, list[Judged[Any]]]:
            async with client:
                made: Sequence[Prepared] = ()
                if prepare is not None:
                    with watcher.progress() as add:
                        made = await prepare(add)
                later = [((label, plan), log) for label, plan, log in made]
                chosen = [*zip(plans, logs, strict=True), *later]
                with watcher.progress(rate=rate) as add:
                    counters = [add(label, len(plan.tasks)) for (label, plan), _log in chosen]

                    async def run(
                        plan: JudgePlan[Any], log: JsonlLog[Any] | None, advance: Advance
                    ) -> Judged[Any]:
                        judged = await judge_plan(
                            client, plan, functools.partial(advance, 1), log=log
                        )
                        advance(judged.report.done_before)
                        return judged

                    # every plan at once: the client's limit keeps its requests in flight
                    # across files, so the last calls of one file do not wait for the next
                    runs = await gather_or_cancel(
                        run(plan, log, advance)
                        for ((_label, plan), log), advance in zip(chosen, counters, strict=True)
                    )
            return sum((judged.report for judged in runs), JudgeReport()), runs

        with gc_relaxed():  # many requests in flight: collect seldom (``hyoka._gc_pause``)
            total, runs = asyncio.run(go())
    _note_judge_name(client, total)
    return total, runs


def _note_judge_name(client: ModelClient, report: JudgeReport) -> None:
    """A ``HyokaWarning`` where the judge's name moves (``gpt-4o``) or served several
    snapshots, naming what the provider said served the calls."""
    if report.asked:
        note = alias_note(f"{client.provider.name}/{client.provider.model}", report.served)
        if note is not None:
            warnings.warn(note, HyokaWarning, stacklevel=3)


def judge_single(
    answers: Path,
    judge: str,
    *,
    template: str = "single-ref",
    references: Path | None = None,
    output: Path | None = None,
    repeats: int = GRADING.repeats,
    aggregate: str = GRADING.aggregate,
    temperature: float = GRADING.temperature,
    max_tokens: int = GRADING.max_tokens,
    max_attempts: int = GRADING.max_attempts,
    limit: int | None = None,
    thinking: ThinkingRule = DEFAULT_THINKING,
    connection: Connection | None = None,
    price_in: float = 0.0,
    price_out: float = 0.0,
    watcher: JudgeWatcher | None = None,
) -> SingleRun:
    """Grade the answers of ``answers`` (``{id, question, answer, reference?, model?}``
    lines; the references of ``references`` when given) 1-10 with ``judge``, by
    ``template`` (a packaged name or a .toml file), into ``output`` (default: the answers
    file with ``.judged.jsonl``), resuming what the file holds; the first ``limit`` items
    only when given. The run's grades summed up over the file, with what the calls cost
    at the user's prices (USD per million tokens)."""
    at_least_one("limit", limit)
    watcher = watcher or JudgeWatcher()
    chosen = load_template(template)
    items = read_items(answers, references)[: limit or None]
    settings = JudgeSettings.for_judge(
        judge, base_url=(connection or Connection()).base_url, temperature=temperature,
        max_tokens=max_tokens, repeats=repeats, aggregate=aggregate, thinking=thinking,
    )  # fmt: skip
    target = output or answers.with_name(answers.name.removesuffix(".jsonl") + ".judged.jsonl")
    plan = plan_single(items, chosen, settings, target, max_attempts=max_attempts)
    client = (connection or Connection()).connect(judge)
    watcher.planned(target)
    report, (judged,) = judge_plans(client, [(f"judging ({chosen.name})", plan)], watcher=watcher)
    return SingleRun(
        target, summarise(judged.lines, [item.id for item in items]), report, client.stats,
        judged.run.signature(), run_judge(judged.run), price_in, price_out,
    )  # fmt: skip


@dataclass(frozen=True)
class ExportedVerdicts:
    """Verdicts of one method written for ``hyoka judge agreement --auto``: how many,
    of which method, to which file."""

    method: Method
    count: int
    path: Path


@dataclass(frozen=True)
class PairwiseJudged:
    """A pairwise run (``run``: its ``to_json`` is what ``--json`` prints) and the verdicts
    exported from it, if asked."""

    run: PairwiseRun
    exported: ExportedVerdicts | None = None

    def to_json(self) -> dict[str, Any]:
        """The run's JSON (``PairwiseRun.to_json``)."""
        return self.run.to_json()


def judge_pairwise(
    answers_x: Path,
    answers_y: Path,
    judge: str,
    *,
    method: str = "all",
    criteria: str = "none",
    reasons: bool = False,
    template: str | None = None,
    output: Path | None = None,
    export_verdicts_to: Path | None = None,
    export_method: str | None = None,
    criteria_file: Path | None = None,
    max_tokens: int | None = None,
    criteria_max_tokens: int = 1024,
    limit: int | None = None,
    answers_of: Callable[[Path], dict[str, Answer]] = read_answers,
    thinking: ThinkingRule = DEFAULT_THINKING,
    control: Sequence[str] = STYLE_CONTROLS,
    connection: Connection | None = None,
    watcher: JudgeWatcher | None = None,
) -> PairwiseJudged:
    """Judge every pair of X's and Y's answers (read by ``answers_of``: answer files by
    default; ``pfgen.answer_reader`` reads run folders too) in both orders with ``judge``,
    by ``method`` (prob, bs1, bs2 or all), into ``output`` (default: under
    ``PAIRWISE_RESULTS``, by judge and models), resuming what the file holds. ``criteria``
    auto generates each question's criteria first (kept in ``criteria_file``, default
    criteria.json beside the judgments). The run summed up over the file: win rates,
    length-controlled and style-controlled (the features of ``control``); with
    ``export_verdicts_to`` one method's verdicts (``export_method``) written there. With a
    batch connection (``Connection.batch``) each run moves every pair one call on: the
    criteria's batch first (noted in the judgments' manifest), then both orders' batch."""
    at_least_one("limit", limit)
    watcher = watcher or JudgeWatcher()
    connection = connection or Connection()
    methods = parse_methods(method)
    exported = parse_methods(export_method or (method if method != "all" else "prob"))
    if export_verdicts_to is not None and (len(exported) != 1 or exported[0] not in methods):
        raise InputError(f"`export_method` must be one of the judged methods ({method})")
    chosen = load_template(template or template_name(criteria, reasons))
    check_criteria_use(chosen, criteria)
    items = load_pairs(answers_x, answers_y, answers_of)[: limit or None]
    budget = max_tokens or default_max_tokens(chosen)
    settings = pairwise_settings(judge, connection.base_url, budget, methods, thinking)
    out = output or default_output(PAIRWISE_RESULTS, judge, items, chosen.name)
    # before the criteria cost any call: the file can be continued
    pending = plan_pairs(items, chosen, settings, out, methods=methods, pending_criteria=True)
    client = connection.connect(judge)
    check_judge(client, pending.protocol)
    # held from this check until the pairs are judged into it: the file is opened once
    log = open_log(pending)
    watcher.planned(out)
    store = criteria_file or out.parent / "criteria.json"

    waiting = [0]  # pairs whose criteria a batch still holds: judged on a later run

    async def with_criteria(add: AddTask) -> list[Prepared]:
        nonlocal items
        if "criteria" in chosen.placeholders:
            advance, done = add("criteria", len(items)), [0]

            def one() -> None:
                done[0] += 1
                advance(1)

            # with --batch the criteria are a batch of their own, noted in the pairs' file:
            # the pairs are asked on the run after their criteria came back
            asking = batch_round(client, log) if isinstance(client, BatchClient) else None
            async with asking or contextlib.nullcontext():
                try:
                    items = await fill_criteria(
                        client, items, judge=judge, store=store,
                        max_tokens=criteria_max_tokens, thinking=settings.thinking_rule,
                        on_done=one,
                    )  # fmt: skip
                except Deferred:
                    waiting[0] = len(items)
                    return []
            advance(len(items) - done[0])
        return [("pairs", plan_pairs(items, chosen, settings, out, methods=methods), log)]

    with log:
        report, runs = judge_plans(client, [], watcher=watcher, prepare=with_criteria)
        if runs:
            (judged,) = runs
        else:  # the criteria in their batch: no pair asked, the file's lines as they are
            asked = pending.run.with_served(log)
            asked = asked.model_copy(update={"batch": signed_batch(log, client)})
            judged = Judged(report, plan_lines(pending, log), asked)
    report.deferred += waiting[0]
    records = list(judged.lines)  # the file's records of these pairs, as the run left them
    lengths = {item.id: (len(item.answer_x), len(item.answer_y)) for item in items}
    styles = {item.id: (StyleCounts.of(item.answer_x), StyleCounts.of(item.answer_y))
              for item in items}  # fmt: skip
    summary = summarise_pairwise(records, methods, lengths, styles, control)
    run = PairwiseRun(
        out, chosen, run_judge(judged.run), items[0].model_x, items[0].model_y, summary,
        report, client.stats, judged.run.signature(),
    )  # fmt: skip
    if export_verdicts_to is None:
        return PairwiseJudged(run)
    categories = {item.id: item.category for item in items}
    count = export_verdicts(records, exported[0], export_verdicts_to, categories)
    return PairwiseJudged(run, ExportedVerdicts(exported[0], count, export_verdicts_to))
