"""Statistics for comparing evaluation methods: bootstrap CIs, correlations, agreement."""

from hyoka.stats.agreement import (
    AgreementReport,
    PairAgreement,
    agreement_report,
    concordance,
    confusion,
    robustness,
)
from hyoka.stats.bootstrap import Interval, bootstrap
from hyoka.stats.correlation import Correlation, correlate, pearson, spearman
from hyoka.stats.kappa import category_counts, cohen_kappa, fleiss_kappa
from hyoka.stats.label_files import build_label_table, read_human_labels, read_verdicts
from hyoka.stats.labels import INVALID, LETTERS, LabelTable
from hyoka.stats.single_grades import (
    PreferenceTable,
    preferences,
    read_categories,
    read_single_grades,
)

__all__ = [
    "INVALID",
    "LETTERS",
    "AgreementReport",
    "Correlation",
    "Interval",
    "LabelTable",
    "PairAgreement",
    "PreferenceTable",
    "agreement_report",
    "bootstrap",
    "build_label_table",
    "category_counts",
    "cohen_kappa",
    "concordance",
    "confusion",
    "correlate",
    "fleiss_kappa",
    "pearson",
    "preferences",
    "read_categories",
    "read_human_labels",
    "read_single_grades",
    "read_verdicts",
    "robustness",
    "spearman",
]
