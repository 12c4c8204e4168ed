"""Stages 2–6 as resumable per-question jobs over a work folder.

``<work>/01-generated/`` holds the shards; each later stage reads the previous stage's
folder and writes ``<work>/<stage folder>/<question id>.jsonl.gz``, then a
``<question id>.done.json`` marker recording the stage's settings and a fingerprint of its
input. A stage skips the questions whose marker matches (so a killed run resumes, and a
re-run with the same settings costs nothing) and redoes those whose input or settings
changed. Rule files enter the settings by their SHA-1, so an edited rule file reruns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import DataError
from hyoka.refset.executor import Executor, run_jobs
from hyoka.refset.generate import GENERATED, generated_fingerprint, read_generated
from hyoka.refset.length import select_length
from hyoka.refset.ngrules import filter_rules, load_ng_rules
from hyoka.refset.normalise import load_rewrites, normalise_pool
from hyoka.refset.pool import (
    POOL_SUFFIX,
    Audit,
    PoolRecord,
    append_audit,
    pool_path,
    question_file,
    read_pool,
    write_pool,
)
from hyoka.refset.rare import filter_rare
from hyoka.refset.representative import select_representative
from hyoka.store import read_json, sha1_files, write_json

DONE_SUFFIX = ".done.json"

Transform = Callable[[list[PoolRecord], dict[str, Any], str, Audit], list[PoolRecord]]


def _normalise(
    records: list[PoolRecord], p: dict[str, Any], qid: str, a: Audit
) -> list[PoolRecord]:
    return normalise_pool(records, load_rewrites(_path(p.get("rules"))), a)


def _rules(records: list[PoolRecord], p: dict[str, Any], qid: str, a: Audit) -> list[PoolRecord]:
    return filter_rules(records, load_ng_rules(_path(p.get("rules"))), qid, a)


def _rare(records: list[PoolRecord], p: dict[str, Any], qid: str, a: Audit) -> list[PoolRecord]:
    return filter_rare(records, int(p["n"]), a)


def _length(records: list[PoolRecord], p: dict[str, Any], qid: str, a: Audit) -> list[PoolRecord]:
    return select_length(records, int(p["size"]), int(p["target"]), qid, a, p["allow_fewer"])


def _represent(
    records: list[PoolRecord], p: dict[str, Any], qid: str, a: Audit
) -> list[PoolRecord]:
    return select_representative(
        records, int(p["size"]), qid, a,
        max_n=int(p["max_n"]), seed=int(p["seed"]), allow_fewer=bool(p["allow_fewer"]),
    )  # fmt: skip


@dataclass(frozen=True)
class Stage:
    name: str
    folder: str
    source: str
    transform: Transform


STAGES: dict[str, Stage] = {
    s.name: s
    for s in (
        Stage("normalise", "02-normalised", GENERATED, _normalise),
        Stage("filter-rules", "03-rules", "02-normalised", _rules),
        Stage("filter-rare", "04-rare", "03-rules", _rare),
        Stage("select-length", "05-length", "04-rare", _length),
        Stage("select-representative", "06-representative", "05-length", _represent),
    )
}
FINAL_FOLDER = "06-representative"


def _path(value: Any) -> Path | None:
    return Path(value) if value else None


def done_marker(folder: Path, question_id: str) -> Path:
    """``<stage folder>/<question id>.done.json``: what a stage did to a question."""
    return question_file(folder, question_id, DONE_SUFFIX)


def file_sha1(path: Path | None) -> str | None:
    if path is None:
        return None
    return sha1_files([path])[0].sha1  # a regular file only, read as a stream


def stage_params(name: str, **params: Any) -> dict[str, Any]:
    """The settings of a stage, rule files resolved and fingerprinted (checked here, early)."""
    out = dict(params)
    if name in ("normalise", "filter-rules") and out.get("rules") is not None:
        rules = Path(out["rules"]).resolve()
        out["rules"] = str(rules)
        out["rules_sha1"] = file_sha1(rules)
    if name == "normalise":
        load_rewrites(_path(out.get("rules")))
    if name == "filter-rules":
        load_ng_rules(_path(out.get("rules")))
    return out


def available_questions(work: Path, stage: Stage) -> list[str]:
    folder = work / stage.source
    if not folder.is_dir():
        raise DataError(f"{folder}: not found (run the stage before {stage.name} first)")
    # hidden entries (a tool's ".ipynb_checkpoints", a temporary file) are no questions
    if stage.source == GENERATED:
        return sorted(p.name for p in folder.iterdir() if p.is_dir() and p.name[0] != ".")
    return sorted(p.name[: -len(POOL_SUFFIX)] for p in folder.glob(f"[!.]*{POOL_SUFFIX}"))


def run_stage(
    work: Path,
    name: str,
    params: dict[str, Any],
    question_ids: Sequence[str] | None = None,
    executor: Executor = Executor.LOCAL,
    known_ids: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Run one stage over the questions; returns one report per question, audit appended."""
    stage = STAGES[name]
    have = available_questions(work, stage)
    wanted = list(question_ids) if question_ids else have
    missing = [q for q in wanted if q not in have]
    if missing:
        raise DataError(f"{work / stage.source}: no input for {', '.join(missing)}")
    if name == "filter-rules" and params.get("rules") and known_ids is not None:
        load_ng_rules(Path(params["rules"]), known_ids)
    items = [{"stage": name, "work": str(work), "qid": q, "params": params} for q in wanted]
    reports: list[dict[str, Any]] = run_jobs(run_question, items, executor)
    audits = [_audit_from_lines(r["audit"]) for r in reports if not r["skipped"]]
    append_audit(work / stage.folder, audits)
    return reports


def run_question(item: dict[str, Any]) -> dict[str, Any]:
    """One stage on one question (the job that executors run): skip, or do it and mark it."""
    stage = STAGES[item["stage"]]
    work, qid, params = Path(item["work"]), item["qid"], item["params"]
    out_dir = work / stage.folder
    marker = done_marker(out_dir, qid)
    if stage.source == GENERATED:
        fingerprint = generated_fingerprint(work, qid)
    else:
        fingerprint = file_sha1(pool_path(work / stage.source, qid)) or ""
    settings = json.dumps(params, sort_keys=True, ensure_ascii=False)
    if marker.exists() and pool_path(out_dir, qid).exists():
        done = read_json(marker, strict=False)
        if (
            isinstance(done, dict)
            and done.get("settings") == settings
            and done.get("input") == fingerprint
        ):
            return {"qid": qid, "skipped": True, "audit": done.get("audit", [])}
    if stage.source == GENERATED:
        records = read_generated(work, qid)
    else:
        records = read_pool(pool_path(work / stage.source, qid))
    audit = Audit(stage.name, qid)
    kept = stage.transform(records, params, qid, audit)
    write_pool(pool_path(out_dir, qid), kept)
    lines = audit.lines()
    done = {"settings": settings, "input": fingerprint, "audit": lines}
    write_json(marker, done, indent=None)
    return {"qid": qid, "skipped": False, "audit": lines}


class _Replay(Audit):
    """An audit whose lines were made elsewhere (in a worker); written as they are."""

    def __init__(self, lines: list[dict[str, Any]]) -> None:
        super().__init__(stage="", question_id="")
        self._lines = lines

    def lines(self) -> list[dict[str, Any]]:
        return self._lines


def _audit_from_lines(lines: list[dict[str, Any]]) -> Audit:
    return _Replay(lines)


def summary_of(report: dict[str, Any]) -> dict[str, Any]:
    """The audit's summary line of a question's report."""
    for line in report["audit"]:
        if line.get("reason") == "summary":
            return dict(line)
    return {}


@dataclass(frozen=True)
class StageOutcome:
    """One question's result of a stage, read from its ``run_stage`` report.

    ``climb`` is stage 6's hill-climbing per reference set: ``mse_before``, ``mse_after``
    and ``swaps`` (empty for the other stages).
    """

    question_id: str
    before: int
    after: int
    skipped: bool
    climb: dict[str, dict[str, Any]]

    @property
    def removed(self) -> int:
        return self.before - self.after

    def to_json(self) -> dict[str, Any]:
        """The question, its answers before and after the stage, how many it removed,
        whether it was up to date (``skipped``) and stage 6's ``climb``."""
        return {
            "question": self.question_id, "before": self.before, "after": self.after,
            "removed": self.removed, "skipped": self.skipped, "climb": self.climb,
        }  # fmt: skip


def stage_outcome(report: dict[str, Any]) -> StageOutcome:
    """The counts a person reads from a question's stage report (and its audit summary)."""
    summary = summary_of(report)
    climb = summary.get("climb")
    return StageOutcome(
        question_id=str(report["qid"]),
        before=int(summary.get("before", 0)),
        after=int(summary.get("after", 0)),
        skipped=bool(report["skipped"]),
        climb=dict(climb) if isinstance(climb, dict) else {},
    )
