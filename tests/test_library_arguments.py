"""A Python caller of the pfgen and MT-bench entry points meets the command line's refusals
as one ``InputError`` naming the parameter (``hyoka.arguments``).

Before, ``pfgen.leaderboard("runs")`` and ``verify_paths("runs")`` raised a bare
``AttributeError``; ``verify_paths([])`` returned no failures with nothing verified;
``workers=0`` or ``-1`` was taken; ``bench_leaderboard(judgments=[])`` ranked the published
judgments as if none had been given.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _shared import SHARED_DATA
from hyoka.errors import InputError
from hyoka.mtbench import bench_leaderboard
from hyoka.pfgen import leaderboard, score_paths, verify_paths


def test_a_name_where_a_path_belongs_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^`results_dir` must be a path \(pathlib.Path\)"):
        leaderboard(str(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^`paths` must be a sequence of paths"):
        verify_paths(str(tmp_path))  # type: ignore[arg-type]


def test_no_paths_is_no_request() -> None:
    for call in (verify_paths, score_paths):
        with pytest.raises(InputError, match=r"^`paths` must hold at least one path, got \[\]$"):
            call([])
    with pytest.raises(InputError, match=r"^`judgments` must hold at least one path"):
        bench_leaderboard("jmt-bench", [], data_dir=SHARED_DATA)


@pytest.mark.parametrize("workers", [0, -1])
def test_workers_below_one_are_refused(tmp_path: Path, workers: int) -> None:
    for call in (verify_paths, score_paths):
        with pytest.raises(InputError, match=rf"^`workers` must be at least 1, got {workers}$"):
            call([tmp_path], workers=workers)
