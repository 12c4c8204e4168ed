"""What ``hyoka pfgen score`` writes and prints: upstream's result.json plus a signature.

The signature says how the numbers were made: the benchmark data (a hash of the question
files), the float summation and why it was chosen (``sum-from``: the run's earlier
result.json, the default for a new run, or the ``--summation`` flag), the prompt mode and the
number of questions. Every upstream field stays byte for byte what upstream writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, writable_run_copy
from hyoka import __version__
from hyoka.cli.main import app
from hyoka.pfgen import PfgenBenchmark, RunOutcome, Summation
from hyoka.signature import Signature

SEQUENTIAL = "01-ai/Yi-1.5-9B/2ff65a8"  # published with left-to-right sums, 100 trials
SMALL = "openai/chatgpt-o1/9a61e92"  # compensated, one trial


def _read(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    return data


def _score(*args: str) -> Any:
    return CliRunner().invoke(app, ["pfgen", "score", *args])


def _signature(folder: Path) -> dict[str, str]:
    signature = Signature.from_json(_read(folder)["signature"])
    assert signature is not None
    return signature.as_dict()


@pytest.mark.usefixtures("hyoka_env")
def test_rescoring_keeps_upstream_bytes_and_adds_the_signature(
    tmp_path: Path, benchmark: PfgenBenchmark
) -> None:
    folder = writable_run_copy(SEQUENTIAL, tmp_path)
    published = (folder / "result.json").read_text(encoding="utf-8")

    outcome = _score(str(folder), "--force")
    assert outcome.exit_code == 0, outcome.output

    written = _read(folder)
    signature = written.pop("signature")
    assert json.dumps(written, indent=2, ensure_ascii=False) == published
    assert signature["fields"] == {
        "hyoka": __version__,
        "kind": "pfgen",
        "data": f"pfgen@{benchmark.metadata_hash[:8]}",
        "sum": "sequential",
        "mode": "completion",
        "questions": "50",
        "sum-from": "result.json",
    }
    assert signature["line"] in " ".join(outcome.stdout.split())
    assert outcome.stderr.strip() == ""  # no warning (a progress bar leaves a newline)


@pytest.mark.usefixtures("hyoka_env")
def test_a_new_run_is_summed_compensated_and_says_so(tmp_path: Path) -> None:
    folder = writable_run_copy(SMALL, tmp_path)
    (folder / "result.json").unlink()
    outcome = _score(str(folder))
    assert outcome.exit_code == 0, outcome.output
    fields = _signature(folder)
    assert (fields["sum"], fields["sum-from"], fields["mode"]) == ("compensated", "default", "qa")
    line = Signature.from_json(_read(folder)["signature"])
    assert line is not None
    assert f"signature: {line.line}" in " ".join(outcome.stdout.split())


@pytest.mark.usefixtures("hyoka_env")
def test_the_flag_forces_a_summation_and_says_so(tmp_path: Path) -> None:
    folder = writable_run_copy(SMALL, tmp_path)
    outcome = _score(str(folder), "--force", "--summation", "sequential")
    assert outcome.exit_code == 0, outcome.output
    assert (_signature(folder)["sum"], _signature(folder)["sum-from"]) == ("sequential", "flag")


@pytest.mark.usefixtures("hyoka_env")
def test_a_result_neither_summation_reproduces_is_said_and_summed_compensated(
    tmp_path: Path,
) -> None:
    folder = writable_run_copy(SMALL, tmp_path)
    result = _read(folder)
    result["score"] = 0.5
    (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
    outcome = _score(str(folder), "--force")
    assert outcome.exit_code == 0, outcome.output
    assert "reproduced by neither summation; summed compensated" in outcome.stderr
    fields = _signature(folder)
    assert (fields["sum"], fields["sum-from"]) == ("compensated", "default")
    assert (
        _read(folder)["score"]
        == json.loads((PFGEN_RESULTS / SMALL / "result.json").read_text(encoding="utf-8"))["score"]
    )


@pytest.mark.usefixtures("hyoka_env")
def test_an_upstream_result_left_as_it_was_shows_no_signature() -> None:
    outcome = _score(str(PFGEN_RESULTS / SMALL))
    assert outcome.exit_code == 0, outcome.output
    assert "(up to" in outcome.stdout  # "(up to date)", folded in a narrow terminal
    assert "signature: none (upstream result.json)" in outcome.stdout


@pytest.mark.usefixtures("hyoka_env")
def test_json_output_carries_the_signature(tmp_path: Path) -> None:
    folder = writable_run_copy(SMALL, tmp_path)
    outcome = _score(str(folder), "--force", "--json")
    assert outcome.exit_code == 0, outcome.output
    (row,) = json.loads(outcome.stdout)
    assert row["signature"] == _read(folder)["signature"]["line"]


def test_library_outcome_names_summation_and_signature(
    rescored: Callable[[Path], RunOutcome],
) -> None:
    """``score_run(force=True, write=False)`` of the published run (measured once a session,
    shared with test_pfgen_parity) names its summation and where it came from."""
    outcome = rescored(PFGEN_RESULTS / SEQUENTIAL)
    assert outcome.summation is Summation.SEQUENTIAL
    assert outcome.signature is not None
    assert outcome.signature.get("sum-from") == "result.json"
    assert outcome.note is None
