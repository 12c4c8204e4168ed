"""Rakuda (yuzu-ai/japanese-llm-ranking, ``jrank/``): single-turn Japanese questions judged
in drawn pairwise matches, ranked by Bradley-Terry with a home advantage. What answering
takes is here (its four categories, one turn, upstream's system message, temperature and
budget: jrank's ``gen_api_model_answer.py``, 0.7 for every category, 1024 new tokens);
judging and ranking are its protocol's (``DRAWN_MATCHES``: ``hyoka.mtbench.rakuda``)."""

from __future__ import annotations

from types import MappingProxyType

from hyoka.mtbench.dialogue import RAKUDA_DIALOGUE
from hyoka.mtbench.spec import DRAWN_MATCHES, BenchSpec, GenerationDefaults

DEFINITION = BenchSpec(
    name="rakuda", title="Rakuda", folder="rakuda", categories=("地理", "政治", "歴史", "社会"),
    reference_categories=frozenset(), reference_file="", zero_rules=(), pair_zero_rules=(),
    dialogue=RAKUDA_DIALOGUE,
    generation=GenerationDefaults(MappingProxyType({}), 0.7, 1024, None),
    upstream_name="rakuda_v2", upstream_answers="answers", turns=1,
    question_file="questions.jsonl", prompt_file="judge_prompts.jsonl",
    judging=DRAWN_MATCHES, listing_order=60,
)  # fmt: skip
