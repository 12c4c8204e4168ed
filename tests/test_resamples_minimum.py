"""One bootstrap draw is no 95% interval: its 2.5th and 97.5th percentiles are that draw.

Before, ``hyoka mtbench leaderboard ... --resamples 1`` printed a "95% CI" of zero width
that did not hold the mean and "separability: 100%" (every pair told apart), exiting 0;
``bench_leaderboard(resamples=0)`` raised a bare ``IndexError``. Now the flag's minimum and
the library's check (``hyoka.arguments.resamples``, called by the bootstrap itself) refuse
fewer than two draws, naming the flag or the parameter.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.mtbench import bench_leaderboard
from hyoka.stats import bootstrap

PUBLISHED = SHARED_DATA / "jmt-bench" / "model_judgment" / "gpt-4_single.jsonl"


def test_the_leaderboard_refuses_one_resample_as_a_flag() -> None:
    args = ["mtbench", "leaderboard", "--bench", "jmt-bench", "--variant", "stability@aed16da",
            "--mix-variants", "--judgments", str(PUBLISHED), "--resamples", "1",
            "--data-dir", str(SHARED_DATA)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "--resamples" in result.output and "95% CI" not in result.output


@pytest.mark.parametrize("count", [1, 0, -5])
def test_the_library_names_the_parameter(count: int) -> None:
    expected = rf"^`resamples` must be at least 2 for a 95% interval, got {count}$"
    with pytest.raises(InputError, match=expected):
        bench_leaderboard("jmt-bench", [PUBLISHED], data_dir=SHARED_DATA, resamples=count)
    with pytest.raises(InputError, match=expected):
        bootstrap(lambda picks: picks.sum(axis=1).astype(float), 3, resamples=count)


def test_every_interval_of_the_bootstrap_checks_first() -> None:
    """The two-level draws refuse the count before numpy sees it (a negative size)."""
    import numpy as np

    from hyoka.stats.bootstrap import two_level_draws

    with pytest.raises(InputError, match=r"^`resamples` must be at least 2"):
        two_level_draws([np.array([1.0, 2.0])], resamples=-5)
