"""Sweeps: many models on many suites with one or more judges, from one plan file, ending
in one results matrix (``hyoka sweep PLAN``).

``read_plan`` checks a plan (TOML) before anything runs; ``estimate_sweep`` says what it
will ask and cost (``--plan``); ``run_sweep`` runs each cell through the library entry
points the single commands call (``pfgen.make_run``, ``mtbench.generate_bench``,
``judge_bench``, ``bench_leaderboard``, ``ifeval.score_responses``), resumably, on an
``Executor`` (``LocalExecutor``: here; ``RayExecutor``: local models on Ray workers);
``read_matrix`` reads the matrix a sweep's
manifest holds, for the report::

    from hyoka.sweep import read_plan, run_sweep
    done = run_sweep(read_plan(Path("sweep.toml")))
    print(done.matrix.render("md"))
"""

from typing import TYPE_CHECKING

from hyoka.sweep.cells import CellContext, CellResult, run_cell
from hyoka.sweep.estimate import METHOD, CellEstimate, SweepEstimate, estimate_sweep
from hyoka.sweep.matrix import FORMATS, Column, MatrixFormat, ResultsMatrix
from hyoka.sweep.models import ModelHost, SweepModels
from hyoka.sweep.plan import batched, known_suites, read_plan
from hyoka.sweep.prices import AS_OF, LIST_PRICES, price_of
from hyoka.sweep.runner import (
    MANIFEST,
    MANIFEST_KIND,
    Executor,
    LocalExecutor,
    SweepRun,
    SweepWatcher,
    read_matrix,
    run_sweep,
    statuses,
)
from hyoka.sweep.spec import PFGEN, Cell, Endpoint, Suite, SweepPlan

if TYPE_CHECKING:
    from hyoka.sweep.ray_executor import RayExecutor


def __getattr__(name: str) -> object:
    """``RayExecutor`` loads with its first use (it imports the Ray generation machinery)."""
    if name == "RayExecutor":
        from hyoka.sweep.ray_executor import RayExecutor

        return RayExecutor
    raise AttributeError(name)


__all__ = [
    "AS_OF",
    "FORMATS",
    "LIST_PRICES",
    "MANIFEST",
    "MANIFEST_KIND",
    "METHOD",
    "PFGEN",
    "Cell",
    "CellContext",
    "CellEstimate",
    "CellResult",
    "Column",
    "Endpoint",
    "Executor",
    "LocalExecutor",
    "MatrixFormat",
    "ModelHost",
    "RayExecutor",
    "ResultsMatrix",
    "Suite",
    "SweepEstimate",
    "SweepModels",
    "SweepPlan",
    "SweepRun",
    "SweepWatcher",
    "batched",
    "estimate_sweep",
    "known_suites",
    "price_of",
    "read_matrix",
    "read_plan",
    "run_cell",
    "run_sweep",
    "statuses",
]
