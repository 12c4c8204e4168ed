"""Japanese MT-bench (Stability AI's translation of MT-bench), as the tools that publish
its numbers run it: MT-bench's FastChat rules (categories, references, rating, turns and
generation) on the Japanese files, which files and settings a run uses being its named
variant (``--variant``; the first the default).

Japanese MT-bench exists in several question versions, reference answers and judge-prompt
families, and each publisher combines them its own way (the data's ``SOURCE.md`` tables):
each ``Variant`` here names one such combination and pins each file by its SHA-256.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from hyoka.judge import LLM_JP
from hyoka.mtbench.definitions.mt_bench import DEFINITION as MT_BENCH
from hyoka.mtbench.dialogue import JAPANESE_DIALOGUE, STABILITY_DIALOGUE, SWALLOW_DIALOGUE
from hyoka.mtbench.headline import SWALLOW_TRIALS
from hyoka.mtbench.prompt_formats import LLM_JP_YAML
from hyoka.mtbench.variant import PinnedFile, Variant

#: Stability's ``temperature_config`` (jp-stable ``common.py:37-46``; aed16da's is the same)
#: and ``gen_model_answer.py``'s ``--max-new-token`` default, 512 (its ``gen_api_answer.py``
#: sends 1024 to the two names it takes: ``STABILITY_DIALOGUE``)
_STABILITY_TEMPERATURES: Mapping[str, float] = MappingProxyType({
    "writing": 0.5, "roleplay": 0.5, "extraction": 0.2, "math": 0.1, "coding": 0.1,
    "reasoning": 0.1, "stem": 0.2, "humanities": 0.2,
})  # fmt: skip
_STABILITY_MAX_TOKENS = 512

_Q_2023_08 = PinnedFile(
    "history/aed16da/question.jsonl",
    "63dd6730b8d95efa52fe46f75e9233ea1081eae38835092ae71698f821e7c196",
)
_REF_2023_08 = PinnedFile(
    "history/aed16da/reference_answer/gpt-4.jsonl",
    "d861a3505fe452114fe7236541a4998d042043a34ae17ce14bb714cd2ebc3f32",
)
#: Stability's Japanese judge prompts with the language clause (fd01e11): at aedb44e and,
#: the same bytes, at e37eb28
_PROMPTS_JA = "a3ef723f4e282ced514c8919773549675f0c0f87a61e5a5f46c320b048803b40"
_LLM_JP = "variants/llm-jp-judge/"
_Q_V3 = PinnedFile(
    _LLM_JP + "question/question_full-v3.jsonl",
    "e0b4bb06c909386a9b932e247f87a5efd8877808aa886062ef17f87c29e479a4",
)
_Q_V4 = PinnedFile(
    _LLM_JP + "question/question_full-v4.jsonl",
    "8f56c8bd5ff93d2120409bc8f77f0020e673c74548c9637f2aace12a323834e5",
)
_REF_GPT4O_HUMAN = PinnedFile(
    _LLM_JP + "reference_answer/base-gpt4o-with-human-annotation-v0.jsonl",
    "8ea6c0b82073908f94b57f67918de5f11286e1dd7334b366ecf47a2c9b774996",
)
_REF_GPT4_V1 = PinnedFile(
    _LLM_JP + "reference_answer/gpt-4-v1.jsonl",
    "b7a21905c6d4f06cfe02e117ae100f50b7e167740238dfd482ed0159e1ca46db",
)
_PROMPTS_LLM_JP = PinnedFile(
    _LLM_JP + "prompt/mt_bench_ja_prompt_v1.yaml",
    "716fff613e115d8623891b29ce13268683a2cd5685f5685c73e81bed9d1b9ef1",
)


#: llm-jp-judge's generation system prompt (``config/benchmark/generate.yaml:101``)
LLM_JP_DIALOGUE = replace(
    JAPANESE_DIALOGUE,
    system_message="以下は、タスクを説明する指示です。要求を適切に満たす応答を書きなさい。",
    system_name="llm-jp-judge",
)


def _llm_jp(name: str, used_by: str, questions: PinnedFile, references: PinnedFile) -> Variant:
    """llm-jp-judge's Japanese MT-bench (4392b3b): its prompt v1 (= W&B
    ``mtbench_ja_prompt:v1``, Nejumi's), both turns, its rating rule, judge gpt-4o."""
    return Variant(
        name=name, version=1, used_by=used_by, questions=questions, prompts=_PROMPTS_LLM_JP,
        references=references, turns=(1, 2), rating_rules=LLM_JP, judge="gpt-4o-2024-08-06",
        prompt_format=LLM_JP_YAML, dialogue=LLM_JP_DIALOGUE,
    )  # fmt: skip


VARIANTS: tuple[Variant, ...] = (
    Variant(
        name="stability",
        version=1,
        used_by="Stability-AI FastChat jp-stable (e37eb28), its defaults",
        questions=PinnedFile(
            "question.jsonl", "ed8317804df333211a9e5182bb3903f8b8f0ed8739d0371cbf7b90b42e73deaa"
        ),
        prompts=PinnedFile("judge_ja_prompts.jsonl", _PROMPTS_JA),
        references=PinnedFile(
            "reference_answer/gpt-4.jsonl",
            "0631685c4ebc66390970588b658e4d19047fafb0a00ec1d841616686c07b0d6b",
        ),
        turns=(1,),
        temperatures=_STABILITY_TEMPERATURES,
        max_tokens=_STABILITY_MAX_TOKENS,
        dialogue=STABILITY_DIALOGUE,
    ),
    Variant(
        name="stability@aed16da",
        version=1,
        used_by="Stability's published GPT-4 judgments (2023-08) of japanese-stablelm-"
        "instruct-alpha-7b and the three jslma-7b-ja-orca models",
        questions=_Q_2023_08,
        prompts=PinnedFile(
            "history/aed16da/judge_ja_prompts.jsonl",
            "1683296c812c8d179edeeb3f6ddfe6bc2fe24d32c960867335f66bad017c4134",
        ),
        references=_REF_2023_08,
        turns=(1,),
        temperatures=_STABILITY_TEMPERATURES,
        max_tokens=_STABILITY_MAX_TOKENS,
        dialogue=STABILITY_DIALOGUE,
    ),
    Variant(
        name="stability@aedb44e",
        version=1,
        used_by="Stability's published GPT-4 judgments (2023-09) of the three mixv3 models",
        questions=_Q_2023_08,
        prompts=PinnedFile("history/aedb44e/judge_ja_prompts.jsonl", _PROMPTS_JA),
        references=_REF_2023_08,
        turns=(1,),
        temperatures=_STABILITY_TEMPERATURES,
        max_tokens=_STABILITY_MAX_TOKENS,
        dialogue=STABILITY_DIALOGUE,
    ),
    Variant(
        name="swallow",
        version=1,
        used_by="swallow-evaluation (57c4ecd): question v4, Swallow-revised GPT-4o references, "
        "FastChat's prompts with a Japanese clause, 5 trials",
        questions=PinnedFile(
            "variants/swallow-evaluation/question.jsonl",
            "8f56c8bd5ff93d2120409bc8f77f0020e673c74548c9637f2aace12a323834e5",
        ),
        prompts=PinnedFile(
            "variants/swallow-evaluation/judge_prompts.jsonl",
            "87a9429bdfd776db887f4820f186f6943fa003ec90eec272cb96ff140bfcd7d8",
        ),
        references=PinnedFile(
            "variants/swallow-evaluation/reference_answer/gpt-4o-2024-08-06.jsonl",
            "237ce7a7eb6de8493b21a708a5dcaf5bce99155a038d898b5454e14c4f4a654c",
        ),
        turns=(1, 2),
        trials=5,
        judge="gpt-4o-2024-08-06",
        trial_lines=True,
        headline=SWALLOW_TRIALS,
        dialogue=SWALLOW_DIALOGUE,
    ),
    _llm_jp(
        "llm-jp",
        "llm-jp-judge (4392b3b) defaults: question v3, GPT-4o + human references",
        _Q_V3,
        _REF_GPT4O_HUMAN,
    ),
    _llm_jp(
        "llm-jp@v4",
        "llm-jp-judge with question v4 (Q64 turn 1 corrected), GPT-4o + human references",
        _Q_V4,
        _REF_GPT4O_HUMAN,
    ),
    _llm_jp(
        "llm-jp@gpt-4-v1",
        "llm-jp-judge with question v3 and its GPT-4 v1 references (W&B referenceanswer:v1)",
        _Q_V3,
        _REF_GPT4_V1,
    ),
)


DEFINITION = replace(
    MT_BENCH,
    name="jmt-bench",
    title="Japanese MT-bench",
    folder="jmt-bench",
    answer_lang="ja",
    dialogue=JAPANESE_DIALOGUE,
    upstream_name="japanese_mt_bench",
    variants=VARIANTS,
    model_from_file_name=True,
    listing_order=30,
)
