"""Data identity on every row (issue 17, #9).

A run scored with other reference data than the pinned pfgen-bench release is legitimate
(one's own reference sets) and is named: ``pfgen score`` says so in one ``warning:`` line and
signs it ``data:pfgen@<hash>+custom``; every leaderboard (Markdown, CSV, JSON, upstream's
table, the report's page) compares every row's data, upstream's rows by their
``metadata_hash``, marks the row that differs, and names in its footer the data most rows
share, not the data of whichever row hyoka wrote.
"""

from __future__ import annotations

import csv
import json
import re
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, writable_run_copy
from hyoka.cli.main import app
from hyoka.pfgen import PfgenBenchmark, data_id
from hyoka.pfgen.provenance import pinned_metadata_hash
from hyoka.report import ReportOptions, build_report

SMALL = "openai/chatgpt-o1/9a61e92"  # one trial of 50 answers: quick to score
PUBLIC = ["openai/chatgpt-4o-latest/c275a7b", "tokyotech-llm/Llama-3-Swallow-8B-v0.1/98f12b9"]
PINNED = "pfgen@13581cc9"
DATA = SHARED_DATA / "pfgen-bench" / "data"


def test_upstream_metadata_hash_of_the_shared_data_is_the_pinned_one(
    benchmark: PfgenBenchmark,
) -> None:
    """hyoka computes upstream's metadata_hash (SHA-1 over each Q*.json's SHA-1, in name
    order, pfgen_eval.py) and the manifest pins the one every public result records."""
    assert benchmark.metadata_hash == pinned_metadata_hash()
    assert benchmark.pinned and benchmark.data_differences() == []
    assert benchmark.data_note() is None
    recorded = {
        json.loads(p.read_text(encoding="utf-8"))["metadata_hash"]
        for p in (SHARED_DATA / "pfgen-bench" / "results").rglob("result.json")
    }
    assert recorded == {pinned_metadata_hash()}
    assert data_id(benchmark.metadata_hash) == PINNED


@pytest.fixture(scope="module")
def edited_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory whose Q01.json has one reference answer changed (the others are
    links to the shared, pinned files)."""
    root = tmp_path_factory.mktemp("edited")
    folder = root / "pfgen-bench" / "data"
    folder.mkdir(parents=True)
    for path in DATA.iterdir():
        (folder / path.name).symlink_to(path)
    q01 = json.loads((DATA / "Q01.json").read_text(encoding="utf-8"))
    q01["answers"]["R"][0] = "時計の長針と短針は、1日に22回重なります。"
    (folder / "Q01.json").unlink()
    (folder / "Q01.json").write_text(json.dumps(q01, ensure_ascii=False), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def board(
    tmp_path_factory: pytest.TempPathFactory, edited_data: Path, index_cache_dir: Path
) -> tuple[Path, Path, str]:
    """Public runs as published, and a copy of a public run scored with the edited data:
    (the leaderboard folder, the rescored run, the warning ``pfgen score`` printed)."""
    root = tmp_path_factory.mktemp("board")
    for run in PUBLIC:
        writable_run_copy(run, root)
    mine = writable_run_copy(SMALL, root)
    env = {"HYOKA_CACHE_DIR": str(index_cache_dir), "HYOKA_DATA_DIR": str(edited_data)}
    scored = CliRunner().invoke(app, ["pfgen", "score", str(mine), "--force"], env=env)
    assert scored.exit_code == 0, scored.output
    return root, mine, " ".join(scored.stderr.split())


def test_scoring_with_edited_data_says_so_in_one_line(
    board: tuple[Path, Path, str], edited_data: Path
) -> None:
    _, _, stderr = board
    folder = edited_data / "pfgen-bench" / "data"
    warnings = re.findall(r"warning: [^\n]*?pinned pfgen-bench release[^\n]*", stderr)
    assert len(warnings) == 1
    assert warnings[0].startswith(
        f"warning: {folder} is not the pinned pfgen-bench release (Q01.json changed): its "
        "scores are signed data:pfgen@"
    )
    assert "+custom and marked where they meet public runs" in warnings[0]


def test_the_signature_names_the_custom_data(board: tuple[Path, Path, str]) -> None:
    _, mine, _ = board
    result = json.loads((mine / "result.json").read_text(encoding="utf-8"))
    data = result["signature"]["fields"]["data"]
    assert data == f"pfgen@{result['metadata_hash'][:8]}+custom"
    assert result["metadata_hash"] != pinned_metadata_hash()


def _custom(run: Path) -> str:
    """The data identity a run's result.json was signed with."""
    result = json.loads((run / "result.json").read_text(encoding="utf-8"))
    data: str = result["signature"]["fields"]["data"]
    return data


def _leaderboard(root: Path, fmt: str) -> str:
    shown = CliRunner().invoke(app, ["pfgen", "leaderboard", str(root), "--format", fmt])
    assert shown.exit_code == 0, shown.output
    return shown.stdout


def test_markdown_marks_the_row_and_names_the_pinned_data(board: tuple[Path, Path, str]) -> None:
    root, mine, _ = board
    ours = json.loads((mine / "result.json").read_text(encoding="utf-8"))["signature"]
    custom = ours["fields"]["data"]
    text = _leaderboard(root, "md")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "Rank" not in line]
    marked = [row for row in rows if "†" in row]
    assert len(rows) == 3 and len(marked) == 1 and "openai/chatgpt-o1" in marked[0]
    footer = text.split("\n\n", 1)[1].splitlines()
    assert footer[0].startswith("signature: ") and f"|data:{PINNED}|" in footer[0]
    assert footer[1] == f"data: {PINNED}, the pinned pfgen-bench release; 2 of 3 rows"
    assert footer[2] == f"†1 signature differs from the common one: data: {custom} vs {PINNED}"


def test_csv_json_and_upstream_mark_the_same_row(board: tuple[Path, Path, str]) -> None:
    root, _, _ = board
    lines = _leaderboard(root, "csv").splitlines()
    table = csv.DictReader([line for line in lines if not line.startswith("#")])
    by_model = {row["model"]: row for row in table}
    assert by_model["openai/chatgpt-o1"]["flag"] == "†1"
    assert by_model["openai/chatgpt-o1"]["data"].endswith("+custom")
    assert {by_model[m]["data"] for m in by_model if m != "openai/chatgpt-o1"} == {PINNED}
    document = json.loads(_leaderboard(root, "json"))
    assert document["data"] == {"common": PINNED, "pinned": True, "rows": 2, "of": 3}
    assert document["signature"]["fields"]["data"] == PINNED
    differs = {r["model"]: r["signature_differs"] for r in document["runs"]}
    assert differs["openai/chatgpt-o1"][0].startswith("data: pfgen@")
    assert sum(bool(d) for d in differs.values()) == 1
    upstream = _leaderboard(root, "upstream")
    cells = [line for line in upstream.splitlines() if line.startswith("| <code>")]
    assert [("chatgpt-o1" in row, "†1" in row) for row in cells if "†1" in row] == [(True, True)]
    assert upstream.splitlines()[-1].startswith("†1 signature differs from the common one: data:")


def test_an_upstream_row_scored_with_other_data_is_marked(tmp_path: Path) -> None:
    """Upstream rows carry no signature: their metadata_hash is their data identity."""
    for run in PUBLIC:
        writable_run_copy(run, tmp_path)
    odd = writable_run_copy(SMALL, tmp_path) / "result.json"
    result = json.loads(odd.read_text(encoding="utf-8"))
    result["metadata_hash"] = "0" * 40
    odd.write_text(json.dumps(result), encoding="utf-8")
    text = _leaderboard(tmp_path, "md")
    marked = [line for line in text.splitlines() if line.startswith("| ") and "†1" in line]
    assert len(marked) == 1 and "openai/chatgpt-o1" in marked[0]
    assert (
        f"†1 data differs from the common one: data: pfgen@00000000+custom vs {PINNED}"
        in text.splitlines()
    )


def test_the_report_leaderboard_marks_the_row(
    board: tuple[Path, Path, str], edited_data: Path, tmp_path: Path, index_cache_dir: Path
) -> None:
    """The run named is scored by the report itself, with the edited data it names."""
    root, mine, _ = board
    options = ReportOptions(data_dir=edited_data, cache_dir=index_cache_dir, public_dir=root)
    built = build_report([mine], tmp_path / "site", options)
    assert [n for n in built.notes if "not the pinned pfgen-bench release" in n] == [
        f"{edited_data / 'pfgen-bench' / 'data'} is not the pinned pfgen-bench release "
        f"(Q01.json changed): its scores are signed data:{_custom(mine)} and marked where "
        "they meet public runs"
    ]
    page = unescape((tmp_path / "site" / "pfgen" / "index.html").read_text(encoding="utf-8"))
    assert re.search(r"openai/chatgpt-o1 <sup>†1</sup>", page)
    assert page.count("<sup>†") == 1
    assert f"data: {PINNED}, the pinned pfgen-bench release; 2 of 3 rows" in page
    assert f"vs {PINNED}" in page
