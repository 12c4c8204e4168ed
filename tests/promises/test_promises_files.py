"""Promises about the files hyoka writes and reads, kept by the store for every caller.

- One writer per log: a second run on a judgment file (two real ``hyoka judge single``
  processes) stops with one line naming the first, makes no call, and the file stays valid.
- A full disk is one ``error:`` line, and a record that does not fit leaves the file as it
  was (a real 64 KiB tmpfs, mounted by the test, really fills).
- A decompression bomb as ``trials.jsonl.xz`` is refused unread, naming the file, with
  memory bounded (a real bomb, built here, inflated in a process under ``RLIMIT_AS``).
- A trial line repeated is counted once; two different lines for one answer are an error.
"""

from __future__ import annotations

import gzip
import json
import lzma
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

import hyoka
from _shared import SHARED_DATA, needs
from _shared import small_disk as shared_small_disk
from hyoka.cli.main import app
from hyoka.errors import HyokaWarning, InputError
from hyoka.judge import read_judgments
from hyoka.store import (
    FileBusyError,
    JsonlLog,
    Manifest,
    TooLargeError,
    WriteError,
    atomic_write_text,
    decompress_bounded,
    read_jsonl,
    writer_lock,
)
from hyoka.store import compressed as compressed_store
from hyoka.store.pfgen_runs import read_trials
from replay_judge_server import ReplayJudge

SRC = Path(hyoka.__file__).resolve().parents[1]
PUBLISHED_RUN = SHARED_DATA / "pfgen-bench/results/sbintuitions/sarashina2-8x70b/0a74f0a"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def _answers(path: Path, count: int = 2, answer: str = "わかりません。") -> Path:
    rows = [
        {"id": f"q{i}", "question": f"質問{i}は？", "reference": "参照。", "answer": answer}
        for i in range(count)
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


# --- one writer per log ---------------------------------------------------------------------


def test_a_second_run_on_one_judgment_file_stops_naming_the_first(tmp_path: Path) -> None:
    """Two real ``judge single`` processes on one ``--output``: the first holds the file
    (its calls held open by the judge server), the second waits its bounded time and stops
    with one line naming the first's pid and host, having made no call; the first then
    finishes and the file holds one valid record per item."""
    answers = _answers(tmp_path / "answers.jsonl")
    output = tmp_path / "j.jsonl"
    gate = threading.Event()
    with ReplayJudge({}, missing_reply="Rating: [[7]]", gate=gate) as server:
        command = [sys.executable, "-m", "hyoka", "judge", "single", str(answers),
                   "-j", "openai/judge", "--base-url", server.base_url, "--no-cache",
                   "--output", str(output)]  # fmt: skip
        first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=_env())  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while len(server.received) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(server.received) == 2, "the first run never asked the judge"
            started = time.monotonic()
            second = subprocess.run(command, capture_output=True, text=True, env=_env(),
                                    timeout=120)  # fmt: skip
            waited = time.monotonic() - started
            calls_during_second = len(server.received)
        finally:
            gate.set()
            _, first_err = first.communicate(timeout=120)
        # a third run, once the first has ended, continues the file: nothing to judge
        again = CliRunner().invoke(app, command[3:])
    assert first.returncode == 0, first_err
    assert second.returncode == 1
    errors = [line for line in second.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {output}: process {first.pid} on {socket.gethostname()} is writing this "
        "log (waited 3 s); two runs on one file would corrupt it: wait for "
        "that run to end, or choose another output"
    ], second.stderr
    assert "Traceback" not in second.stderr
    assert waited >= 3.0
    assert calls_during_second == 2 and len(server.received) == 2  # the others paid nothing
    assert again.exit_code == 0, again.output
    records = read_judgments(output)
    assert sorted(r.id for r in records) == ["q0", "q1"]
    assert all(r.score == 7 for r in records)
    assert not list(tmp_path.glob(".j.jsonl.hyoka-lock"))  # released and removed


def test_a_second_generation_into_one_pfgen_run_stops_naming_the_first(tmp_path: Path) -> None:
    """Two real ``pfgen generate`` processes into one run folder: the second stops with one
    line naming the first before asking the model anything; the first writes its trial."""
    results = tmp_path / "results"
    gate = threading.Event()
    with ReplayJudge({}, missing_reply="わかりません。", gate=gate) as server:
        command = [sys.executable, "-m", "hyoka", "pfgen", "generate", "-m", "openai/m",
                   "--base-url", server.base_url, "--no-cache", "--trials", "1", "--limit", "2",
                   "--num-examples", "0", "--results-dir", str(results)]  # fmt: skip
        env = {**_env(), "HYOKA_DATA_DIR": str(SHARED_DATA)}
        first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=env)  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while len(server.received) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(server.received) == 2, "the first run never asked the model"
            second = subprocess.run(command, capture_output=True, text=True, env=env,
                                    timeout=120)  # fmt: skip
            calls_during_second = len(server.received)
        finally:
            gate.set()
            _, first_err = first.communicate(timeout=120)
    assert first.returncode == 0, first_err
    assert second.returncode == 1, second.stderr
    errors = [line for line in second.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"trials.jsonl.xz: process {first.pid} on " in errors[0]
    assert "is writing this pfgen run" in errors[0] and "Traceback" not in second.stderr
    assert calls_during_second == 2
    (trial,) = results.rglob("trial_001.jsonl")
    assert len(trial.read_text("utf-8").splitlines()) == 2
    assert not list(results.rglob("*.hyoka-lock"))


class _Row(BaseModel):
    id: str
    text: str


def _log(path: Path, wait: float = 0.2) -> JsonlLog[_Row]:
    manifest = Manifest(kind="rows", identity={"v": 1})
    return JsonlLog.open(path, manifest, _Row, key=lambda r: r.id, lock_wait=wait)


def test_a_log_is_held_by_one_writer_until_it_is_closed(tmp_path: Path) -> None:
    """In one process too: a second open of an open log is refused, naming this process;
    after ``close`` it opens and sees the first writer's records."""
    path = tmp_path / "rows.jsonl"
    with _log(path) as log:
        log.append(_Row(id="a", text="x"))
        with pytest.raises(FileBusyError, match=rf"process {os.getpid()} on "):
            _log(path)
        log.append(_Row(id="b", text="y"))
    with _log(path) as again:
        assert sorted(map(str, again.records)) == ["a", "b"]


# --- full disks -----------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB tmpfs, mounted for the test and unmounted after it."""
    with shared_small_disk(tmp_path, "64k") as mount:
        yield mount


def _fill(disk: Path, leave: int) -> Path:
    """Fill ``disk`` until about ``leave`` bytes are free (whole pages); the filler file."""
    filler = disk / "filler"
    stats = os.statvfs(disk)
    free = stats.f_bavail * stats.f_frsize
    filler.write_bytes(b"\0" * max(0, free - leave))
    return filler


def test_a_record_that_does_not_fit_leaves_the_log_as_it_was(small_disk: Path) -> None:
    """The disk takes part of a 20 KB record (``write`` returns short): the store cuts
    the file back and says so in one error; after space is freed the next record follows
    the last whole one, so the log reads back whole."""
    path = small_disk / "rows.jsonl"
    with _log(path) as log:
        log.append(_Row(id="a", text="first"))
        before = path.read_bytes()
        filler = _fill(small_disk, leave=8192)
        with pytest.raises(WriteError, match=r"rows\.jsonl: cannot write: No space left"):
            log.append(_Row(id="b", text="x" * 20_000))
        assert path.read_bytes() == before  # not a torn line
        filler.unlink()
        log.append(_Row(id="c", text="third"))
    assert [r.id for r in read_jsonl(path, _Row, key=lambda r: r.id)] == ["a", "c"]


def test_an_atomic_write_on_a_full_disk_keeps_the_old_file(small_disk: Path) -> None:
    target = small_disk / "result.json"
    target.write_text('{"old": true}\n')
    _fill(small_disk, leave=4096)
    with pytest.raises(WriteError, match=r"result\.json: cannot write: No space left"):
        atomic_write_text(target, "x" * 40_000)
    assert target.read_text() == '{"old": true}\n'
    assert [p.name for p in small_disk.iterdir() if p.name != "filler"] == ["result.json"]


def test_judge_single_on_a_full_disk_is_one_error_line(small_disk: Path, tmp_path: Path) -> None:
    """Judgments too long for the disk: one ``error:`` line saying the file is as it was,
    exit 1, no traceback; what fitted is kept, whole, and the run continues once there is
    room."""
    answers = _answers(tmp_path / "answers.jsonl", count=3)
    output = small_disk / "j.jsonl"
    reply = "Rating: [[7]] " + "理由。" * 800  # each judgment line about 7.5 KB
    with ReplayJudge({}, missing_reply=reply) as server:
        judge = ["judge", "single", str(answers), "-j", "openai/judge", "--base-url",
                 server.base_url, "--no-cache", "--concurrency", "1",
                 "--output", str(output)]  # fmt: skip
        filler = _fill(small_disk, leave=12_288)
        result = CliRunner().invoke(app, judge)
        assert result.exit_code == 1, result.output
        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and "j.jsonl: cannot write: No space left on device" in errors[0]
        assert "free some space and run the same command again" in errors[0]
        assert result.exception is None or isinstance(result.exception, SystemExit)
        kept = read_judgments(output)  # whole lines only, or this raises
        assert len(kept) < 3
        filler.unlink()
        again = CliRunner().invoke(app, judge)
        assert again.exit_code == 0, again.output
    assert sorted(r.id for r in read_judgments(output)) == ["q0", "q1", "q2"]


# --- bounded decompression ------------------------------------------------------------------


def _bomb(path: Path, inflated: int) -> Path:
    """An xz file of ``inflated`` zero bytes: one stream of 16 MiB of zeros, compressed
    once and written again and again (xz reads concatenated streams as one file, as hyoka
    does), so making a 4 GiB bomb costs a second, not the 20 s of compressing 4 GiB."""
    piece = 16 << 20
    stream = lzma.compress(b"\0" * piece, preset=0)
    whole, rest = divmod(inflated, piece)
    with path.open("wb") as handle:
        for _ in range(whole):
            handle.write(stream)
        if rest:
            handle.write(lzma.compress(b"\0" * rest, preset=0))
    return path


def test_an_xz_bomb_is_refused_naming_the_file(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    bomb = _bomb(run / "trials.jsonl.xz", 200 << 20)  # just past the bound (195 MiB)
    assert bomb.stat().st_size < 64 << 10
    with pytest.raises(InputError, match=r"trials\.jsonl\.xz: inflates past 1,000,000 bytes"):
        read_trials(bomb, limit=1_000_000)
    # the command line: one line, exit 1, for score and verify (of a contributed run) alike
    shutil.copy(PUBLISHED_RUN / "result.json", run / "result.json")
    for command in (["pfgen", "score", str(run)], ["pfgen", "verify", str(run)]):
        result = CliRunner().invoke(app, command, env={"HYOKA_DATA_DIR": str(SHARED_DATA)})
        assert result.exit_code == 1, result.output
        assert "trials.jsonl.xz: inflates past 204,800,000 bytes" in result.output, result.output


@pytest.mark.parametrize("codec", ["xz", "gzip"])
def test_every_codec_is_inflated_within_its_bound(codec: str) -> None:
    """The one store function every compressed input goes through (pfgen trials, refset
    pools and shard frames): whole data within the bound, concatenated streams, a bomb
    refused, a cut stream one clear line."""

    def pack(data: bytes) -> bytes:
        return lzma.compress(data) if codec == "xz" else gzip.compress(data)

    text = "答え\n".encode() * 10_000
    assert decompress_bounded(pack(text) + pack(text), codec, limit=2 * len(text),
                              where="f", what="x") == text + text  # fmt: skip
    with pytest.raises(TooLargeError, match="f: inflates past 1,000,000 bytes, more than x"):
        decompress_bounded(pack(b"\0" * (10 << 20)), codec, limit=1_000_000, where="f", what="x")
    with pytest.raises(InputError, match=f"f: corrupt {codec} data"):
        decompress_bounded(pack(text)[:-12], codec, limit=len(text), where="f", what="x")


@pytest.mark.parametrize("chunk", [1, 7, 64, 4096])
def test_concatenated_streams_are_read_wherever_a_chunk_ends(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream that ends exactly where an input chunk ends is followed by the next one,
    never read as corrupt (the chunk size is lowered so that every boundary is tried)."""
    monkeypatch.setattr(compressed_store, "_CHUNK", chunk)
    first, second = "一つ目\n".encode() * 40, "二つ目\n".encode() * 30
    data = lzma.compress(first) + lzma.compress(second)
    assert decompress_bounded(data, "xz", limit=10_000, where="f", what="x") == first + second


def test_a_lock_taken_on_a_full_disk_still_holds_and_is_released(small_disk: Path) -> None:
    """The holder's pid line does not fit on the full disk: the lock is taken all the same
    (the line only words another writer's message), and released for the next writer."""
    _fill(small_disk, leave=0)
    target = small_disk / "j.jsonl"
    with (
        writer_lock(target, what="log", timeout=0.5),
        pytest.raises(FileBusyError),
        writer_lock(target, what="log", timeout=0.2),
    ):
        pass
    with writer_lock(target, what="log", timeout=0.5):
        pass
    assert [p.name for p in small_disk.iterdir()] == ["filler"]


BOMB_READER = """
import resource, sys
from pathlib import Path
limit = 400 << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from hyoka.errors import InputError
from hyoka.store.pfgen_runs import read_trials
try:
    read_trials(Path(sys.argv[1]), limit=50 << 20)
except InputError as exc:
    print("refused:", exc)
peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print("peak KiB:", peak[0].split()[1])  # this process's peak resident memory
"""


@pytest.mark.slow
def test_a_4_gib_bomb_is_refused_within_bounded_memory(tmp_path: Path) -> None:
    """The issue's bomb (4 GiB of zeros in 256 concatenated xz streams, ~650 KB), read in a
    process whose address space is capped at 400 MiB: refused at its bound (50 MiB here),
    never a ``MemoryError``, with a peak resident memory under 200 MiB."""
    bomb = _bomb(tmp_path / "trials.jsonl.xz", 4 << 30)
    assert bomb.stat().st_size < 1 << 20
    done = subprocess.run([sys.executable, "-c", BOMB_READER, str(bomb)], capture_output=True,
                          text=True, env=_env(), timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "refused:" in done.stdout and "inflates past 52,428,800 bytes" in done.stdout
    peak_kib = int(done.stdout.split("peak KiB:")[1])
    assert peak_kib < 200 << 10, done.stdout


def test_a_published_run_reads_within_its_bound() -> None:
    trials = read_trials(PUBLISHED_RUN / "trials.jsonl.xz")
    assert len(trials.records) == 5000


# --- doubled trial lines --------------------------------------------------------------------


def _lines(run: Path) -> list[bytes]:
    return lzma.decompress((run / "trials.jsonl.xz").read_bytes()).splitlines(keepends=True)


def _two_trials(run: Path) -> list[bytes]:
    """Two answers per question of a published run (100 lines: fast to score)."""
    kept: dict[str, list[bytes]] = {}
    for line in _lines(PUBLISHED_RUN):
        answers = kept.setdefault(json.loads(line)["question"], [])
        if len(answers) < 2:
            answers.append(line)
    run.mkdir()
    return sorted(line for answers in kept.values() for line in answers)


def _score(run: Path) -> tuple[dict[str, object], str]:
    result = CliRunner().invoke(app, ["pfgen", "score", str(run), "--workers", "1"])
    assert result.exit_code == 0, result.output
    return json.loads((run / "result.json").read_text("utf-8")), result.output


def test_doubled_trial_lines_are_counted_once(tmp_path: Path, hyoka_env: None) -> None:
    """A run whose every line appears twice reads as the run itself, with one warning, and
    scores as it does: ``num_trials`` 2, not 4, and the same score and deviation."""
    once, twice = tmp_path / "once", tmp_path / "twice"
    lines = _two_trials(once)
    _two_trials(twice)
    (once / "trials.jsonl").write_bytes(b"".join(lines))
    (twice / "trials.jsonl").write_bytes(b"".join(sorted(lines + lines)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trials = read_trials(twice / "trials.jsonl")
    assert len(trials.records) == 100
    assert [str(w.message) for w in caught if w.category is HyokaWarning] == [
        f"{twice / 'trials.jsonl'}: 100 identical duplicate trial line(s) dropped"
    ]
    expected, _ = _score(once)
    scored, output = _score(twice)
    assert "100 identical duplicate trial line(s) dropped" in output
    assert scored["num_trials"] == expected["num_trials"] == 2
    for key in ("score", "score_std", "length", "length_std"):
        assert scored[key] == expected[key], key


def test_lines_alike_but_for_one_field_are_both_kept(tmp_path: Path) -> None:
    """Only lines equal as JSON are duplicates: two with the same question, answer and time
    that differ in any other field (key order aside) are two lines."""
    base = {"question": "Q", "answer": "A", "timestamp": "2025-01-01T00:00:00"}
    lines = [
        json.dumps({**base, "seed": 1}),
        json.dumps({**base, "seed": 2}),
        json.dumps({"seed": 1, **base}),  # the first line, keys in another order: dropped
        json.dumps({**base, "seed": 2, "model": "m"}),
    ]
    path = tmp_path / "trials.jsonl"
    path.write_text("".join(line + "\n" for line in sorted(lines)), encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trials = read_trials(path)
    assert sorted(json.dumps(r, sort_keys=True) for r in trials.records) == sorted(
        json.dumps(json.loads(line), sort_keys=True) for line in lines[:2] + lines[3:]
    )
    assert [str(w.message) for w in caught] == [
        f"{path}: 1 identical duplicate trial line(s) dropped"
    ]


def test_two_answers_to_one_question_in_one_trial_are_an_error_naming_both(
    tmp_path: Path,
) -> None:
    one_per_question = {json.loads(line)["question"]: line for line in _lines(PUBLISHED_RUN)}
    lines = list(one_per_question.values())[:3]
    record = json.loads(lines[1])
    changed = json.dumps({**record, "answer": "別の答え"}, ensure_ascii=False).encode() + b"\n"
    run = tmp_path / "run"
    run.mkdir()
    part = run / "trial_001.jsonl"
    part.write_bytes(b"".join([*lines, changed]))
    with pytest.raises(InputError, match=rf"trial_001\.jsonl:4: a second, different answer "
                       rf".* in one trial \(first at {part}:2\)"):  # fmt: skip
        read_trials(run)
    # in a merged file the two are two answers (of two trials), both kept
    (run / "trial_001.jsonl").unlink()
    merged = run / "trials.jsonl"
    merged.write_bytes(b"".join([*lines, changed]))
    assert len(read_trials(merged).records) == 4


# --- report inputs and stale temporary files ------------------------------------------------


def test_report_inputs_are_read_by_the_store(tmp_path: Path, hyoka_env: None) -> None:
    """A line nested 100,000 deep is one note naming file and line (was a RecursionError
    traceback), and a ``judge single`` output is shown as single grading (was "not a pfgen
    run or judgment file", then skipped by name)."""
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "deep.jsonl").write_text('{"a":' * 100_000 + "1" + "}" * 100_000 + "\n")
    single = inputs / "single.jsonl"
    answers = _answers(tmp_path / "answers.jsonl", count=1)
    with ReplayJudge({}, missing_reply="Rating: [[7]]") as server:
        judged = CliRunner().invoke(app, ["judge", "single", str(answers), "-j", "openai/j",
                                          "--base-url", server.base_url, "--no-cache",
                                          "--output", str(single)])  # fmt: skip
        assert judged.exit_code == 0, judged.output
    result = CliRunner().invoke(app, ["report", str(inputs), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    notes = [line for line in result.output.splitlines() if line.startswith("note:")]
    assert f"note: {inputs / 'deep.jsonl'}:1: JSON nested too deeply to read (skipped)" in notes
    assert not [line for line in notes if str(single) in line]
    assert "single.jsonl" in (tmp_path / "site" / "mtbench" / "index.html").read_text("utf-8")


def test_an_older_hyokas_stale_temporary_file_is_cleaned(tmp_path: Path) -> None:
    """``.result.json.<8 random>.tmp`` (an older hyoka's mkstemp name, no pid in it) is
    removed by the next write once it is an hour old; a recent one, and files of other
    names, are left alone."""
    target = tmp_path / "result.json"
    old = tmp_path / ".result.json.k3x_9q2a.tmp"
    recent = tmp_path / ".result.json.p0zz81mb.tmp"
    other = tmp_path / ".result.json.my-notes.tmp"
    for path in (old, recent, other):
        path.write_text("partial")
    hours_ago = time.time() - 2 * 3600
    os.utime(old, (hours_ago, hours_ago))
    os.utime(other, (hours_ago, hours_ago))
    atomic_write_text(target, "{}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["result.json", recent.name, other.name]
    )


def test_an_answer_file_concatenated_twice_is_read_once(tmp_path: Path) -> None:
    """Answer files follow the store's one duplicate rule (``unique_records``), as logs do:
    the same line twice is read once with a warning; two different answers under one id
    are an error naming both lines (was "appears twice" even for identical lines)."""
    from hyoka.judge.pair_answers import read_answers

    answers = _answers(tmp_path / "answers.jsonl", count=2)
    doubled = tmp_path / "doubled.jsonl"
    doubled.write_bytes(answers.read_bytes() * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert list(read_answers(doubled)) == ["q0", "q1"]
    assert [str(w.message) for w in caught if w.category is HyokaWarning] == [
        f"{doubled}: 2 identical duplicate line(s) dropped"
    ]
    conflicting = tmp_path / "conflicting.jsonl"
    conflicting.write_bytes(
        answers.read_bytes() + _answers(tmp_path / "b.jsonl", 1, "別").read_bytes()
    )
    with pytest.raises(InputError, match=r"conflicting\.jsonl:3: a second, different record "
                       r"for id q0 \(first at line 1\)"):  # fmt: skip
        read_answers(conflicting)


def test_a_plot_is_written_through_the_store(tmp_path: Path) -> None:
    """The PNG of a scatter plot is drawn in memory and written by the store: a plot file
    made read-only is kept (as every other output is), and no temporary file is left."""
    needs("matplotlib")
    needs("plotly")
    from hyoka.report import ScatterPoint, ScatterSpec, write_scatter

    spec = ScatterSpec(
        points=[ScatterPoint(0.1, 0.2, "a"), ScatterPoint(0.5, 0.4, "b")],
        x_title="x", y_title="y", title="t",
    )  # fmt: skip
    png, html = write_scatter(spec, tmp_path / "plot")
    assert png.read_bytes().startswith(b"\x89PNG") and html.stat().st_size > 0
    kept = png.read_bytes()
    png.chmod(0o444)  # hyoka's own plot, made read-only
    with pytest.raises(InputError, match="read-only"):
        write_scatter(spec, tmp_path / "plot")
    assert png.read_bytes() == kept
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".plot.html.hyoka-output.json",  # the records that hyoka wrote them (write_output)
        ".plot.png.hyoka-output.json",
        "plot.html",
        "plot.png",
    ]
