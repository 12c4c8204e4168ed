"""A run folder holding several answer sources (issue 29): ``trials.jsonl.xz``,
``trials.jsonl`` and ``trial_*.jsonl`` side by side, as upstream's Makefile and hyoka's
generator leave them, are one run only when they hold the same answers.

Before, ``pfgen score`` and ``pfgen verify`` scored the first source found
(``trials.jsonl.xz``) and said nothing of the others: a stale or different file decided the
score, with exit 0. Now differing sources are one ``error:`` line naming the folder and both
files, nothing is written, and the commands name the answers they scored.
"""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from hyoka.cli.main import app
from hyoka.pfgen import score_paths
from hyoka.store.pfgen_runs import compress_trials

pytestmark = pytest.mark.usefixtures("hyoka_env")


def _example_run(tmp_path: Path) -> tuple[Path, list[bytes]]:
    """A writable copy of the bundled tiny run (10 answers in ``trials.jsonl``) and its
    lines, in file order (sorted, as upstream writes them)."""
    with resources.as_file(resources.files("hyoka") / "examples/pfgen-tiny") as bundled:
        shutil.copytree(bundled, tmp_path / "runs")
    run = tmp_path / "runs" / "hyoka-examples" / "handwritten" / "7b44bc7"
    lines = (run / "trials.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == 10 and lines == sorted(lines)
    return run, lines


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, ["pfgen", *args, "--workers", "1"])


def _conflict(run: Path, first: str, second: str) -> str:
    return (
        f"error: {run}: {first} and {second} hold different answers (which to score cannot "
        "be guessed); remove the one that is not this run's and run again"
    )


def test_an_xz_of_other_answers_beside_trials_jsonl_is_refused(tmp_path: Path) -> None:
    run, lines = _example_run(tmp_path)
    (run / "trials.jsonl.xz").write_bytes(compress_trials(b"".join(lines[:5])))
    scored = _invoke("score", str(run))
    assert scored.exit_code == 1, scored.output
    assert scored.stdout == ""
    assert scored.stderr.splitlines() == [_conflict(run, "trials.jsonl.xz", "trials.jsonl")]
    assert not (run / "result.json").exists()


def test_a_stale_xz_beside_more_trial_parts_is_refused_by_score_and_verify(
    tmp_path: Path,
) -> None:
    """Generation resumed after ``trials.jsonl.xz`` was made: the parts hold a second trial
    the stale file lacks."""
    run, lines = _example_run(tmp_path)
    assert _invoke("score", str(run)).exit_code == 0  # a result.json to verify
    (run / "trials.jsonl").unlink()
    (run / "trial_001.jsonl").write_bytes(b"".join(lines[0::2]))
    (run / "trial_002.jsonl").write_bytes(b"".join(lines[1::2]))
    (run / "trials.jsonl.xz").write_bytes(compress_trials(b"".join(lines[0::2])))
    before = (run / "result.json").read_bytes()
    for command in ("score", "verify"):
        outcome = _invoke(command, str(run))
        assert outcome.exit_code == 1, outcome.output
        assert outcome.stderr.splitlines() == [
            _conflict(run, "trials.jsonl.xz", "trial_*.jsonl")
        ], command
    assert (run / "result.json").read_bytes() == before


def test_a_conflict_in_one_run_of_a_tree_leaves_the_others_scored(tmp_path: Path) -> None:
    run, lines = _example_run(tmp_path)
    other = run.parent / "0000000"
    shutil.copytree(run, other)
    (other / "trials.jsonl.xz").write_bytes(compress_trials(b"".join(lines[1:])))
    scored = _invoke("score", str(tmp_path / "runs"))
    assert scored.exit_code == 1
    assert scored.stderr.splitlines()[0] == _conflict(other, "trials.jsonl.xz", "trials.jsonl")
    assert (run / "result.json").exists() and not (other / "result.json").exists()


def test_sources_holding_the_same_answers_score_as_one_and_name_the_file(
    tmp_path: Path,
) -> None:
    """Upstream's layout after ``make``: parts, their sorted ``trials.jsonl`` and its
    ``xz -9``; parts in any order and a ``trials.jsonl`` with CRLF line ends are the same
    answers. The score is the one of ``trials.jsonl.xz``, which is named."""
    run, lines = _example_run(tmp_path)
    alone = _invoke("score", str(run), "--json")
    assert alone.exit_code == 0, alone.output
    (expected,) = json.loads(alone.stdout)
    assert expected["answers"] == str(run / "trials.jsonl")
    (run / "result.json").unlink()

    (run / "trials.jsonl.xz").write_bytes(compress_trials(b"".join(lines)))
    (run / "trial_001.jsonl").write_bytes(b"".join(reversed(lines[1::2])))
    (run / "trial_002.jsonl").write_bytes(b"".join(lines[0::2]))
    (run / "trials.jsonl").write_bytes(b"".join(line.replace(b"\n", b"\r\n") for line in lines))
    together = _invoke("score", str(run), "--json")
    assert together.exit_code == 0, together.output
    assert together.stderr == ""
    (row,) = json.loads(together.stdout)
    assert row["answers"] == str(run / "trials.jsonl.xz")
    for key in ("score", "score_std", "length", "num_trials"):
        assert row[key] == expected[key], key
    again = score_paths([run])  # the library call: up to date now, left as it was
    assert again.failures == 0 and again.to_json() == [{**row, "skipped": True}]

    verified = _invoke("verify", str(run))
    assert verified.exit_code == 0, verified.output
    assert verified.stdout.splitlines() == [
        f"{run}: reproduced exactly (summation: compensated; answers: trials.jsonl.xz)"
    ]


def test_score_names_the_answers_of_a_folder_of_trial_parts(tmp_path: Path) -> None:
    """hyoka's own layout while generating: only ``trial_*.jsonl``."""
    run, lines = _example_run(tmp_path)
    (run / "trials.jsonl").unlink()
    (run / "trial_001.jsonl").write_bytes(b"".join(lines[0::2]))
    (run / "trial_002.jsonl").write_bytes(b"".join(lines[1::2]))
    scored = _invoke("score", str(run))
    assert scored.exit_code == 0, scored.output
    assert scored.stdout.splitlines()[-1] == f"answers: {run / 'trial_*.jsonl'}"
