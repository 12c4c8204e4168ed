"""pfgen scores beside judge scores across models, as ``hyoka pfgen correlate`` reports
them: the runs of a results folder paired with their judge's summaries (or a table of
both scores), Pearson and Spearman with bootstrap intervals, and the judges that answered.

The command line only checks which of its flags go together, calls ``correlate_scores``
and shows (or plots) what it hands back; ``correlate_with_leaderboard`` is the other side
of the command (``--against``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.judge import JudgedBy, any_dry_run, judges_json
from hyoka.pfgen.judge import summary_judge
from hyoka.pfgen.paired_scores import PairedScores, collect_run_scores, read_score_table
from hyoka.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, Correlation, correlate


@dataclass(frozen=True)
class ScoreCorrelation:
    """The models' pfgen and judge scores (``paired``), their correlation, and the judge
    that answered each run's summary (none for a table, which names no judge)."""

    paired: PairedScores
    correlation: Correlation
    judges: list[JudgedBy]

    @property
    def judge_name(self) -> str:
        """The judge as the pairs name it, or ``judge`` for a table."""
        return self.paired.judge or "judge"

    def to_json(self) -> dict[str, Any]:
        """The judge and the judges that answered (a dry run where a script did), the
        correlation, the runs without a summary of the judge, the failed judgments left
        out, and each model's two scores."""
        paired = self.paired
        return {
            "judge": paired.judge, "judged_by": judges_json(self.judges),
            "dry_run": any_dry_run(self.judges), **self.correlation.to_json(),
            "runs_without_judge": paired.without_judge,
            "judge_failures": paired.judge_failures,
            "models": [{"model": p.model, "pfgen": p.pfgen, "judge": p.judge}
                       for p in paired.pairs],
        }  # fmt: skip


def correlate_scores(
    results_dir: Path | None = None,
    *,
    judge: str | None = None,
    table: Path | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ScoreCorrelation:
    """Pearson and Spearman between the pfgen scores and the judge scores of the runs in
    ``results_dir`` (each with ``judge``'s summary beside it; the only judge there when
    not given), or of a ``table`` of both; intervals from ``resamples`` bootstrap draws."""
    if table is not None:
        paired = read_score_table(table)
    elif results_dir is not None:
        paired = collect_run_scores(results_dir, judge)
    else:
        raise InputError("give `results_dir` or `table`")
    pairs = paired.pairs
    result = correlate(
        [p.pfgen for p in pairs], [p.judge for p in pairs], resamples=resamples, seed=seed
    )
    judges = []
    if paired.judge is not None:
        judges = [summary_judge(Path(pair.where), paired.judge) for pair in pairs]
    return ScoreCorrelation(paired, result, judges)
