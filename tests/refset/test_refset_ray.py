"""``--executor ray``: the filtering stages on a local Ray (2 CPUs) give the local bytes.

Real answers (pfgen-bench's published sets of three questions) go through stages 2–6 once
in this process and once as Ray Data jobs; every pool file must be identical. Starting Ray
costs seconds, so one test covers the stages together.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _shared import SHARED_DATA, needs
from hyoka.refset import Executor, import_answers, run_stage
from hyoka.refset.pipeline import STAGES, stage_params

ray = needs("ray")

DATA = SHARED_DATA / "pfgen-bench" / "data"
QUESTIONS = ["Q01", "Q04", "Q05"]
SETTINGS: dict[str, dict[str, Any]] = {
    "normalise": {"rules": None},
    "filter-rules": {"rules": None},
    "filter-rare": {"n": 5},
    "select-length": {"size": 200, "target": 100, "allow_fewer": True},
    "select-representative": {"size": 80, "max_n": 10, "seed": 0, "allow_fewer": True},
}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    # a new instance of its own: without address="local", Ray joins a cluster another
    # test process has running (tests/refset/test_refset_ray_generate.py's, under xdist) and
    # refuses num_cpus there
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_stages_write_exactly_the_local_files(tmp_path: Path, local_ray: None) -> None:
    works = {}
    for executor in (Executor.LOCAL, Executor.RAY):
        work = tmp_path / executor.value
        import_answers(DATA, work, QUESTIONS)
        for name, params in SETTINGS.items():
            reports = run_stage(work, name, stage_params(name, **params), None, executor)
            assert [r["qid"] for r in reports] == QUESTIONS
        works[executor] = work
    for stage in STAGES.values():
        for qid in QUESTIONS:
            local = (works[Executor.LOCAL] / stage.folder / f"{qid}.jsonl.gz").read_bytes()
            remote = (works[Executor.RAY] / stage.folder / f"{qid}.jsonl.gz").read_bytes()
            assert local == remote, (stage.name, qid)
    audit = (works[Executor.RAY] / "04-rare" / "audit.jsonl").read_text(encoding="utf-8")
    assert audit.count('"reason": "summary"') == len(QUESTIONS)
