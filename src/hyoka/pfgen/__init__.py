"""pfgen-bench: judge-free scoring of short Japanese answers by character n-grams.

Typical use::

    from hyoka.pfgen import PfgenBenchmark
    bench = PfgenBenchmark.load()            # data from $HYOKA_DATA_DIR or the user cache
    s = bench.score("Q01", "時計の長針と短針は1日に22回重なります。")
    s.fluency, s.truthfulness, s.helpfulness, s.average, s.missed
"""

from hyoka.pfgen._pysum import Summation
from hyoka.pfgen.benchmark import PfgenBenchmark, SampleAnswer
from hyoka.pfgen.leaderboard import collect as collect_leaderboard
from hyoka.pfgen.leaderboard import render as render_leaderboard
from hyoka.pfgen.questions import QuestionInfo
from hyoka.pfgen.runs import RunOutcome, score_run, score_runs
from hyoka.pfgen.scorer import AnswerScore, QuestionScorer
from hyoka.pfgen.summary import RunSummary

__all__ = [
    "AnswerScore",
    "PfgenBenchmark",
    "QuestionInfo",
    "QuestionScorer",
    "RunOutcome",
    "RunSummary",
    "SampleAnswer",
    "Summation",
    "collect_leaderboard",
    "render_leaderboard",
    "score_run",
    "score_runs",
]
