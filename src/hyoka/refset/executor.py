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
import math
import os
import threading
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


#: Names the seconds to wait for the cluster of ``RAY_ADDRESS`` to answer.
CONNECT_TIMEOUT_ENV = "HYOKA_RAY_CONNECT_TIMEOUT"
#: ... and their default: a cluster that answers does so in a few seconds.
DEFAULT_CONNECT_TIMEOUT_S = 30.0


def connect_timeout() -> float:
    """The bound on connecting to ``RAY_ADDRESS``: ``$HYOKA_RAY_CONNECT_TIMEOUT`` seconds,
    else ``DEFAULT_CONNECT_TIMEOUT_S``; a value that is not a positive number is one line."""
    raw = os.environ.get(CONNECT_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_CONNECT_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise HyokaError(f"${CONNECT_TIMEOUT_ENV}={raw!r}: expected a positive number of seconds")
    return seconds


def connect_ray() -> Any:
    """The ``ray`` module, connected: to ``RAY_ADDRESS`` when set, else to a Ray started here
    (which ends with this process). A Ray the caller already initialised is used as it is.

    Ray itself keeps trying an address where nothing answers for minutes, so connecting to
    ``RAY_ADDRESS`` waits at most ``connect_timeout()`` seconds, then stops with one line.
    The attempt runs in a daemon thread, which the process leaves behind as it exits.
    """
    try:
        import ray
    except ModuleNotFoundError:
        raise HyokaError("`executor` ray needs Ray: pip install 'hyoka[ray]'") from None
    if ray.is_initialized():
        return ray
    address = os.environ.get("RAY_ADDRESS", "").strip()
    if not address:
        _init(ray)
        return ray
    seconds = connect_timeout()
    failure: list[BaseException] = []

    def attempt() -> None:
        try:
            _init(ray)
        except BaseException as exc:  # handed to the caller's thread below
            failure.append(exc)

    thread = threading.Thread(target=attempt, name="ray-connect", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise HyokaError(
            f"no Ray cluster answered at RAY_ADDRESS={address} within {seconds:g} s "
            f"({CONNECT_TIMEOUT_ENV}): is it running? (`ray status`)"
        )
    if failure:
        reason = str(failure[0]).strip().splitlines()
        raise HyokaError(
            f"cannot connect to the Ray cluster at RAY_ADDRESS={address}: "
            + (reason[0] if reason else type(failure[0]).__name__)
        )
    return ray


def _init(ray: Any) -> None:
    ray.init(
        ignore_reinit_error=True,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )


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
