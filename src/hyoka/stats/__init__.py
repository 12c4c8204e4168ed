"""Statistics for comparing evaluation methods: bootstrap CIs, correlations, agreement."""

from hyoka.stats.agreement import (
    AgreementReport,
    PairAgreement,
    agreement_report,
    concordance,
    confusion,
    robustness,
)
from hyoka.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    bootstrap,
    group_means,
    noisy_group_means,
    outer_means,
    percentiles,
)
from hyoka.stats.bradley_terry import Battles, Ratings, bradley_terry
from hyoka.stats.correlation import Correlation, correlate, kendall_tau_b, pearson, spearman
from hyoka.stats.home_advantage import HomeFit, HomeRanking, fit_home_advantage, rank_home_advantage
from hyoka.stats.home_advantage import Match as HomeMatch
from hyoka.stats.kappa import category_counts, cohen_kappa, fleiss_kappa
from hyoka.stats.label_files import (
    build_label_table,
    label_table_from_files,
    read_human_labels,
    read_verdicts,
)
from hyoka.stats.labels import INVALID, LETTERS, MIRROR, VERDICT_NAMES, LabelTable
from hyoka.stats.paired_scores import collect_run_scores, read_score_table
from hyoka.stats.refset_stability import ENSEMBLE, refset_stability, stability_signature
from hyoka.stats.single_grades import (
    PreferenceTable,
    preferences,
    preferences_from_folders,
    read_categories,
    read_single_grades,
)

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "ENSEMBLE",
    "INVALID",
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
    "PairAgreement",
    "PreferenceTable",
    "Ratings",
    "agreement_report",
    "bootstrap",
    "bradley_terry",
    "build_label_table",
    "category_counts",
    "cohen_kappa",
    "collect_run_scores",
    "concordance",
    "confusion",
    "correlate",
    "fit_home_advantage",
    "fleiss_kappa",
    "group_means",
    "kendall_tau_b",
    "label_table_from_files",
    "noisy_group_means",
    "outer_means",
    "pearson",
    "percentiles",
    "preferences",
    "preferences_from_folders",
    "rank_home_advantage",
    "read_categories",
    "read_human_labels",
    "read_score_table",
    "read_single_grades",
    "read_verdicts",
    "refset_stability",
    "robustness",
    "spearman",
    "stability_signature",
]
