"""M-IFEval-Ja (lightblue-tech/M-IFEval, commit 0bc3143): 172 single-turn Japanese prompts,
each with verifiable instructions, decided by rules, no judge (``RULE_CHECKED``: strict and
loose accuracy per prompt and per instruction, by ``hyoka.ifeval``).

Answering as upstream's ``get_responses.py`` asks: the prompt as the only user message, no
system message, greedy (temperature 0) with 2048 new tokens (its vLLM and Anthropic
generators; its OpenAI one leaves the server's defaults). swallow-evaluation-instruct's
``mifeval_ja`` task sets no budget of its own (``generation_size=None``: the run's model
settings decide), so upstream's settings are the default; the answers' signature names
them. Upstream writes ``data/ja_input_response_data_<model>.jsonl`` (``/`` as ``__``),
whose file name names the model, as the leaderboard reads it.
"""

from __future__ import annotations

from dataclasses import replace

from hyoka.mtbench.dialogue import SHABERI_DIALOGUE
from hyoka.mtbench.question_formats import IFEVAL_PROMPTS
from hyoka.mtbench.spec import RULE_CHECKED, BenchSpec, GenerationDefaults, frozen

DEFINITION = BenchSpec(
    name="m-ifeval-ja", title="M-IFEval-Ja", folder="m-ifeval-ja",
    # the instruction groups, each prompt in its first instruction's
    categories=("detectable_format", "letters", "length_constraints", "keywords", "startend",
                "combination", "detectable_content", "punctuation", "language"),
    reference_categories=frozenset(), reference_file="", zero_rules=(), pair_zero_rules=(),
    # the prompt as the only user message, no system message
    dialogue=replace(SHABERI_DIALOGUE, system_name="none (m-ifeval)"),
    generation=GenerationDefaults(frozen({}), 0.0, 2048, None),
    upstream_name="m-ifeval-ja", turns=1,
    question_file="data/ja_input_data.jsonl", question_format=IFEVAL_PROMPTS,
    judging=RULE_CHECKED, published_judgments="data", model_from_file_name=True,
    listing_order=70,
)  # fmt: skip
