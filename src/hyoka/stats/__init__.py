"""Statistics for comparing evaluation methods: bootstrap CIs, correlations, agreement,
length and style control, and how far a ranking can be trusted.

Names load on first use (PEP 562, ``hyoka._faces``): a module that takes one of its
types loads that type's module, not every statistic and fit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyoka._faces import lazy_face

if TYPE_CHECKING:
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
    from hyoka.stats.home_advantage import (
        HomeFit,
        HomeRanking,
        fit_home_advantage,
        rank_home_advantage,
    )
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

#: public name -> (module, attribute): what the face gives, loaded on first use
_EXPORTS: dict[str, tuple[str, str]] = {
    "AgreementReport": ("hyoka.stats.agreement", "AgreementReport"),
    "agreement_report": ("hyoka.stats.agreement", "agreement_report"),
    "DEFAULT_RESAMPLES": ("hyoka.stats.bootstrap", "DEFAULT_RESAMPLES"),
    "DEFAULT_SEED": ("hyoka.stats.bootstrap", "DEFAULT_SEED"),
    "Interval": ("hyoka.stats.bootstrap", "Interval"),
    "bootstrap": ("hyoka.stats.bootstrap", "bootstrap"),
    "paired_two_level_intervals": ("hyoka.stats.bootstrap", "paired_two_level_intervals"),
    "summary_two_level_interval": ("hyoka.stats.bootstrap", "summary_two_level_interval"),
    "two_level_draws": ("hyoka.stats.bootstrap", "two_level_draws"),
    "two_level_interval": ("hyoka.stats.bootstrap", "two_level_interval"),
    "Battles": ("hyoka.stats.bradley_terry", "Battles"),
    "Rating": ("hyoka.stats.bradley_terry", "Rating"),
    "Ratings": ("hyoka.stats.bradley_terry", "Ratings"),
    "bradley_terry": ("hyoka.stats.bradley_terry", "bradley_terry"),
    "MIN_PAIRS": ("hyoka.stats.correlation", "MIN_PAIRS"),
    "Correlation": ("hyoka.stats.correlation", "Correlation"),
    "RankCorrelations": ("hyoka.stats.correlation", "RankCorrelations"),
    "correlate": ("hyoka.stats.correlation", "correlate"),
    "kendall_tau_b": ("hyoka.stats.correlation", "kendall_tau_b"),
    "rank_correlations": ("hyoka.stats.correlation", "rank_correlations"),
    "HomeFit": ("hyoka.stats.home_advantage", "HomeFit"),
    "HomeRanking": ("hyoka.stats.home_advantage", "HomeRanking"),
    "fit_home_advantage": ("hyoka.stats.home_advantage", "fit_home_advantage"),
    "rank_home_advantage": ("hyoka.stats.home_advantage", "rank_home_advantage"),
    "HomeMatch": ("hyoka.stats.home_advantage", "Match"),
    "label_table_from_files": ("hyoka.stats.label_files", "label_table_from_files"),
    "LETTERS": ("hyoka.stats.labels", "LETTERS"),
    "MIRROR": ("hyoka.stats.labels", "MIRROR"),
    "VERDICT_NAMES": ("hyoka.stats.labels", "VERDICT_NAMES"),
    "LabelTable": ("hyoka.stats.labels", "LabelTable"),
    "BoardRow": ("hyoka.stats.leaderboard_rows", "BoardRow"),
    "OtherBoard": ("hyoka.stats.leaderboard_rows", "OtherBoard"),
    "read_leaderboard": ("hyoka.stats.leaderboard_rows", "read_leaderboard"),
    "Grade": ("hyoka.stats.length_adjusted", "Grade"),
    "LengthAdjusted": ("hyoka.stats.length_adjusted", "LengthAdjusted"),
    "length_adjusted_scores": ("hyoka.stats.length_adjusted", "length_adjusted_scores"),
    "RESAMPLED_GROUP": ("hyoka.stats.length_control", "RESAMPLED_GROUP"),
    "BaselineVerdict": ("hyoka.stats.length_control", "BaselineVerdict"),
    "LengthControlled": ("hyoka.stats.length_control", "LengthControlled"),
    "length_controlled_winrates": ("hyoka.stats.length_control", "length_controlled_winrates"),
    "ScaleAgreement": ("hyoka.stats.ordinal", "ScaleAgreement"),
    "grouped_share": ("hyoka.stats.ordinal", "grouped_share"),
    "scale_agreement": ("hyoka.stats.ordinal", "scale_agreement"),
    "BRIER_TIES": ("hyoka.stats.ranking_quality", "BRIER_TIES"),
    "BrierTies": ("hyoka.stats.ranking_quality", "BrierTies"),
    "RankingComparison": ("hyoka.stats.ranking_quality", "RankingComparison"),
    "ScoreDraws": ("hyoka.stats.ranking_quality", "ScoreDraws"),
    "SeparabilityCurve": ("hyoka.stats.ranking_quality", "SeparabilityCurve"),
    "compare_rankings": ("hyoka.stats.ranking_quality", "compare_rankings"),
    "mean_score_draws": ("hyoka.stats.ranking_quality", "mean_score_draws"),
    "separability": ("hyoka.stats.ranking_quality", "separability"),
    "separability_curve": ("hyoka.stats.ranking_quality", "separability_curve"),
    "NO_MAXIMUM": ("hyoka.stats.separation", "NO_MAXIMUM"),
    "Grades": ("hyoka.stats.single_grades", "Grades"),
    "JudgeGrades": ("hyoka.stats.single_grades", "JudgeGrades"),
    "PreferenceTable": ("hyoka.stats.single_grades", "PreferenceTable"),
    "preferences": ("hyoka.stats.single_grades", "preferences"),
    "STYLE_CONTROLS": ("hyoka.stats.style_control", "STYLE_CONTROLS"),
    "RawAndControlled": ("hyoka.stats.style_control", "RawAndControlled"),
    "StyleControlled": ("hyoka.stats.style_control", "StyleControlled"),
    "StyleCounts": ("hyoka.stats.style_control", "StyleCounts"),
    "StyledBattle": ("hyoka.stats.style_control", "StyledBattle"),
    "held_equal": ("hyoka.stats.style_control", "held_equal"),
    "rate_with_style": ("hyoka.stats.style_control", "rate_with_style"),
    "rating_text": ("hyoka.stats.style_control", "rating_text"),
    "style_controlled_bradley_terry": (
        "hyoka.stats.style_control",
        "style_controlled_bradley_terry",
    ),
}

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


__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
