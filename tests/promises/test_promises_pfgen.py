"""What ``hyoka pfgen`` promises under bad input, faults and kills (issue 11, pfgen cases).

A catalogue: each test is one promise, checked on real files and real processes, and each
failed before the fix it guards (the case number is issue 11's).

- #3  a killed scorer leaves no worker process behind;
- #4  one bad run never aborts a batch: the others are scored, the bad ones named;
- #10 a run hyoka cannot read is reported, and the exit code says so;
- #11 ``--force`` without config.json keeps the settings the earlier result recorded;
- #12 a lone surrogate, JSON nested too deeply, a result.json claiming the run's hashes but
      holding no scores: one clear line naming the file (and line), exit 1, no traceback;
- #15 a run is labelled with its config's model name, not with the folder above it.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, writable_run_copy
from hyoka.cli.main import app
from hyoka.pfgen import PfgenBenchmark, RunReport, iter_score_runs

SMALL = "openai/chatgpt-o1/9a61e92"  # one trial: quick to copy and score
BIG = ["01-ai/Yi-1.5-9B/2ff65a8", "01-ai/Yi-1.5-34B/45cef0a"]  # 5,000 answers each
QUESTION_DIR = SHARED_DATA / "pfgen-bench" / "data"


@pytest.fixture(scope="module")
def question() -> str:
    text: str = json.loads((QUESTION_DIR / "Q01.json").read_text(encoding="utf-8"))["question"]
    return text


def _trials(folder: Path, *lines: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "trials.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _line(question: str, answer: str = "時計の針は22回重なります。") -> str:
    record = {"question": question, "answer": answer, "timestamp": "2025-01-01T00:00:00"}
    return json.dumps(record)  # ASCII escapes: a lone surrogate becomes "\\udfff"


def _score(*args: str) -> Any:
    return CliRunner().invoke(app, ["pfgen", "score", *args])


def _errors(output: Any) -> list[str]:
    """The ``error:`` lines of a command's stderr; a traceback fails the test."""
    assert output.exception is None or isinstance(output.exception, SystemExit), output.output
    assert "Traceback" not in output.stderr
    return [line for line in output.stderr.splitlines() if line.startswith("error:")]


# --- #3: workers die with their parent ------------------------------------------------------


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped is dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_3_kill_9_of_the_scorer_leaves_no_worker_alive(
    tmp_path: Path, index_cache_dir: Path, benchmark: Any
) -> None:
    benchmark.scorers(benchmark.questions)  # a warm index cache: the workers are the scorers
    for run in BIG:
        writable_run_copy(run, tmp_path / "runs")
    env = {
        **os.environ,
        "HYOKA_DATA_DIR": str(SHARED_DATA),
        "HYOKA_CACHE_DIR": str(index_cache_dir),
    }
    command = [sys.executable, "-m", "hyoka", "pfgen", "score", "--force", "--workers", "2"]
    process = subprocess.Popen(
        [*command, str(tmp_path / "runs")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while not workers and time.monotonic() < deadline and process.poll() is None:
            workers = _children(process.pid)
            time.sleep(0.02)
        assert workers, "the scorer never started its worker processes"
        time.sleep(0.5)  # let the pool start all of its workers, then note them all
        workers = sorted({*workers, *_children(process.pid)})
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    survivors = [pid for pid in workers if _alive(pid)]
    for pid in survivors:  # leave nothing behind, even when the promise is broken
        os.kill(pid, signal.SIGKILL)
    assert survivors == []


def test_3_each_worker_writes_its_run_and_sends_back_only_a_report(
    tmp_path: Path, benchmark: PfgenBenchmark
) -> None:
    """Runs spread over forked workers: each worker reads, scores, aggregates and writes its
    own run; what crosses back to the parent is a ``RunReport`` of a few hundred bytes, not
    the result (its samples and the earlier result.json, tens of KB)."""
    runs = [writable_run_copy(SMALL, tmp_path / name) for name in ("a", "b", "c")]
    reports = dict(iter_score_runs(runs, benchmark, force=True, workers=2))
    assert sorted(reports) == sorted(runs)
    for run, report in reports.items():
        assert isinstance(report, RunReport), report
        result = json.loads((run / "result.json").read_text(encoding="utf-8"))
        assert (report.summary.score, report.skipped) == (result["score"], False)
        assert len(pickle.dumps(report)) < 4_000 < (run / "result.json").stat().st_size // 10


# --- #4 and #10: each run succeeds or fails alone -------------------------------------------


@pytest.mark.usefixtures("hyoka_env")
def test_4_one_bad_run_never_aborts_a_batch(tmp_path: Path, question: str) -> None:
    good = writable_run_copy(SMALL, tmp_path)
    (good / "result.json").unlink()
    surrogate = _trials(tmp_path / "bad" / "surrogate", _line(question), _line(question, "\ud800"))
    malformed = tmp_path / "bad" / "malformed" / "trials.jsonl"
    _trials(malformed.parent, _line(question), '{"question": "x", "answer": ')
    outcome = _score(str(tmp_path))
    assert outcome.exit_code == 1
    errors = sorted(_errors(outcome))  # reported as each run is done, in any order
    assert len(errors) == 2, outcome.stderr
    assert f"{malformed}:2: malformed JSON" in errors[0]
    assert f"{surrogate}:2: lone surrogate \\ud800" in errors[1]
    assert (good / "result.json").is_file()
    assert not (surrogate.parent / "result.json").exists()
    assert not (malformed.parent / "result.json").exists()


@pytest.mark.usefixtures("hyoka_env")
def test_10_an_unreadable_run_is_reported_and_fails_the_command(tmp_path: Path) -> None:
    good = writable_run_copy(SMALL, tmp_path)
    looping = tmp_path / "org" / "looping" / "abc1234"
    looping.mkdir(parents=True)
    (looping / "trials.jsonl.xz").symlink_to("trials.jsonl.xz")  # a link to itself
    outcome = _score(str(tmp_path), "--force")
    assert outcome.exit_code == 1
    (error,) = _errors(outcome)
    assert error.startswith(f"error: {looping / 'trials.jsonl.xz'}: cannot read")
    assert json.loads((good / "result.json").read_text(encoding="utf-8"))["signature"]


# --- #11: --force without config.json --------------------------------------------------------


@pytest.mark.usefixtures("hyoka_env")
def test_11_force_without_config_keeps_the_recorded_settings(tmp_path: Path) -> None:
    folder = writable_run_copy(SMALL, tmp_path)
    recorded = json.loads((folder / "result.json").read_text(encoding="utf-8"))["config"]
    (folder / "config.json").unlink()
    outcome = _score(str(folder), "--force", "--json")
    assert outcome.exit_code == 0, outcome.output
    (row,) = json.loads(outcome.stdout)
    assert row["mode"] == recorded["mode"] == "qa"
    assert json.loads((folder / "result.json").read_text(encoding="utf-8"))["config"] == recorded


# --- #12: one clear line, never a traceback -------------------------------------------------


@pytest.mark.usefixtures("hyoka_env")
def test_12_a_lone_surrogate_in_an_answer(tmp_path: Path, question: str) -> None:
    path = _trials(tmp_path / "run", _line(question), _line(question, "答え\udfff"))
    outcome = _score(str(path.parent))
    assert outcome.exit_code == 1
    assert _errors(outcome) == [
        f"error: {path}:2: lone surrogate \\udfff in a string (not valid Unicode text)"
    ]
    assert not (path.parent / "result.json").exists()


@pytest.mark.usefixtures("hyoka_env")
def test_12_deeply_nested_json_in_a_trials_line(tmp_path: Path, question: str) -> None:
    nested = '{"question": "q", "answer": "a", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = _trials(tmp_path / "run", _line(question), nested)
    outcome = _score(str(path.parent))
    assert outcome.exit_code == 1
    assert _errors(outcome) == [f"error: {path}:2: JSON nested too deeply to read"]


@pytest.mark.usefixtures("hyoka_env")
def test_12_deeply_nested_existing_result_json_is_named_and_kept(tmp_path: Path) -> None:
    folder = writable_run_copy(SMALL, tmp_path)
    deep = "[" * 100_000 + "]" * 100_000
    (folder / "result.json").write_text(deep, encoding="utf-8")
    outcome = _score(str(folder), "--force")
    assert outcome.exit_code == 1
    assert _errors(outcome) == [
        f"error: {folder / 'result.json'}: result is JSON nested too deeply to read"
    ]
    assert (folder / "result.json").read_text(encoding="utf-8") == deep


def test_12_deeply_nested_result_json_under_a_leaderboard_folder(tmp_path: Path) -> None:
    writable_run_copy(SMALL, tmp_path)
    deep = tmp_path / "org" / "deep" / "abc1234" / "result.json"
    deep.parent.mkdir(parents=True)
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    outcome = CliRunner().invoke(app, ["pfgen", "leaderboard", str(tmp_path), "-f", "csv"])
    assert outcome.exit_code == 0, outcome.output
    assert f"{deep}: skipped: result is JSON nested too deeply to read" in " ".join(
        outcome.stderr.split()
    )
    assert "openai/chatgpt-o1" in outcome.stdout


@pytest.mark.usefixtures("hyoka_env")
def test_12_a_result_with_the_run_hashes_but_no_scores(tmp_path: Path) -> None:
    folder = writable_run_copy(SMALL, tmp_path)
    published = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    hollow = {k: published[k] for k in ("input_hash", "metadata_hash")}
    (folder / "result.json").write_text(json.dumps(hollow), encoding="utf-8")
    outcome = _score(str(folder))
    assert outcome.exit_code == 1
    assert _errors(outcome) == [
        f"error: {folder / 'result.json'}: records this run's hashes but cannot be kept as its "
        "result: not a pfgen-bench result (no 'num_trials', 'score', 'score_std', 'length', "
        "'length_std', 'scores', 'questions'); rescore with --force to replace it"
    ]
    assert json.loads((folder / "result.json").read_text(encoding="utf-8")) == hollow
    assert _score(str(folder), "--force").exit_code == 0  # the way out the message names


# --- #15: labels from config.json -----------------------------------------------------------


@pytest.mark.usefixtures("hyoka_env")
def test_15_a_one_part_model_name_is_labelled_by_its_config(tmp_path: Path) -> None:
    source = writable_run_copy(SMALL, tmp_path / "src")
    folder = tmp_path / "results" / "fake" / "abc1234"  # as `pfgen generate -m openai/fake`
    shutil.copytree(source, folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, "model": "fake"}), encoding="utf-8")
    (folder / "result.json").unlink()
    outcome = _score(str(tmp_path / "results"), "--json")
    assert outcome.exit_code == 0, outcome.output
    (row,) = json.loads(outcome.stdout)
    assert row["model"] == "fake"


# --- #9: an incomplete run is said to be one ------------------------------------------------


@pytest.mark.usefixtures("hyoka_env")
def test_9_an_incomplete_run_is_marked_and_not_ranked_among_complete_ones(
    tmp_path: Path, question: str
) -> None:
    """One question answered (as `--limit 1` leaves a run) scores far above a whole public
    run, yet is listed after it, marked in every format, and unranked."""
    whole = writable_run_copy(SMALL, tmp_path)
    partial = tmp_path / "me" / "partial" / "abc1234"
    _trials(partial, _line(question, "時計の長針と短針は1日に22回重なります。"))
    (partial / "config.json").write_text(json.dumps({"model": "me/partial", "mode": "chat"}))
    assert _score(str(partial)).exit_code == 0
    board = CliRunner().invoke(app, ["pfgen", "leaderboard", str(tmp_path), "--format", "json"])
    assert board.exit_code == 0, board.output
    runs = json.loads(board.stdout)["runs"]
    by_model = {r["model"]: r for r in runs}
    mine = by_model["me/partial"]
    assert mine["score"] > runs[0]["score"]  # it would lead a ranking that ignored this
    assert [r["model"] for r in runs][-1] == "me/partial"
    assert (mine["rank"], mine["complete"], mine["questions"]) == (None, False, 1)
    assert runs[0]["rank"] == 1 and runs[0]["complete"] is True
    assert runs[0]["folder"] == str(whole)
    markdown = CliRunner().invoke(app, ["pfgen", "leaderboard", str(tmp_path)]).stdout
    row = next(line for line in markdown.splitlines() if "me/partial" in line)
    assert row.startswith("| N/A |") and "[incomplete: 1 of 50 questions]" in row
    csv_text = (
        CliRunner().invoke(app, ["pfgen", "leaderboard", str(tmp_path), "--format", "csv"]).stdout
    )
    csv_row = next(line for line in csv_text.splitlines() if "me/partial" in line)
    assert csv_row.startswith("N/A,me/partial,chat,") and ",1," in csv_row
