"""Benchmarks judged by an LLM, MT-bench style: their definitions (``definitions``, found
by the registry), loading, generation, judging, leaderboards and verification.

``Bench.load`` reads a benchmark's questions, judge prompts and reference answers from the
data directory; ``build_leaderboard`` turns judgment files into the per-category table.
"""

from hyoka.mtbench.answers import (
    answer_file,
    answer_model_id,
    load_answers,
    model_answer_file,
)
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.choices import (
    FormatChoice,
    HeadlineChoice,
    InjectionChoice,
    JudgeModeChoice,
    LangCheckChoice,
    LayoutChoice,
    TemplateChoice,
)
from hyoka.mtbench.constraint_checked import ConstraintBoard, ConstraintsJudged
from hyoka.mtbench.generate import (
    answer_set,
)
from hyoka.mtbench.grade_battles import (
    grade_battles,
    grade_ratings_of,
)
from hyoka.mtbench.judge import (
    BenchJudging,
    single_output,
)
from hyoka.mtbench.judged_variant import VariantBenches, row_variants
from hyoka.mtbench.leaderboard import (
    Leaderboard,
    build_leaderboard,
    display_name,
    judgment_files,
    round_half_up,
)
from hyoka.mtbench.length_columns import (
    LengthColumn,
    length_column,
    length_column_of,
)
from hyoka.mtbench.line_checks import check_line, check_models
from hyoka.mtbench.pair_summary import (
    length_controlled,
    method_counts,
    style_controlled,
)
from hyoka.mtbench.pairwise import (
    turn_styles,
)
from hyoka.mtbench.question_formats import Question
from hyoka.mtbench.rakuda import (
    MatchChecks,
    RakudaBench,
    RakudaPairLine,
    RakudaRanking,
    plan_rakuda_judging,
    rank_rakuda,
    ranking_signature,
)
from hyoka.mtbench.records import (
    INCORRECT_LANGUAGE,
    NO_ANSWER,
    NO_RATING,
    AnswerRecord,
    PairJudgmentLine,
    SingleGradingLine,
    SingleJudgmentLine,
)
from hyoka.mtbench.registry import (
    definition,
    definitions,
    fastchat_bench,
    fastchat_benches,
    spec_named,
    variant_names,
)
from hyoka.mtbench.report import board_judges, render
from hyoka.mtbench.rule_checked import RuleBoard
from hyoka.mtbench.run import (
    BenchBoard,
    MatchesJudged,
    PairsJudged,
    TurnsJudged,
    bench_leaderboard,
    check_json,
    generate_bench,
    iter_verify_bench,
    judge_bench,
    variants_json,
)
from hyoka.mtbench.spec import (
    CONSTRAINT_CHECKED,
    DRAWN_MATCHES,
    FASTCHAT_JUDGING,
    RULE_CHECKED,
    BenchSpec,
    GenerationDefaults,
    JudgingProtocol,
    parse_layout,
)
from hyoka.mtbench.trials import (
    IntervalSettings,
    mean_interval,
    question_cells,
    score_draws,
    table_separability,
)
from hyoka.mtbench.variant import Variant
from hyoka.mtbench.verify import Benches as VerifyBenches
from hyoka.mtbench.verify import (
    JudgmentCheck,
    checked_pairs,
    judgment_spec,
    pair_benches,
    recorded_bench,
)

__all__ = [
    "CONSTRAINT_CHECKED",
    "DRAWN_MATCHES",
    "FASTCHAT_JUDGING",
    "INCORRECT_LANGUAGE",
    "NO_ANSWER",
    "NO_RATING",
    "RULE_CHECKED",
    "AnswerRecord",
    "Bench",
    "BenchBoard",
    "BenchJudging",
    "BenchSpec",
    "ConstraintBoard",
    "ConstraintsJudged",
    "FormatChoice",
    "GenerationDefaults",
    "HeadlineChoice",
    "InjectionChoice",
    "IntervalSettings",
    "JudgeModeChoice",
    "JudgingProtocol",
    "JudgmentCheck",
    "LangCheckChoice",
    "LayoutChoice",
    "Leaderboard",
    "LengthColumn",
    "MatchChecks",
    "MatchesJudged",
    "PairJudgmentLine",
    "PairsJudged",
    "Question",
    "RakudaBench",
    "RakudaPairLine",
    "RakudaRanking",
    "RuleBoard",
    "SingleGradingLine",
    "SingleJudgmentLine",
    "TemplateChoice",
    "TurnsJudged",
    "Variant",
    "VariantBenches",
    "VerifyBenches",
    "answer_file",
    "answer_model_id",
    "answer_set",
    "bench_leaderboard",
    "board_judges",
    "build_leaderboard",
    "check_json",
    "check_line",
    "check_models",
    "checked_pairs",
    "definition",
    "definitions",
    "display_name",
    "fastchat_bench",
    "fastchat_benches",
    "generate_bench",
    "grade_battles",
    "grade_ratings_of",
    "iter_verify_bench",
    "judge_bench",
    "judgment_files",
    "judgment_spec",
    "length_column",
    "length_column_of",
    "length_controlled",
    "load_answers",
    "mean_interval",
    "method_counts",
    "model_answer_file",
    "pair_benches",
    "parse_layout",
    "plan_rakuda_judging",
    "question_cells",
    "rank_rakuda",
    "ranking_signature",
    "recorded_bench",
    "render",
    "round_half_up",
    "row_variants",
    "score_draws",
    "single_output",
    "spec_named",
    "style_controlled",
    "table_separability",
    "turn_styles",
    "variant_names",
    "variants_json",
]
