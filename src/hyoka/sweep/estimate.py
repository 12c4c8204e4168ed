"""What a sweep will ask before it asks anything (``hyoka sweep PLAN --plan``): per cell the
calls to the model and to the judge, the tokens, the price at list prices and the time at
the plan's concurrency, and what the sweep's manifest says is already done.

Calls are counted exactly from the data the cell would read: pfgen-bench's questions times
its trials; a judged benchmark's turns of each dialogue answered, then each judged turn
graded once per trial; M-IFEval-Ja's prompts. Tokens are an upper estimate, said so: one
token per character of every prompt as built (pfgen-bench's few-shot prompts exactly as
``pfgen.build_prompt`` makes them; a judged benchmark's turns, earlier answers at their
full budget, the judge prompt and the question's own reference), and every reply at its
full token budget. A model's answers are made once and judged by each judge, so they are
counted in the first judge's cell only. JFBench: each judged constraint of the entries
asked, its votes each a call (an empty answer, which a rule fails without a call, is not
known before it is made: counted as asked). A suite ranked from matches asks everything in
its first cell of each judge, in the plan's order: every peer's answers not yet counted,
then Rakuda's drawn matches (drawn here as the run draws them) or, in pairs, every pair of
models on every judged turn, both orders; the suite's later cells read the same files and
ask nothing. What the cell's files already hold (pfgen-bench's written trials, the answer
lines, the judged turns, matches and votes) is counted as kept, not as calls: a run resumes
from it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from hyoka.errors import HyokaError
from hyoka.store import pfgen_runs
from hyoka.sweep.cells import CHANGED, WAITING, judge_folder, ranked_folder, suite_folder
from hyoka.sweep.prices import AS_OF, price_of, seconds_per_call
from hyoka.sweep.spec import (
    CONSTRAINTS,
    JUDGED,
    MATCHES,
    PFGEN_KIND,
    RANKED_TOGETHER,
    Cell,
    SweepPlan,
)

_T = TypeVar("_T")
#: how the figures are made, as the estimate signs them
METHOD = f"calls:exact|tokens:characters+full-budget|prices:{AS_OF}"


@dataclass(frozen=True)
class Calls:
    """Calls to one model still to make and their tokens (prompt, completion), and the
    calls a file already holds the reply of (``kept``: never asked again)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    kept: int = 0


@dataclass(frozen=True)
class CellEstimate:
    """One cell's figures: the model's calls (``generation``) and the judge's (``judging``),
    their cost (``None``: a price not known) and seconds, and the cell's state."""

    key: str
    generation: Calls
    judging: Calls
    usd: float | None
    seconds: float
    price_sources: tuple[str, ...]
    status: str

    def to_json(self) -> dict[str, Any]:
        return {
            "cell": self.key, "status": self.status,
            "model_calls": self.generation.calls,
            "model_prompt_tokens": self.generation.prompt_tokens,
            "model_completion_tokens": self.generation.completion_tokens,
            "judge_calls": self.judging.calls,
            "judge_prompt_tokens": self.judging.prompt_tokens,
            "judge_completion_tokens": self.judging.completion_tokens,
            "usd": None if self.usd is None else round(self.usd, 6),
            "seconds": round(self.seconds, 3), "prices": list(self.price_sources),
        }  # fmt: skip


@dataclass(frozen=True)
class SweepEstimate:
    """Every cell's figures, and the totals of the cells still to run."""

    plan: Path
    concurrency: int
    cells: tuple[CellEstimate, ...]

    @property
    def to_run(self) -> list[CellEstimate]:
        return [cell for cell in self.cells if cell.status != "done"]

    @property
    def usd(self) -> float | None:
        costs = [cell.usd for cell in self.to_run]
        return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)

    @property
    def seconds(self) -> float:
        return sum(cell.seconds for cell in self.to_run)

    def to_json(self) -> dict[str, Any]:
        usd = self.usd
        return {
            "plan": str(self.plan), "concurrency": self.concurrency, "method": METHOD,
            "cells": [cell.to_json() for cell in self.cells],
            "done": len(self.cells) - len(self.to_run), "to_run": len(self.to_run),
            "usd": None if usd is None else round(usd, 6), "seconds": round(self.seconds, 3),
        }  # fmt: skip


def estimate_sweep(
    plan: SweepPlan, statuses: dict[str, str], data_dir: Path | None = None
) -> SweepEstimate:
    """The figures of every cell of ``plan``; ``statuses``: each cell's state in the
    manifest, by its key (``done`` only where its settings are the plan's)."""
    _READ.clear()  # read afresh by each estimate, once for all its cells
    try:
        return _estimate(plan, statuses, data_dir)
    finally:
        _READ.clear()


#: the data one estimate has read, by what and where (a suite's questions are read once for
#: all its cells, not once per cell)
_READ: dict[tuple[str, str, Path | None, str | None], Any] = {}


def _read(key: tuple[str, str, Path | None, str | None], read: Callable[[], _T]) -> _T:
    if key not in _READ:
        _READ[key] = read()
    found: _T = _READ[key]
    return found


def _estimate(
    plan: SweepPlan, statuses: dict[str, str], data_dir: Path | None = None
) -> SweepEstimate:
    answered: set[tuple[str, str]] = set()
    ranked: set[tuple[str, str]] = set()
    out = []
    for cell in plan.cells():
        generation = Calls()
        costs: list[float | None] = []
        sources: list[str] = []
        seconds = 0.0
        for peer in cell.peers or (cell.model,):  # a ranked suite's first cell: every peer's
            pair = (peer.name, cell.suite.label)
            if pair in answered and peer is not cell.model:
                continue
            made = Calls()
            if pair not in answered:
                made = _generation(replace(cell, model=peer), plan.out, data_dir)
            answered.add(pair)
            generation = _sum(generation, made)
            # each model's answers at its own price and pace
            price = price_of(peer.spec, peer.base_url, peer.price_in, peer.price_out,
                             batch=peer.batch and cell.suite.kind != PFGEN_KIND)  # fmt: skip
            costs.append(price.usd(made.prompt_tokens, made.completion_tokens))
            sources.append(f"model {price.source}" if peer is cell.model else
                           f"model {peer.name} {price.source}")  # fmt: skip
            each = seconds_per_call(peer.spec, peer.seconds_per_call)
            seconds += _seconds(made.calls, plan.concurrency, each)
        kind = cell.suite.kind
        judging = Calls()
        if kind in RANKED_TOGETHER and cell.judge is not None:
            together = (cell.suite.label, cell.judge.name)
            if together not in ranked:
                judging = _ranked_judging(cell, plan.out, data_dir)
            ranked.add(together)
        elif kind in _JUDGING:
            judging = _JUDGING[kind](cell, plan.out, data_dir)
        if cell.judge is not None:
            judge = cell.judge
            price = price_of(judge.spec, judge.base_url, judge.price_in, judge.price_out,
                             batch=judge.batch)  # fmt: skip
            costs.append(price.usd(judging.prompt_tokens, judging.completion_tokens))
            sources.append(f"judge {price.source}")
            seconds += _seconds(judging.calls, plan.concurrency,
                                seconds_per_call(judge.spec, judge.seconds_per_call))  # fmt: skip
        usd = None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)
        status = statuses.get(cell.key, "to run")
        if status != "done" and (generation.kept or judging.kept):
            kept = f"{generation.kept} answer(s), {judging.kept} judgment(s) kept"
            said = status.startswith((CHANGED, WAITING))
            status = f"{status}; {kept}" if said else f"partial: {kept}"
        out.append(
            CellEstimate(cell.key, generation, judging, usd, seconds, tuple(sources), status)
        )
    return SweepEstimate(plan.path, plan.concurrency, tuple(out))


def _sum(one: Calls, other: Calls) -> Calls:
    return Calls(
        one.calls + other.calls, one.prompt_tokens + other.prompt_tokens,
        one.completion_tokens + other.completion_tokens, one.kept + other.kept,
    )  # fmt: skip


def _seconds(calls: int, concurrency: int, each: float) -> float:
    return math.ceil(calls / concurrency) * each


def _generation(cell: Cell, out: Path, data_dir: Path | None) -> Calls:
    if cell.suite.kind == PFGEN_KIND:
        return _pfgen(cell, out, data_dir)
    from hyoka.mtbench import answer_file, answer_model_id, answer_set

    suite = cell.suite
    # as generate_bench reads it
    loaded = _read(("answers", suite.bench, data_dir, suite.variant),
                   lambda: answer_set(suite.bench, data_dir, suite.variant))  # fmt: skip
    budget = suite.max_tokens or loaded.generation.max_tokens
    trials = suite.trials or (loaded.variant.trials if loaded.variant is not None else 1)
    model_id = answer_model_id(cell.model.spec, cell.model.name)
    done = _kept(answer_file(suite_folder(out, cell), loaded, model_id), "question_id")
    calls = prompt = kept = 0
    for question in loaded.questions[: suite.limit or None]:
        for turn in range(1, len(question.turns) + 1):
            if (str(question.question_id),) in done:
                kept += trials
                continue
            calls += trials
            asked = sum(len(text) for text in question.turns[:turn])
            prompt += trials * (asked + (turn - 1) * budget)
    if calls:
        _check_sources(cell, loaded)
    return Calls(calls, prompt, calls * budget, kept)


def _check_sources(cell: Cell, loaded: Any) -> None:
    """Refuse up front a model whose answers are still to make with the system message
    upstream's source file gives its name, where that file was not fetched (the run checks
    the same before asking, then fails each such cell): the file's presence alone is
    looked at, not its text."""
    from hyoka.errors import MissingDataError
    from hyoka.providers import parse_model_string

    templates = loaded.dialogue.templates
    if templates is None:
        return
    _provider, served = parse_model_string(cell.model.spec)
    try:
        templates.check_source(served, loaded.folder)
    except MissingDataError as exc:
        raise MissingDataError(f"models.{cell.model.name}: {exc}") from None


def _kept(path: Path, *keys: str, model: str | None = None) -> set[tuple[str, ...]]:
    """The ``keys`` of each line ``path`` holds (of ``model``'s lines, where given): what a
    run resumes from and never asks again; none where the file is not there yet."""
    if not path.is_file():
        return set()
    from hyoka.store import read_objects

    return {
        tuple(str(line.get(key)) for key in keys)
        for _number, line in read_objects(path)
        if model is None or line.get("model") == model
    }


def _pfgen(cell: Cell, out: Path, data_dir: Path | None) -> Calls:
    from hyoka.pfgen import (
        PROTOCOL,
        GenerateSettings,
        Mode,
        PfgenBenchmark,
        build_prompt,
        plan_generation,
    )

    suite = cell.suite
    settings = GenerateSettings(
        model=cell.model.spec, mode=Mode(suite.mode or Mode.CHAT.value),
        trials=suite.trials or PROTOCOL.trials, max_tokens=suite.max_tokens or PROTOCOL.max_tokens,
        num_examples=PROTOCOL.num_examples if suite.num_examples is None else suite.num_examples,
        limit=suite.limit, name=cell.model.name, results_dir=suite_folder(out, cell),
    )  # fmt: skip
    planned = plan_generation(settings, PfgenBenchmark.load(data_dir))
    plan = planned.plan
    prompt = 0
    written = {path.name for path in plan.folder.glob(pfgen_runs.TRIAL_GLOB)}
    left = [
        trial
        for trial in range(plan.num_trials)
        if pfgen_runs.trial_file(plan.folder, trial + 1).name not in written
    ]
    for trial in left:
        for question in planned.questions:
            built = build_prompt(planned.samples, question, plan.mode, trial,
                                 num_examples=plan.num_examples, seed=plan.seed,
                                 prefix=plan.prefix)  # fmt: skip
            prompt += len(built.text) + len(built.system or "")
    calls = len(left) * len(planned.questions)
    kept = (plan.num_trials - len(left)) * len(planned.questions)
    return Calls(calls, prompt, calls * settings.max_tokens, kept)


def _judging(cell: Cell, out: Path, data_dir: Path | None) -> Calls:
    from hyoka.mtbench import Bench, answer_model_id, single_output

    suite = cell.suite
    loaded = Bench.load(suite.bench, data_dir, suite.variant)
    budget = suite.max_tokens or loaded.generation.max_tokens
    reply = loaded.rating_rules.max_tokens or 2048  # as judge_bench budgets a judge's reply
    trials = suite.trials or (loaded.variant.trials if loaded.variant is not None else 1)
    template = max(
        (len(p.system_prompt) + len(p.prompt_template) for p in loaded.prompts.values()),
        default=0,
    )
    model_id = answer_model_id(cell.model.spec, cell.model.name)
    judge = cell.judge.name if cell.judge is not None else ""
    path = single_output(judge_folder(out, cell), loaded, judge, model_id)
    done = _kept(path, "question_id", "turn", model=model_id)
    calls = prompt = kept = 0
    for question in loaded.questions[: suite.limit or None]:
        reference = sum(len(text) for text in question.reference or ())
        reference += len(question.eval_aspect or "")
        for turn in loaded.turns:
            if turn > len(question.turns):
                continue
            if (str(question.question_id), str(turn)) in done:
                kept += trials
                continue
            calls += trials
            asked = sum(len(text) for text in question.turns[:turn])
            prompt += trials * (template + asked + turn * budget + reference)
    return Calls(calls, prompt, calls * reply, kept)


def _constraints(cell: Cell, out: Path, data_dir: Path | None) -> Calls:
    """JFBench: every judged constraint of the entries asked, ``JUDGE_VOTES`` calls each;
    the prompt the judge is asked about an empty answer, and the answer at its budget."""
    from hyoka.jfbench import JUDGE_MAX_TOKENS, JUDGE_VOTES, task_id
    from hyoka.mtbench import Bench, answer_model_id, answer_set, constraint_benchmark

    suite = cell.suite
    # the questions as generate_bench read them (``answer_set``: once for both)
    loaded = _read(("answers", suite.bench, data_dir, suite.variant),
                   lambda: answer_set(suite.bench, data_dir, suite.variant))  # fmt: skip
    if not isinstance(loaded, Bench):
        raise HyokaError(f"{suite.bench}: not a benchmark of constraints")
    budget = suite.max_tokens or loaded.generation.max_tokens
    built = _read(("built", suite.bench, data_dir, None), lambda: constraint_benchmark(loaded))
    model_id = answer_model_id(cell.model.spec, cell.model.name)
    judge = cell.judge.name if cell.judge is not None else ""
    logs = judge_folder(out, cell) / suite.bench / "model_judgment" / f"{judge}_constraints"
    done = _kept(logs / f"{model_id}.jsonl", "id")
    calls = prompt = kept = 0
    for question in loaded.questions[: suite.limit or None]:
        position = int(question.question_id)
        entry = built.entries[position]
        document = built.prompts.documents[entry.prompt]
        for constraint in entry.constraints:
            factory = constraint.factory
            if not factory.judged:
                continue
            if (task_id(position, factory.name),) in done:
                kept += JUDGE_VOTES
                continue
            asked = built.source.judge_prompt(factory, constraint.seed, document, "")
            calls += JUDGE_VOTES
            prompt += JUDGE_VOTES * (len(asked) + budget)
    return Calls(calls, prompt, calls * JUDGE_MAX_TOKENS, kept)


def _ranked_judging(cell: Cell, out: Path, data_dir: Path | None) -> Calls:
    """Everything a suite ranked from matches asks its judge, counted in its first cell."""
    if cell.suite.kind == MATCHES:
        return _matches(cell, out, data_dir)
    return _pairs(cell, out, data_dir)


def _matches(cell: Cell, out: Path, data_dir: Path | None) -> Calls:
    """Rakuda: the matches drawn as ``plan_rakuda`` draws them (the peers in the plan's
    order, the questions', the suite's seed), one call each: its prompt the template, the
    question and both answers at their budget."""
    from hyoka.mtbench import (
        RakudaBench,
        answer_model_id,
        draw_matches,
        rakuda_output,
        rakuda_settings,
    )

    suite = cell.suite
    bench = RakudaBench.load(data_dir)
    budget = suite.max_tokens or bench.generation.max_tokens
    judge = cell.judge.spec if cell.judge is not None else ""
    reply = rakuda_settings(judge, None, None).max_tokens or 0
    models = [answer_model_id(peer.spec, peer.name) for peer in cell.peers]
    drawn = draw_matches(models, list(bench.by_id), suite.matches or 0, suite.seed or 0)
    name = cell.judge.name if cell.judge is not None else ""
    done = _kept(rakuda_output(ranked_folder(out, cell), name), "model1_id", "model2_id",
                 "question_id")  # fmt: skip
    template = len(bench.prompt.system_prompt) + len(bench.prompt.prompt_template)
    calls = prompt = kept = 0
    for first, second, qid in drawn:
        if (first, second, str(qid)) in done:
            kept += 1
            continue
        calls += 1
        prompt += template + len(bench.by_id[qid].turns[0]) + 2 * budget
    return Calls(calls, prompt, calls * reply, kept)


def _pairs(cell: Cell, out: Path, data_dir: Path | None) -> Calls:
    """A FastChat suite in pairs: every pair of the peers (``make_matches``: all pairs) on
    every judged turn of the questions asked, each in both orders (two calls); a prompt the
    longest pairwise template, the turns, both answers at their budget and the reference."""
    from hyoka.mtbench import Bench, answer_model_id, pair_output

    suite = cell.suite
    loaded = Bench.load(suite.bench, data_dir, suite.variant)
    budget = suite.max_tokens or loaded.generation.max_tokens
    reply = loaded.rating_rules.max_tokens or 2048  # as judge_bench budgets a judge's reply
    template = max(
        (len(p.system_prompt) + len(p.prompt_template) for p in loaded.prompts.values()
         if p.type == "pairwise"),
        default=0,
    )  # fmt: skip
    models = [answer_model_id(peer.spec, peer.name) for peer in cell.peers]
    pairs = [(a, b) for n, a in enumerate(models) for b in models[n + 1 :]]
    if loaded.spec.pair_models == "sorted":
        pairs = [(a, b) if a < b else (b, a) for a, b in pairs]
    name = cell.judge.name if cell.judge is not None else ""
    done = _kept(pair_output(ranked_folder(out, cell), loaded, name), "question_id", "model_1",
                 "model_2", "turn")  # fmt: skip
    calls = prompt = kept = 0
    for first, second in pairs:
        for question in loaded.questions[: suite.limit or None]:
            reference = sum(len(text) for text in question.reference or ())
            for turn in loaded.turns:
                if (str(question.question_id), first, second, str(turn)) in done:
                    kept += 2
                    continue
                calls += 2
                asked = sum(len(text) for text in question.turns[:turn])
                prompt += 2 * (template + asked + 2 * turn * budget + reference)
    return Calls(calls, prompt, calls * reply, kept)


#: how a judge's calls are counted, by the kind of cell (those ranked together apart)
_JUDGING = {JUDGED: _judging, CONSTRAINTS: _constraints}
