"""``hyoka report`` needs only the data of what it shows (issue 17, #14).

pfmt-bench-fin-ja judgments are reported from a data directory that holds pfmt-bench-fin-ja
alone (MT-bench never fetched); judgments whose benchmark's data is missing still name it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from _shared import SHARED_DATA
from hyoka.errors import MissingDataError
from hyoka.report import ReportOptions, build_report

JUDGED = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_single"


def _judgments(tmp_path: Path) -> Path:
    folder = tmp_path / "judged" / "gpt-4o-mini_single"
    folder.mkdir(parents=True)
    shutil.copy(JUDGED / "claude-2.1.jsonl", folder)
    return folder


def test_pfmt_judgments_need_only_pfmt_data(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "pfmt-bench-fin-ja").symlink_to(SHARED_DATA / "pfmt-bench-fin-ja")
    out = tmp_path / "site"
    build_report([_judgments(tmp_path)], out, ReportOptions(data_dir=data, public=False))
    index = (out / "mtbench" / "index.html").read_text(encoding="utf-8")
    assert "pfmt-bench-fin-ja" in index and "gpt-4o-mini_single" in index


def test_judgments_of_a_benchmark_never_fetched_name_its_data(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "mt-bench").symlink_to(SHARED_DATA / "mt-bench")
    options = ReportOptions(data_dir=data, public=False)
    with pytest.raises(MissingDataError, match=r"pfmt-bench-fin-ja data not found in .*pfmt"):
        build_report([_judgments(tmp_path)], tmp_path / "site", options)
