"""Two-turn benchmarks judged by an LLM, MT-bench style: pfmt-bench-fin-ja.

``Bench.load`` reads a benchmark's questions, judge prompts and reference answers from the
data directory; ``build_leaderboard`` turns judgment files into the per-category table.
"""

from hyoka.mtbench.answers import answer_file, answer_model_id, load_answers
from hyoka.mtbench.bench import (
    BENCHES,
    PFMT_FIN,
    SHORT_NAMES,
    Bench,
    BenchSpec,
    JudgePrompt,
    Layout,
    Question,
    parse_layout,
)
from hyoka.mtbench.generate import (
    GeneratePlan,
    GenerateReport,
    default_repetition_penalty,
    generate_answers,
    parse_temperatures,
)
from hyoka.mtbench.judge import (
    BenchJudging,
    default_judge_name,
    pair_output,
    plan_all_turns,
    plan_turns,
    single_output,
)
from hyoka.mtbench.leaderboard import (
    SCALE,
    Leaderboard,
    ModelScores,
    build_leaderboard,
    display_name,
    file_signature,
    judgment_files,
    round_half_up,
)
from hyoka.mtbench.pair_summary import method_counts, no_logprobs, turn_label
from hyoka.mtbench.pairwise import Match, make_matches, plan_matches, read_pair_lines
from hyoka.mtbench.radar import SUFFIXES as RADAR_SUFFIXES
from hyoka.mtbench.radar import write_radar
from hyoka.mtbench.rakuda import (
    RakudaBench,
    load_rakuda_answers,
    plan_rakuda,
    rakuda_output,
    rakuda_settings,
    ranking_json,
    read_matches,
)
from hyoka.mtbench.records import (
    INCORRECT_LANGUAGE,
    NO_ANSWER,
    NO_RATING,
    AnswerChoice,
    AnswerRecord,
    PairJudgmentLine,
    SingleJudgmentLine,
)
from hyoka.mtbench.report import render, to_json

__all__ = [
    "BENCHES",
    "INCORRECT_LANGUAGE",
    "NO_ANSWER",
    "NO_RATING",
    "PFMT_FIN",
    "RADAR_SUFFIXES",
    "SCALE",
    "SHORT_NAMES",
    "AnswerChoice",
    "AnswerRecord",
    "Bench",
    "BenchJudging",
    "BenchSpec",
    "GeneratePlan",
    "GenerateReport",
    "JudgePrompt",
    "Layout",
    "Leaderboard",
    "Match",
    "ModelScores",
    "PairJudgmentLine",
    "Question",
    "RakudaBench",
    "SingleJudgmentLine",
    "answer_file",
    "answer_model_id",
    "build_leaderboard",
    "default_judge_name",
    "default_repetition_penalty",
    "display_name",
    "file_signature",
    "generate_answers",
    "judgment_files",
    "load_answers",
    "load_rakuda_answers",
    "make_matches",
    "method_counts",
    "no_logprobs",
    "pair_output",
    "parse_layout",
    "parse_temperatures",
    "plan_all_turns",
    "plan_matches",
    "plan_rakuda",
    "plan_turns",
    "rakuda_output",
    "rakuda_settings",
    "ranking_json",
    "read_matches",
    "read_pair_lines",
    "render",
    "round_half_up",
    "single_output",
    "to_json",
    "turn_label",
    "write_radar",
]
