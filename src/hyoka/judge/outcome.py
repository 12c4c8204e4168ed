"""What a judging run hands back to whoever ran it: the grades or verdicts of the file, what
this run did and cost, and the signature of how the numbers were produced.

One object per kind of run, each with the one ``to_json`` its ``--json`` output is (the
command line prints it, and builds its tables from the same fields), so a shape has one
home and a Python caller gets exactly what a command prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.judge.engine import JudgeReport
from hyoka.judge.judged_by import JudgedBy
from hyoka.judge.pairwise_summary import PairwiseSummary
from hyoka.judge.single import SingleSummary
from hyoka.judge.templates import JudgeTemplate
from hyoka.providers import ClientStats, Usage
from hyoka.signature import SIGNATURE_KEY, Signature


def cost_usd(usage: Usage, price_in: float, price_out: float) -> float:
    """What the tokens cost at USD ``price_in``/``price_out`` per million prompt/completion
    tokens (the user's prices: hyoka keeps no price table that would go stale)."""
    return (usage.prompt_tokens * price_in + usage.completion_tokens * price_out) / 1e6


@dataclass(frozen=True)
class SingleRun:
    """A single grading run: ``summary`` over every grade of the run's items in the
    judgment file ``output``, ``report`` of what this run did, ``stats`` of its calls, the
    judge that answered (``judge.run_judge``: a script's grades are a dry run), and the
    prices (USD per million tokens, the user's) its cost is reckoned at."""

    output: Path
    summary: SingleSummary
    report: JudgeReport
    stats: ClientStats
    signature: Signature
    judge: JudgedBy
    price_in: float = 0.0
    price_out: float = 0.0

    @property
    def cost_usd(self) -> float | None:
        """What this run's calls cost; ``None`` when no price was given."""
        if not (self.price_in or self.price_out):
            return None
        return cost_usd(self.stats.usage, self.price_in, self.price_out)

    def to_json(self) -> dict[str, Any]:
        """``mean``/``n``/``failures`` over the file's grades of these items; this run's
        ``judged_now``, ``done_before``, ``failed_repeats_now``, ``judge_calls`` (cached
        ones too), ``provider_calls``, ``cache_hits`` and tokens; the signature; the
        judgment file as ``output``; ``cost_usd`` (rounded to 6 places) when priced;
        ``served_models`` (calls by snapshot) where the provider named one; ``batch`` (what
        the batch rounds did) where the judge was asked through its batch API; the judge
        that answered (``judged_by``) and whether its grades are a ``dry_run`` (a script's)."""
        usage = self.stats.usage
        data: dict[str, Any] = {
            "mean": self.summary.mean,
            "n": self.summary.n,
            "failures": self.summary.failures,
            "judged_now": self.report.judged,
            "done_before": self.report.done_before,
            "failed_repeats_now": self.report.failed_repeats,
            "judge_calls": self.report.judge_calls,
            "provider_calls": self.stats.requests,
            "cache_hits": self.stats.cache_hits,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            SIGNATURE_KEY: self.signature.to_json(),
            "judged_by": self.judge.to_json(),
            "dry_run": self.judge.dry_run,
        }
        cost = self.cost_usd
        if cost is not None:
            data["cost_usd"] = round(cost, 6)
        data.update(_served(self.report))
        data.update(_batch(self.stats))
        data["output"] = str(self.output)
        return data


@dataclass(frozen=True)
class PairwiseRun:
    """A pairwise run of model X against model Y by ``judge`` (what answered:
    ``judge.run_judge``): ``summary`` of every verdict in the judgment file ``output`` for
    these pairs, ``report`` of what this run did and ``stats`` of its calls."""

    output: Path
    template: JudgeTemplate
    judge: JudgedBy
    model_x: str
    model_y: str
    summary: PairwiseSummary
    report: JudgeReport
    stats: ClientStats
    signature: Signature

    def to_json(self) -> dict[str, Any]:
        """The run (``output``, ``template`` and its version, ``judge`` as asked, the judge
        that answered (``judged_by``) and whether its verdicts are a ``dry_run``, the two
        models, ``judged`` now, ``done_before``, ``judge_calls`` to the provider,
        ``cache_hits``, ``run_usage``, ``served_models`` where the provider named
        snapshots, ``batch`` where its batch API was asked, the signature), then the
        summary's fields (``pairs``, per-method counts and rates, robustness, orders that
        agree or not, ``usage`` of the file)."""
        run = {
            "output": str(self.output), "template": self.template.name,
            "template_version": self.template.version, "judge": self.judge.judge,
            "judged_by": self.judge.to_json(), "dry_run": self.judge.dry_run,
            "model_x": self.model_x, "model_y": self.model_y, "judged": self.report.judged,
            "done_before": self.report.done_before, "judge_calls": self.stats.requests,
            "cache_hits": self.stats.cache_hits, "run_usage": self.stats.usage.model_dump(),
            **_served(self.report), **_batch(self.stats), SIGNATURE_KEY: self.signature.to_json(),
        }  # fmt: skip
        return {**run, **self.summary.to_json()}


def _batch(stats: ClientStats) -> dict[str, Any]:
    """``batch``: what this run's batch rounds did (``--batch``: collected, submitted,
    deferred, still running), as ``mtbench judge --json`` says it; absent online."""
    return {} if stats.batch is None else {"batch": stats.batch.to_json()}


def _served(report: JudgeReport) -> dict[str, Any]:
    """``served_models``: this run's calls by the snapshot the provider said served them,
    where it named another model than the judge's (absent when it named none)."""
    return {"served_models": dict(sorted(report.served.items()))} if report.served else {}
