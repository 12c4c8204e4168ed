"""pfmt-bench-fin-ja (pfnet-research): two-turn Japanese financial questions, the paper's
protocol (``make_leaderboard.py``: the mean of the category means)."""

from __future__ import annotations

from types import MappingProxyType

from hyoka.judge import PFMT_UPSTREAM
from hyoka.mtbench.dialogue import JAPANESE_DIALOGUE
from hyoka.mtbench.spec import BenchSpec, GenerationDefaults, frozen

#: upstream's temperatures: FastChat's for the shared categories, 0.7 for the rest
_TEMPERATURES = {
    "writing": 0.7, "roleplay": 0.7, "extraction": 0.0, "math": 0.0, "coding": 0.0,
    "reasoning": 0.0, "knowledge": 0.7, "idea": 0.7, "translation": 0.7, "ethics": 0.7,
    "trustworthiness": 0.7, "ESGs": 0.7,
}  # fmt: skip

#: short column names, as in the paper's Table 1
_COLUMNS = {
    "writing": "Writ.", "roleplay": "Role.", "knowledge": "Kno.", "extraction": "Ext.",
    "reasoning": "Reas.", "math": "Math", "coding": "Cod.", "idea": "Idea",
    "translation": "Tran.", "ethics": "Eth.", "trustworthiness": "Trust.", "ESGs": "ESGs",
}  # fmt: skip

DEFINITION = BenchSpec(
    name="pfmt-fin",
    title="pfmt-bench-fin-ja",
    folder="pfmt-bench-fin-ja",
    categories=(
        "writing",
        "roleplay",
        "knowledge",
        "extraction",
        "reasoning",
        "math",
        "coding",
        "idea",
        "translation",
        "ethics",
        "trustworthiness",
        "ESGs",
    ),
    reference_categories=frozenset({"math"}),
    reference_file="reference_answer/gpt-4o+human.jsonl",
    answer_lang="ja",
    rating_rules=PFMT_UPSTREAM,
    zero_rules=("no-answer", "language"),
    dialogue=JAPANESE_DIALOGUE,
    # upstream's temperatures, 4096 new tokens and a repetition penalty of 1.1 for locally
    # run models
    generation=GenerationDefaults(
        temperatures=frozen(_TEMPERATURES),
        other_temperature=0.7,
        max_tokens=4096,
        local_repetition_penalty=1.1,
    ),
    upstream_name="pfmt_bench_fin_ja",
    slash_in_model_names=True,
    column_names=MappingProxyType(_COLUMNS),
    listing_order=10,
)
