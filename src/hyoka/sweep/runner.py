"""A sweep run: every cell of a plan handed to an executor, each result kept in the sweep's
manifest as it comes, and the results matrix written at the end in every format.

Resumable at two levels. The manifest (``<out>/sweep.json``, replaced atomically after each
cell) records each finished cell with the digest of its settings: run again, a done cell
under the same settings is taken from it and asks nothing. A cell stopped half way (the
process killed) is run again through its entry points, which resume their own files, and
whatever the model or judge answered before comes back from the response cache: nothing is
paid twice. A cell that fails is recorded as failed and run again next time; the other
cells go on.

The executor is the one seam for running cells elsewhere: ``Executor.run`` takes the cells,
the function that runs one (a picklable top-level function and its context), and a
callback for each result. ``LocalExecutor`` runs them here, one after the other (each cell
already sends its requests ``concurrency`` at a time). Whatever the executor, a model
computed in this process is loaded once for all its cells (``models.SweepModels``); an
executor that is also a ``ModelHost`` (``RayExecutor``) holds such models on its workers
instead, and the cells, here, send it their requests: the files are written here only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from hyoka.errors import InputError
from hyoka.providers import lending
from hyoka.store import atomic_write_text, claim_folder, read_json, write_json, writer_lock
from hyoka.sweep.cells import CHANGED, CellContext, CellResult, batches_collected, run_cell
from hyoka.sweep.matrix import FORMATS, Column, ResultsMatrix, build_matrix
from hyoka.sweep.models import ModelHost, SweepModels
from hyoka.sweep.spec import Cell, SweepPlan

#: the kind of output folder a sweep writes (``store.claim_folder``)
SWEEP_KIND = "sweep"
#: the sweep's manifest in its output folder, and what its ``kind`` says
MANIFEST = "sweep.json"
MANIFEST_KIND = "hyoka-sweep"
#: the results matrix in its output folder, one file per format
MATRIX = "results"


class SweepWatcher:
    """What a front end hears as a sweep goes; each method does nothing unless overridden."""

    def planned(self, cells: Sequence[Cell], reused: int) -> None:
        """The cells are known; ``reused`` of them are done already (from the manifest)."""

    def started(self, cell: Cell) -> None:
        """A cell is about to run."""

    def finished(self, result: CellResult, reused: bool) -> None:
        """A cell gave its result (``reused``: taken from the manifest, nothing asked)."""


class Executor(Protocol):
    """Runs cells: each through ``work``, each result handed to ``done`` as it comes."""

    def run(
        self,
        cells: Sequence[Cell],
        work: Callable[[Cell], CellResult],
        done: Callable[[CellResult], None],
    ) -> None: ...


class LocalExecutor:
    """The cells one after the other in this process."""

    def run(
        self,
        cells: Sequence[Cell],
        work: Callable[[Cell], CellResult],
        done: Callable[[CellResult], None],
    ) -> None:
        for cell in cells:
            done(work(cell))


@dataclass(frozen=True)
class SweepRun:
    """A finished sweep: its matrix, the cells run now, taken from the manifest, and failed,
    and the files it wrote (the manifest and the matrix in each format)."""

    out: Path
    matrix: ResultsMatrix
    ran: int
    reused: int
    failed: int
    files: tuple[Path, ...]
    #: cells waiting on batches (``batch = true``): the same command run again goes on
    waiting: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "out": str(self.out), "ran": self.ran, "reused": self.reused, "failed": self.failed,
            "waiting": self.waiting,
            "files": [str(path) for path in self.files], "matrix": self.matrix.to_json(),
        }  # fmt: skip


def columns_of(plan: SweepPlan) -> list[Column]:
    """The matrix's columns in the plan's order: a suite, once per judge where judged."""
    seen: dict[tuple[str, str | None], Column] = {}
    for cell in plan.cells():
        judge = None if cell.judge is None else cell.judge.name
        seen.setdefault((cell.suite.label, judge), Column(cell.suite.label, judge))
    return list(seen.values())


def read_manifest_cells(out: Path) -> dict[str, CellResult]:
    """The cells a sweep's manifest in ``out`` records, by key (none where there is none)."""
    path = out / MANIFEST
    if not path.is_file():
        return {}
    data = read_json(path)
    if not isinstance(data, dict) or data.get("kind") != MANIFEST_KIND:
        raise InputError(f"{path}: not a hyoka sweep manifest")
    cells = data.get("cells")
    if not isinstance(cells, list):
        raise InputError(f"{path}: its cells are not a list")
    found = {}
    for number, entry in enumerate(cells, 1):
        if not isinstance(entry, dict) or "key" not in entry:
            raise InputError(f"{path}: a cell without its key")
        try:
            result = CellResult.from_json(entry)
        except ValueError as exc:  # damaged by hand or another program: one line, no trace
            raise InputError(f"{path}: cell {number} ({entry['key']!r}): {exc}") from None
        found[result.key] = result
    return found


def check_plan_of(plan: SweepPlan) -> None:
    """Refuse an output folder whose manifest records another plan's sweep: two plans in one
    folder would each rewrite the manifest and the matrix with its own cells only."""
    path = plan.out / MANIFEST
    if not path.is_file():
        return
    data = read_json(path)
    recorded = data.get("plan") if isinstance(data, dict) else None
    if not isinstance(recorded, str) or _same_plan(Path(recorded), plan.path):
        return
    raise InputError(
        f"{path}: this folder holds the sweep of another plan ({recorded}); give "
        f"{plan.path} another out, or remove the folder"
    )


def _same_plan(recorded: Path, plan: Path) -> bool:
    """Whether the manifest's ``recorded`` plan is ``plan`` (an older manifest's relative
    path: the end of this plan's path)."""
    mine = plan.resolve()
    if recorded.is_absolute():
        return recorded.resolve() == mine
    return mine.parts[-len(recorded.parts) :] == recorded.parts or recorded.resolve() == mine


def statuses(plan: SweepPlan) -> dict[str, str]:
    """Each cell's state in the manifest: ``done`` (under the plan's settings), ``failed``,
    ``waiting on batch ID`` (its batches collected by the next run), or ``CHANGED`` (done
    under other settings: it runs again, into files of its own; naming the batches it
    waited on that no file of the new settings collects, left in flight)."""
    check_plan_of(plan)
    recorded = read_manifest_cells(plan.out)
    out = {}
    for cell in plan.cells():
        found = recorded.get(cell.key)
        if found is None:
            continue
        if found.digest != cell.digest:
            left = _uncollected(plan, cell, found, ())
            out[cell.key] = CHANGED + (f" (batch {', '.join(left)} left in flight)" if left else "")
        else:
            out[cell.key] = found.waiting_line if found.waiting is not None else found.status
    return out


def read_matrix(path: Path) -> ResultsMatrix:
    """The results matrix a sweep's manifest (``sweep.json``) holds, in its plan's order."""
    data = read_json(path)
    if not isinstance(data, dict) or data.get("kind") != MANIFEST_KIND:
        raise InputError(f"{path}: not a hyoka sweep manifest")
    cells = read_manifest_cells(path.parent)
    for key in ("models", "columns"):
        if not isinstance(data.get(key), list):
            raise InputError(f"{path}: its {key} are not a list")
    columns = [
        Column(str(c["suite"]), None if c.get("judge") is None else str(c["judge"]))
        for c in data.get("columns") or []
        if isinstance(c, dict) and "suite" in c
    ]
    models = [str(m) for m in data.get("models") or []]
    return build_matrix(models, columns, list(cells.values()))


def run_sweep(
    plan: SweepPlan,
    *,
    data_dir: Path | None = None,
    executor: Executor | None = None,
    watcher: SweepWatcher | None = None,
) -> SweepRun:
    """Run every cell of ``plan`` not already done (``executor``: here, by default), keeping
    each result in the manifest as it comes, and write the results matrix in every format
    (``results.md``, ``.csv``, ``.json``) into the plan's output folder."""
    claim_folder(plan.out, SWEEP_KIND, flag=f"{plan.path}: out")
    # one sweep writes a folder at a time: a second, of this plan or another, stops at once
    with writer_lock(plan.out / MANIFEST, what="sweep's output folder", timeout=0):
        check_plan_of(plan)
        return _run_sweep(plan, data_dir, executor or LocalExecutor(), watcher or SweepWatcher())


def _run_sweep(
    plan: SweepPlan, data_dir: Path | None, executor: Executor, watcher: SweepWatcher
) -> SweepRun:
    recorded = read_manifest_cells(plan.out)
    cells = plan.cells()
    kept = {
        cell.key: recorded[cell.key]
        for cell in cells
        if cell.key in recorded
        and recorded[cell.key].done
        and recorded[cell.key].digest == cell.digest
    }
    models = [model.name for model in plan.models]
    columns = columns_of(plan)
    results: dict[str, CellResult] = dict(kept)
    watcher.planned(cells, len(kept))
    for cell in cells:
        if cell.key in kept:
            watcher.finished(kept[cell.key], True)
    context = CellContext(plan.out, data_dir, plan.concurrency)
    order = [cell.key for cell in cells]
    by_key = {cell.key: cell for cell in cells}

    def matrix() -> ResultsMatrix:
        return build_matrix(models, columns, [results[k] for k in order if k in results])

    def done(result: CellResult) -> None:
        earlier = recorded.get(result.key)
        if earlier is not None and earlier.done and earlier.digest != result.digest:
            kept = ", ".join(earlier.files)
            said = f"settings changed since the last run: run again; its files kept ({kept})"
            result = replace(result, notes=(said, *result.notes))
        elif earlier is not None and earlier.waiting and earlier.digest != result.digest:
            left = _uncollected(plan, by_key[result.key], earlier, result.waiting or ())
            said = _left_in_flight(plan, left) if left else _still_collected(earlier)
            result = replace(result, notes=(said, *result.notes))
        results[result.key] = result
        _write_manifest(plan, models, columns, matrix())
        watcher.finished(result, False)

    to_run = [cell for cell in cells if cell.key not in kept]
    if to_run:
        lender = SweepModels(plan, executor if isinstance(executor, ModelHost) else None)
        try:
            with lending(lender):
                executor.run(to_run, partial(_watched, watcher, context), done)
        finally:
            lender.close()
    final = matrix()
    files = [_write_manifest(plan, models, columns, final)]
    for fmt in FORMATS:
        target = plan.out / f"{MATRIX}.{fmt}"
        atomic_write_text(target, final.render(fmt))
        files.append(target)
    waiting = sum(1 for found in final.cells if found.waiting is not None)
    failed = sum(1 for found in final.cells if not found.done) - waiting
    return SweepRun(plan.out, final, len(to_run), len(kept), failed, tuple(files), waiting)


def _uncollected(
    plan: SweepPlan, cell: Cell, earlier: CellResult, waiting: Sequence[str]
) -> list[str]:
    """The batches ``earlier`` (the cell under its old settings) waited on that no run of
    ``cell``'s settings collects: not ``waiting`` (what the new run waits on), nor noted
    or read by the files it shares with the old settings (``cells.batches_collected``: a
    judge edited while the cell waited on its answers' batch still collects it)."""
    if not earlier.waiting:
        return []
    kept = {*waiting, *batches_collected(plan.out, cell)}
    return [one for one in earlier.waiting if one not in kept]


def _still_collected(earlier: CellResult) -> str:
    """The note of a cell whose settings changed while it waited on batches that the new
    settings' files still collect (the files both share)."""
    ids = ", ".join(earlier.waiting or ())
    return (
        f"settings changed since the last run: run again; batch {ids} it waited on still "
        "collected (the new settings share the file it answers)"
    )


def _left_in_flight(plan: SweepPlan, left: Sequence[str]) -> str:
    """The note of a cell whose settings changed while it waited on batches that no run of
    these settings collects (``_uncollected``): they are left running (paid for, their
    replies kept by the API a while), so it says which and how to see or let them go."""
    ids = ", ".join(left)
    return (
        f"settings changed since the last run: run again; batch {ids} it waited on left in "
        f"flight, not collected (`hyoka batch status {plan.out}` lists them; `hyoka batch "
        "release RESULTS ID` lets one go)"
    )


def _watched(watcher: SweepWatcher, context: CellContext, cell: Cell) -> CellResult:
    watcher.started(cell)
    return run_cell(cell, context)


def _write_manifest(
    plan: SweepPlan, models: list[str], columns: list[Column], matrix: ResultsMatrix
) -> Path:
    path = plan.out / MANIFEST
    write_json(path, {
        "kind": MANIFEST_KIND, "format": 1, "plan": str(plan.path.resolve()), "models": models,
        "columns": [{"suite": c.suite, "judge": c.judge} for c in columns],
        "cells": [found.to_json() for found in matrix.cells],
    })  # fmt: skip
    return path
