"""Statistics for comparing evaluation methods: bootstrap CIs, correlations, agreement."""

from hyoka.stats.agreement import AgreementReport, agreement_report
from hyoka.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    bootstrap,
    paired_two_level_intervals,
    summary_two_level_interval,
    two_level_interval,
)
from hyoka.stats.bradley_terry import Battles, Ratings, bradley_terry
from hyoka.stats.correlation import Correlation, correlate, kendall_tau_b
from hyoka.stats.home_advantage import HomeFit, HomeRanking, fit_home_advantage, rank_home_advantage
from hyoka.stats.home_advantage import Match as HomeMatch
from hyoka.stats.label_files import label_table_from_files
from hyoka.stats.labels import LETTERS, MIRROR, VERDICT_NAMES, LabelTable
from hyoka.stats.ordinal import (
    RankCorrelations,
    ScaleAgreement,
    grouped_share,
    rank_correlations,
    scale_agreement,
)
from hyoka.stats.paired_scores import collect_run_scores, read_score_table
from hyoka.stats.refset_stability import ENSEMBLE, refset_stability
from hyoka.stats.single_grades import preferences, preferences_from_folders, read_single_grades

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "ENSEMBLE",
    "LETTERS",
    "MIRROR",
    "VERDICT_NAMES",
    "AgreementReport",
    "Battles",
    "Correlation",
    "HomeFit",
    "HomeMatch",
    "HomeRanking",
    "Interval",
    "LabelTable",
    "RankCorrelations",
    "Ratings",
    "ScaleAgreement",
    "agreement_report",
    "bootstrap",
    "bradley_terry",
    "collect_run_scores",
    "correlate",
    "fit_home_advantage",
    "grouped_share",
    "kendall_tau_b",
    "label_table_from_files",
    "paired_two_level_intervals",
    "preferences",
    "preferences_from_folders",
    "rank_correlations",
    "rank_home_advantage",
    "read_score_table",
    "read_single_grades",
    "refset_stability",
    "scale_agreement",
    "summary_two_level_interval",
    "two_level_interval",
]
