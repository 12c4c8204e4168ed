"""Per-model score pairs for ``hyoka pfgen correlate``: pfgen score vs a judge's mean.

Two sources: pfgen result folders with the judge summaries ``hyoka pfgen judge`` writes
beside them (``<run>/judge/<judge-slug>/summary.json``), or a plain table (CSV or JSON) of
``model, pfgen_score, judge_score`` so scores from anywhere (a paper, another tool) can be
compared without running a judge here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaError, InputError
from hyoka.pfgen.judge import JUDGE_FOLDER, SUMMARY_FILE
from hyoka.pfgen.summary import RunSummary
from hyoka.store import pfgen_runs, read_json, read_rows

TABLE_COLUMNS = ("model", "pfgen_score", "judge_score")


@dataclass(frozen=True)
class ScorePair:
    model: str
    pfgen: float
    judge: float
    where: str


@dataclass
class PairedScores:
    pairs: list[ScorePair]
    judge: str | None
    #: runs with a pfgen result but no summary of this judge
    without_judge: list[str] = field(default_factory=list)
    #: judge calls that failed (score -1), summed over runs
    judge_failures: int = 0


def read_score_table(path: Path) -> PairedScores:
    """``model, pfgen_score, judge_score`` rows from a CSV, a JSON list or JSONL."""
    pairs = [_pair(row, where) for where, row in read_rows(path)]
    _check_unique(pairs)
    return PairedScores(pairs=pairs, judge=None)


def collect_run_scores(results: Path, judge: str | None) -> PairedScores:
    """pfgen score and judge mean of every run under ``results`` that has both."""
    if not results.is_dir():
        raise InputError(f"{results}: not a folder of pfgen results")
    problems: list[str] = []
    runs = [p.parent for p in pfgen_runs.find_result_files(results, problems)]
    if problems:
        raise InputError(problems[0])
    if not runs:
        raise InputError(f"{results}: no {pfgen_runs.RESULT_FILE} found")
    summaries = {run: sorted((run / JUDGE_FOLDER).glob(f"*/{SUMMARY_FILE}")) for run in runs}
    judges = {_summary(p)["judge"]: None for paths in summaries.values() for p in paths}
    if not judges:  # nothing judged yet: no judge named would find anything
        raise InputError(
            f"{results}: none of its {len(runs)} run(s) has been judged yet (no "
            f"{JUDGE_FOLDER}/*/{SUMMARY_FILE} beside a {pfgen_runs.RESULT_FILE}): judge them "
            "first with `hyoka pfgen judge RUN -j PROVIDER/MODEL`, or give `table`"
        )
    if judge is None:
        if len(judges) != 1:
            found = ", ".join(map(str, judges)) or "none"
            raise InputError(f"{results}: name the judge with `judge` (judges found: {found})")
        judge = str(next(iter(judges)))
    elif judge not in judges:
        found = ", ".join(map(str, judges)) or "none"
        raise InputError(f"{results}: no judge summaries by {judge!r} (found: {found})")
    out = PairedScores(pairs=[], judge=judge)
    for run in runs:
        chosen = [p for p in summaries[run] if _summary(p)["judge"] == judge]
        result_path = run / pfgen_runs.RESULT_FILE
        try:
            result = pfgen_runs.read_result(run) or {}
            summary = RunSummary.from_result(run, result, root=results)
        except HyokaError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{result_path}: not a pfgen result ({exc})") from None
        label = f"{summary.model} ({summary.mode})"
        if summary.incomplete:  # its pfgen score is not a whole run's: said beside it
            label += f" [{summary.incomplete}]"
        if not chosen:
            out.without_judge.append(label)
            continue
        data = _summary(chosen[0])
        pending = data.get("pending")
        if isinstance(pending, int) and pending > 0:  # a judging run not finished (--batch)
            label += f" [judge partial: {pending} item(s) pending]"
        out.pairs.append(ScorePair(label, summary.score, data["mean"], str(chosen[0])))
        out.judge_failures += int(data.get("failures", 0))
    _check_unique(out.pairs)
    return out


def _summary(path: Path) -> dict[str, Any]:
    try:
        data = read_json(path, strict=False)
    except InputError as exc:
        raise InputError(f"cannot read judge summary: {exc}") from None
    if not isinstance(data, dict) or "judge" not in data or "mean" not in data:
        raise InputError(f"{path}: a judge summary needs 'judge' and 'mean'")
    if data["mean"] is None:
        failures = data.get("failures", "?")
        raise InputError(
            f"{path}: the judge rated none of its {failures} judged answers; "
            "judge again with a judge that rates, or leave this run out"
        )
    data["mean"] = _number(data["mean"], f"{path}: mean")
    return data


def _pair(row: Any, where: str) -> ScorePair:
    if not isinstance(row, dict):
        raise InputError(f"{where}: expected an object with {', '.join(TABLE_COLUMNS)}")
    missing = [c for c in TABLE_COLUMNS if row.get(c) in (None, "")]
    if missing:
        raise InputError(f"{where}: missing {', '.join(missing)}")
    return ScorePair(
        model=str(row["model"]),
        pfgen=_number(row["pfgen_score"], f"{where}: pfgen_score"),
        judge=_number(row["judge_score"], f"{where}: judge_score"),
        where=where,
    )


def _number(value: Any, where: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise InputError(f"{where}: {value!r} is not a finite number")
    return number


def _check_unique(pairs: list[ScorePair]) -> None:
    seen: dict[str, str] = {}
    for pair in pairs:
        if pair.model in seen:
            raise InputError(f"{pair.where}: model {pair.model!r} also at {seen[pair.model]}")
        seen[pair.model] = pair.where
