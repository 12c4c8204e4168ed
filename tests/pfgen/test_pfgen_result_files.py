"""A run's ``result.json`` and ``config.json`` as every pfgen reader reads them (issue 29, 7-8).

A number in ``result.json`` outside what scoring makes (a score of 1e308, NaN, below 0,
trials of 10**30 ...: ``pfgen.summary``'s ranges) is refused by every reader, naming the
file and the number, never printed as 309 digits or ranked first: the leaderboard and the
report skip the file with one line, ``correlate`` stops with one. A byte-order mark at the
start of either file (or of a trials file) is read past, as the store reads every file, and
a reason never carries Python's advice to its programmers. The runs are published ones
(copied): the one-trial run is quick to rescore.
"""

from __future__ import annotations

import json
import lzma
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, writable_run_copy
from hyoka.cli.main import app

GOOD = "Qwen/Qwen1.5-1.8B-Chat/a452608"
BAD = "org/bad/0000000"
SMALL = "openai/chatgpt-o1/9a61e92"  # one trial: quick to rescore


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _changed(field: str, value: Any) -> Any:
    """What sets ``field`` (a dotted path) of a result to ``value``."""

    def change(result: dict[str, Any]) -> None:
        *parents, last = field.split(".")
        target = result
        for key in parents:
            target = target[key]
        target[last] = value

    return change


#: (field, impossible value, what the line says about it)
IMPOSSIBLE = [
    ("score", 1e308, "score 1e+308 is outside [0, 5]"),
    ("score", math.nan, "score nan is outside [0, 5]"),
    ("score", -0.1, "score -0.1 is outside [0, 5]"),
    ("score", 5.5, "score 5.5 is outside [0, 5]"),
    ("score", True, "score True is not a number"),
    (
        "num_trials",
        10**30,
        "num_trials (a number of 31 digits) is not a whole number from 1 to 1,000,000",
    ),
    ("num_trials", 2.5, "num_trials 2.5 is not a whole number from 1 to 1,000,000"),
    ("score_std", math.inf, "score_std inf is outside [0, 5]"),
    ("length", 1e308, "length 1e+308 is outside [0, 204,800,000]"),
    ("scores.fluency.R", 1e308, "scores.fluency.R 1e+308 is outside [0, 12]"),
    ("scores.truthfulness.R", 1.5, "scores.truthfulness.R 1.5 is outside [0, 1.001]"),
    ("scores.helpfulness", -1.0, "scores.helpfulness -1.0 is outside [0, 1.001]"),
    ("questions.Q01.score", 1e308, "questions.Q01.score 1e+308 is outside [0, 5]"),
]


def _results(tmp_path: Path, change: Any) -> tuple[Path, Path]:
    """A folder of two runs' results: a published one, and a copy of it changed by
    ``change`` (written as Python writes JSON: NaN and Infinity as such); the changed
    one's ``result.json``."""
    root = tmp_path / "results"
    good = root / GOOD
    good.mkdir(parents=True)
    shutil.copy(PFGEN_RESULTS / GOOD / "result.json", good / "result.json")
    result = json.loads((good / "result.json").read_text(encoding="utf-8"))
    change(result)
    bad = root / BAD / "result.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return root, bad


@pytest.mark.parametrize(("field", "value", "said"), IMPOSSIBLE)
def test_the_leaderboard_skips_a_result_outside_its_range_naming_it(
    tmp_path: Path, field: str, value: Any, said: str
) -> None:
    """Before: a score of 1e308 was printed as a 309-digit number and ranked first."""
    root, bad = _results(tmp_path, _changed(field, value))
    shown = _invoke("pfgen", "leaderboard", str(root))
    assert shown.exit_code == 0, shown.output
    (line,) = shown.stderr.splitlines()
    assert line == f"warning: {bad}: skipped: not a pfgen-bench result ({said})"
    rows = [row for row in shown.stdout.splitlines() if row.startswith("| 1 ")]
    assert len(rows) == 1 and "Qwen/Qwen1.5-1.8B-Chat" in rows[0]
    assert "N/A" not in shown.stdout and max(map(len, shown.stdout.splitlines())) < 200


@pytest.mark.parametrize(("field", "value", "said"), IMPOSSIBLE[:1] + IMPOSSIBLE[5:6])
def test_correlate_refuses_a_result_outside_its_range_naming_it(
    tmp_path: Path, field: str, value: Any, said: str
) -> None:
    """Both ways ``correlate`` reads result folders: beside judge summaries, and against
    another leaderboard; each stops with one line naming the file."""
    root, bad = _results(tmp_path, _changed(field, value))
    for run in (root / GOOD, bad.parent):
        summary = run / "judge" / "some_judge" / "summary.json"
        summary.parent.mkdir(parents=True)
        summary.write_text(json.dumps({"judge": "some/judge", "mean": 5.0, "n": 50}))
    board = tmp_path / "board.json"
    board.write_text(json.dumps([{"model": "m", "overall": 5.0, "complete": True}]))
    for extra in ((), ("--against", str(board))):
        refused = _invoke("pfgen", "correlate", str(root), *extra)
        assert refused.exit_code == 1, refused.output
        assert refused.stderr.splitlines() == [f"error: {bad}: not a pfgen-bench result ({said})"]


def test_the_report_skips_a_result_outside_its_range_naming_it(tmp_path: Path) -> None:
    """Given as a run to rank, among the public runs: skipped with one note naming the file
    and the number, never a row."""
    root, bad = _results(tmp_path, _changed("score", 1e308))
    made = _invoke(
        "report", str(bad.parent), str(root / GOOD), "--public", str(root),
        "-o", str(tmp_path / "site"),
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    reason = "not a pfgen-bench result (score 1e+308 is outside [0, 5])"
    notes = [line for line in made.stderr.splitlines() if str(bad.parent) in line]
    assert notes == [f"note: {bad}: skipped: {reason}"]
    pages = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html"))
    assert "100000000000" not in pages  # the note names the number; no page shows it as a score


def test_the_leaderboard_reads_past_a_byte_order_mark(tmp_path: Path) -> None:
    """A result.json saved with a BOM (as Windows editors write) is ranked as any other.
    Before: skipped, 'not valid JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))'."""
    root, bad = _results(tmp_path, lambda result: None)  # two copies of one run
    bad.write_bytes(b"\xef\xbb\xbf" + bad.read_bytes())
    shown = _invoke("pfgen", "leaderboard", str(root))
    assert shown.exit_code == 0 and shown.stderr == "", shown.output
    rows = [row for row in shown.stdout.splitlines() if "Qwen1.5-1.8B" in row]
    assert len(rows) == 2


@pytest.mark.usefixtures("hyoka_env")
def test_verify_reads_past_a_byte_order_mark(tmp_path: Path) -> None:
    """``verify`` reproduces a run whose result.json and config.json start with a BOM.
    Before: 'result is not valid JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))'."""
    folder = writable_run_copy(SMALL, tmp_path)
    for name in ("result.json", "config.json"):
        path = folder / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    verdict = _invoke("pfgen", "verify", str(folder))
    assert verdict.exit_code == 0, verdict.output
    assert verdict.stdout.splitlines() == [
        f"{folder}: reproduced exactly (summation: compensated; answers: trials.jsonl.xz)"
    ]


@pytest.mark.usefixtures("hyoka_env")
def test_score_reads_past_a_byte_order_mark_in_config_json(tmp_path: Path) -> None:
    """A run without a result yet, its config.json saved with a BOM: ``score`` records the
    settings it holds, and the published numbers. Before: 'generation config is not valid
    JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))'."""
    folder = writable_run_copy(SMALL, tmp_path)
    published = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    (folder / "result.json").unlink()
    config = folder / "config.json"
    config.write_bytes(b"\xef\xbb\xbf" + config.read_bytes())
    scored = _invoke("pfgen", "score", str(folder))
    assert scored.exit_code == 0, scored.output
    result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    assert result["config"] == published["config"] and result["score"] == published["score"]


@pytest.mark.usefixtures("hyoka_env")
def test_score_reads_past_a_byte_order_mark_at_the_start_of_trials(tmp_path: Path) -> None:
    """A plain trials.jsonl saved with a BOM scores as without it; a BOM at the start of a
    later line (two files joined) is one error naming the line, in hyoka's words. Before:
    'malformed JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) (column 1)'."""
    folder = writable_run_copy(SMALL, tmp_path)
    published = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    trials = folder / "trials.jsonl.xz"
    lines = lzma.decompress(trials.read_bytes()).splitlines(keepends=True)
    trials.unlink()
    plain = folder / "trials.jsonl"
    plain.write_bytes(b"\xef\xbb\xbf" + b"".join(lines))
    scored = _invoke("pfgen", "score", "--force", str(folder))
    assert scored.exit_code == 0, scored.output
    assert (
        json.loads((folder / "result.json").read_text(encoding="utf-8"))["score"]
        == (published["score"])
    )
    plain.write_bytes(b"".join(lines[:2]) + b"\xef\xbb\xbf" + b"".join(lines[2:]))
    refused = _invoke("pfgen", "score", "--force", str(folder))
    assert refused.exit_code == 1
    assert refused.stderr.splitlines() == [
        f"error: {plain}:3: starts with a byte-order mark (U+FEFF), which only the start of "
        "a file may hold (two files joined into one?)"
    ]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            b"\xef\xbb\xbf\xef\xbb\xbf{}",
            "a byte-order mark (U+FEFF), which only the start of a file may hold",
        ),
        (b'{"num_trials": ' + b"9" * 5000 + b"}", "a number of more than 4300 digits"),
    ],
)
def test_a_reason_is_in_hyokas_words(tmp_path: Path, content: bytes, said: str) -> None:
    """What Python's parser says to programmers ('decode using utf-8-sig', 'use
    sys.set_int_max_str_digits()') is said in hyoka's words, naming the file."""
    root, bad = _results(tmp_path, lambda result: None)
    bad.write_bytes(content)
    shown = _invoke("pfgen", "leaderboard", str(root))
    assert shown.exit_code == 0, shown.output
    assert shown.stderr.splitlines() == [
        f"warning: {bad}: skipped: result is not valid JSON ({said})"
    ]
