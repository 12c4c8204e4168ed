"""``hyoka demo --example --report``: the bundled run scored, then the offline report over it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from hyoka.cli.main import app


def test_demo_report_writes_the_site_and_prints_its_index(tmp_path: Path, hyoka_env: None) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--example", "--report", "--out", str(out)])
    assert result.exit_code == 0, result.output
    index = out / "report" / "index.html"
    assert index.is_file()
    assert f"report: {index}" in result.stdout.splitlines()
    board = (out / "report" / "pfgen" / "index.html").read_text("utf-8")
    # the demo's run, highlighted among the 49 public runs of the data directory
    assert board.count('class="mine"') == 1 and "hyoka-examples/handwritten" in board
    assert board.count('class="name"') == 50
    # the scored run the report was built over is the one the demo wrote
    assert (
        out / "example" / "hyoka-examples" / "handwritten" / "7b44bc7" / "result.json"
    ).is_file()


def test_demo_json_is_one_document_naming_what_it_wrote(tmp_path: Path, hyoka_env: None) -> None:
    """--json: nothing but the run's numbers and the files written on stdout (issue 30)."""
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--example", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    folder = out / "example" / "hyoka-examples" / "handwritten" / "7b44bc7"
    assert shown["result"] == str(folder / "result.json") and shown["report"] is None
    written = json.loads((folder / "result.json").read_text("utf-8"))
    assert shown["summary"]["folder"] == str(folder)
    assert shown["summary"]["score"] == written["score"]
