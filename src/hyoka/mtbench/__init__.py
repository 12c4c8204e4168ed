"""Benchmarks judged by an LLM, MT-bench style: their definitions (``definitions``, found
by the registry), loading, generation, judging, leaderboards and verification.

``Bench.load`` reads a benchmark's questions, judge prompts and reference answers from the
data directory; ``build_leaderboard`` turns judgment files into the per-category table.

Names load on first use (PEP 562, ``hyoka._faces``): a command that takes a flag's type
(``FormatChoice``) loads that module, not the whole package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyoka._faces import lazy_face

if TYPE_CHECKING:
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
    from hyoka.mtbench.constraint_checked import (
        ConstraintBoard,
        ConstraintsJudged,
        constraint_benchmark,
    )
    from hyoka.mtbench.generate import (
        answer_set,
    )
    from hyoka.mtbench.grade_battles import (
        grade_battles,
        grade_ratings_of,
    )
    from hyoka.mtbench.judge import (
        BenchJudging,
        pair_output,
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
        draw_matches,
        plan_rakuda_judging,
        rakuda_output,
        rakuda_settings,
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

#: public name -> (module, attribute): what the face gives, loaded on first use
_EXPORTS: dict[str, tuple[str, str]] = {
    "answer_file": ("hyoka.mtbench.answers", "answer_file"),
    "answer_model_id": ("hyoka.mtbench.answers", "answer_model_id"),
    "load_answers": ("hyoka.mtbench.answers", "load_answers"),
    "model_answer_file": ("hyoka.mtbench.answers", "model_answer_file"),
    "Bench": ("hyoka.mtbench.bench", "Bench"),
    "FormatChoice": ("hyoka.mtbench.choices", "FormatChoice"),
    "HeadlineChoice": ("hyoka.mtbench.choices", "HeadlineChoice"),
    "InjectionChoice": ("hyoka.mtbench.choices", "InjectionChoice"),
    "JudgeModeChoice": ("hyoka.mtbench.choices", "JudgeModeChoice"),
    "LangCheckChoice": ("hyoka.mtbench.choices", "LangCheckChoice"),
    "LayoutChoice": ("hyoka.mtbench.choices", "LayoutChoice"),
    "TemplateChoice": ("hyoka.mtbench.choices", "TemplateChoice"),
    "ConstraintBoard": ("hyoka.mtbench.constraint_checked", "ConstraintBoard"),
    "ConstraintsJudged": ("hyoka.mtbench.constraint_checked", "ConstraintsJudged"),
    "constraint_benchmark": ("hyoka.mtbench.constraint_checked", "constraint_benchmark"),
    "answer_set": ("hyoka.mtbench.generate", "answer_set"),
    "grade_battles": ("hyoka.mtbench.grade_battles", "grade_battles"),
    "grade_ratings_of": ("hyoka.mtbench.grade_battles", "grade_ratings_of"),
    "BenchJudging": ("hyoka.mtbench.judge", "BenchJudging"),
    "pair_output": ("hyoka.mtbench.judge", "pair_output"),
    "single_output": ("hyoka.mtbench.judge", "single_output"),
    "VariantBenches": ("hyoka.mtbench.judged_variant", "VariantBenches"),
    "row_variants": ("hyoka.mtbench.judged_variant", "row_variants"),
    "Leaderboard": ("hyoka.mtbench.leaderboard", "Leaderboard"),
    "build_leaderboard": ("hyoka.mtbench.leaderboard", "build_leaderboard"),
    "display_name": ("hyoka.mtbench.leaderboard", "display_name"),
    "judgment_files": ("hyoka.mtbench.leaderboard", "judgment_files"),
    "round_half_up": ("hyoka.mtbench.leaderboard", "round_half_up"),
    "LengthColumn": ("hyoka.mtbench.length_columns", "LengthColumn"),
    "length_column": ("hyoka.mtbench.length_columns", "length_column"),
    "length_column_of": ("hyoka.mtbench.length_columns", "length_column_of"),
    "check_line": ("hyoka.mtbench.line_checks", "check_line"),
    "check_models": ("hyoka.mtbench.line_checks", "check_models"),
    "length_controlled": ("hyoka.mtbench.pair_summary", "length_controlled"),
    "method_counts": ("hyoka.mtbench.pair_summary", "method_counts"),
    "style_controlled": ("hyoka.mtbench.pair_summary", "style_controlled"),
    "turn_styles": ("hyoka.mtbench.pairwise", "turn_styles"),
    "Question": ("hyoka.mtbench.question_formats", "Question"),
    "MatchChecks": ("hyoka.mtbench.rakuda", "MatchChecks"),
    "RakudaBench": ("hyoka.mtbench.rakuda", "RakudaBench"),
    "RakudaPairLine": ("hyoka.mtbench.rakuda", "RakudaPairLine"),
    "RakudaRanking": ("hyoka.mtbench.rakuda", "RakudaRanking"),
    "draw_matches": ("hyoka.mtbench.rakuda", "draw_matches"),
    "plan_rakuda_judging": ("hyoka.mtbench.rakuda", "plan_rakuda_judging"),
    "rakuda_output": ("hyoka.mtbench.rakuda", "rakuda_output"),
    "rakuda_settings": ("hyoka.mtbench.rakuda", "rakuda_settings"),
    "rank_rakuda": ("hyoka.mtbench.rakuda", "rank_rakuda"),
    "ranking_signature": ("hyoka.mtbench.rakuda", "ranking_signature"),
    "INCORRECT_LANGUAGE": ("hyoka.mtbench.records", "INCORRECT_LANGUAGE"),
    "NO_ANSWER": ("hyoka.mtbench.records", "NO_ANSWER"),
    "NO_RATING": ("hyoka.mtbench.records", "NO_RATING"),
    "AnswerRecord": ("hyoka.mtbench.records", "AnswerRecord"),
    "PairJudgmentLine": ("hyoka.mtbench.records", "PairJudgmentLine"),
    "SingleGradingLine": ("hyoka.mtbench.records", "SingleGradingLine"),
    "SingleJudgmentLine": ("hyoka.mtbench.records", "SingleJudgmentLine"),
    "definition": ("hyoka.mtbench.registry", "definition"),
    "definitions": ("hyoka.mtbench.registry", "definitions"),
    "fastchat_bench": ("hyoka.mtbench.registry", "fastchat_bench"),
    "fastchat_benches": ("hyoka.mtbench.registry", "fastchat_benches"),
    "spec_named": ("hyoka.mtbench.registry", "spec_named"),
    "variant_names": ("hyoka.mtbench.registry", "variant_names"),
    "board_judges": ("hyoka.mtbench.report", "board_judges"),
    "render": ("hyoka.mtbench.report", "render"),
    "RuleBoard": ("hyoka.mtbench.rule_checked", "RuleBoard"),
    "BenchBoard": ("hyoka.mtbench.run", "BenchBoard"),
    "MatchesJudged": ("hyoka.mtbench.run", "MatchesJudged"),
    "PairsJudged": ("hyoka.mtbench.run", "PairsJudged"),
    "TurnsJudged": ("hyoka.mtbench.run", "TurnsJudged"),
    "bench_leaderboard": ("hyoka.mtbench.run", "bench_leaderboard"),
    "check_json": ("hyoka.mtbench.run", "check_json"),
    "generate_bench": ("hyoka.mtbench.run", "generate_bench"),
    "iter_verify_bench": ("hyoka.mtbench.run", "iter_verify_bench"),
    "judge_bench": ("hyoka.mtbench.run", "judge_bench"),
    "variants_json": ("hyoka.mtbench.run", "variants_json"),
    "CONSTRAINT_CHECKED": ("hyoka.mtbench.spec", "CONSTRAINT_CHECKED"),
    "DRAWN_MATCHES": ("hyoka.mtbench.spec", "DRAWN_MATCHES"),
    "FASTCHAT_JUDGING": ("hyoka.mtbench.spec", "FASTCHAT_JUDGING"),
    "RULE_CHECKED": ("hyoka.mtbench.spec", "RULE_CHECKED"),
    "BenchSpec": ("hyoka.mtbench.spec", "BenchSpec"),
    "GenerationDefaults": ("hyoka.mtbench.spec", "GenerationDefaults"),
    "JudgingProtocol": ("hyoka.mtbench.spec", "JudgingProtocol"),
    "parse_layout": ("hyoka.mtbench.spec", "parse_layout"),
    "IntervalSettings": ("hyoka.mtbench.trials", "IntervalSettings"),
    "mean_interval": ("hyoka.mtbench.trials", "mean_interval"),
    "question_cells": ("hyoka.mtbench.trials", "question_cells"),
    "score_draws": ("hyoka.mtbench.trials", "score_draws"),
    "table_separability": ("hyoka.mtbench.trials", "table_separability"),
    "Variant": ("hyoka.mtbench.variant", "Variant"),
    "VerifyBenches": ("hyoka.mtbench.verify", "Benches"),
    "JudgmentCheck": ("hyoka.mtbench.verify", "JudgmentCheck"),
    "checked_pairs": ("hyoka.mtbench.verify", "checked_pairs"),
    "judgment_spec": ("hyoka.mtbench.verify", "judgment_spec"),
    "pair_benches": ("hyoka.mtbench.verify", "pair_benches"),
    "recorded_bench": ("hyoka.mtbench.verify", "recorded_bench"),
}

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
    "constraint_benchmark",
    "definition",
    "definitions",
    "display_name",
    "draw_matches",
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
    "pair_output",
    "parse_layout",
    "plan_rakuda_judging",
    "question_cells",
    "rakuda_output",
    "rakuda_settings",
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


__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
