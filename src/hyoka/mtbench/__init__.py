"""Two-turn benchmarks judged by an LLM, MT-bench style: pfmt-bench-fin-ja.

``Bench.load`` reads a benchmark's questions, judge prompts and reference answers from the
data directory; ``build_leaderboard`` turns judgment files into the per-category table.
"""

from hyoka.mtbench.answers import load_answers
from hyoka.mtbench.bench import BENCHES, PFMT_FIN, Bench, BenchSpec, JudgePrompt, Question
from hyoka.mtbench.leaderboard import (
    Leaderboard,
    ModelScores,
    build_leaderboard,
    judgment_files,
    round_half_up,
)
from hyoka.mtbench.records import AnswerChoice, AnswerRecord, JudgmentRecord
from hyoka.mtbench.report import render, to_json

__all__ = [
    "BENCHES",
    "PFMT_FIN",
    "AnswerChoice",
    "AnswerRecord",
    "Bench",
    "BenchSpec",
    "JudgePrompt",
    "JudgmentRecord",
    "Leaderboard",
    "ModelScores",
    "Question",
    "build_leaderboard",
    "judgment_files",
    "load_answers",
    "render",
    "round_half_up",
    "to_json",
]
