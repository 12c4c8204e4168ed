"""Where the data lives, said plainly: a data directory that is a file is named as such
(not reported as fifty corrupt files), and the hint to fetch missing data can be pasted as
it is: it carries the ``--data-dir`` the user gave."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from hyoka.cli.main import app
from hyoka.errors import InputError, MissingDataError
from hyoka.mtbench import Bench
from hyoka.pfgen import PfgenBenchmark


def test_a_data_dir_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("oops")
    result = CliRunner().invoke(app, ["data", "verify", "pfgen", "--data-dir", str(not_a_folder)])
    assert result.exit_code == 1
    assert result.stderr.strip() == f"error: --data-dir {not_a_folder}: not a folder"


def test_the_environment_variable_is_named_when_it_points_at_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("oops")
    monkeypatch.setenv("HYOKA_DATA_DIR", str(not_a_folder))
    with pytest.raises(InputError, match=r"^\$HYOKA_DATA_DIR .*: not a folder$"):
        PfgenBenchmark.load()


def test_the_fetch_hint_names_the_data_dir_given(tmp_path: Path) -> None:
    where = tmp_path / "my data"
    with pytest.raises(MissingDataError) as pfgen:
        PfgenBenchmark.load(where)
    assert f"`hyoka data fetch pfgen --data-dir '{where}'`" in str(pfgen.value)
    with pytest.raises(MissingDataError) as mtbench:
        Bench.load("mt-bench", where)
    assert f"`hyoka data fetch mt-bench --data-dir '{where}'`" in str(mtbench.value)


def test_without_a_flag_the_hint_has_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(tmp_path / "empty"))
    with pytest.raises(MissingDataError, match=r"run `hyoka data fetch pfgen` to download"):
        PfgenBenchmark.load()
