"""Nothing silently wrong: files are sacred by construction (issue 29, an adversarial tester's
findings). Each test failed on the code before its fix, through the command line.

- ``--output FILE`` replaced any file (a run's ``trials.jsonl.xz``, someone's notes) and said
  "Wrote 1 runs": now only a new or empty file, or hyoka's own unchanged output, is written
  (``store.write_output``); the README's examples may still write one ``--output`` twice.
- a file named on its own inside a run folder (``other.jsonl``, or one ``trial_NNN.jsonl`` of
  several) was scored into that folder's ``result.json``, replacing the run's own: refused.
"""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, writable_run_copy
from hyoka.cli.main import app

O1_RUN = "openai/chatgpt-o1/9a61e92"


def _hyoka(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    return result.exit_code, result.output


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """A results folder holding one published run, writable."""
    root = tmp_path / "results"
    writable_run_copy(O1_RUN, root)
    return root


# --- 1. an --output file is replaced only when it is hyoka's own -------------------------


@pytest.mark.parametrize("victim", ["trials.jsonl.xz", "result.json", "config.json"])
def test_leaderboard_output_never_replaces_a_runs_file(
    results: Path, hyoka_env: None, victim: str
) -> None:
    target = results / O1_RUN / victim
    before = target.read_bytes()
    code, output = _hyoka("pfgen", "leaderboard", results, "-f", "csv", "--output", target)
    assert code == 1
    assert _errors(output) == [
        f"error: --output {target}: the file exists and hyoka did not write it; hyoka does "
        "not replace it: move it away or choose another file"
    ]
    assert target.read_bytes() == before


def test_an_output_hyoka_wrote_is_replaced_and_an_edited_one_is_not(
    results: Path, tmp_path: Path, hyoka_env: None
) -> None:
    board = tmp_path / "board.csv"
    for _ in range(2):  # a README example run twice
        code, output = _hyoka("pfgen", "leaderboard", results, "-f", "csv", "--output", board)
        assert code == 0, output
    written = board.read_text()
    assert written.startswith("rank,") and "chatgpt-o1" in written
    board.write_text(written + "my note\n")
    code, output = _hyoka("pfgen", "leaderboard", results, "-f", "md", "--output", board)
    assert code == 1
    assert _errors(output) == [
        f"error: --output {board}: the file exists and it changed since hyoka wrote it; "
        "hyoka does not replace it: move it away or choose another file"
    ]
    assert board.read_text() == written + "my note\n"
    empty = tmp_path / "empty.md"
    empty.touch()
    assert _hyoka("pfgen", "leaderboard", results, "--output", empty)[0] == 0
    assert "chatgpt-o1" in empty.read_text()


def test_every_output_file_goes_through_the_one_rule(tmp_path: Path, hyoka_env: None) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    image = tmp_path / "radar.png"
    image.write_bytes(b"\x89PNG mine")
    commands = [
        ["judge", "meta", "-f", "csv", "--output", notes],
        ["mtbench", "leaderboard", "--bench", "elyza-tasks-100", "--output", notes],
        ["mtbench", "leaderboard", "--bench", "elyza-tasks-100", "--radar", image],
    ]
    for command in commands:
        code, output = _hyoka(*command)
        assert code == 1, (command, output)
        assert "hyoka did not write it" in _errors(output)[0], (command, output)
    assert notes.read_text() == "mine\n"
    assert image.read_bytes() == b"\x89PNG mine"


# --- 2. a side file named in a run folder does not replace the run's result --------------

QWEN_RUN = PFGEN_RESULTS / "Qwen" / "Qwen2-1.5B-Instruct" / "b8f3248"


def _qwen_lines(count: int) -> bytes:
    with lzma.open(QWEN_RUN / "trials.jsonl.xz") as handle:
        return b"".join(handle.readline() for _ in range(count))


def test_a_side_file_in_a_run_folder_is_refused_and_the_result_kept(
    results: Path, hyoka_env: None
) -> None:
    run = results / O1_RUN
    side = run / "other.jsonl"
    side.write_bytes(_qwen_lines(50))
    before = (run / "result.json").read_bytes()
    code, output = _hyoka("pfgen", "score", side, "--force")
    assert code == 1
    assert _errors(output) == [
        f"error: {side}: named on its own, but its folder holds a run's answers "
        "(trials.jsonl.xz) whose result.json scoring it would replace; score the folder, "
        "or move other.jsonl out of it"
    ]
    assert (run / "result.json").read_bytes() == before


def test_one_trial_part_named_alone_is_refused_while_it_has_siblings(
    tmp_path: Path, hyoka_env: None
) -> None:
    run = tmp_path / "o" / "m" / "5555555"
    run.mkdir(parents=True)
    by_question: dict[str, list[bytes]] = {}
    for line in _qwen_lines(5000).splitlines(keepends=True):  # sorted: a question's lines together
        by_question.setdefault(json.loads(line)["question"], []).append(line)
    for trial in (1, 2):  # one answer to each question per trial
        part = b"".join(answers[trial - 1] for answers in by_question.values())
        (run / f"trial_{trial:03d}.jsonl").write_bytes(part)
    code, output = _hyoka("pfgen", "score", run / "trial_001.jsonl")
    assert code == 1
    assert _errors(output)[0].startswith(
        f"error: {run / 'trial_001.jsonl'}: named on its own, but its folder holds a run's "
        "answers (trial_*.jsonl)"
    )
    assert not (run / "result.json").exists()
    (run / "trial_002.jsonl").unlink()  # the run's one part is the run
    code, output = _hyoka("pfgen", "score", run / "trial_001.jsonl")
    assert code == 0, output
    assert (run / "result.json").exists()
