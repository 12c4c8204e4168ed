"""ELYZA-tasks-100 as Shaberi grades it: 100 single-turn tasks, each graded 1 to 5 against
its reference answer and its own criteria; the tasks are read from one of Shaberi's
published judgment files.

Two protocols (``--variant``), each pinned to the ``evaluation_datasets_config.py`` its
prompt is read from (the data manifest pins both files by commit and SHA-256):

``lightblue-2024`` (the default)
    Lightblue's Shaberi v1 (lightblue-tech/japanese_llm_eval @ 77dd88f): ``get_elyza_prompt``
    asks for the number alone, read as ``int(reply)`` (``ELYZA_V1``); answers generated at
    temperature 0 with 2048 tokens and no system message; its published gpt-4-turbo-preview
    judgments.
``shaberi-2025``
    shisa-ai/shaberi @ f8cd7a0 (2025-11-28): ``get_elyza_prompt`` asks for an explanation
    and a last line ``FINAL SCORE: x``, read by ``SHABERI_2025`` with its re-ask prompt
    (``_fallback_score_from_analysis``, the scale ``elyza_evaluator`` passes); answers
    generated as ``llm_functions.py``'s ``get_answer`` sends them (its system message, then
    the task; temperature 0.2, 6000 tokens); ``judge_answers.py``'s default judge,
    gpt-5.1-2025-11-13 (``llm_functions.py``: temperature 0, 1024 output tokens, reasoning
    effort ``none``).
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from hyoka.judge import ELYZA_V1, SHABERI_2025
from hyoka.mtbench.dialogue import SHABERI_DIALOGUE, NameDecoding
from hyoka.mtbench.headline import TURN_MEAN
from hyoka.mtbench.prompt_formats import PythonFString
from hyoka.mtbench.question_formats import SHABERI_ROWS
from hyoka.mtbench.shaberi import ReaskSource
from hyoka.mtbench.spec import BenchSpec, GenerationDefaults, JudgePromptNames, frozen
from hyoka.mtbench.variant import PinnedFile, Variant

#: One name for ELYZA's single prompt (it grades every task against its reference answer).
_PROMPT = "elyza-v1"
#: any complete Shaberi judgment file carries the 100 tasks unchanged (SOURCE.md)
_TASKS = PinnedFile(
    "judgments/gpt-4-turbo-preview/gpt-4-turbo-preview.json",
    "bce13398fb72dfb009e2eda574764d53d99e939fce02c1567377e280c98de8d2",
)
#: the references are in each task's row: no file
_NO_FILE = PinnedFile("", "")
#: The judge prompt files are pinned by the data manifest (commit and SHA-256) and not
#: again here: the tests read stand-ins of our own (upstream's Python is not carried), and
#: a judgment's signature names the bytes read (``elyza-tasks-100-judge-prompts@<sha>``).
_PROMPTS_2024 = PinnedFile("evaluation_datasets_config.py", "")
_PROMPTS_2025 = PinnedFile("variants/shaberi-2025/evaluation_datasets_config.py", "")

#: ``get_answer``'s choices by the model's name in shisa-ai/shaberi @ f8cd7a0
#: (``llm_functions.py``): names with an OpenAI prefix (``:236-239``; ``claude`` among
#: them) or ``gemini`` go to a hosted API; any other name to the vLLM/custom branch with
#: ``frequency_penalty=fp`` (``:294-295``), which ``generate_answers.py`` sets from its
#: ``-fp`` flag, default 1.0 (``:263``, ``:272``); its ``thinking_models`` (``:200-215``)
#: get 30000 tokens; ``gpt-5`` names temperature 1 (``:246-247``)
SHABERI_2025_DECODING = NameDecoding(
    source="shaberi f8cd7a0 llm_functions.py",
    hosted_prefixes=(
        "gpt-", "text-davinci-", "davinci", "curie", "babbage", "ada", "whisper", "claude",
        "text-embedding", "openai:", "gemini",
    ),
    frequency_penalty=1.0,
    long_names=frozenset({
        "deepseek-ai/DeepSeek-R1", "FuseAI/FuseO1-DeepSeekR1-QwQ-SkyT1-32B-Preview",
        "dahara1/DeepSeek-R1-Distill-Qwen-14B-unsloth-jpn", "RekaAI/reka-flash-3",
        "abeja/ABEJA-QwQ32b-Reasoning-Japanese-v1.0", "011-qwen3-8b-v2",
    }),
    long_max_tokens=30000,
    fixed_temperatures=(("gpt-5", 1.0),),
)  # fmt: skip

#: ``get_answer``'s system message in shisa-ai/shaberi @ f8cd7a0 (``llm_functions.py:228-231``)
SHABERI_2025_DIALOGUE = replace(
    SHABERI_DIALOGUE,
    system_message="あなたは公平で、検閲されていない、役立つアシスタントです。",
    system_name="shaberi-2025",
    decoding=SHABERI_2025_DECODING,
)

#: where f8cd7a0's file builds the re-ask prompt: ``_fallback_score_from_analysis`` fills
#: the first present of the row's ``Question``... and ``ModelAnswer``... (ELYZA's rows
#: hold both) and the judge's stripped reply; ``elyza_evaluator`` passes the scale
_REASK = ReaskSource(
    function="_fallback_score_from_analysis",
    variable="fallback_prompt",
    caller="elyza_evaluator",
    fields=(("question_text", "question"), ("answer_text", "answer"),
            ("analysis_text", "judgment")),
)  # fmt: skip

VARIANTS = (
    Variant(
        name="lightblue-2024",
        version=1,
        used_by="Lightblue's Shaberi v1 (japanese_llm_eval 77dd88f), its published "
        "gpt-4-turbo-preview judgments",
        questions=_TASKS,
        prompts=_PROMPTS_2024,
        references=_NO_FILE,
        turns=(1,),
        rating_rules=ELYZA_V1,
        judge="gpt-4-turbo-preview",
        prompt_format=PythonFString("get_elyza_prompt"),
    ),
    Variant(
        name="shaberi-2025",
        version=1,
        used_by="shisa-ai/shaberi f8cd7a0 (2025-11): FINAL SCORE prompt with its re-ask, "
        "gpt-5.1 judge",
        questions=_TASKS,
        prompts=_PROMPTS_2025,
        references=_NO_FILE,
        turns=(1,),
        rating_rules=SHABERI_2025,
        judge="gpt-5.1-2025-11-13",
        prompt_format=PythonFString("get_elyza_prompt", reask=_REASK),
        dialogue=SHABERI_2025_DIALOGUE,
        temperatures=MappingProxyType({"tasks": 0.2}),
        max_tokens=6000,
    ),
)

DEFINITION = BenchSpec(
    name="elyza-tasks-100",
    title="ELYZA-tasks-100",
    folder="elyza-tasks-100",
    # the tasks have no categories of their own: one column, the mean over the 100 tasks
    categories=("tasks",),
    # every task is graded against its reference answer (正解例), kept in the task's row
    reference_categories=frozenset({"tasks"}),
    reference_file="",
    answer_lang="ja",
    rating_rules=ELYZA_V1,
    zero_rules=(),
    pair_zero_rules=(),
    headline=TURN_MEAN,
    prompt_names=JudgePromptNames(*([_PROMPT] * 4)),
    dialogue=SHABERI_DIALOGUE,
    # Lightblue's llm_functions.py answers at temperature 0 with 2048 tokens
    generation=GenerationDefaults(frozen({}), 0.0, 2048, None),
    # the prompt's grades 1 (wrong) to 5 (helpful); no rule scores a task 0
    scale=(1, 5),
    integer_scores=True,
    upstream_name="elyza__ELYZA-tasks-100",
    turns=1,
    question_file=_TASKS.path,
    question_format=SHABERI_ROWS,
    repeated_turns="every",  # Shaberi's results notebook: pandas' mean over every row read
    prompt_file=_PROMPTS_2024.path,
    prompt_format=PythonFString("get_elyza_prompt"),
    # Shaberi's published gpt-4-turbo-preview judgments
    published_judgments="judgments/gpt-4-turbo-preview",
    listing_order=50,
    variants=VARIANTS,
    # hyoka judged ELYZA-tasks-100 by Lightblue's protocol alone before the 2025 one came
    unsigned_variant="lightblue-2024",
)
