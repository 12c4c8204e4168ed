"""Nothing silently wrong: files are sacred by construction (issue 29, an adversarial tester's
findings). Each test failed on the code before its fix, through the command line.

- ``--output FILE`` replaced any file (a run's ``trials.jsonl.xz``, someone's notes) and said
  "Wrote 1 runs": now only a new or empty file, or hyoka's own unchanged output, is written
  (``store.write_output``); the README's examples may still write one ``--output`` twice.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import writable_run_copy
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
