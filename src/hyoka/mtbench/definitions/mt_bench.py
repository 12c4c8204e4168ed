"""MT-bench (lm-sys FastChat's ``llm_judge``): 80 two-turn English questions, FastChat's
judge prompts, rating rule and ``show_result.py`` (the mean over every rated turn)."""

from __future__ import annotations

from types import MappingProxyType

from hyoka.judge import FASTCHAT
from hyoka.mtbench.dialogue import ENGLISH_DIALOGUE
from hyoka.mtbench.headline import TURN_MEAN
from hyoka.mtbench.spec import BenchSpec, GenerationDefaults, frozen

#: FastChat's ``temperature_config`` (``llm_judge/common.py``)
TEMPERATURES = frozen({
    "writing": 0.7, "roleplay": 0.7, "extraction": 0.0, "math": 0.0, "coding": 0.0,
    "reasoning": 0.0, "stem": 0.1, "humanities": 0.1,
})  # fmt: skip

#: short column names (the pfmt-bench-fin-ja paper's where categories are shared)
COLUMNS = MappingProxyType({
    "writing": "Writ.", "roleplay": "Role.", "reasoning": "Reas.", "math": "Math",
    "coding": "Cod.", "extraction": "Ext.", "stem": "STEM", "humanities": "Hum.",
})  # fmt: skip

DEFINITION = BenchSpec(
    name="mt-bench",
    title="MT-bench",
    folder="mt-bench",
    categories=(
        "writing",
        "roleplay",
        "reasoning",
        "math",
        "coding",
        "extraction",
        "stem",
        "humanities",
    ),
    reference_categories=frozenset({"math", "reasoning", "coding"}),
    reference_file="reference_answer/gpt-4.jsonl",
    answer_lang="en",
    rating_rules=FASTCHAT,
    # FastChat judges every turn, an empty answer included, and checks no language
    zero_rules=(),
    headline=TURN_MEAN,
    pair_zero_rules=(),
    dialogue=ENGLISH_DIALOGUE,
    # FastChat's temperature_config (0.7 elsewhere) and max_new_token 1024; no penalty
    generation=GenerationDefaults(
        temperatures=TEMPERATURES,
        other_temperature=0.7,
        max_tokens=1024,
        local_repetition_penalty=None,
    ),
    upstream_name="mt_bench",
    upstream_single_file=True,
    repeated_turns="every",
    column_names=COLUMNS,
    listing_order=20,
)
