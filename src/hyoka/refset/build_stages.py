"""``build``: stages 2–7 from one settings file, each stage resumable as on its own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hyoka.data import resolve_data_dir
from hyoka.pfgen import BENCHMARK_FOLDER
from hyoka.refset.config import BuildConfig
from hyoka.refset.pipeline import STAGES, run_stage, stage_params
from hyoka.refset.publishing import check_output, publish
from hyoka.refset.source import BenchmarkSource

#: The settings file's key naming the output data directory, as a refusal names it.
OUT_KEY = "out"


def benchmark_source(benchmark: Path | None, data_dir: Path | None = None) -> BenchmarkSource:
    """The benchmark definition: a folder given, else pfgen-bench in the data directory."""
    return BenchmarkSource.load(benchmark or resolve_data_dir(data_dir) / BENCHMARK_FOLDER)


def build(
    config: BuildConfig,
    data_dir: Path | None = None,
    on_stage: Callable[[str, list[dict[str, Any]]], None] | None = None,
) -> list[Path]:
    """Run stages 2–6 then publish; returns the question files written."""
    source = benchmark_source(config.benchmark, data_dir)
    check_output(config.out, OUT_KEY)  # before hours of stages, not after
    ids = [q.question_id for q in source.select(config.questions or None)]
    settings = {name: stage_params(name, **p) for name, p in config.stage_settings().items()}
    for name in STAGES:
        reports = run_stage(
            config.work, name, settings[name], config.questions or None, config.executor, ids
        )
        if on_stage is not None:
            on_stage(name, reports)
    return publish(config.work, source, config.out, config.questions or None, flag=OUT_KEY)
