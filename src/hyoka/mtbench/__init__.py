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
    model_name,
)
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.choices import (
    FormatChoice,
    InjectionChoice,
    JudgeModeChoice,
    LangCheckChoice,
    LayoutChoice,
    TemplateChoice,
)
from hyoka.mtbench.generate import (
    GeneratePlan,
    GenerateReport,
    answer_set,
    default_repetition_penalty,
    generate_answers,
    parse_temperatures,
)
from hyoka.mtbench.grade_battles import (
    GradeRatings,
    grade_battles,
    grade_ratings_of,
)
from hyoka.mtbench.judge import (
    BenchJudging,
    default_judge_name,
    pair_output,
    plan_all_turns,
    plan_turns,
    single_output,
)
from hyoka.mtbench.judge_meta import (
    JudgeMeta,
    JudgeMetaSettings,
    JudgeRow,
    judge_meta,
    render_judge_meta,
)
from hyoka.mtbench.judge_scores import Sources as JudgeSources
from hyoka.mtbench.judge_scores import published_sources
from hyoka.mtbench.judged_variant import row_variants
from hyoka.mtbench.leaderboard import (
    Leaderboard,
    build_leaderboard,
    display_name,
    judgment_files,
    round_half_up,
)
from hyoka.mtbench.length_columns import (
    LengthColumn,
    answer_turns,
    for_answers_flag,
    length_column,
    length_column_of,
)
from hyoka.mtbench.line_checks import check_models
from hyoka.mtbench.pair_summary import (
    length_controlled,
    method_counts,
    no_logprobs,
    style_controlled,
    turn_label,
)
from hyoka.mtbench.pairwise import (
    TurnLengths,
    TurnStyles,
    make_matches,
    plan_matches,
    turn_lengths,
    turn_styles,
)
from hyoka.mtbench.question_formats import Question, QuestionFormat
from hyoka.mtbench.radar import SUFFIXES as RADAR_SUFFIXES
from hyoka.mtbench.radar import write_radar
from hyoka.mtbench.rakuda import (
    MatchChecks,
    RakudaBench,
    RakudaPairLine,
    RakudaRanking,
    load_rakuda_answers,
    plan_rakuda,
    plan_rakuda_judging,
    rakuda_output,
    rakuda_settings,
    rank_rakuda,
    ranking_json,
    ranking_signature,
    read_matches,
)
from hyoka.mtbench.rankings import (
    Ranking,
    judgments_ranking,
    question_curve,
    rankings_report,
    reference_ranking,
    render_curve,
    render_rankings,
    score_table_path,
    table_rankings,
)
from hyoka.mtbench.records import (
    INCORRECT_LANGUAGE,
    NO_ANSWER,
    NO_RATING,
    PairJudgmentLine,
    SingleJudgmentLine,
)
from hyoka.mtbench.registry import (
    definition,
    definitions,
    fastchat_bench,
    fastchat_benches,
    variant_names,
)
from hyoka.mtbench.report import board_judges, render
from hyoka.mtbench.run import (
    RESULTS,
    AnswersGenerated,
    BenchBoard,
    MatchesJudged,
    PairsJudged,
    TurnsJudged,
    bench_leaderboard,
    generate_bench,
    judge_bench,
)
from hyoka.mtbench.single_folders import preferences_from_folders, read_single_grades
from hyoka.mtbench.spec import (
    DRAWN_MATCHES,
    FASTCHAT_JUDGING,
    BenchSpec,
    GenerationDefaults,
    JudgingProtocol,
    parse_layout,
)
from hyoka.mtbench.trials import IntervalSettings, mean_interval, table_separability
from hyoka.mtbench.variant import PinnedFile, Variant
from hyoka.mtbench.verify import Benches as VerifyBenches
from hyoka.mtbench.verify import (
    JudgmentCheck,
    checked_pairs,
    judgment_spec,
    pair_benches,
    recorded_bench,
    verify_file,
    verify_judgments,
)

__all__ = [
    "DRAWN_MATCHES",
    "FASTCHAT_JUDGING",
    "INCORRECT_LANGUAGE",
    "NO_ANSWER",
    "NO_RATING",
    "RADAR_SUFFIXES",
    "RESULTS",
    "AnswersGenerated",
    "Bench",
    "BenchBoard",
    "BenchJudging",
    "BenchSpec",
    "FormatChoice",
    "GeneratePlan",
    "GenerateReport",
    "GenerationDefaults",
    "GradeRatings",
    "InjectionChoice",
    "IntervalSettings",
    "JudgeMeta",
    "JudgeMetaSettings",
    "JudgeModeChoice",
    "JudgeRow",
    "JudgeSources",
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
    "PinnedFile",
    "Question",
    "QuestionFormat",
    "RakudaBench",
    "RakudaPairLine",
    "RakudaRanking",
    "Ranking",
    "SingleJudgmentLine",
    "TemplateChoice",
    "TurnLengths",
    "TurnStyles",
    "TurnsJudged",
    "Variant",
    "VerifyBenches",
    "answer_file",
    "answer_model_id",
    "answer_set",
    "answer_turns",
    "bench_leaderboard",
    "board_judges",
    "build_leaderboard",
    "check_models",
    "checked_pairs",
    "default_judge_name",
    "default_repetition_penalty",
    "definition",
    "definitions",
    "display_name",
    "fastchat_bench",
    "fastchat_benches",
    "for_answers_flag",
    "generate_answers",
    "generate_bench",
    "grade_battles",
    "grade_ratings_of",
    "judge_bench",
    "judge_meta",
    "judgment_files",
    "judgment_spec",
    "judgments_ranking",
    "length_column",
    "length_column_of",
    "length_controlled",
    "load_answers",
    "load_rakuda_answers",
    "make_matches",
    "mean_interval",
    "method_counts",
    "model_answer_file",
    "model_name",
    "no_logprobs",
    "pair_benches",
    "pair_output",
    "parse_layout",
    "parse_temperatures",
    "plan_all_turns",
    "plan_matches",
    "plan_rakuda",
    "plan_rakuda_judging",
    "plan_turns",
    "preferences_from_folders",
    "published_sources",
    "question_curve",
    "rakuda_output",
    "rakuda_settings",
    "rank_rakuda",
    "ranking_json",
    "ranking_signature",
    "rankings_report",
    "read_matches",
    "read_single_grades",
    "recorded_bench",
    "reference_ranking",
    "render",
    "render_curve",
    "render_judge_meta",
    "render_rankings",
    "round_half_up",
    "row_variants",
    "score_table_path",
    "single_output",
    "style_controlled",
    "table_rankings",
    "table_separability",
    "turn_label",
    "turn_lengths",
    "turn_styles",
    "variant_names",
    "verify_file",
    "verify_judgments",
    "write_radar",
]
