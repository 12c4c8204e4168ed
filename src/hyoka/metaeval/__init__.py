"""The evaluation evaluated: judges measured on their judgments, rankings on their draws.

It reads what the judged benchmarks wrote (``mtbench``'s judgment lines, leaderboards and
draws) and published tables of grades, and asks how far their numbers can be trusted, so
it sits above ``mtbench`` and below the report that shows it:

- ``judge_meta``: a leaderboard of judges (``hyoka judge meta``, the report's judges page)
  from ``JudgeSources``: agreement with a reference, rank correlation, position and length
  bias, variance across repeats, faults; ``published_sources`` finds the published
  judgments under a data directory;
- ``preferences_from_folders``: two judges' single-grading folders side by side for
  ``hyoka judge agreement --single`` (each read by ``read_single_grades``);
- ``rankings_report`` and ``question_curve``: do two rankings (two judges, a judge and a
  published ranking, two trials) order the models alike, and how many questions does a
  benchmark need to tell them apart (``hyoka judge rankings``, ``hyoka judge curve``), over
  rankings read by ``judgments_ranking``, ``table_rankings`` and ``reference_ranking``.
"""

from hyoka.metaeval.judge_meta import (
    JudgeMeta,
    JudgeMetaSettings,
    JudgeRow,
    judge_meta,
    render_judge_meta,
)
from hyoka.metaeval.judge_scores import Sources as JudgeSources
from hyoka.metaeval.judge_scores import published_sources
from hyoka.metaeval.rankings import (
    Ranking,
    judgments_ranking,
    judgments_rankings,
    question_curve,
    rankings_report,
    reference_ranking,
    render_curve,
    render_rankings,
    score_table_path,
    table_rankings,
)
from hyoka.metaeval.single_folders import preferences_from_folders, read_single_grades

__all__ = [
    "JudgeMeta",
    "JudgeMetaSettings",
    "JudgeRow",
    "JudgeSources",
    "Ranking",
    "judge_meta",
    "judgments_ranking",
    "judgments_rankings",
    "preferences_from_folders",
    "published_sources",
    "question_curve",
    "rankings_report",
    "read_single_grades",
    "reference_ranking",
    "render_curve",
    "render_judge_meta",
    "render_rankings",
    "score_table_path",
    "table_rankings",
]
