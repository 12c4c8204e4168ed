"""LLM-as-a-judge: one engine, two protocols, templates and rating rules as data.

Every judgment goes through one loop (``run_judging``): a ``JudgePlan`` holds the tasks
(prompts rendered, rules applied), the protocol (``SingleGrading``: a rating per answer;
``PairwiseJudging``: both orders and the prob/bs1/bs2 verdicts), the run's identity
(``JudgeRun``: what a resumed file must match, and the signature of its numbers) and the
file format its lines are written in. ``plan_single`` and ``plan_pairs`` make the generic
runs; benchmarks (``hyoka.mtbench``) make theirs from the same parts.
"""

from hyoka.judge.choices import (
    AggregateChoice,
    CriteriaChoice,
    MethodChoice,
    StyleControlChoice,
)
from hyoka.judge.engine import (
    FileFormat,
    Judged,
    JudgePlan,
    JudgeReport,
    JudgeRun,
    Protocol,
    Task,
    check_judge,
    inputs_hash,
    judge_plan,
    open_log,
    read_judgments,
    read_lines,
    run_judging,
    user_prompt_of,
)
from hyoka.judge.judged_by import (
    JudgedBy,
    judged_by,
    judges_shown,
    judges_token,
    token_dry_run,
)
from hyoka.judge.outcome import PairwiseRun, SingleRun, cost_usd
from hyoka.judge.pair_answers import Answer, load_pairs, read_answers
from hyoka.judge.pairwise import (
    METHODS,
    SIDES,
    Method,
    PairwiseJudging,
    check_criteria_use,
    combine,
    default_max_tokens,
    default_output,
    fill_criteria,
    lacks_methods,
    order_agreement,
    orders_agree,
    pairwise_settings,
    parse_methods,
    plan_pairs,
    prob_verdict,
    rule_verdict,
    template_name,
)
from hyoka.judge.pairwise_summary import PairwiseSummary, export_verdicts
from hyoka.judge.pairwise_summary import summarise as summarise_pairwise
from hyoka.judge.rating import (
    ELYZA_V1,
    FASTCHAT,
    LLM_JP,
    PFMT_UPSTREAM,
    RATING_RULES,
    VICUNA_JA,
    RatingRules,
    find_rating,
)
from hyoka.judge.records import JudgeSettings, JudgmentRecord, OmitsEmpty
from hyoka.judge.single import (
    SingleGrading,
    SingleItem,
    SingleSummary,
    graded_by,
    plan_single,
    read_items,
    summarise,
)
from hyoka.judge.templates import JudgeTemplate, load_template
from hyoka.judge.verdict_probs import VerdictOutput, parse_verdict
from hyoka.judge.winrate import WinCounts, head_to_head, win_counts, win_share

__all__ = [
    "ELYZA_V1",
    "FASTCHAT",
    "LLM_JP",
    "METHODS",
    "PFMT_UPSTREAM",
    "RATING_RULES",
    "SIDES",
    "VICUNA_JA",
    "AggregateChoice",
    "Answer",
    "CriteriaChoice",
    "FileFormat",
    "JudgePlan",
    "JudgeReport",
    "JudgeRun",
    "JudgeSettings",
    "JudgeTemplate",
    "Judged",
    "JudgedBy",
    "JudgmentRecord",
    "Method",
    "MethodChoice",
    "OmitsEmpty",
    "PairwiseJudging",
    "PairwiseRun",
    "PairwiseSummary",
    "Protocol",
    "RatingRules",
    "SingleGrading",
    "SingleItem",
    "SingleRun",
    "SingleSummary",
    "StyleControlChoice",
    "Task",
    "VerdictOutput",
    "WinCounts",
    "check_criteria_use",
    "check_judge",
    "combine",
    "cost_usd",
    "default_max_tokens",
    "default_output",
    "export_verdicts",
    "fill_criteria",
    "find_rating",
    "graded_by",
    "head_to_head",
    "inputs_hash",
    "judge_plan",
    "judged_by",
    "judges_shown",
    "judges_token",
    "lacks_methods",
    "load_pairs",
    "load_template",
    "open_log",
    "order_agreement",
    "orders_agree",
    "pairwise_settings",
    "parse_methods",
    "parse_verdict",
    "plan_pairs",
    "plan_single",
    "prob_verdict",
    "read_answers",
    "read_items",
    "read_judgments",
    "read_lines",
    "rule_verdict",
    "run_judging",
    "summarise",
    "summarise_pairwise",
    "template_name",
    "token_dry_run",
    "user_prompt_of",
    "win_counts",
    "win_share",
]
