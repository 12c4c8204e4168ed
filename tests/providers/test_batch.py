"""``--batch``: OpenAI's Batch API and Anthropic's Message Batches, driven by the official
SDKs through ``hyoka mtbench generate`` and ``hyoka mtbench judge`` against local servers
that speak each API's wire format (``batch_servers``).

A batch run writes the records the online run writes for the same replies (the
signature says ``batch``); a rerun before the batch ends submits nothing again; requests
that failed or expired are asked again in the next batch, never recorded; the batch ids
live in the file's manifest, so a later process finishes what an earlier one submitted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import data_with_sources
from batch_servers import anthropic_server, openai_server, result_line
from hyoka.cli.main import app

#: the volatile fields of answer and judgment lines (made now, never compared)
VOLATILE = ("answer_id", "tstamp")


def _hyoka(args: list[str], cache: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache))
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data_with_sources()))
    return CliRunner().invoke(app, args)


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [{k: v for k, v in row.items() if k not in VOLATILE} for row in rows]


def _manifest(path: Path) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads(
        path.with_name(path.name + ".manifest.json").read_text(encoding="utf-8")
    )
    return manifest


def _generate(model: str, url: str, output: Path, *batch: str) -> list[str]:
    return ["mtbench", "generate", "--bench", "mt-bench", "-m", model, "--base-url", url,
            "--limit", "2", "--output", str(output), *batch]  # fmt: skip


@pytest.fixture(scope="module")
def openai_url() -> Iterator[Any]:
    with openai_server() as server:
        yield server


def test_openai_batch_writes_the_online_runs_answers(
    openai_url: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two-turn dialogues in two batches (the second turn needs the first's reply): a rerun
    before a batch ends says so and submits nothing; the answers are the online run's,
    the signature says batch=openai."""
    server, url = openai_url, f"{openai_url.url}/v1"
    online, batched = tmp_path / "online.jsonl", tmp_path / "batch.jsonl"
    done = _hyoka(_generate("openai/m1", url, online), tmp_path / "c1", monkeypatch)
    assert done.exit_code == 0, done.output
    online_calls = server.calls("POST", "/v1/chat/completions")
    assert online_calls == 4  # two dialogues, two turns

    args = _generate("openai/m1", url, batched, "--batch")
    first = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert first.exit_code == 0, first.output
    assert "0 dialogue(s) answered" in first.stdout
    batch_id = _manifest(batched)["notes"]["batches"][0]["id"]
    assert f"submitted: {batch_id}" in first.stderr and "run the same command again" in (
        first.stderr
    )
    assert _lines(batched) == []
    uploads = server.calls("POST", "/v1/files")
    again = _hyoka(args, tmp_path / "c2", monkeypatch)  # the batch is still running
    assert again.exit_code == 0, again.output
    assert f"still running: {batch_id}" in again.stderr and "submitted" not in again.stderr
    assert server.calls("POST", "/v1/files") == uploads  # nothing submitted twice
    assert server.calls("POST", "/v1/batches") == 1
    status = CliRunner().invoke(app, ["batch", "status", str(tmp_path), "--base-url", url])
    assert status.exit_code == 0, status.output
    assert status.stdout.startswith(f"{batched}: openai/m1 batch {batch_id}, 2 request(s) ")
    assert status.stdout.rstrip().endswith(": validating (completed 0, failed 0, total 2)")
    seen = CliRunner().invoke(app, ["batch", "status", str(tmp_path), "--offline", "--json"])
    assert [(b["id"], b["state"], b["live"]) for b in json.loads(seen.stdout)] == [
        (batch_id, "validating", False)
    ]

    server.finish()
    second = _hyoka(args, tmp_path / "c2", monkeypatch)  # turn 1 read, turn 2 submitted
    assert "batch: 2 reply(ies) collected" in second.stderr
    assert server.calls("POST", "/v1/batches") == 2 and _lines(batched) == []
    server.finish()
    third = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert third.exit_code == 0, third.output
    assert "2 dialogue(s) answered" in third.stdout and "nothing left in flight" in third.stderr
    assert server.calls("POST", "/v1/chat/completions") == online_calls  # no online call
    assert _lines(batched) == _lines(online)
    signature = _manifest(batched)["signature"]
    assert signature["fields"]["batch"] == "openai"
    assert "batch" not in _manifest(online)["signature"]["fields"]
    assert "|batch:openai" in third.stdout
    assert _manifest(batched)["notes"]["batches"] == []
    none = CliRunner().invoke(app, ["batch", "status", str(tmp_path), "--offline"])
    assert none.stdout == f"no batches in flight under {tmp_path}\n"


def test_openai_partly_failed_batch_is_asked_again(
    openai_url: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judging batch in which one request failed: the three that succeeded are
    recorded once, the failed one goes into the next batch, and the judgments are the
    online judge's."""
    server, url = openai_url, f"{openai_url.url}/v1"
    answers = tmp_path / "answers.jsonl"
    made = _hyoka(_generate("openai/m2", url, answers), tmp_path / "c0", monkeypatch)
    assert made.exit_code == 0, made.output

    def judge(out: Path, *batch: str) -> list[str]:
        return ["mtbench", "judge", "--bench", "mt-bench", "-j", "openai/judge",
                "--base-url", url, "-a", str(answers), "--limit", "2",
                "--output-dir", str(out), *batch]  # fmt: skip

    online = _hyoka(judge(tmp_path / "online"), tmp_path / "c1", monkeypatch)
    assert online.exit_code == 0, online.output
    args = judge(tmp_path / "batch", "--batch")
    first = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert first.exit_code == 0, first.output
    judgments = tmp_path / "batch" / "m2.jsonl"
    (submitted,) = _manifest(judgments)["notes"]["batches"]
    assert submitted["requests"] == 4  # every turn's grading known up front: one batch
    server.finish(failed=[submitted["custom_ids"][1]])
    second = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert second.exit_code == 0, second.output
    assert "3 turn(s) judged" in second.stdout
    assert "1 failed or expired (HTTP 500 1; asked again in a new batch)" in second.stderr
    (resubmitted,) = _manifest(judgments)["notes"]["batches"]
    assert resubmitted["custom_ids"] == [submitted["custom_ids"][1]]
    assert len(_lines(judgments)) == 3
    server.finish()
    third = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert third.exit_code == 0, third.output
    assert "1 turn(s) judged, 3 already done" in third.stdout
    assert _lines(judgments) == _lines(tmp_path / "online" / "m2.jsonl")
    assert "|batch:openai" in third.stdout and "batch:" not in online.stdout


def test_anthropic_expired_batch_and_a_later_process_finish_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Message Batches: the process that submitted is gone (each run exits after
    submitting); the next finds the batch id in the manifest and reads what the batch
    answered before it expired, and asks the expired requests again, once."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with anthropic_server() as server:
        answers = tmp_path / "answers.jsonl"
        online_out, batch_out = tmp_path / "online", tmp_path / "batch"
        made = _hyoka(_generate("anthropic/claude-x", server.url, answers), tmp_path / "c0",
                      monkeypatch)  # fmt: skip
        assert made.exit_code == 0, made.output

        def judge(out: Path, *batch: str) -> list[str]:
            return ["mtbench", "judge", "--bench", "mt-bench", "-j", "anthropic/claude-j",
                    "--base-url", server.url, "-a", str(answers), "--limit", "2",
                    "--output-dir", str(out), *batch]  # fmt: skip

        online = _hyoka(judge(online_out), tmp_path / "c1", monkeypatch)
        assert online.exit_code == 0, online.output
        args = judge(batch_out, "--batch")
        first = _hyoka(args, tmp_path / "c2", monkeypatch)
        assert first.exit_code == 0, first.output
        judgments = batch_out / "claude-x.jsonl"
        (noted,) = _manifest(judgments)["notes"]["batches"]
        assert noted["api"] == "anthropic" and noted["id"] == "msgbatch_01"
        server.expire(done=3)
        second = _hyoka(args, tmp_path / "c2", monkeypatch)
        assert second.exit_code == 0, second.output
        assert "3 turn(s) judged" in second.stdout and "submitted: msgbatch_02" in second.stderr
        assert "1 failed or expired (expired 1; asked again" in second.stderr
        server.finish()
        third = _hyoka(args, tmp_path / "c2", monkeypatch)
        assert third.exit_code == 0, third.output
        assert server.calls("POST", "/v1/messages/batches") == 2
        assert _lines(judgments) == _lines(online_out / "claude-x.jsonl")
        assert "|batch:anthropic" in third.stdout


def test_batch_is_refused_where_it_cannot_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "model.jsonl"
    script.write_text('{"reply": "答え"}\n', encoding="utf-8")
    args = _generate(f"scripted/{script}", "http://127.0.0.1:9", tmp_path / "a.jsonl", "--batch")
    refused = _hyoka([a for a in args if a not in ("--base-url", "http://127.0.0.1:9")],
                     tmp_path / "c", monkeypatch)  # fmt: skip
    assert refused.exit_code == 1
    assert refused.stderr.startswith("error: --batch: scripted/") and (
        "has no batch API (batch APIs: anthropic, openai)" in refused.stderr
    )
    cacheless = _generate("openai/m", "http://127.0.0.1:9/v1", tmp_path / "b.jsonl", "--batch")
    no_cache = _hyoka([*cacheless, "--no-cache"], tmp_path / "c", monkeypatch)
    assert no_cache.exit_code == 1
    assert "--no-cache does not go with it" in no_cache.stderr
    assert not (tmp_path / "a.jsonl").exists() and not (tmp_path / "b.jsonl").exists()
    # a results path that is not there is one line naming it, not "no batches in flight"
    missing = _hyoka(["batch", "status", str(tmp_path / "nope")], tmp_path / "c", monkeypatch)
    assert (
        missing.exit_code == 1
        and missing.stderr == f"error: {tmp_path / 'nope'}: no such file or folder\n"
    )


def test_judge_single_batch_matches_the_online_grades(
    openai_url: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hyoka judge single --batch``: nothing graded while the batch runs (exit 0, the
    table empty), then the online run's records and grades."""
    answers = tmp_path / "answers.jsonl"
    rows = [
        {"id": "q1", "question": "日本の首都は？", "reference": "東京です。", "model": "m"},
        {"id": "q2", "question": "富士山の高さは？", "reference": "3776メートル。", "model": "m"},
    ]
    answers.write_text(
        "".join(json.dumps({**r, "answer": "東京"}, ensure_ascii=False) + "\n" for r in rows),
        encoding="utf-8",
    )
    url = ["-j", "openai/judge", "--base-url", f"{openai_url.url}/v1", str(answers)]
    online = _hyoka(["judge", "single", *url, "--output", str(tmp_path / "online.jsonl")],
                    tmp_path / "c1", monkeypatch)  # fmt: skip
    assert online.exit_code == 0, online.output
    args = ["judge", "single", *url, "--output", str(tmp_path / "batch.jsonl"), "--batch"]
    first = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert first.exit_code == 0, first.output
    assert "2 request(s) left for a later run" in first.stderr
    openai_url.finish()
    second = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert second.exit_code == 0, second.output
    assert "batch: 2 reply(ies) collected" in second.stderr
    by_id = sorted(_lines(tmp_path / "batch.jsonl"), key=lambda row: str(row["id"]))
    assert by_id == sorted(_lines(tmp_path / "online.jsonl"), key=lambda row: str(row["id"]))
    table = second.stdout.split("judged by:")[0].splitlines()
    online_table = online.stdout.split("judged by:")[0].splitlines()
    # the same grades; the calls row says the batch's replies came through the cache
    differ = [(a, b) for a, b in zip(table, online_table, strict=True) if a != b]
    assert [(a.split("(")[1][:18], b.split("(")[1][:18]) for a, b in differ] == [
        ("2 from the cache, ", "0 from the cache, ")
    ]
    assert "|batch:openai" in second.stdout and "batch:" not in online.stdout


def test_mtbench_pairwise_batch_asks_both_orders_in_one_batch(
    openai_url: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pairwise turn is judged in both orders: both go into the same batch (a turn's
    second order is not left for another day), and the verdicts are the online judge's."""
    url = f"{openai_url.url}/v1"
    answers = [tmp_path / "p1.jsonl", tmp_path / "p2.jsonl"]
    for path in answers:
        made = _hyoka(_generate(f"openai/{path.stem}", url, path), tmp_path / "c0", monkeypatch)
        assert made.exit_code == 0, made.output
    pair = ["mtbench", "judge", "--mode", "pairwise", "--bench", "mt-bench", "-j",
            "openai/judge", "--base-url", url, "-a", str(answers[0]), "-a", str(answers[1]),
            "--limit", "2", "--output-dir"]  # fmt: skip
    online = _hyoka([*pair, str(tmp_path / "online")], tmp_path / "c1", monkeypatch)
    assert online.exit_code == 0, online.output
    args = [*pair, str(tmp_path / "batch"), "--batch"]
    first = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert first.exit_code == 0, first.output
    (noted,) = _manifest(tmp_path / "batch" / "judge_pair.jsonl")["notes"]["batches"]
    assert noted["requests"] == 8  # 2 questions x 2 turns x 2 orders
    openai_url.finish()
    second = _hyoka(args, tmp_path / "c2", monkeypatch)
    assert second.exit_code == 0, second.output
    assert "4 turn(s) judged" in second.stdout and "nothing left in flight" in second.stderr
    batch_lines = _lines(tmp_path / "batch" / "judge_pair.jsonl")
    assert batch_lines == _lines(tmp_path / "online" / "judge_pair.jsonl")


SECRET = "sk-proj-SECRETKEYVALUE"


def test_batch_server_text_never_shows_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch status and a failed request's error code that quote the API key are shown
    and kept with it replaced, as the online path shows a server's error: in the run's
    line, ``batch status`` (live, ``--json``, ``--offline``) and the manifest on disk."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with openai_server() as server:
        url, out = f"{server.url}/v1", tmp_path / "a.jsonl"
        server.status_text = f"held for key {SECRET}"
        args = _generate("openai/m1", url, out, "--batch")
        assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0
        status = CliRunner().invoke(app, ["batch", "status", str(tmp_path), "--base-url", url])
        assert "held for key [REDACTED]" in status.stdout, status.output
        again = _hyoka(args, tmp_path / "c", monkeypatch)  # notes the running status
        assert again.exit_code == 0, again.output
        monkeypatch.delenv("OPENAI_API_KEY")  # the offline reader may not know the key
        offline = CliRunner().invoke(app, ["batch", "status", str(tmp_path), "--offline", "--json"])
        assert "[REDACTED]" in offline.stdout, offline.output
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        server.error_code = f"bad key {SECRET}"
        server.finish(failed=_manifest(out)["notes"]["batches"][0]["custom_ids"])
        failed = _hyoka([*args, "--json"], tmp_path / "c", monkeypatch)  # refused for good
        assert failed.stderr.splitlines()[-1] == (
            "error: openai/m1: batch batch_1: HTTP 400: bad key [REDACTED]"
        ), failed.output
        shown = [status.output, again.output, offline.output, failed.output]
        kept = out.with_name(out.name + ".manifest.json").read_text(encoding="utf-8")
        assert all(SECRET not in text for text in [*shown, kept])


def test_foreign_and_repeated_result_lines_are_faults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An output file with a line for an id hyoka never submitted and a second line for
    one it did: the foreign line is counted and ignored, neither line of the repeated id
    is kept (it is asked again), and only the one clean reply is collected."""
    with openai_server() as server:
        url, out = f"{server.url}/v1", tmp_path / "a.jsonl"
        args = _generate("openai/m1", url, out, "--batch")
        assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0
        first, second = _manifest(out)["notes"]["batches"][0]["custom_ids"]
        server.extra_lines = [result_line("not-ours", "forged"), result_line(first, "forged")]
        server.finish()
        run = _hyoka(args, tmp_path / "c", monkeypatch)
        assert run.exit_code == 0, run.output
        assert "batch: 1 reply(ies) collected; 1 failed or expired (answered twice 1;" in (
            run.stderr
        )
        assert "1 result line(s) for requests hyoka did not submit (ignored)" in run.stderr
        (again,) = _manifest(out)["notes"]["batches"]
        # turn 1 asked again beside the other dialogue's turn 2
        assert first in again["custom_ids"] and second not in again["custom_ids"]
        assert len(again["custom_ids"]) == 2
        server.finish()
        done = _hyoka(args, tmp_path / "c", monkeypatch)
        assert done.exit_code == 0, done.output
        assert "forged" not in json.dumps(_lines(out)) and "1 dialogue(s) answered" in done.stdout


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("requests", "many", '"requests" is not a count of requests'),
        ("requests", None, '"requests" is not a count of requests'),
        ("custom_ids", None, '"custom_ids" is not a list of custom ids'),
        ("custom_ids", "abc", '"custom_ids" is not a list of custom ids'),
    ],
)
def test_a_damaged_batches_note_is_one_line(
    openai_url: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    field: str,
    value: Any,
    said: str,
) -> None:
    """A manifest's batch note with a field of the wrong kind: ``batch status --offline``
    and the next ``--batch`` run each stop with one line naming the manifest and field."""
    out = tmp_path / "a.jsonl"
    args = _generate("openai/m1", f"{openai_url.url}/v1", out, "--batch")
    assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0
    side = out.with_name(out.name + ".manifest.json")
    manifest = _manifest(out)
    manifest["notes"]["batches"][0][field] = value
    side.write_text(json.dumps(manifest), encoding="utf-8")
    expected = f'error: {side}: the note "batches", batch 1: {said}\n'
    status = _hyoka(["batch", "status", str(tmp_path), "--offline"], tmp_path / "c", monkeypatch)
    rerun = _hyoka(args, tmp_path / "c", monkeypatch)
    assert (status.exit_code, status.stderr) == (1, expected), status.output
    assert (rerun.exit_code, rerun.stderr.splitlines()[-1] + "\n") == (1, expected), rerun.output


def test_a_file_with_batches_in_flight_is_not_restarted_under_other_settings(
    openai_url: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same command with another --max-tokens while its batch runs: refused in one
    line naming the file and the batch (the note kept), not started afresh under the new
    settings with the batch forgotten (and its requests paid for again later)."""
    out = tmp_path / "a.jsonl"
    args = _generate("openai/m1", f"{openai_url.url}/v1", out, "--batch")
    assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0
    before = _manifest(out)
    (noted,) = before["notes"]["batches"]
    changed = _hyoka([*args, "--max-tokens", "100"], tmp_path / "c", monkeypatch)
    assert changed.exit_code == 1, changed.output
    (said,) = [line for line in changed.stderr.splitlines() if line.startswith("error:")]
    assert said.startswith(
        f"error: {out}: its batch(es) in flight ({noted['id']}) were submitted under other "
        "settings (max_tokens: 1024 vs 100, file vs this run)"
    ), changed.stderr
    assert _manifest(out) == before


def test_an_online_run_says_batches_are_in_flight(
    openai_url: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same command without --batch while its batch runs: it answers online, and
    says in one line that the file's batch is in flight and --batch collects it."""
    out = tmp_path / "a.jsonl"
    args = _generate("openai/m1", f"{openai_url.url}/v1", out, "--batch")
    assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0
    (noted,) = _manifest(out)["notes"]["batches"]
    online = _hyoka(args[:-1], tmp_path / "c", monkeypatch)
    assert online.exit_code == 0, online.output
    assert (
        f"{out}: batch(es) {noted['id']} in flight are noted for this file; this run "
        "without --batch asks their requests again online (run with --batch to collect them)"
    ) in online.stderr, online.stderr


def _args(out: Path, url: str, *more: str) -> list[str]:
    return _generate("openai/m1", url, out, "--batch", *more)


def _note(out: Path) -> list[dict[str, Any]]:
    noted: list[dict[str, Any]] = _manifest(out)["notes"]["batches"]
    return noted


def test_collected_replies_survive_another_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Turn 1's replies collected, then the cache changed (another folder) before turn 2
    is read: the replies kept beside the file answer turn 1, nothing is paid twice."""
    with openai_server() as server:
        out, args = tmp_path / "a.jsonl", _args(tmp_path / "a.jsonl", f"{server.url}/v1")
        assert _hyoka(args, tmp_path / "c1", monkeypatch).exit_code == 0
        server.finish()
        assert _hyoka(args, tmp_path / "c1", monkeypatch).exit_code == 0  # turn 2 submitted
        server.finish()
        done = _hyoka(args, tmp_path / "c2", monkeypatch)  # a new, empty cache
        assert done.exit_code == 0, done.output
        assert "2 dialogue(s) answered" in done.stdout, done.output
        assert server.calls("POST", "/v1/batches") == 2
        assert out.with_name(out.name + ".batch-replies").is_file()


def test_a_kill_between_create_and_note_pays_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real processes killed (SIGKILL) after the server made their batch, before its id
    reached the manifest: the next run finds the batch and submits nothing again (OpenAI
    by the mark in its metadata; Anthropic's, running, may be it by its time and size:
    kept noted until it ends and its results' custom ids confirm it)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with openai_server() as oai, anthropic_server() as ant:
        runs = {
            "openai": (oai, "batch_1", "validating", f"{oai.url}/v1"),
            "anthropic": (ant, "msgbatch_01", "in_progress", ant.url),
        }
        argv = {
            api: _generate(f"{api}/m1", url, tmp_path / f"{api}.jsonl", "--batch")
            for api, (_, _, _, url) in runs.items()
        }
        env = {**os.environ, "HYOKA_CACHE_DIR": str(tmp_path / "c"),
               "HYOKA_DATA_DIR": str(data_with_sources())}  # fmt: skip
        processes = []
        for api, (server, *_) in runs.items():  # both at once: one process start's wait
            server.hold = threading.Event()
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "hyoka", *argv[api]], env=env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ))  # fmt: skip
        try:
            for (server, *_), process in zip(runs.values(), processes, strict=True):
                assert server.created.wait(60)
                os.kill(process.pid, signal.SIGKILL)
        finally:
            for (server, *_), process in zip(runs.values(), processes, strict=True):
                process.wait()
                assert server.hold is not None
                server.hold.set()
                server.hold = None
        for api, (server, batch_id, running, _) in runs.items():
            out = tmp_path / f"{api}.jsonl"
            (pending,) = _note(out)
            assert (pending["id"], pending["status"]) == ("", "submitting") and pending["tag"]
            again = _hyoka(argv[api], tmp_path / "c", monkeypatch)
            assert again.exit_code == 0, again.output
            if api == "anthropic":  # no mark: waits for the candidate to end
                assert (
                    f"batch: the submission of 2 request(s) at {pending['submitted']} (mark "
                    f"{pending['tag']}) may be batch(es) {batch_id} (made since, of its size, "
                    "still running): kept noted and not asked again until they end and their "
                    f"custom ids tell; `hyoka batch release {out} {pending['tag']}` asks them "
                    "again now"
                ) in again.stderr.splitlines(), again.stderr
                assert _note(out) == [pending] and len(server.batches) == 1
                server.finish()
                collected = _hyoka(argv[api], tmp_path / "c", monkeypatch)
                said = collected.stderr.splitlines()
                assert (
                    f"batch: batch {batch_id}: found by its requests' custom ids (the run "
                    "that submitted it stopped before noting it); not submitted again" in said
                )
                assert said[-1].startswith("batch: 2 reply(ies) collected"), said
                assert len(server.batches) == 2  # turn 2's: none paid twice
                continue
            assert f"batch: batch {batch_id}: found by its mark" in again.stderr, again.stderr
            assert len(server.batches) == 1
            assert [(b["id"], b["status"]) for b in _note(out)] == [(batch_id, running)]
            server.finish()
            collected = _hyoka(argv[api], tmp_path / "c", monkeypatch)
            assert "batch: 2 reply(ies) collected" in collected.stderr, collected.output


def test_a_batch_the_api_forgot_is_kept_until_released(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A noted batch answered 404 (deleted, or another key's, organization's or
    project's): ``batch status`` says so in its own line and still shows the other file's
    batch; the run keeps its note and asks nothing again (paid for once), saying how to
    release it; ``hyoka batch release`` drops it and the next run asks its requests again.
    ``batch status`` of a file whose records are all in flight lists its batches."""
    with openai_server() as server:
        url = f"{server.url}/v1"
        first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        for out in (first, second):
            assert _hyoka(_args(out, url), tmp_path / "c", monkeypatch).exit_code == 0
        (lost,), (kept,) = _note(first), _note(second)
        assert not first.exists()  # only its manifest: every request in flight
        one = CliRunner().invoke(app, ["batch", "status", str(first), "--offline"])
        assert one.exit_code == 0 and one.stdout.splitlines() == [
            f"{first}: openai/m1 batch {lost['id']}, 2 request(s) submitted "
            f"{lost['submitted']}: submitted (as the last run saw it)"
        ], one.output
        server.gone.add(lost["id"])
        status = _hyoka(
            ["batch", "status", str(tmp_path)], tmp_path / "c", monkeypatch
        )  # fmt: skip  (the noted base_url is asked)
        assert status.exit_code == 1, status.output
        shown = status.stdout.splitlines()
        assert len(shown) == 2 and shown[0].startswith(
            f"{first}: openai/m1 batch {lost['id']}: the API does not know it ("
        ), shown
        assert "HTTP 404" in shown[0] and kept["id"] in shown[1] and "validating" in shown[1]
        rerun = _hyoka(_args(first, url), tmp_path / "c", monkeypatch)
        assert rerun.exit_code == 0, rerun.output
        said = [line for line in rerun.stderr.splitlines() if "does not know" in line]
        assert len(said) == 1 and said[0].startswith(
            f"batch: batch {lost['id']}: the API does not know it ("
        ), rerun.stderr
        assert said[0].endswith(
            "; kept noted, its 2 request(s) not asked again (submitted with another key, "
            "organization or project?): run with the account that submitted it, or "
            f"`hyoka batch release {first} {lost['id']}` to ask them again"
        ), said
        assert _note(first) == [lost] and server.calls("POST", "/v1/batches") == 2
        wrong = CliRunner().invoke(app, ["batch", "release", str(first), "batch_9"])
        assert wrong.exit_code == 1 and wrong.stderr.splitlines() == [
            f"error: {first}.manifest.json: notes no batch batch_9 (its batches: {lost['id']})"
        ], wrong.output
        released = CliRunner().invoke(app, ["batch", "release", str(first), lost["id"]])
        assert released.exit_code == 0, released.output
        assert released.stdout.splitlines() == [
            f"{first}: batch {lost['id']} released: its 2 request(s) are asked again by the "
            "next run of its command"
        ]
        again = _hyoka(_args(first, url), tmp_path / "c", monkeypatch)
        assert again.exit_code == 0, again.output
        (fresh,) = _note(first)
        assert fresh["custom_ids"] == lost["custom_ids"] and fresh["id"] != lost["id"]


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_an_unreadable_result_line_is_one_fault(
    api: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Result lines that are not JSON or not a result: each counted as a fault; the
    batch's other replies are collected."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with (openai_server if api == "openai" else anthropic_server)() as server:
        url = f"{server.url}/v1" if api == "openai" else server.url
        args = _generate(f"{api}/m1", url, tmp_path / "a.jsonl", "--batch")
        assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0
        server.raw_lines = ["{not json", '{"custom_id": 5, "result": []}']
        server.finish()
        run = _hyoka(args, tmp_path / "c", monkeypatch)
        assert run.exit_code == 0, run.output
        assert "batch: 2 reply(ies) collected" in run.stderr, run.stderr
        assert "2 result line(s) could not be read (a fault each)" in run.stderr


def test_trials_go_in_one_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--trials 3``: every trial's first turn is in the first batch, not one a run."""
    with openai_server() as server:
        out = tmp_path / "a.jsonl"
        args = _args(out, f"{server.url}/v1", "--trials", "3")
        assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0
        assert _note(out)[0]["requests"] == 6  # 2 dialogues x 3 trials
        for _ in range(2):  # turn 1, then turn 2 of every trial
            server.finish()
            done = _hyoka(args, tmp_path / "c", monkeypatch)
        assert "2 dialogue(s) answered" in done.stdout, done.output
        assert [len(row["choices"]) for row in _lines(out)] == [3, 3]
        assert server.calls("POST", "/v1/batches") == 2


SCRUBBED = "sk-proj-SECRETKEYVALUE"


def test_a_cancelled_batch_is_not_undone_and_a_failed_one_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch cancelled after one answer: the run says so and does not submit its other
    request (the next run does); a batch that failed as a whole says why (the key
    scrubbed, the text printable) and its requests are asked again."""
    monkeypatch.setenv("OPENAI_API_KEY", SCRUBBED)
    with openai_server() as server:
        out, url = tmp_path / "a.jsonl", f"{server.url}/v1"
        assert _hyoka(_args(out, url), tmp_path / "c", monkeypatch).exit_code == 0
        (cancelled,) = _note(out)
        server.expire(done=1, how="cancelled")
        run = _hyoka(_args(out, url), tmp_path / "c", monkeypatch)
        assert run.exit_code == 0, run.output
        assert (
            "batch: batch batch_1 was cancelled (cancelled): its 1 unanswered request(s) are "
            "not asked again by this run; run the same command again to submit them"
        ) in run.stderr, run.stderr
        (turn2,) = _note(out)
        assert cancelled["custom_ids"][1] not in turn2["custom_ids"]
        server.fail(f"bad model for key {SCRUBBED}\x1b[31m")
        failed = _hyoka(_args(out, url), tmp_path / "c", monkeypatch)
        assert failed.exit_code == 0, failed.output
        assert (
            "batch: batch batch_2 ended failed: invalid_request bad model for key [REDACTED]"
        ) in failed.stderr and "\x1b" not in failed.stderr, failed.stderr
        assert "; its 1 unanswered request(s) asked again in a new batch" in failed.stderr
        (again,) = _note(out)
        assert cancelled["custom_ids"][1] in again["custom_ids"] and len(again["custom_ids"]) == 2


@pytest.mark.parametrize(("given", "shown"), [("", "''"), ("../b", "'../b'"), (5, "not text: int")])
def test_a_malformed_batch_id_is_refused_and_its_batch_kept(
    given: Any, shown: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The create call answers with an id that is not one: one line, the submission kept
    noted (never submitted again); once the server lists it properly, it is found."""
    with openai_server() as server:
        out, url = tmp_path / "a.jsonl", f"{server.url}/v1"
        server.given_id = given
        for _ in range(2):
            refused = _hyoka(_args(out, url), tmp_path / "c", monkeypatch)
            assert refused.exit_code == 1, refused.output
            assert f"the server's batch id is not one ({shown}); the submission" in refused.stderr
            assert server.calls("POST", "/v1/batches") == 1
            assert _note(out)[0]["status"] == "submitting"
        server.given_id = None
        found = _hyoka(_args(out, url), tmp_path / "c", monkeypatch)
        assert found.exit_code == 0, found.output
        assert [b["id"] for b in _note(out)] == ["batch_1"]


def test_a_transient_fault_on_a_batch_state_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One 503 on a batch's state: retried as an online call is, not a failed run."""
    with openai_server() as server:
        out, url = tmp_path / "a.jsonl", f"{server.url}/v1"
        assert _hyoka(_args(out, url), tmp_path / "c", monkeypatch).exit_code == 0
        server.faults = [503]
        again = _hyoka(_args(out, url), tmp_path / "c", monkeypatch)
        assert again.exit_code == 0, again.output
        assert "still running: batch_1" in again.stderr and server.faults == []


def test_batch_status_says_what_a_path_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file hyoka did not write, its manifest, or a folder of none: one line, exit 1."""
    plain = tmp_path / "notes.txt"
    plain.write_text("x\n", encoding="utf-8")
    status = _hyoka(["batch", "status", str(plain), "--offline"], tmp_path / "c", monkeypatch)
    assert (status.exit_code, status.stderr) == (
        1,
        f"error: {plain}: not a results file hyoka wrote (no manifest "
        "notes.txt.manifest.json beside it)\n",
    )
    side = tmp_path / "a.jsonl.manifest.json"
    side.write_text("{}", encoding="utf-8")
    manifest = _hyoka(["batch", "status", str(side), "--offline"], tmp_path / "c", monkeypatch)
    assert (manifest.exit_code, manifest.stderr) == (
        1,
        f"error: {side}: a manifest, not a results file (its results file: a.jsonl)\n",
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    folder = _hyoka(["batch", "status", str(empty), "--offline"], tmp_path / "c", monkeypatch)
    assert (folder.exit_code, folder.stderr) == (
        1,
        f"error: {empty}: holds no results file hyoka wrote (no *.manifest.json)\n",
    )


def test_the_signature_says_online_and_batch_made_the_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One dialogue answered online, the other by batches: the signature says both."""
    with openai_server() as server:
        out, url = tmp_path / "a.jsonl", f"{server.url}/v1"
        online = _generate("openai/m1", url, out)
        online[online.index("--limit") + 1] = "1"
        assert _hyoka(online, tmp_path / "c", monkeypatch).exit_code == 0
        for _ in range(2):
            assert _hyoka(_args(out, url), tmp_path / "c", monkeypatch).exit_code == 0
            server.finish()
        done = _hyoka(_args(out, url), tmp_path / "c", monkeypatch)
        assert "1 dialogue(s) answered" in done.stdout, done.output
        assert _manifest(out)["signature"]["fields"]["batch"] == "openai+online"
        assert "|batch:openai+online" in done.stdout
        assert _manifest(out)["notes"]["made_by"] == ["batch:openai", "online"]


def test_a_batch_noted_for_another_server_is_not_collected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note keeps the server (no key); a run pointed at another refuses in one line."""
    monkeypatch.setenv("OPENAI_API_KEY", SCRUBBED)
    with openai_server() as server, openai_server() as other:
        out, url = tmp_path / "a.jsonl", f"{server.url}/v1"
        assert _hyoka(_args(out, url), tmp_path / "c", monkeypatch).exit_code == 0
        assert _note(out)[0]["base_url"] == url
        elsewhere = _hyoka(_args(out, f"{other.url}/v1"), tmp_path / "c", monkeypatch)
        assert elsewhere.exit_code == 1, elsewhere.output
        (said,) = [line for line in elsewhere.stderr.splitlines() if line.startswith("error:")]
        assert f"batch batch_1 was submitted to {url}, not {other.url}/v1" in said, said
        asked = ["batch", "status", str(out), "--base-url", f"{other.url}/v1"]
        status = _hyoka(asked, tmp_path / "c", monkeypatch)
        assert status.exit_code == 1, status.output
        assert status.stdout.rstrip().endswith(f"ask with --base-url {url}"), status.output
        shown = _hyoka([*asked, "--json"], tmp_path / "c", monkeypatch)
        assert json.loads(shown.stdout)[0]["error"].endswith(f"ask with --base-url {url}")
        assert other.calls("GET", "/v1/batches") == 0
        assert SCRUBBED not in out.with_name(out.name + ".manifest.json").read_text("utf-8")


def test_a_lost_anthropic_submission_is_never_another_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anthropic's batches carry no mark: a submission whose create call failed (HTTP 500,
    no batch made) is neither the file's own collected batch of the same size nor
    another file's running one; it waits for that one to end, whose custom ids are not
    its own, and is then asked again: never locked, never adopted."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with anthropic_server() as server:
        mine, theirs = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        args = _generate("anthropic/m1", server.url, mine, "--batch")
        assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0  # msgbatch_01
        server.finish()
        other = _generate("anthropic/m2", server.url, theirs, "--batch")
        assert _hyoka(other, tmp_path / "c", monkeypatch).exit_code == 0  # msgbatch_02
        server.create_faults = [500]
        failed = _hyoka(args, tmp_path / "c", monkeypatch)  # turn 1 read; turn 2's create
        assert failed.exit_code == 1 and len(server.batches) == 2, failed.output
        (pending,) = _note(mine)
        assert pending["status"] == "submitting"
        waits = _hyoka(args, tmp_path / "c", monkeypatch)
        assert waits.exit_code == 0, waits.output
        assert (
            f"batch: the submission of 2 request(s) at {pending['submitted']} (mark "
            f"{pending['tag']}) may be batch(es) msgbatch_02 (made since, of its size, still "
            "running): kept noted and not asked again until they end and their custom ids "
            f"tell; `hyoka batch release {mine} {pending['tag']}` asks them again now"
        ) in waits.stderr.splitlines(), waits.stderr
        assert _note(mine) == [pending] and len(server.batches) == 2
        server.finish()
        asked = _hyoka(args, tmp_path / "c", monkeypatch)
        assert asked.exit_code == 0, asked.output
        assert (
            f"batch: the submission of 2 request(s) at {pending['submitted']} made no batch "
            "(the run stopped first, or the create call failed): asked again"
        ) in asked.stderr.splitlines(), asked.stderr
        assert [(b["id"], b["custom_ids"]) for b in _note(mine)] == [
            ("msgbatch_03", pending["custom_ids"])
        ]
        assert "found by" not in asked.stderr
        done = _hyoka(other, tmp_path / "c", monkeypatch)  # theirs still collects its own
        assert "batch: 2 reply(ies) collected" in done.stderr, done.output


@pytest.mark.parametrize(
    ("api", "garbled"),
    [("openai", b"<html>proxy login</html>"), ("anthropic", {"id": 5, "request_counts": []})],
)
def test_a_garbled_batch_state_is_one_line(
    api: str, garbled: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch's state answered with a proxy's page or fields of the wrong kinds: one line
    naming the batch in the run and in ``batch status``, never a traceback."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with (openai_server if api == "openai" else anthropic_server)() as server:
        url = f"{server.url}/v1" if api == "openai" else server.url
        out = tmp_path / "a.jsonl"
        args = _generate(f"{api}/m1", url, out, "--batch")
        assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0
        (noted,) = _note(out)
        server.garbled = garbled
        said = (
            "the server's answer is not a batch's state (a proxy's page? fields of the wrong "
            "kinds); run again once the server answers as the API does"
        )
        run = _hyoka(args, tmp_path / "c", monkeypatch)
        assert run.exit_code == 1 and "Traceback" not in run.output, run.output
        assert run.stderr.splitlines()[-1] == f"error: {api}: batch {noted['id']}: {said}"
        status = _hyoka(["batch", "status", str(out)], tmp_path / "c", monkeypatch)
        assert status.exit_code == 1, status.output
        assert status.stdout.splitlines() == [f"{out}: {api}/m1 batch {noted['id']}: {said}"]


def test_an_ended_batch_whose_results_are_gone_is_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ended batch whose output file the API no longer has (HTTP 404): one line naming
    the batch, its requests asked again in a new batch; never a file locked for good."""
    with openai_server() as server:
        out, url = tmp_path / "a.jsonl", f"{server.url}/v1"
        assert _hyoka(_args(out, url), tmp_path / "c", monkeypatch).exit_code == 0
        (gone,) = _note(out)
        server.finish()
        server.gone_files.add(f"file-{gone['id']}-out")
        run = _hyoka(_args(out, url), tmp_path / "c", monkeypatch)
        assert run.exit_code == 0, run.output
        said = [line for line in run.stderr.splitlines() if "results are gone" in line]
        assert len(said) == 1 and said[0].startswith(
            f"batch: batch {gone['id']} ended completed but its results are gone ("
        ), run.stderr
        assert said[0].endswith("; its 2 request(s) asked again"), said
        (again,) = _note(out)
        assert again["custom_ids"] == gone["custom_ids"] and again["id"] != gone["id"]


def test_a_request_the_api_refuses_for_good_fails_as_online(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request the batch's error file says the API refuses (``context_length_exceeded``,
    a 4xx kind by the online calls' own classification): never submitted again; the run
    fails on it in one line, as the online run fails on the same refusal, every rerun."""
    with openai_server() as server:
        url, out, answers = f"{server.url}/v1", tmp_path / "j.jsonl", tmp_path / "a.jsonl"
        answers.write_text(
            '{"id": "q1", "question": "Q?", "answer": "A", "reference": "R", "model": "m"}\n',
            encoding="utf-8",
        )
        args = ["judge", "single", "-j", "openai/judge", "--base-url", url, str(answers),
                "--output", str(out), "--batch"]  # fmt: skip
        assert _hyoka(args, tmp_path / "c", monkeypatch).exit_code == 0
        server.error_code = "context_length_exceeded"
        server.finish(failed=_note(out)[0]["custom_ids"])
        for _ in range(2):
            run = _hyoka(args, tmp_path / "c", monkeypatch)
            assert run.exit_code == 1, run.output
            assert run.stderr.splitlines()[-1] == (
                "error: openai/judge: batch batch_1: HTTP 400: context_length_exceeded"
            ), run.stderr
            assert server.calls("POST", "/v1/batches") == 1


def test_an_online_run_answers_from_the_kept_batch_replies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Turn 1 collected by a batch, then the command finished online with another cache:
    the replies kept beside the file answer turn 1 (paid for once); only turn 2 is asked."""
    with openai_server() as server:
        out, url = tmp_path / "a.jsonl", f"{server.url}/v1"
        args = _args(out, url)
        assert _hyoka(args, tmp_path / "c1", monkeypatch).exit_code == 0
        server.finish()
        assert _hyoka(args, tmp_path / "c1", monkeypatch).exit_code == 0  # turn 1 read
        online = _hyoka(args[:-1], tmp_path / "c2", monkeypatch)  # without --batch
        assert online.exit_code == 0, online.output
        assert "2 dialogue(s) answered" in online.stdout, online.output
        assert server.calls("POST", "/v1/chat/completions") == 2  # turn 2 only


def test_a_link_in_place_of_the_batch_replies_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch replies beside a file are hyoka's own: a link there is one line naming it,
    never read, never written through (the file it points to stays as it was)."""
    with openai_server() as server:
        out, url = tmp_path / "a.jsonl", f"{server.url}/v1"
        assert _hyoka(_args(out, url), tmp_path / "c", monkeypatch).exit_code == 0
        elsewhere = tmp_path / "elsewhere.jsonl"
        elsewhere.write_text("", encoding="utf-8")
        kept = out.with_name(out.name + ".batch-replies")
        kept.symlink_to(elsewhere)
        server.finish()
        run = _hyoka(_args(out, url), tmp_path / "c", monkeypatch)
        assert run.exit_code == 1, run.output
        assert run.stderr.splitlines()[-1] == (
            f"error: {kept}: a link; the batch replies are hyoka's own file, never read or "
            "written through a link (replace it with the file it points to, or remove it)"
        ), run.stderr
        assert elsewhere.read_text(encoding="utf-8") == "" and len(_note(out)) == 1


def test_batch_status_asks_each_batch_on_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``batch status`` with no key for one API: that batch's own line says so (naming the
    manifest); the other API's batch is still asked, at the server it was noted with."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with openai_server() as oai, anthropic_server() as ant:
        first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        made = [
            _hyoka(_generate("openai/m1", f"{oai.url}/v1", first, "--batch"), tmp_path / "c",
                   monkeypatch),
            _hyoka(_generate("anthropic/m1", ant.url, second, "--batch"), tmp_path / "c",
                   monkeypatch),
        ]  # fmt: skip
        assert [run.exit_code for run in made] == [0, 0], [run.output for run in made]
        monkeypatch.delenv("ANTHROPIC_API_KEY")
        status = _hyoka(["batch", "status", str(tmp_path)], tmp_path / "c", monkeypatch)
        assert status.exit_code == 1, status.output
        shown = status.stdout.splitlines()
        assert shown[0].endswith(": validating (completed 0, failed 0, total 2)"), shown
        assert shown[1].startswith(
            f"{second}: anthropic/m1 batch msgbatch_01: {second}.manifest.json: its model "
            "cannot be asked ("
        ), shown
        assert "ANTHROPIC_API_KEY" in shown[1] and len(shown) == 2


def test_an_edited_batch_reply_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept batch reply edited by hand (its text changed): the run refuses it in one line
    naming the file and line, before any reply from it is recorded."""
    with openai_server() as server:
        out, url = tmp_path / "a.jsonl", f"{server.url}/v1"
        assert _hyoka(_args(out, url), tmp_path / "c", monkeypatch).exit_code == 0
        server.finish()
        assert _hyoka(_args(out, url), tmp_path / "c", monkeypatch).exit_code == 0
        kept = out.with_name(out.name + ".batch-replies")
        text = kept.read_text(encoding="utf-8")
        assert text.count('"sha256": "') == 2
        kept.write_text(text.replace("Answer ", "Edited ", 1), encoding="utf-8")
        run = _hyoka(_args(out, url), tmp_path / "c2", monkeypatch)
        assert run.exit_code == 1 and not out.exists(), run.output
        assert run.stderr.splitlines()[-1] == (
            f"error: {kept}:1: edited or damaged (its sha256 does not match what it holds); "
            "remove the line to ask its request again"
        ), run.stderr


def _judge_args(api: str, server: Any, out: Path) -> list[str]:
    """``judge single`` of the answers beside ``out`` by ``{api}/judge`` at ``server``."""
    url = f"{server.url}/v1" if api == "openai" else server.url
    return ["judge", "single", "-j", f"{api}/judge", "--base-url", url,
            str(out.parent / "answers.jsonl"), "--output", str(out)]  # fmt: skip


def _sent(api: str, server: Any, batch_id: str) -> tuple[list[int], int]:
    """The bytes each of a batch's requests took as the server received it (its JSON and
    a separator: JSONL's newline, the JSON array's comma), and the whole input's (the
    uploaded file; the create call's body: the list of requests in its envelope)."""
    batch = server.batches[batch_id]
    sizes = [
        len(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) + 1
        for r in batch.requests
    ]
    if api == "openai":
        return sizes, len(server.files[batch.input_file])
    return sizes, batch.body_bytes  # as the SDK encoded it: any space or escape counts


def _by_id(path: Path) -> list[dict[str, Any]]:
    return sorted(_lines(path), key=lambda row: str(row["id"]))


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_run_past_one_batchs_limits_goes_in_several_batches(
    api: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What one run defers is submitted as as many batches as the API's limits of one
    batch need (``max_requests``, ``max_bytes``: lowered here), in order, each noted before
    its create call (a create refused midway leaves the batch made noted and the rest
    asked again by the next run, none twice); the next run collects them all and the
    records are the online run's. A request larger than one batch may hold is refused in
    one line naming it, nothing uploaded."""
    from hyoka.providers.batch_anthropic import AnthropicBatches
    from hyoka.providers.batch_openai import OpenAIBatches

    kind = OpenAIBatches if api == "openai" else AnthropicBatches
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    (tmp_path / "answers.jsonl").write_text(
        "".join(
            json.dumps({"id": f"q{n}", "question": f"問{n}？", "answer": "答え" * (40 * n + 1),
                        "reference": "参考", "model": "m"}, ensure_ascii=False) + "\n"
            for n in range(5)
        ),
        encoding="utf-8",
    )  # fmt: skip
    with (openai_server if api == "openai" else anthropic_server)() as server:
        online = _hyoka(_judge_args(api, server, tmp_path / "online.jsonl"), tmp_path / "c0",
                        monkeypatch)  # fmt: skip
        assert online.exit_code == 0, online.output
        creates = "/v1/batches" if api == "openai" else "/v1/messages/batches"

        # at most 3 requests a batch; the second create refused: the first batch noted
        monkeypatch.setattr(kind, "max_requests", 3)
        server.create_faults = [0, 400]
        out = tmp_path / "count.jsonl"
        args = [*_judge_args(api, server, out), "--batch"]
        first = _hyoka(args, tmp_path / "c1", monkeypatch)
        assert first.exit_code == 1, first.output
        made, pending = _note(out)
        assert (made["id"], made["requests"]) == (min(server.batches), 3)
        assert (pending["requests"], pending["status"], pending["id"]) == (2, "submitting", "")
        assert not set(made["custom_ids"]) & set(pending["custom_ids"])
        assert server.calls("POST", creates) == 2 and len(server.batches) == 1
        again = _hyoka(args, tmp_path / "c1", monkeypatch)
        assert again.exit_code == 0, again.output
        assert "made no batch" in again.stderr and len(server.batches) == 2, again.stderr
        noted = _note(out)
        assert [(b["id"], b["requests"]) for b in noted] == [
            (made["id"], 3), (max(server.batches), 2)
        ]  # fmt: skip
        assert noted[1]["custom_ids"] == pending["custom_ids"]
        status = _hyoka(["batch", "status", str(out), "--offline"], tmp_path / "c1", monkeypatch)
        assert [line.split(" batch ")[1].split(",")[0] for line in status.stdout.splitlines()] == [
            b["id"] for b in noted
        ], status.output
        server.finish()
        done = _hyoka(args, tmp_path / "c1", monkeypatch)
        assert done.exit_code == 0, done.output
        assert "batch: 5 reply(ies) collected" in done.stderr, done.stderr
        assert "nothing left in flight" in done.stderr and _note(out) == []
        assert _by_id(out) == _by_id(tmp_path / "online.jsonl")

        # about two requests' bytes a batch: each batch filled in order, never past it
        monkeypatch.setattr(kind, "max_requests", 50_000)
        biggest = max(max(_sent(api, server, b)[0]) for b in server.batches)
        monkeypatch.setattr(kind, "max_bytes", int((2.2 * biggest + 16) / kind.fill))
        room = kind.room()
        assert 2 * biggest < room < 3 * biggest
        out, before = tmp_path / "bytes.jsonl", set(server.batches)
        args = [*_judge_args(api, server, out), "--batch"]
        first = _hyoka(args, tmp_path / "c2", monkeypatch)
        assert first.exit_code == 0, first.output
        noted = _note(out)
        assert len(noted) >= 2 and [b["id"] for b in noted] == sorted(set(server.batches) - before)
        asked = [key for b in noted for key in b["custom_ids"]]
        assert asked == [r["custom_id"] for b in noted for r in server.batches[b["id"]].requests]
        assert sorted(asked) == sorted([*made["custom_ids"], *pending["custom_ids"]])
        for this, following in zip(noted, [*noted[1:], None], strict=True):
            sizes, whole = _sent(api, server, this["id"])
            assert whole == sum(sizes) + (0 if api == "openai" else 14)
            assert sum(sizes) <= room and whole <= kind.max_bytes * kind.fill
            if following is not None:  # the next batch's first request did not fit
                assert sum(sizes) + _sent(api, server, following["id"])[0][0] > room
        server.finish()
        done = _hyoka(args, tmp_path / "c2", monkeypatch)
        assert done.exit_code == 0, done.output
        assert _by_id(out) == _by_id(tmp_path / "online.jsonl")

        # a request larger than one batch may hold: one line naming it, nothing sent
        monkeypatch.setattr(kind, "max_bytes", 200)
        sent = server.calls("POST", "/v1/")
        out = tmp_path / "too-big.jsonl"
        refused = _hyoka([*_judge_args(api, server, out), "--batch"], tmp_path / "c3",
                         monkeypatch)  # fmt: skip
        assert refused.exit_code == 1, refused.output
        said = refused.stderr.splitlines()[-1]
        assert said.startswith(f"error: --batch: {api}/judge: request "), said
        assert f" bytes as a batch sends it, more than one batch may hold ({kind.room()} " in said
        assert server.calls("POST", "/v1/") == sent
        side = out.with_name(out.name + ".manifest.json")
        assert not side.exists() or not _manifest(out).get("notes", {}).get("batches")
