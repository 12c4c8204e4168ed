"""Building pfgen-style reference answer sets (seeds 000/002 §3.2), stage by stage.

1. ``run_generation``: many-shot answers into append-only, self-checking shards, here or on
   Ray workers that load the model once each (``WorkerResources``, ``WorkerEvent``,
   ``WorkerRates``);
2. ``normalise_pool``: declared regex rewrites (official-document style by default);
3. ``filter_rules``: per-question NG patterns;
4. ``rare_ngram_filter``: drop answers with an n-gram seen once in their question;
5. ``select_length``: the N answers closest to the target length;
6. ``hill_climb``: the M answers whose 1–10-gram distribution best matches the N's;
7. ``publish``: question files in pfgen-bench's layout.

``run_stage`` runs stages 2–6 resumably over a work folder; ``build`` runs 2–7.

The names load on first use (PEP 562): the stages pull in numpy and the providers, which
``import hyoka.refset`` alone (say, for ``Executor``) should not pay for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hyoka.refset.build_stages import benchmark_source, build
    from hyoka.refset.config import (
        GenerateFile,
        PlanSection,
        load_build_config,
        load_generate_file,
    )
    from hyoka.refset.executor import Executor, connect_ray
    from hyoka.refset.generate import GenerateConfig, read_generated
    from hyoka.refset.generation_run import (
        GenerationWatcher,
        generate_sets,
        import_answers,
        run_generation,
    )
    from hyoka.refset.length import select_length
    from hyoka.refset.ngrules import filter_rules
    from hyoka.refset.normalise import load_rewrites, normalise_pool
    from hyoka.refset.pipeline import StageOutcome, run_stage, stage_outcome, stage_params
    from hyoka.refset.planning import (
        Calibration,
        Estimate,
        PaperScale,
        Plan,
        plan_refsets,
    )
    from hyoka.refset.publishing import publish
    from hyoka.refset.rare import rare_ngram_filter
    from hyoka.refset.ray_workers import (
        MAX_LOSSES_PER_BATCH,
        WORKER_START_TIMEOUT_S,
        OnEvent,
        WorkerEvent,
        WorkerRates,
        WorkerResources,
        load_report,
    )
    from hyoka.refset.representative import hill_climb, presence_matrix
    from hyoka.refset.source import BenchmarkSource

#: public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "connect_ray": "hyoka.refset.executor",
    "MAX_LOSSES_PER_BATCH": "hyoka.refset.ray_workers",
    "WORKER_START_TIMEOUT_S": "hyoka.refset.ray_workers",
    "OnEvent": "hyoka.refset.ray_workers",
    "stage_params": "hyoka.refset.pipeline",
    "plan_refsets": "hyoka.refset.planning",
    "Plan": "hyoka.refset.planning",
    "stage_outcome": "hyoka.refset.pipeline",
    "generate_sets": "hyoka.refset.generation_run",
    "GenerationWatcher": "hyoka.refset.generation_run",
    "PlanSection": "hyoka.refset.config",
    "benchmark_source": "hyoka.refset.build_stages",
    "StageOutcome": "hyoka.refset.pipeline",
    "build": "hyoka.refset.build_stages",
    "load_build_config": "hyoka.refset.config",
    "Executor": "hyoka.refset.executor",
    "GenerateConfig": "hyoka.refset.generate",
    "read_generated": "hyoka.refset.generate",
    "select_length": "hyoka.refset.length",
    "filter_rules": "hyoka.refset.ngrules",
    "load_rewrites": "hyoka.refset.normalise",
    "normalise_pool": "hyoka.refset.normalise",
    "run_stage": "hyoka.refset.pipeline",
    "publish": "hyoka.refset.publishing",
    "GenerateFile": "hyoka.refset.config",
    "load_generate_file": "hyoka.refset.config",
    "Calibration": "hyoka.refset.planning",
    "Estimate": "hyoka.refset.planning",
    "PaperScale": "hyoka.refset.planning",
    "WorkerEvent": "hyoka.refset.ray_workers",
    "WorkerRates": "hyoka.refset.ray_workers",
    "WorkerResources": "hyoka.refset.ray_workers",
    "load_report": "hyoka.refset.ray_workers",
    "rare_ngram_filter": "hyoka.refset.rare",
    "hill_climb": "hyoka.refset.representative",
    "presence_matrix": "hyoka.refset.representative",
    "import_answers": "hyoka.refset.generation_run",
    "run_generation": "hyoka.refset.generation_run",
    "BenchmarkSource": "hyoka.refset.source",
}

__all__ = [
    "MAX_LOSSES_PER_BATCH",
    "WORKER_START_TIMEOUT_S",
    "BenchmarkSource",
    "Calibration",
    "Estimate",
    "Executor",
    "GenerateConfig",
    "GenerateFile",
    "GenerationWatcher",
    "OnEvent",
    "PaperScale",
    "Plan",
    "PlanSection",
    "StageOutcome",
    "WorkerEvent",
    "WorkerRates",
    "WorkerResources",
    "benchmark_source",
    "build",
    "connect_ray",
    "filter_rules",
    "generate_sets",
    "hill_climb",
    "import_answers",
    "load_build_config",
    "load_generate_file",
    "load_report",
    "load_rewrites",
    "normalise_pool",
    "plan_refsets",
    "presence_matrix",
    "publish",
    "rare_ngram_filter",
    "read_generated",
    "run_generation",
    "run_stage",
    "select_length",
    "stage_outcome",
    "stage_params",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hyoka.refset' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
