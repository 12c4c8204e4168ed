"""JFBench (pfnet-research/jfbench, commit c8fed01): IFBench's 300 prompts in Japanese, each
with constraints of 166 kinds, 123 decided by rules and 43 by an LLM judge
(``CONSTRAINT_CHECKED``: ``hyoka.jfbench``), summarised as upstream's ``analyze.py`` does.

Answering as upstream's ``eval.py`` asks (its ``LLMClient``): the prompt as the only user
message, no system message, temperature 0.1 and 4096 tokens, the reply stripped; the
questions are its default build (the seed-42 single-constraint build of the test set, in
its order: ``--limit N`` is its ``--n-benchmark-data N``). Judged constraints ask
gpt-oss-120b by default upstream; hyoka asks the judge given (``hyoka mtbench judge``),
three votes each, as upstream does.
"""

from __future__ import annotations

from dataclasses import replace

from hyoka.mtbench.dialogue import SHABERI_DIALOGUE
from hyoka.mtbench.question_formats import JFBENCH_ENTRIES
from hyoka.mtbench.spec import CONSTRAINT_CHECKED, BenchSpec, GenerationDefaults, frozen

DEFINITION = BenchSpec(
    name="jfbench", title="JFBench", folder="jfbench",
    # upstream's constraint groups, each entry in its constraint's
    categories=("Character", "Content", "Format", "Length", "Logic", "Notation", "Processing",
                "IfbenchCount", "IfbenchFormat", "IfbenchRatio", "IfbenchRepeat",
                "IfbenchSentence", "IfbenchWords", "MetaOutput", "Structure", "Style"),
    reference_categories=frozenset(), reference_file="", zero_rules=(), pair_zero_rules=(),
    # the prompt as the only user message, no system message
    dialogue=replace(SHABERI_DIALOGUE, system_name="none (jfbench)"),
    generation=GenerationDefaults(frozen({}), 0.1, 4096, None),
    upstream_name="jfbench", turns=1,
    question_file="data/ifbench_ja_translated.jsonl", question_format=JFBENCH_ENTRIES,
    judging=CONSTRAINT_CHECKED, published_judgments="benchmark_results",
    listing_order=75,
)  # fmt: skip
