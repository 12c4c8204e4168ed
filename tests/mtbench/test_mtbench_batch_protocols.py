"""``hyoka mtbench judge --batch`` for the protocols beyond single grading: FastChat's pairs
in both orders with verdict probabilities, and JFBench's judged constraints (three votes
each), the official OpenAI SDK against a local server speaking the Batch API's wire format
(``batch_servers``). The batches ask exactly what the online calls ask (bodies compared,
log probabilities requested alike), and the judgment logs and result files are the online
run's but for the time stamps and the signature's ``batch`` field. Rakuda's drawn matches
and generation for every benchmark go through the same engine and batch rounds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, jfbench_data
from batch_servers import openai_server
from hyoka.cli.main import app

PFMT_ANSWERS = SHARED_DATA / "pfmt-bench-fin-ja" / "model_answer"


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with openai_server() as served:
        yield served


def _hyoka(args: list[str], cache: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache))
    return CliRunner().invoke(app, args)


def _files(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Every JSON Lines file under ``folder`` (logs, result files), without time stamps."""
    return {
        str(path.relative_to(folder)): [
            {k: v for k, v in json.loads(line).items() if k != "tstamp"}
            for line in path.read_text(encoding="utf-8").splitlines()
        ]
        for path in sorted(folder.rglob("*.jsonl"))
    }


def _batch_bodies(server: Any, first: int) -> list[str]:
    return sorted(
        json.dumps(request["body"], sort_keys=True)
        for number, batch in enumerate(server.batches.values(), 1)
        if number >= first
        for request in batch.requests
    )


def _until_done(args: list[str], server: Any, cache: Path, mp: pytest.MonkeyPatch) -> list[Result]:
    """The command run until its batches are read back (each run after the server ends
    the batches in flight); every run's result."""
    runs = []
    for _ in range(4):
        done = _hyoka(args, cache, mp)
        runs.append(done)
        assert done.exit_code == 0, done.output
        if "nothing left in flight" in done.stderr:
            return runs
        server.finish()
    raise AssertionError(f"still in flight after {len(runs)} runs: {runs[-1].stderr}")


def test_pairs_with_verdict_probabilities_through_one_batch(
    server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hyoka_env: None
) -> None:
    """pfmt's pairs against a baseline by prob: both orders of every turn in one batch,
    each line asking the top-20 log probabilities as the online call does; the online
    run's verdict probabilities and lines."""
    url = f"{server.url}/v1"

    def judge(out: Path, *batch: str) -> list[str]:
        return ["mtbench", "judge", "-j", "openai/judge", "--base-url", url, "--lang-check",
                "script", "--mode", "pairwise", "--method", "prob", "--baseline", "gpt-4",
                "-a", str(PFMT_ANSWERS / "gpt-4.jsonl"), "-a", str(PFMT_ANSWERS / "gpt-4o.jsonl"),
                "--limit", "1", "--output-dir", str(out), *batch]  # fmt: skip

    server.bodies.clear()
    online = _hyoka(judge(tmp_path / "online"), tmp_path / "c1", monkeypatch)
    assert online.exit_code == 0, online.output
    asked = sorted(json.dumps(body, sort_keys=True) for body in server.bodies)
    assert len(asked) == 4 and all(b["top_logprobs"] == 20 and b["logprobs"] for b in server.bodies)
    first = len(server.batches) + 1
    runs = _until_done(judge(tmp_path / "batch", "--batch"), server, tmp_path / "c2", monkeypatch)
    assert len(runs) == 2 and len(server.bodies) == 4  # one batch; no online call
    assert _batch_bodies(server, first) == asked
    batched, published = _files(tmp_path / "batch"), _files(tmp_path / "online")
    assert batched == published and len(batched["judge_pair.jsonl"]) == 2
    for line in batched["judge_pair.jsonl"]:  # read from the batch's log probabilities
        assert line["prob_status"] == {"g1": "ok", "g2": "ok"}
        assert line["verdicts"]["prob"] in ("A", "B", "C")
        assert 0 < sum(line["probabilities"]["g1"].values()) < 1
    assert "|batch:openai" in runs[-1].stdout and "batch:" not in online.stdout


def test_jfbench_votes_in_one_batch_and_pending_until_read(
    server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JFBench's judged constraints: the three votes of each in the first run's one batch
    (not one batch per vote), the entries pending in the result file until it is read
    back; then the online run's judgment log and result file."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(jfbench_data(tmp_path / "data")))
    url = f"{server.url}/v1"
    answers = tmp_path / "answers.jsonl"
    made = _hyoka(["mtbench", "generate", "--bench", "jfbench", "-m", "openai/m", "--limit", "8",
                   "--base-url", url, "--template", "chat", "--output", str(answers)],
                  tmp_path / "c0", monkeypatch)  # fmt: skip
    assert made.exit_code == 0, made.output

    def judge(out: Path, *batch: str) -> list[str]:
        return ["mtbench", "judge", "--bench", "jfbench", "-j", "openai/judge", "--base-url",
                url, "-a", str(answers), "--limit", "8", "--output-dir", str(out),
                *batch]  # fmt: skip

    server.bodies.clear()
    online = _hyoka(judge(tmp_path / "online"), tmp_path / "c1", monkeypatch)
    assert online.exit_code == 0, online.output
    asked = sorted(json.dumps(body, sort_keys=True) for body in server.bodies)
    first = len(server.batches) + 1
    runs = _until_done(judge(tmp_path / "batch", "--batch"), server, tmp_path / "c2", monkeypatch)
    assert len(runs) == 2 and len(server.bodies) == len(asked) == 6  # two constraints, 3 votes
    assert _batch_bodies(server, first) == asked
    assert "0 judged constraint(s) decided" in runs[0].stdout
    assert "2 entr(ies) pending" in runs[0].stdout and "0 entr(ies) pending" in runs[1].stdout
    batched, published = _files(tmp_path / "batch"), _files(tmp_path / "online")
    assert batched == published and len(batched["m.jsonl"]) == 2
    assert "|batch:openai" in runs[-1].stdout and "batch:" not in online.stdout
    # the judgment log in the build's order, whatever order replies came in: its first
    # line lost (a run killed before writing it), the resumed run judges it last, from the
    # cache, and the file is as before (it had been left last, and in arrival order online)
    (log,) = (tmp_path / "online").rglob("m.jsonl")
    ids = [line["id"] for line in published["m.jsonl"]]
    assert ids == sorted(ids, key=lambda one: int(one.split(":")[0]))
    kept = log.read_text(encoding="utf-8").splitlines(keepends=True)
    log.write_text("".join(kept[1:]), encoding="utf-8")
    resumed = _hyoka(judge(tmp_path / "online"), tmp_path / "c1", monkeypatch)
    assert resumed.exit_code == 0, resumed.output
    assert _files(tmp_path / "online")["m.jsonl"] == published["m.jsonl"]
