"""Where per-question (or per-shard) jobs run: in this process, or on a Ray cluster.

A job is a top-level function and a JSON-able argument returning a JSON-able result, so
the same code runs in both places and the results can be compared one for one. With Ray,
the jobs become a Ray Data dataset mapped by the function, one row per job; each job reads
and writes the shared work folder itself (a cluster needs it on a shared file system), and
the driver gets back only the small results (audit lines, reports), in job order.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any

from hyoka.errors import HyokaError

Job = Callable[[Any], Any]


class Executor(StrEnum):
    LOCAL = "local"
    RAY = "ray"


def run_jobs(job: Job, items: Sequence[Any], executor: Executor = Executor.LOCAL) -> list[Any]:
    if executor is Executor.LOCAL or not items:
        return [job(item) for item in items]
    return _run_on_ray(job, items)


def connect_ray() -> Any:
    """The ``ray`` module, connected: to ``RAY_ADDRESS`` when set, else to a Ray started here
    (which ends with this process). A Ray the caller already initialised is used as it is."""
    try:
        import ray
    except ModuleNotFoundError:
        raise HyokaError("--executor ray needs Ray: pip install 'hyoka[ray]'") from None
    if not ray.is_initialized():
        ray.init(
            ignore_reinit_error=True,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    return ray


def _run_on_ray(job: Job, items: Sequence[Any]) -> list[Any]:
    ray = connect_ray()
    rows = [
        {"index": i, "item": json.dumps(item, ensure_ascii=False)} for i, item in enumerate(items)
    ]

    def apply(row: dict[str, Any]) -> dict[str, Any]:
        try:
            result: Any = {"ok": job(json.loads(row["item"]))}
        except HyokaError as exc:  # a user error stays one clear line, not a Ray traceback
            result = {"error": str(exc)}
        return {"index": row["index"], "result": json.dumps(result, ensure_ascii=False)}

    dataset = ray.data.from_items(rows, override_num_blocks=len(rows)).map(apply)
    out = sorted(dataset.take_all(), key=lambda row: int(row["index"]))
    results = [json.loads(row["result"]) for row in out]
    for result in results:
        if "error" in result:
            raise HyokaError(result["error"])
    return [result["ok"] for result in results]
