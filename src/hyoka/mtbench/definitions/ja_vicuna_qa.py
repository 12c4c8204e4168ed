"""Japanese Vicuna QA (ku-nlp ja-vicuna-qa-benchmark): 80 single-turn questions, its own
rating rule and pairwise games in sorted model order, ``show_result.py``'s mean over every
line read."""

from __future__ import annotations

from types import MappingProxyType

from hyoka.judge import VICUNA_JA
from hyoka.mtbench.dialogue import VICUNA_QA_DIALOGUE
from hyoka.mtbench.headline import EVERY_LINE
from hyoka.mtbench.spec import BenchSpec, GenerationDefaults, JudgePromptNames, frozen

#: The temperature upstream's local generation answers every question at (128a862
#: ``llm_judge/gen_model_answer.py:157-160``): its ``DEFAULT_TEMPERATURE_MAP`` by category is
#: meant for a config without a temperature, but ``config.get("generation_config", {})`` is
#: the config's own dict, so the first question (id 1, ``generic``) writes 0.1 into it and
#: every later question finds that set. Every shipped local config has a
#: ``generation_config`` and none a temperature: 0.1 for all 80 questions. (The map's own
#: values are reachable with ``--temperature CATEGORY=T``.)
_FIRST_QUESTION_TEMPERATURE = 0.1
#: ja-vicuna-qa-benchmark's ``NEED_REF_CATS`` (``llm_judge/common.py``)
_REFERENCE = frozenset({"math", "reasoning", "coding"})

DEFINITION = BenchSpec(
    name="ja-vicuna-qa",
    title="Japanese Vicuna QA",
    folder="ja-vicuna-qa",
    categories=(
        "generic",
        "knowledge",
        "roleplay",
        "common-sense",
        "fermi",
        "counterfactual",
        "coding",
        "math",
        "writing",
    ),
    reference_categories=_REFERENCE,
    reference_file="reference_answer/gpt-4/results.jsonl",
    answer_lang="ja",
    # common.py: the first [[n]], else [[rating:n]], else [[rating: n]], else -1
    rating_rules=VICUNA_JA,
    zero_rules=(),
    pair_zero_rules=(),
    # llm_judge/show_result.py: every line read in the denominator (mtbench.headline)
    headline=EVERY_LINE,
    prompt_names=JudgePromptNames(
        single="single", single_reference="single-math", pair="pair", pair_reference="pair-math"
    ),
    dialogue=VICUNA_QA_DIALOGUE,
    # upstream's effective temperature, one for every category; the reply budget is each
    # model's config upstream (text-davinci-003's: max_tokens 2048), taken here as the
    # default; no penalty
    generation=GenerationDefaults(
        temperatures=frozen({}),
        other_temperature=_FIRST_QUESTION_TEMPERATURE,
        max_tokens=2048,
        local_repetition_penalty=None,
    ),
    turns=1,
    pair_models="sorted",
    upstream_pair_fields=True,
    upstream_name="jp_bench",
    repeated_turns="every",  # llm_judge/show_result.py: the mean over every line read
    column_names=MappingProxyType(
        {
            "knowledge": "Kno.",
            "roleplay": "Role.",
            "coding": "Cod.",
            "math": "Math",
            "writing": "Writ.",
        }
    ),
    listing_order=40,
)
