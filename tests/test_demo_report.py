"""``hyoka demo --example --report``: the bundled run scored, then the offline report over it."""

from __future__ import annotations

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
