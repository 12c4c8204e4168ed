"""Stage 1 on a real multi-node Ray cluster on this machine: same shards, one load a worker.

A head node with no CPU and worker nodes of one CPU each (``ray.cluster_utils.Cluster``:
separate raylets, separate worker processes), so each generation worker sits on its own
node. The embedded SmolLM2 (llama.cpp, one thread) makes 2 questions x 8 answers of 8
tokens in 8 batches of 2 over 4 shards (2 batches a shard: every shard is appended to
twice, and a lost batch is more than one answer); the shards must equal, byte for byte,
those made in this process. Then a node is removed while its worker is making a batch (a
spare node takes its replacement), and the driver is killed with SIGKILL and started
again: the files must still be the undisturbed ones. An answer costs about 0.4 s of one
core, nearly all of it the prompt, so the sizes are kept to what the claims need.
A sweep (``hyoka sweep --executor ray``) runs on the same cluster, sharing its start: its
local model on the workers, two cells at once, a node lost mid-sweep, the local executor's
numbers.
Starting the cluster and the model costs seconds, so these tests are marked slow.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from _shared import SHARED_DATA, needs
from hyoka.errors import HyokaError
from hyoka.pfgen import Mode
from hyoka.refset import BenchmarkSource, Executor, GenerateConfig, WorkerEvent, run_generation
from hyoka.refset.shards import scan_shard, shard_paths

ray = needs("ray")
needs("llama_cpp")
from ray.cluster_utils import Cluster  # noqa: E402

# one test process runs them all (scripts/test.sh's --dist loadgroup): split over two, each
# would start its own cluster and make its own local shards, which the module fixtures share
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray-cluster")]

DATA = SHARED_DATA / "pfgen-bench" / "data"
QUESTIONS = ["Q01", "Q13"]
CONFIG = GenerateConfig(
    model="llamacpp/smollm2", set_name="smol", mode=Mode.COMPLETION, num_examples=0,
    max_tokens=8, answers=8, batch_size=2, shards=2, options={"n_threads": 1},
)  # fmt: skip
FLAGS = [
    "-m", "llamacpp/smollm2", "--set-name", "smol", "--mode", "completion",
    "--num-examples", "0", "--max-tokens", "8", "--answers", "8", "--batch-size", "2",
    "--shards", "2", "-o", "n_threads=1", "-q", "Q01", "-q", "Q13", "--benchmark", str(DATA),
]  # fmt: skip


def _shards(work: Path) -> dict[str, bytes]:
    root = work / "01-generated"
    return {
        str(path.relative_to(root)): path.read_bytes()
        for qid in QUESTIONS
        for path in shard_paths(root / qid / "smol")
    }


def _generate_here(work: Path) -> dict[str, bytes]:
    run_generation(work, CONFIG, BenchmarkSource.load(DATA), QUESTIONS)
    return _shards(work)


@pytest.fixture(scope="module")
def local_started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Future[dict[str, bytes]]]:
    """The local shards being made on a thread of this process, while the cluster starts
    (llama.cpp leaves the GIL while it computes; the cluster's start is mostly waiting)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        yield pool.submit(_generate_here, tmp_path_factory.mktemp("local"))


@pytest.fixture(scope="module")
def local_shards(local_started: Future[dict[str, bytes]], cluster: Cluster) -> dict[str, bytes]:
    """The shards made in this process, with no Ray: what every Ray run must equal."""
    shards = local_started.result()
    assert len(shards) == 4
    return shards


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    yield cluster
    ray.shutdown()
    cluster.shutdown()  # type: ignore[no-untyped-call]


def _generate_on_ray(work: Path, events: list[WorkerEvent], on_event: Any = None) -> None:
    def heard(event: WorkerEvent) -> None:
        events.append(event)
        if on_event is not None:
            on_event(event)

    run_generation(
        work, CONFIG, BenchmarkSource.load(DATA), QUESTIONS, executor=Executor.RAY,
        workers=2, cpus_per_worker=1, on_event=heard,
    )  # fmt: skip


def test_two_nodes_write_the_local_shards_with_one_model_load_per_worker(
    tmp_path: Path, local_shards: dict[str, bytes], cluster: Cluster
) -> None:
    events: list[WorkerEvent] = []
    _generate_on_ray(tmp_path, events)
    assert _shards(tmp_path) == local_shards
    ready = [e for e in events if e.kind == "ready"]
    assert len(ready) == 2 and sum(e.loads for e in ready) == 2  # loads == workers
    assert len({e.node for e in ready}) == 2 and len({e.pid for e in ready}) == 2
    batches = [e for e in events if e.kind == "batch"]
    assert len(batches) == 8 and sum(e.answers for e in batches) == 16
    assert {e.worker for e in batches} == {e.worker for e in ready}  # both did work
    assert not [e for e in events if e.kind == "lost"]


def test_a_node_removed_mid_batch_costs_only_that_batch(
    tmp_path: Path, local_shards: dict[str, bytes], cluster: Cluster
) -> None:
    # a spare node: the lost worker's replacement starts there and shares the batches left
    # (on the one node left it could not be placed, and the other worker made them all);
    # the node removed leaves two for the next test
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    nodes = {node.node_id: node for node in cluster.worker_nodes}
    where: dict[str, str] = {}
    removed: list[str] = []

    def remove_the_other_node(event: WorkerEvent) -> None:
        if event.kind == "ready":
            where[event.worker] = event.node
        if event.kind == "batch" and not removed and len(where) == 2:
            # both workers are busy while batches remain: the other one is mid-batch now.
            # Under load one worker may finish a batch before the other has loaded its
            # model; the first batch after both are ready is the one that counts.
            (other,) = [w for w in where if w != event.worker]
            removed.append(other)
            cluster.remove_node(nodes[where[other]])

    events: list[WorkerEvent] = []
    _generate_on_ray(tmp_path, events, remove_the_other_node)
    assert _shards(tmp_path) == local_shards
    lost = [e for e in events if e.kind == "lost"]
    assert [e.worker for e in lost] == removed and lost[0].redone == CONFIG.batch_size
    print(f"\nnode removed mid-batch: {lost[0].redone} answer(s) made again")


def test_a_driver_killed_with_sigkill_resumes_to_the_same_files(
    tmp_path: Path, local_shards: dict[str, bytes], cluster: Cluster
) -> None:
    work = tmp_path / "work"
    command = [
        sys.executable, "-m", "hyoka", "refset", "generate", str(work), *FLAGS,
        "--executor", "ray", "--workers", "2",
    ]  # fmt: skip
    env = {**os.environ, "RAY_ADDRESS": cluster.address}
    driver = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 300
        while _frames(work) < 2:  # some batches written, others still to make
            assert driver.poll() is None, driver.stderr.read() if driver.stderr else ""
            assert time.monotonic() < deadline, "the first run wrote no frame in 300 s"
            time.sleep(0.2)
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
        if driver.stderr:
            driver.stderr.close()
    assert _frames(work) < 8
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert _shards(work) == local_shards
    assert "2 worker(s), 2 model load(s)" in again.stderr


def _frames(work: Path) -> int:
    root = work / "01-generated"
    return sum(
        len(scan_shard(path).frames)
        for qid in QUESTIONS
        for path in shard_paths(root / qid / "smol")
    )


def test_a_model_that_does_not_load_is_one_clear_error(tmp_path: Path, cluster: Cluster) -> None:
    missing = tmp_path / "missing.gguf"
    config = CONFIG.model_copy(update={"model": f"llamacpp/{missing}"})
    with pytest.raises(HyokaError, match=r"missing\.gguf"):
        run_generation(
            tmp_path / "work", config, BenchmarkSource.load(DATA), QUESTIONS,
            executor=Executor.RAY, workers=2,
        )  # fmt: skip
    assert _frames(tmp_path / "work") == 0


def test_a_hung_worker_is_killed_and_its_batch_bounded(
    tmp_path: Path, cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that never answers: each worker holding the batch is killed after the
    batch timeout and replaced, and after three such losses the run stops with one line
    instead of waiting for ever. The kill comes at the batch's bound, not at the driver's
    next wake-up to report progress (a tick made longer than the whole test here)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from hyoka.refset import ray_workers

    class Silent(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            time.sleep(120)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Silent)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # the server never answers: any bound is a hang; a short one keeps the three losses cheap
    monkeypatch.setattr(ray_workers, "BATCH_TIMEOUT_S", 0.25)
    tick = 30.0
    monkeypatch.setattr(ray_workers, "_TICK_S", tick)
    config = CONFIG.model_copy(
        update={
            "model": "openai/silent",
            "options": {"base_url": f"http://127.0.0.1:{server.server_port}/v1"},
        }
    )
    heard: list[tuple[float, WorkerEvent]] = []
    try:
        with pytest.raises(HyokaError, match="was in flight on 3 workers that died"):
            run_generation(
                tmp_path, config, BenchmarkSource.load(DATA), ["Q01"], executor=Executor.RAY,
                workers=1, on_event=lambda event: heard.append((time.monotonic(), event)),
            )  # fmt: skip
    finally:
        server.shutdown()
    events = [event for _, event in heard]
    assert [e.kind for e in events if e.kind == "lost"] == ["lost", "lost"]
    ready = {event.worker: at for at, event in heard if event.kind == "ready"}
    held = [at - ready[event.worker] for at, event in heard if event.kind == "lost"]
    assert max(held) < tick, held  # killed at its bound, not when the driver woke anyway
    assert _frames(tmp_path) == 0


#: a sweep of the embedded model on three suites (a scripted judge for Japanese MT-bench),
#: small so that the cluster's time goes to what is tested: 2 pfgen trials of 1 question,
#: 1 MT-bench question of 2 turns (the first two cells, side by side), 1 M-IFEval prompt (a
#: third cell, which waits for one of them to finish)
SWEEP_PLAN = """out = "out"
concurrency = 4
[models.smol]
model = "llamacpp/smollm2"
options = { n_ctx = 2048, n_threads = 1 }
[judges.scripted]
judge = "scripted/judge.jsonl"
[[suites]]
bench = "pfgen-bench"
limit = 1
trials = 2
num_examples = 0
max_tokens = 8
[[suites]]
bench = "jmt-bench"
variant = "llm-jp"
limit = 1
max_tokens = 8
[[suites]]
bench = "m-ifeval-ja"
limit = 1
max_tokens = 8
"""
#: the MT-bench cell's requests to the model (1 question x 2 turns): its ``calls`` are the
#: judge's too
JMT_MODEL_CALLS = 2
SWEEP_JUDGE = '{"contains": "[[rating]]", "reply": "[[6]]"}\n{"reply": "[[5]]"}\n'


def _sweep_folder(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A plan in its own folder, with its own response cache (nothing shared between runs
    but the pfgen index)."""
    from persistent_cache import session_cache_dir

    root.mkdir()
    (root / "sweep.toml").write_text(SWEEP_PLAN, encoding="utf-8")
    (root / "judge.jsonl").write_text(SWEEP_JUDGE, encoding="utf-8")
    (root / "cache").mkdir()
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(session_cache_dir(root / "cache", SHARED_DATA)))
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    return root


def _numbers(run: Any, folder: Path) -> list[tuple[Any, ...]]:
    """Each cell's numbers and signature (the judge script's folder left out)."""
    return [
        (c.key, c.score, c.low, c.high, c.signature_line.replace(str(folder), "."),
         c.complete, c.calls, c.error)
        for c in run.matrix.cells
    ]  # fmt: skip


def _answers(out: Path) -> dict[str, str]:
    """Every answer file's texts (the model's replies), by its path under the suites."""
    found = {}
    for path in sorted((out / "suites").rglob("*.jsonl")):
        texts = [
            json.dumps(row.get("choices") or row.get("response"), ensure_ascii=False)
            for row in map(json.loads, path.read_text("utf-8").splitlines())
        ]
        # a judge's grades lie in a folder named by its settings, the script's path among them
        name = re.sub(r"judges/[0-9a-f]{12}/", "judges/", str(path.relative_to(out)))
        found[name] = "\n".join(texts)
    return found


def test_a_sweep_whose_model_does_not_load_on_ray_is_one_line_a_cell(
    tmp_path: Path, cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hyoka sweep PLAN --executor ray`` (the Ray this process joined): a model file that
    is not there fails each of its cells with one line naming it, before any worker starts,
    and the others' cells (none here) would go on."""
    from typer.testing import CliRunner

    from hyoka.cli.main import app

    folder = _sweep_folder(tmp_path / "missing", monkeypatch)
    plan = folder / "sweep.toml"
    plan.write_text(SWEEP_PLAN.replace("llamacpp/smollm2", "llamacpp/missing.gguf"), "utf-8")
    result = CliRunner().invoke(app, ["sweep", str(plan), "--executor", "ray", "--workers", "2"])
    assert result.exit_code == 1, result.output
    failed = [line for line in result.output.splitlines() if ": failed: " in line]
    assert len(failed) == 3 and all("model file 'missing.gguf' does not exist" in line
                                    for line in failed)  # fmt: skip
    assert "ray: 0 worker(s), 0 model load(s)" in result.output


def test_a_sweep_on_ray_equals_the_local_one_when_a_node_is_lost(
    tmp_path: Path, cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hyoka sweep --executor ray``: the embedded model on two workers, one a node, each
    loading it once for every cell; two cells in flight at once, sharing them; a node
    removed while its worker has requests in flight costs only those (sent again to the
    other worker), and the sweep's numbers and answers are the local executor's.

    Last in this file: the node it removes is not added back (a node start saved)."""
    import asyncio
    import threading

    from hyoka.refset import WorkerResources
    from hyoka.sweep import RayExecutor, SweepWatcher, read_plan, run_sweep
    from hyoka.sweep.ray_executor import RayModel
    from hyoka.sweep.spec import Cell

    here = _sweep_folder(tmp_path / "local", monkeypatch)
    local = run_sweep(read_plan(here / "sweep.toml"))
    assert local.failed == 0, _numbers(local, here)
    there = _sweep_folder(tmp_path / "ray", monkeypatch)
    plan = read_plan(there / "sweep.toml")
    nodes = {node.node_id: node for node in cluster.worker_nodes}
    events: list[WorkerEvent] = []
    removed: list[str] = []
    heard = threading.Lock()

    def remove_a_busy_node(event: WorkerEvent) -> None:
        # the first reply heard while the other worker still has requests in flight: the
        # cells send theirs to both workers at once, so the first reply is that one
        with heard:
            events.append(event)
            busy = [w for w, n in model.in_flight().items() if n and w != event.worker]
            if event.kind == "batch" and not removed and busy:
                removed.append(busy[0])
                (node,) = [e.node for e in events if e.kind == "ready" and e.worker == busy[0]]
                cluster.remove_node(nodes[node])

    together = threading.Barrier(2, timeout=120)  # broken if the cells ran one at a time

    class Together(SweepWatcher):
        def started(self, cell: Cell) -> None:
            if cell.suite.bench != "m-ifeval-ja":  # the first two cells, side by side
                together.wait()

    executor = RayExecutor(WorkerResources(workers=2, cpus=1), on_event=remove_a_busy_node)
    assert executor.cells == 2  # one cell a worker
    (smol,) = plan.models
    hosted = executor.hosted(smol.spec, smol.settings())  # the one the sweep's cells get
    assert isinstance(hosted, RayModel)
    model = hosted
    asyncio.run(model.preflight())  # both workers loaded before the first request
    while len(model.in_flight()) < 2:
        assert model.starting, "a worker did not load the model"
        ray.wait(list(model.starting), num_returns=1, timeout=300)
        asyncio.run(model.preflight())
    swept = run_sweep(plan, executor=executor, watcher=Together())
    assert _numbers(swept, there) == _numbers(local, here) and swept.failed == 0
    assert _answers(there / "out") == _answers(here / "out")
    ready = [e for e in events if e.kind == "ready"]
    assert len(ready) == 2 and sum(e.loads for e in ready) == 2  # one load a worker
    assert len({e.node for e in ready}) == 2
    lost = [e for e in events if e.kind == "lost"]
    assert removed and lost and {e.worker for e in lost} == set(removed)
    asked = [e for e in events if e.kind == "batch"]
    calls = sum(c.calls for c in swept.matrix.cells if c.judge is None) + JMT_MODEL_CALLS
    assert len(asked) == calls  # every model request answered once on a worker
    print(f"\nnode removed mid-sweep: {len(lost)} request(s) in flight sent again")
