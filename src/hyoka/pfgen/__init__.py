"""pfgen-bench: judge-free scoring of short Japanese answers by character n-grams.

Typical use::

    from hyoka.pfgen import PfgenBenchmark
    bench = PfgenBenchmark.load()            # data from $HYOKA_DATA_DIR or the user cache
    s = bench.score("Q01", "時計の長針と短針は1日に22回重なります。")
    s.fluency, s.truthfulness, s.helpfulness, s.average, s.missed

Whole runs: ``score_run`` (writes result.json), ``verify_run`` (checks it; many runs stream
through ``iter_score_runs``/``iter_verify_runs``), ``collect_leaderboard``
(``collect_upstream_leaderboard``: upstream's rows and order) and ``render_leaderboard``;
generation: ``GenerateSettings`` (its defaults: upstream's ``PROTOCOL``), ``plan_generation``
and ``generate_run``; a whole run as the commands make it: ``run_pfgen`` (``make_run``, then
``score_new_run``) and ``public_neighbours``; analyses of runs: ``collect_run_scores``
(pfgen score beside a judge's mean), ``correlate_with_leaderboard`` (beside another
benchmark's leaderboard) and ``refset_stability``. This is the package's face: users and sibling
packages import from here, never from its modules. Names load on first use, so importing one
of them (or any module of the package) does not pull in numpy, the providers and the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyoka._faces import lazy_face

if TYPE_CHECKING:
    from hyoka.pfgen._codepoints import CodepointBatch, encode
    from hyoka.pfgen._pysum import Summation
    from hyoka.pfgen.batch import (
        RunsWatcher,
        score_paths,
        verify_paths,
    )
    from hyoka.pfgen.benchmark import BENCHMARK_FOLDER, PfgenBenchmark, SampleAnswer
    from hyoka.pfgen.board_pairs import BoardCorrelation, correlate_with_leaderboard
    from hyoka.pfgen.choices import LeaderboardFormat, Mode
    from hyoka.pfgen.correlation import ScoreCorrelation, correlate_scores
    from hyoka.pfgen.explanation import (
        Explanation,
        ReferencePool,
        explain,
        explain_many,
        reference_answers,
    )
    from hyoka.pfgen.generate import (
        GenerateSettings,
        PlannedRun,
        generate_run,
        plan_generation,
    )
    from hyoka.pfgen.judge import (
        PfgenJudged,
        answer_reader,
        judge_pfgen_run,
        summary_judge,
    )
    from hyoka.pfgen.keywords import parse_rules
    from hyoka.pfgen.leaderboard import Flags, leaderboard, rank, read_run, run_marks
    from hyoka.pfgen.leaderboard import collect as collect_leaderboard
    from hyoka.pfgen.leaderboard import collect_upstream as collect_upstream_leaderboard
    from hyoka.pfgen.leaderboard import render as render_leaderboard
    from hyoka.pfgen.ngram_index import window_keys
    from hyoka.pfgen.paired_scores import collect_run_scores, read_score_table
    from hyoka.pfgen.pipeline import (
        GeneratedRun,
        PfgenRun,
        RunWatcher,
        make_run,
        public_neighbours,
        run_pfgen,
        score_new_run,
    )
    from hyoka.pfgen.prompts import build_prompt, clean_answer, stops_for, trial_seed
    from hyoka.pfgen.protocol import PROTOCOL, REFSET_PROTOCOL, Protocol
    from hyoka.pfgen.provenance import data_id
    from hyoka.pfgen.questions import QuestionFile
    from hyoka.pfgen.refset_stability import (
        ENSEMBLE,
        StabilityReport,
        refset_stability,
        stability_of,
    )
    from hyoka.pfgen.run_config import ENGINE_NAMES
    from hyoka.pfgen.runs import (
        RunOutcome,
        RunReport,
        iter_score_runs,
        score_answers,
        score_run,
    )
    from hyoka.pfgen.scorer import AnswerScore
    from hyoka.pfgen.summary import (
        RunSummary,
        UnusableResultError,
        result_problem,
        run_result_problem,
        score_interval,
    )
    from hyoka.pfgen.verify import Verification, iter_verify_runs, verify_run
    from hyoka.store import pfgen_runs

    find_runs = pfgen_runs.find_runs
    read_result = pfgen_runs.read_result
    read_trials = pfgen_runs.read_trials
    scan_runs = pfgen_runs.scan_runs

#: Each public name -> (module, name there).
_EXPORTS: dict[str, tuple[str, str]] = {
    "ENGINE_NAMES": ("hyoka.pfgen.run_config", "ENGINE_NAMES"),
    "StabilityReport": ("hyoka.pfgen.refset_stability", "StabilityReport"),
    "stability_of": ("hyoka.pfgen.refset_stability", "stability_of"),
    "ScoreCorrelation": ("hyoka.pfgen.correlation", "ScoreCorrelation"),
    "correlate_scores": ("hyoka.pfgen.correlation", "correlate_scores"),
    "Verification": ("hyoka.pfgen.verify", "Verification"),
    "RunsWatcher": ("hyoka.pfgen.batch", "RunsWatcher"),
    "score_paths": ("hyoka.pfgen.batch", "score_paths"),
    "verify_paths": ("hyoka.pfgen.batch", "verify_paths"),
    "read_run": ("hyoka.pfgen.leaderboard", "read_run"),
    "run_marks": ("hyoka.pfgen.leaderboard", "run_marks"),
    "summary_judge": ("hyoka.pfgen.judge", "summary_judge"),
    "window_keys": ("hyoka.pfgen.ngram_index", "window_keys"),
    "trial_seed": ("hyoka.pfgen.prompts", "trial_seed"),
    "stops_for": ("hyoka.pfgen.prompts", "stops_for"),
    "result_problem": ("hyoka.pfgen.summary", "result_problem"),
    "run_result_problem": ("hyoka.pfgen.summary", "run_result_problem"),
    "UnusableResultError": ("hyoka.pfgen.summary", "UnusableResultError"),
    "score_interval": ("hyoka.pfgen.summary", "score_interval"),
    "reference_answers": ("hyoka.pfgen.explanation", "reference_answers"),
    "parse_rules": ("hyoka.pfgen.keywords", "parse_rules"),
    "explain_many": ("hyoka.pfgen.explanation", "explain_many"),
    "explain": ("hyoka.pfgen.explanation", "explain"),
    "encode": ("hyoka.pfgen._codepoints", "encode"),
    "data_id": ("hyoka.pfgen.provenance", "data_id"),
    "judge_pfgen_run": ("hyoka.pfgen.judge", "judge_pfgen_run"),
    "PfgenJudged": ("hyoka.pfgen.judge", "PfgenJudged"),
    "clean_answer": ("hyoka.pfgen.prompts", "clean_answer"),
    "build_prompt": ("hyoka.pfgen.prompts", "build_prompt"),
    "answer_reader": ("hyoka.pfgen.judge", "answer_reader"),
    "ReferencePool": ("hyoka.pfgen.explanation", "ReferencePool"),
    "QuestionFile": ("hyoka.pfgen.questions", "QuestionFile"),
    "Flags": ("hyoka.pfgen.leaderboard", "Flags"),
    "leaderboard": ("hyoka.pfgen.leaderboard", "leaderboard"),
    "Explanation": ("hyoka.pfgen.explanation", "Explanation"),
    "CodepointBatch": ("hyoka.pfgen._codepoints", "CodepointBatch"),
    "BENCHMARK_FOLDER": ("hyoka.pfgen.benchmark", "BENCHMARK_FOLDER"),
    "AnswerScore": ("hyoka.pfgen.scorer", "AnswerScore"),
    "GenerateSettings": ("hyoka.pfgen.generate", "GenerateSettings"),
    "LeaderboardFormat": ("hyoka.pfgen.choices", "LeaderboardFormat"),
    "Mode": ("hyoka.pfgen.choices", "Mode"),
    "GeneratedRun": ("hyoka.pfgen.pipeline", "GeneratedRun"),
    "PfgenRun": ("hyoka.pfgen.pipeline", "PfgenRun"),
    "RunWatcher": ("hyoka.pfgen.pipeline", "RunWatcher"),
    "make_run": ("hyoka.pfgen.pipeline", "make_run"),
    "public_neighbours": ("hyoka.pfgen.pipeline", "public_neighbours"),
    "run_pfgen": ("hyoka.pfgen.pipeline", "run_pfgen"),
    "score_new_run": ("hyoka.pfgen.pipeline", "score_new_run"),
    "PROTOCOL": ("hyoka.pfgen.protocol", "PROTOCOL"),
    "Protocol": ("hyoka.pfgen.protocol", "Protocol"),
    "REFSET_PROTOCOL": ("hyoka.pfgen.protocol", "REFSET_PROTOCOL"),
    "PfgenBenchmark": ("hyoka.pfgen.benchmark", "PfgenBenchmark"),
    "PlannedRun": ("hyoka.pfgen.generate", "PlannedRun"),
    "RunOutcome": ("hyoka.pfgen.runs", "RunOutcome"),
    "RunReport": ("hyoka.pfgen.runs", "RunReport"),
    "RunSummary": ("hyoka.pfgen.summary", "RunSummary"),
    "SampleAnswer": ("hyoka.pfgen.benchmark", "SampleAnswer"),
    "Summation": ("hyoka.pfgen._pysum", "Summation"),
    "collect_leaderboard": ("hyoka.pfgen.leaderboard", "collect"),
    "collect_upstream_leaderboard": ("hyoka.pfgen.leaderboard", "collect_upstream"),
    "find_runs": ("hyoka.store.pfgen_runs", "find_runs"),
    "generate_run": ("hyoka.pfgen.generate", "generate_run"),
    "plan_generation": ("hyoka.pfgen.generate", "plan_generation"),
    "rank": ("hyoka.pfgen.leaderboard", "rank"),
    "read_result": ("hyoka.store.pfgen_runs", "read_result"),
    "read_trials": ("hyoka.store.pfgen_runs", "read_trials"),
    "render_leaderboard": ("hyoka.pfgen.leaderboard", "render"),
    "scan_runs": ("hyoka.store.pfgen_runs", "scan_runs"),
    "score_answers": ("hyoka.pfgen.runs", "score_answers"),
    "score_run": ("hyoka.pfgen.runs", "score_run"),
    "verify_run": ("hyoka.pfgen.verify", "verify_run"),
    "iter_verify_runs": ("hyoka.pfgen.verify", "iter_verify_runs"),
    "iter_score_runs": ("hyoka.pfgen.runs", "iter_score_runs"),
    "BoardCorrelation": ("hyoka.pfgen.board_pairs", "BoardCorrelation"),
    "correlate_with_leaderboard": ("hyoka.pfgen.board_pairs", "correlate_with_leaderboard"),
    "collect_run_scores": ("hyoka.pfgen.paired_scores", "collect_run_scores"),
    "read_score_table": ("hyoka.pfgen.paired_scores", "read_score_table"),
    "ENSEMBLE": ("hyoka.pfgen.refset_stability", "ENSEMBLE"),
    "refset_stability": ("hyoka.pfgen.refset_stability", "refset_stability"),
}

__all__ = [
    "BENCHMARK_FOLDER",
    "ENGINE_NAMES",
    "ENSEMBLE",
    "PROTOCOL",
    "REFSET_PROTOCOL",
    "AnswerScore",
    "BoardCorrelation",
    "CodepointBatch",
    "Explanation",
    "Flags",
    "GenerateSettings",
    "GeneratedRun",
    "LeaderboardFormat",
    "Mode",
    "PfgenBenchmark",
    "PfgenJudged",
    "PfgenRun",
    "PlannedRun",
    "Protocol",
    "QuestionFile",
    "ReferencePool",
    "RunOutcome",
    "RunReport",
    "RunSummary",
    "RunWatcher",
    "RunsWatcher",
    "SampleAnswer",
    "ScoreCorrelation",
    "StabilityReport",
    "Summation",
    "UnusableResultError",
    "Verification",
    "answer_reader",
    "build_prompt",
    "clean_answer",
    "collect_leaderboard",
    "collect_run_scores",
    "collect_upstream_leaderboard",
    "correlate_scores",
    "correlate_with_leaderboard",
    "data_id",
    "encode",
    "explain",
    "explain_many",
    "find_runs",
    "generate_run",
    "iter_score_runs",
    "iter_verify_runs",
    "judge_pfgen_run",
    "leaderboard",
    "make_run",
    "parse_rules",
    "plan_generation",
    "public_neighbours",
    "rank",
    "read_result",
    "read_run",
    "read_score_table",
    "read_trials",
    "reference_answers",
    "refset_stability",
    "render_leaderboard",
    "result_problem",
    "run_marks",
    "run_pfgen",
    "run_result_problem",
    "scan_runs",
    "score_answers",
    "score_interval",
    "score_new_run",
    "score_paths",
    "score_run",
    "stability_of",
    "stops_for",
    "summary_judge",
    "trial_seed",
    "verify_paths",
    "verify_run",
    "window_keys",
]


__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
