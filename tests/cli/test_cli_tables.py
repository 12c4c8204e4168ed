"""Terminal tables at 80 columns: every header in full, nothing cropped; full width when wide.

rich reads the terminal's width from ``COLUMNS``; CliRunner sets it for the command's run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

from rich.table import Table
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA
from hyoka.cli._tables import fitted, natural_width
from hyoka.cli.main import app

SCORE_HEADERS = ("Model", "Mode", "Trials", "Score", "Length", "Fluency", "Truthful", "Helpful")
MTBENCH_JUDGMENTS = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_single"


def _run(columns: int, *args: str) -> Result:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result


def _example_run(tmp_path: Path) -> Path:
    with resources.as_file(resources.files("hyoka") / "examples/pfgen-tiny") as bundled:
        shutil.copytree(bundled, tmp_path / "runs")
    return tmp_path / "runs" / "hyoka-examples" / "handwritten" / "7b44bc7"


def _table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith(("signature:", "answers:"))]


def test_pfgen_score_table_at_80_columns_shows_every_header(
    tmp_path: Path, hyoka_env: None
) -> None:
    run = _example_run(tmp_path)
    narrow = _run(80, "pfgen", "score", str(run))
    lines = _table_lines(narrow.stdout)
    assert "…" not in narrow.stdout
    assert max(len(line) for line in lines) <= 80
    # on its side: one line per column, the header then the value
    fields = [line.split("│")[1].strip() for line in lines if line.count("│") == 3]
    assert fields == list(SCORE_HEADERS)
    assert any("hyoka-examples/handwritten" in line for line in lines)
    # wide: a fresh process, as the command line's console keeps the width it first read
    hyoka = Path(sys.executable).with_name("hyoka")
    env = {**os.environ, "COLUMNS": "200"}
    wide = subprocess.run(
        [str(hyoka), "pfgen", "score", str(run)], env=env, capture_output=True, text=True
    )
    assert wide.returncode == 0, wide.stderr
    header = next(line for line in wide.stdout.splitlines() if "Model" in line)
    assert [cell.strip() for cell in header.strip("┃").split("┃")] == list(SCORE_HEADERS)


def test_mtbench_leaderboard_at_80_columns_shows_every_header(hyoka_env: None) -> None:
    result = _run(
        80, "mtbench", "leaderboard", "--judgments", str(MTBENCH_JUDGMENTS),
        "--data-dir", str(SHARED_DATA),
    )  # fmt: skip
    assert "…" not in result.stdout
    headers = [line for line in result.stdout.splitlines() if line.startswith("| Model |")]
    assert len(headers) == 3  # both turns, turn 1, turn 2: Markdown, never cropped
    cells = [cell.strip() for cell in headers[0].strip("|").split("|")]
    assert cells[:3] == ["Model", "Avg.", "95% CI"] and len(cells) == 15
    assert all(line == headers[0] for line in headers)


def test_a_table_that_fits_is_left_as_it_is() -> None:
    table = Table("model", "score")
    table.add_row("org/a-model", "0.5")
    assert natural_width(table) < 80 and fitted(table, 80) is table
    wide = Table(*(f"column {n}" for n in range(12)))
    wide.add_row(*(str(n) for n in range(12)))
    side = fitted(wide, 80)
    assert side is not wide and not side.show_header
    assert [str(cell) for cell in side.columns[0].cells] == [f"column {n}" for n in range(12)]
    assert [str(cell) for cell in side.columns[1].cells] == [str(n) for n in range(12)]
