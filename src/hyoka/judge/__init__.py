"""LLM-as-a-judge: prompt templates as data, rating parsing, single grading, pairwise judging.

Templates (``load_template``) name their kind and how the judge's reply is read; every
judgment, single or pairwise, is one ``JudgmentRecord`` line in an append-only file.
"""

from hyoka.judge.rating import RatingOutcome, parse_rating, rate
from hyoka.judge.records import FAILED, JudgeSettings, JudgmentKind, JudgmentRecord
from hyoka.judge.single import SingleItem, SingleReport, SingleSummary, judge_single, summarise
from hyoka.judge.templates import JudgeTemplate, TemplateKind, load_template, packaged_templates

__all__ = [
    "FAILED",
    "JudgeSettings",
    "JudgeTemplate",
    "JudgmentKind",
    "JudgmentRecord",
    "RatingOutcome",
    "SingleItem",
    "SingleReport",
    "SingleSummary",
    "TemplateKind",
    "judge_single",
    "load_template",
    "packaged_templates",
    "parse_rating",
    "rate",
    "summarise",
]

# pairwise

from hyoka.judge.criteria import CriteriaStore, generate_criteria
from hyoka.judge.pair_answers import load_pairs
from hyoka.judge.pairwise import METHODS, Method, PairItem, PairwisePlan, judge_pairs
from hyoka.judge.pairwise_summary import PairwiseSummary, export_verdicts
from hyoka.judge.pairwise_summary import summarise as summarise_pairwise
from hyoka.judge.verdict_probs import VerdictProbs, parse_verdict, verdict_probabilities
from hyoka.judge.winrate import WinCounts, win_counts

__all__ += [
    "METHODS",
    "CriteriaStore",
    "Method",
    "PairItem",
    "PairwisePlan",
    "PairwiseSummary",
    "VerdictProbs",
    "WinCounts",
    "export_verdicts",
    "generate_criteria",
    "judge_pairs",
    "load_pairs",
    "parse_verdict",
    "summarise_pairwise",
    "verdict_probabilities",
    "win_counts",
]
