"""``--batch`` on the judging commands beside ``mtbench`` (``hyoka judge pairwise``, ``hyoka
pfgen judge``): the official OpenAI SDK against a local server speaking the Batch API's
wire format (``batch_servers``). Each batch asks exactly what the online calls ask (the
request bodies are compared, log probabilities and all), each run of the command moves
every item one call on (criteria, then both orders of each pair), and the records are the
online run's, byte for byte but for the time stamps and the signature's ``batch`` field.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import PFGEN_RESULTS
from batch_servers import openai_server
from hyoka.cli.main import app

#: a judgment line's and a criteria entry's time stamps (made now, never compared)
VOLATILE = ("tstamp",)


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with openai_server() as served:
        yield served


def _hyoka(args: list[str], cache: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache))
    return CliRunner().invoke(app, args)


def _text(path: Path) -> str:
    """A judgment file's text without its time stamps (the rest byte for byte)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return "".join(
        json.dumps({k: v for k, v in row.items() if k not in VOLATILE}, ensure_ascii=False) + "\n"
        for row in rows
    )


def _criteria(path: Path) -> dict[str, Any]:
    entries: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return {key: {k: v for k, v in e.items() if k not in VOLATILE} for key, e in entries.items()}


def _manifest(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(
        path.with_name(path.name + ".manifest.json").read_text(encoding="utf-8")
    )
    return found


def _batch_bodies(server: Any, first: int) -> list[str]:
    """The request bodies of the batches from number ``first`` on, as the server got them."""
    bodies = []
    for number, batch in enumerate(server.batches.values(), 1):
        if number >= first:
            bodies += [json.dumps(r["body"], sort_keys=True) for r in batch.requests]
    return bodies


def _answers(path: Path, model: str, words: str) -> Path:
    rows = [
        {"id": f"q{n}", "question": f"質問{n}は何ですか。", "answer": f"{words}{n}。",
         "reference": f"参考{n}。", "model": model}
        for n in (1, 2)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def test_pairwise_batch_asks_the_online_requests_and_writes_the_online_records(
    server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Criteria generated, then every method (prob's top-20 log probabilities requested in
    each batch line as online): three runs (criteria, pairs, collected), no online call,
    the online run's records, criteria and verdict probabilities, signed batch:openai."""
    url = f"{server.url}/v1"
    x = _answers(tmp_path / "x.jsonl", "mx", "はい、答え")
    y = _answers(tmp_path / "y.jsonl", "my", "いいえ")

    def pairwise(out: Path, *batch: str) -> list[str]:
        return ["judge", "pairwise", str(x), str(y), "-j", "openai/judge", "--base-url", url,
                "--method", "all", "--criteria", "auto", "--output", str(out), *batch]  # fmt: skip

    online_out, batch_out = tmp_path / "online" / "pairs.jsonl", tmp_path / "batch" / "pairs.jsonl"
    server.bodies.clear()
    online = _hyoka(pairwise(online_out), tmp_path / "c1", monkeypatch)
    assert online.exit_code == 0, online.output
    online_bodies = sorted(json.dumps(body, sort_keys=True) for body in server.bodies)
    assert len(online_bodies) == 2 + 4  # each question's criteria; both orders of two pairs
    asked = sum(1 for body in server.bodies if body.get("top_logprobs") == 20)
    assert asked == 4 and all(body.get("logprobs") for body in server.bodies[2:])
    calls, first = len(server.bodies), len(server.batches) + 1

    args = pairwise(batch_out, "--batch")
    criteria = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert criteria.exit_code == 0, criteria.output
    assert "0 pair(s) judged" in criteria.stdout and "run the same command again" in (
        criteria.stderr
    )
    (noted,) = _manifest(batch_out)["notes"]["batches"]
    assert noted["requests"] == 2  # the criteria first: the pairs' prompts hold them
    assert f"submitted: {noted['id']}" in criteria.stderr and "still running" not in (
        criteria.stderr
    )  # one round: the batch just submitted is not asked for its state again
    assert "|batch:openai" in criteria.stdout
    server.finish()
    pairs = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert pairs.exit_code == 0, pairs.output
    assert "batch: 2 reply(ies) collected" in pairs.stderr
    assert [n["requests"] for n in _manifest(batch_out)["notes"]["batches"]] == [4]
    server.finish()
    done = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert done.exit_code == 0, done.output
    assert "2 pair(s) judged" in done.stdout and "nothing left in flight" in done.stderr

    assert len(server.bodies) == calls  # no online call
    assert sorted(_batch_bodies(server, first)) == online_bodies  # logprobs asked alike
    assert _text(batch_out) == _text(online_out)
    assert _criteria(batch_out.parent / "criteria.json") == _criteria(
        online_out.parent / "criteria.json"
    )
    records = [json.loads(line) for line in batch_out.read_text(encoding="utf-8").splitlines()]
    assert all(set(r["probabilities"]) == {"xy", "yx", "mean"} for r in records)
    assert all(r["verdicts"]["prob"] in ("A", "B", "C") for r in records)
    signed = _manifest(batch_out)["signature"]["fields"]
    assert signed["batch"] == "openai" and "batch" not in _manifest(online_out)["signature"]
    del signed["batch"]
    assert signed == _manifest(online_out)["signature"]["fields"]
    assert "|batch:openai" in done.stdout and "batch:" not in online.stdout


def test_pfgen_judge_batch_writes_the_online_grades(
    server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hyoka_env: None
) -> None:
    """A pfgen run's answers graded through one batch: the online run's judgments and
    summary, the signature saying batch:openai."""
    published = "CohereForAI/c4ai-command-r-plus/0171fdc"
    online_run, batch_run = tmp_path / "online" / published, tmp_path / "batch" / published
    shutil.copytree(PFGEN_RESULTS / published, online_run)
    shutil.copytree(PFGEN_RESULTS / published, batch_run)

    def judge(run: Path, *batch: str) -> list[str]:
        return ["pfgen", "judge", str(run), "-j", "openai/judge", "--base-url",
                f"{server.url}/v1", "--per-question", "1", "--limit", "2", *batch]  # fmt: skip

    online = _hyoka(judge(online_run), tmp_path / "c1", monkeypatch)
    assert online.exit_code == 0, online.output
    calls = len(server.bodies)
    args = judge(batch_run, "--batch")
    first = _hyoka([*args, "--json"], tmp_path / "c2", monkeypatch)
    assert first.exit_code == 0, first.output
    said = json.loads(first.stdout)
    assert (said["judged_now"], said["batch"]["deferred"]) == (0, 2)
    assert said["batch"]["submitted"] == [f"batch_{len(server.batches)}"]
    folder = Path("judge") / "openai_judge"
    waiting = json.loads((batch_run / folder / "summary.json").read_text(encoding="utf-8"))
    assert (waiting["pending"], waiting["n"], said["pending"]) == (2, 0, 2)  # partial
    server.finish()
    done = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert done.exit_code == 0, done.output
    assert "nothing left in flight" in done.stderr and len(server.bodies) == calls
    assert _text(batch_run / folder / "judgments.jsonl") == _text(
        online_run / folder / "judgments.jsonl"
    )
    summaries = [
        json.loads((run / folder / "summary.json").read_text(encoding="utf-8"))
        for run in (online_run, batch_run)
    ]
    signatures = [summary.pop("signature") for summary in summaries]
    assert summaries[0] == summaries[1] and (summaries[1]["n"], summaries[1]["pending"]) == (2, 0)
    assert signatures[1]["fields"].pop("batch") == "openai"
    signatures[1]["line"] = signatures[1]["line"].replace("|batch:openai", "")
    assert signatures[0] == signatures[1]
    assert "|batch:openai" in done.stdout
