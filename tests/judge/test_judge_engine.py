"""The judging engine: one loop, one store, whatever the protocol or benchmark."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pandas  # type: ignore[import-untyped]
import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka._gc_pause import RELAXED_YOUNG
from hyoka.cli.main import app
from hyoka.mtbench import Bench, load_answers
from hyoka.mtbench.judge import user_prompt
from replay_judge_server import ReplayJudge

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
SRC = Path(__file__).resolve().parents[2] / "src"
#: runs ``hyoka ARGS...`` in this process, then says whether the openai SDK was imported
_RUN_AND_LIST_SDK = """
import sys
from hyoka.cli.main import app
try:
    app(sys.argv[1:], prog_name="hyoka")
except SystemExit as exc:
    if exc.code:
        raise
print("openai loaded:", "openai" in sys.modules)
"""
ANSWERS = FIN / "model_answer" / "gpt-4.jsonl"


def _mtbench_judge(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["mtbench", "judge", *args])
    return result.exit_code, " ".join(result.output.split())


def test_a_second_judge_never_continues_the_first_judges_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Judge A then judge B on the same answers: B judges every turn itself (its own default
    folder), and B pointed at A's folder stops before any call, naming the difference."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-checked")
    results = tmp_path / "results"
    common = ["-a", str(ANSWERS), "--limit", "1", "--lang-check", "script", "--no-cache",
              "--results-dir", str(results)]  # fmt: skip
    with ReplayJudge({}, missing_reply="評価: [[7]]") as judge:
        url = ["--base-url", judge.base_url]
        code, text = _mtbench_judge("-j", "openai/judge-a", *url, *common)
        assert code == 0, text
        assert "2 turn(s) judged, 0 already done" in text
        assert len(judge.received) == 2
        code, text = _mtbench_judge("-j", "openai/judge-b", *url, *common)
        assert code == 0, text
        assert "2 turn(s) judged, 0 already done" in text  # not "2 already done"
        assert len(judge.received) == 4
        folders = sorted(p.name for p in (results / "pfmt-fin" / "model_judgment").iterdir())
        assert folders == ["judge-a_single", "judge-b_single"]
        # judge B into judge A's folder: refused before any call, A's file untouched
        a_file = results / "pfmt-fin" / "model_judgment" / "judge-a_single" / "gpt-4.jsonl"
        before = a_file.read_bytes()
        code, text = _mtbench_judge(
            "-j", "openai/judge-b", *url, *common, "--output-dir", str(a_file.parent)
        )
        assert code == 1
        assert "holds another run's records" in text and "openai/judge-a" in text
        assert "openai/judge-b" in text
        assert len(judge.received) == 4 and a_file.read_bytes() == before


def _answer_file(path: Path, model: str, turns: dict[int, tuple[str, str]]) -> Path:
    lines = [
        {"question_id": qid, "answer_id": f"{model}-{qid}", "model_id": model,
         "choices": [{"index": 0, "turns": list(pair)}], "tstamp": 1.0}
        for qid, pair in turns.items()
    ]  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_mt_bench_judgments_are_files_fastchat_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MT-bench through the same engine: FastChat's prompts and rating rules, every turn
    judged (no rules decide without a call there), and files with FastChat's fields and
    types: an integer score where the judge wrote one, ``judge`` as [name, prompt]."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-checked")
    alpha = _answer_file(tmp_path / "alpha.jsonl", "alpha", {
        81: ("Aloha from Hawaii: a week of hula and volcanoes.", "A week of aloha."),
        82: ("Dear supervisor, could you review the report?", "Short and clear."),
    })  # fmt: skip
    beta = _answer_file(tmp_path / "beta.jsonl", "beta", {
        81: ("Hawaii trip notes.", "Trip notes, again."),
        82: ("Please review my report.", ""),
    })  # fmt: skip
    results = tmp_path / "results"
    first = "Aloha from Hawaii: a week of hula and volcanoes."
    # the judge writes 8.5 for alpha's first turn, [[7]] (and [[A]]) for everything else
    bench = Bench.load("mt-bench", SHARED_DATA)
    answers = load_answers(alpha, bench)
    graded = user_prompt(bench, bench.by_id[81], answers[81], 1)
    with ReplayJudge({graded: "Rating: [[8.5]]"}, missing_reply="Rating: [[7]]. [[A]]") as judge:
        base = ["-j", "openai/gpt-4", "--base-url", judge.base_url, "--bench", "mt-bench",
                "--limit", "2", "--no-cache", "--results-dir", str(results)]  # fmt: skip
        code, text = _mtbench_judge(*base, "-a", str(alpha), "-a", str(beta))
        assert code == 0, text
        assert "8 turn(s) judged, 0 already done" in text and "8 judge call(s)" in text
        assert "signature: hyoka:" in text and "|rating:fastchat|" in text
        sent = judge.received
        assert len(sent) == 8 and all(r.temperature == 0.0 for r in sent)
        assert all(r.max_tokens == 2048 for r in sent)
        assert any(first in r.user_prompt for r in sent)
        code, text = _mtbench_judge(
            *base, "-a", str(alpha), "-a", str(beta), "--mode", "pairwise", "--method", "bs2"
        )
        assert code == 0, text
        assert "4 turn(s) judged, 0 already done" in text
    folder = results / "mt-bench" / "model_judgment"
    single = folder / "gpt-4_single" / "alpha.jsonl"
    raw = single.read_text(encoding="utf-8").splitlines()
    lines = [json.loads(line) for line in raw]
    assert set(lines[0]) == {
        "question_id", "model", "judge", "user_prompt", "judgment", "score", "turn", "tstamp",
    }  # fmt: skip
    assert [(x["question_id"], x["turn"]) for x in lines] == [(81, 1), (81, 2), (82, 1), (82, 2)]
    assert lines[0]["score"] == 8.5 and lines[0]["judgment"] == "Rating: [[8.5]]"
    assert all(type(x["score"]) is int and x["score"] == 7 for x in lines[1:])
    assert '"score": 7,' in raw[1]  # an int, as FastChat's ast.literal_eval gives it
    assert lines[1]["judge"] == ["gpt-4", "single-v1-multi-turn"]
    pair = [json.loads(x) for x in (folder / "gpt-4_pair.jsonl").read_text("utf-8").splitlines()]
    assert {"g1_winner", "g2_winner", "model_1", "model_2"} <= set(pair[0])
    # game 1 shows alpha as A, game 2 beta: [[A]] both times is a disagreement, a tie
    assert [(x["g1_winner"], x["g2_winner"], x["verdicts"]) for x in pair] == [
        ("model_1", "model_2", {"bs2": "C"})
    ] * 4
    assert pair[0]["judge"] == ["gpt-4", "pair-v2"]
    # read as FastChat's show_result reads a _single file: pandas, -1 rows left out
    frame = pandas.read_json(single, lines=True)
    rated = frame[frame["score"] != -1]
    assert float(rated.groupby("model")["score"].mean()["alpha"]) == (8.5 + 7 * 3) / 4
    # and the leaderboard over them, with the signature of how they were made
    code, text = _run("mtbench", "leaderboard", "--bench", "mt-bench", "--judgments",
                      str(folder / "gpt-4_single"), "--format", "json")  # fmt: skip
    assert code == 0, text
    rows = json.loads(text[text.index("[") :])
    assert {r["model"] for r in rows} == {"alpha", "beta"}
    assert all(r["signature"]["fields"]["rating"] == "fastchat" for r in rows)
    assert all(not r["complete"] for r in rows)  # 4 of the 160 turns


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_an_output_that_is_not_ours_is_left_byte_identical(tmp_path: Path) -> None:
    """``--output`` naming the input, or any file without hyoka's manifest: one clear line,
    no call, and the file untouched (its unterminated last line is not "repaired")."""
    answers = tmp_path / "ans.jsonl"
    rows = [{"id": str(i), "question": "q", "answer": f"a{i}", "reference": "r"} for i in range(3)]
    answers.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")  # no final \n
    before = answers.read_bytes()
    unreachable = ["-j", "openai/none", "--base-url", "http://127.0.0.1:9/v1"]
    code, text = _run("judge", "single", str(answers), *unreachable, "-t", "single-ref",
                      "--output", str(answers))  # fmt: skip
    assert code == 1 and "ans.jsonl exists and was not written by hyoka" in text
    assert answers.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"my notes\nlast line without newline")
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join(json.dumps({**r, "model": "b"}) for r in rows) + "\n", "utf-8")
    code, text = _run("judge", "pairwise", str(answers), str(other), *unreachable,
                      "--template", "pairwise-result", "--method", "bs2",
                      "--output", str(notes))  # fmt: skip
    assert code == 1 and "notes.txt exists and was not written by hyoka" in text
    assert notes.read_bytes() == b"my notes\nlast line without newline"


def test_names_from_files_and_flags_never_leave_the_results_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``model_id`` inside an answer file and a ``--judge-name`` are data: whatever they
    say, the judgment file lands inside ``--results-dir``."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    hostile = "../../../../victim/important"
    answers = _answer_file(tmp_path / "in" / "a.jsonl", hostile, {0: ("", "")})
    results = tmp_path / "deep" / "er" / "results"
    # every answer empty: pfmt's rule scores them without a call (the judge never runs)
    code, text = _mtbench_judge("-j", "openai/none", "--base-url", "http://127.0.0.1:9/v1",
                                "-a", str(answers), "--limit", "1", "--results-dir",
                                str(results), "--judge-name", hostile)  # fmt: skip
    assert code == 0, text
    assert "2 turn(s) judged" in text
    written = sorted(p for p in tmp_path.rglob("*.jsonl") if p != answers)
    assert len(written) == 1 and written[0].is_relative_to(results)
    assert not (tmp_path / "victim").exists() and not (tmp_path.parent / "victim").exists()
    # a name too long for a file name: cut, with a hash to keep it apart, before any call
    long_name = "org/" + "m" * 400
    answers = _answer_file(tmp_path / "in" / "long.jsonl", long_name, {0: ("", "")})
    code, text = _mtbench_judge("-j", "openai/none", "--base-url", "http://127.0.0.1:9/v1",
                                "-a", str(answers), "--limit", "1", "--results-dir",
                                str(results))  # fmt: skip
    assert code == 0, text
    (long_file,) = (results / "pfmt-fin" / "model_judgment" / "none_single").glob("*.jsonl")
    assert long_file.name.startswith("org_mmm") and long_file.suffix == ".jsonl"
    assert len(f"{long_file.name}.manifest.json".encode()) <= 255  # the common name limit


def test_pairwise_with_criteria_from_the_command_line(tmp_path: Path) -> None:
    """``--criteria auto``: the file is checked first, the criteria generated once per
    question with the judge client still open, then both orders of every pair judged."""
    rows = [
        {"id": "q1", "question": "日本の首都は？", "reference": "東京です。"},
        {"id": "q2", "question": "富士山の高さは？", "reference": "3776メートルです。"},
    ]
    x, y = tmp_path / "x.jsonl", tmp_path / "y.jsonl"
    for path, model, answer in ((x, "mx", "東京。"), (y, "my", "大阪。")):
        lines = [{**r, "answer": answer, "model": model} for r in rows]
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), "utf-8")
    out = tmp_path / "out" / "pairs.jsonl"
    with ReplayJudge({}, missing_reply="- 正確さ\n理由。[[A]]") as judge:
        args = ["judge", "pairwise", str(x), str(y), "-j", "openai/j", "--base-url",
                judge.base_url, "--criteria", "auto", "--reasons", "--method", "bs2",
                "--no-cache", "--output", str(out)]  # fmt: skip
        code, text = _run(*args)
        assert code == 0, text
        assert len(judge.received) == 2 + 4  # a criteria call per question, two orders each
        assert "signature: hyoka:" in text and "|template:pairwise-criteria-reasons@" in text
        stored = json.loads((out.parent / "criteria.json").read_text(encoding="utf-8"))
        assert sorted(entry["question_id"] for entry in stored.values()) == ["q1", "q2"]
        prompts = [r.user_prompt for r in judge.received[2:]]
        assert all("- 正確さ" in prompt for prompt in prompts)
        code, text = _run(*args)
        assert code == 0 and "0 pair(s) judged, 2 already done" in text
        assert len(judge.received) == 6  # criteria read back from the file, nothing asked


def test_mtbench_judge_keeps_its_concurrency_in_flight_across_answer_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three answer files, 4 judge calls each, ``--concurrency 12``: all 12 are in flight at
    once (the server holds every reply until the 12th comes), not a file's 4 at a time: the
    files are judged together, so the last calls of one never wait for the next file. And
    the event loop never waits for the disk: each line is flushed to disk by a worker
    thread, lines finishing together sharing a flush (issue 33: 1,600 calls over 10 files
    took 2.1 times a bare client's time, a flush per line on the loop). While the calls are
    in flight the cyclic collector runs seldom (``gc_relaxed``), and as before after."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    flushed: list[tuple[str, bool]] = []  # (file, on the main thread)
    young: set[int] = set()  # the collector's first threshold at each line's flush
    fsync = os.fsync
    thresholds = gc.get_threshold()

    def spy(fd: int) -> None:
        on_main = threading.current_thread() is threading.main_thread()
        flushed.append((str(Path(f"/proc/self/fd/{fd}").readlink()), on_main))
        if not on_main:  # a line's, while the calls are in flight
            young.add(gc.get_threshold()[0])
        fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    names = ("gpt-4", "gpt-4o", "claude-2.1")
    files = [item for name in names for item in ("-a", str(FIN / "model_answer" / f"{name}.jsonl"))]
    with ReplayJudge({}, missing_reply="評価: [[7]]", hold_until=12, hold_s=20) as judge:
        args = [
            "mtbench", "judge", "-j", "openai/judge", "--base-url", judge.base_url,
            "--limit", "2", "--lang-check", "script", "--no-cache", "--concurrency", "12",
            "--results-dir", str(tmp_path), *files,
        ]  # fmt: skip
        code, text = _mtbench_judge(*args[2:])
        assert code == 0, text
        assert "12 turn(s) judged, 0 already done" in text
        assert len(judge.received) == 12
        assert judge.most_in_flight == 12
        assert young == {RELAXED_YOUNG} and gc.get_threshold() == thresholds
        # the identical command again, as its own process: no call, and the judge's SDK
        # (half a second to import) is not even loaded
        again = subprocess.run(
            [sys.executable, "-c", _RUN_AND_LIST_SDK, *args], capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=120, check=False,
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert "0 turn(s) judged, 12 already done" in " ".join(again.stdout.split())
        assert again.stdout.splitlines()[-1] == "openai loaded: False"
        assert len(judge.received) == 12
    for name in names:  # each file whole, in the file's order
        lines = tmp_path / "pfmt-fin" / "model_judgment" / "judge_single" / f"{name}.jsonl"
        turns = [
            (row["question_id"], row["turn"])
            for row in map(json.loads, lines.read_text().splitlines())
        ]
        assert turns == sorted(turns) and len(turns) == 4
        appended = [main for path, main in flushed if path == str(lines.resolve())]
        assert 1 <= len(appended) <= 4 and not any(appended)
