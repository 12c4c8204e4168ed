"""Statistics for comparing evaluation methods: bootstrap CIs, correlations, agreement,
length and style control, and how far a ranking can be trusted."""

from hyoka.stats.agreement import AgreementReport, agreement_report
from hyoka.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    bootstrap,
    paired_two_level_intervals,
    summary_two_level_interval,
    two_level_draws,
    two_level_interval,
)
from hyoka.stats.bradley_terry import Battles, Rating, Ratings, bradley_terry
from hyoka.stats.correlation import (
    MIN_PAIRS,
    Correlation,
    RankCorrelations,
    correlate,
    kendall_tau_b,
    rank_correlations,
)
from hyoka.stats.home_advantage import HomeFit, HomeRanking, fit_home_advantage, rank_home_advantage
from hyoka.stats.home_advantage import Match as HomeMatch
from hyoka.stats.label_files import label_table_from_files
from hyoka.stats.labels import LETTERS, MIRROR, VERDICT_NAMES, LabelTable
from hyoka.stats.leaderboard_rows import BoardRow, OtherBoard, read_leaderboard
from hyoka.stats.length_adjusted import Grade, LengthAdjusted, length_adjusted_scores
from hyoka.stats.length_control import (
    RESAMPLED_GROUP,
    BaselineVerdict,
    LengthControlled,
    length_controlled_winrates,
)
from hyoka.stats.ordinal import ScaleAgreement, grouped_share, scale_agreement
from hyoka.stats.ranking_quality import (
    BRIER_TIES,
    BrierTies,
    RankingComparison,
    ScoreDraws,
    SeparabilityCurve,
    compare_rankings,
    mean_score_draws,
    separability,
    separability_curve,
)
from hyoka.stats.separation import NO_MAXIMUM
from hyoka.stats.single_grades import Grades, JudgeGrades, PreferenceTable, preferences
from hyoka.stats.style_control import (
    STYLE_CONTROLS,
    RawAndControlled,
    StyleControlled,
    StyleCounts,
    StyledBattle,
    held_equal,
    rate_with_style,
    rating_text,
    style_controlled_bradley_terry,
)

__all__ = [
    "BRIER_TIES",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "LETTERS",
    "MIN_PAIRS",
    "MIRROR",
    "NO_MAXIMUM",
    "RESAMPLED_GROUP",
    "STYLE_CONTROLS",
    "VERDICT_NAMES",
    "AgreementReport",
    "BaselineVerdict",
    "Battles",
    "BoardRow",
    "BrierTies",
    "Correlation",
    "Grade",
    "Grades",
    "HomeFit",
    "HomeMatch",
    "HomeRanking",
    "Interval",
    "JudgeGrades",
    "LabelTable",
    "LengthAdjusted",
    "LengthControlled",
    "OtherBoard",
    "PreferenceTable",
    "RankCorrelations",
    "RankingComparison",
    "Rating",
    "Ratings",
    "RawAndControlled",
    "ScaleAgreement",
    "ScoreDraws",
    "SeparabilityCurve",
    "StyleControlled",
    "StyleCounts",
    "StyledBattle",
    "agreement_report",
    "bootstrap",
    "bradley_terry",
    "compare_rankings",
    "correlate",
    "fit_home_advantage",
    "grouped_share",
    "held_equal",
    "kendall_tau_b",
    "label_table_from_files",
    "length_adjusted_scores",
    "length_controlled_winrates",
    "mean_score_draws",
    "paired_two_level_intervals",
    "preferences",
    "rank_correlations",
    "rank_home_advantage",
    "rate_with_style",
    "rating_text",
    "read_leaderboard",
    "scale_agreement",
    "separability",
    "separability_curve",
    "style_controlled_bradley_terry",
    "summary_two_level_interval",
    "two_level_draws",
    "two_level_interval",
]
