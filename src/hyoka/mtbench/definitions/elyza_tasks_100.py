"""ELYZA-tasks-100 as Lightblue's Shaberi v1 (2024) grades it: 100 single-turn tasks, each
graded 1 to 5 against its reference answer and its own criteria; the tasks are read from
one of Shaberi's published judgment files."""

from __future__ import annotations

from hyoka.judge import ELYZA_V1
from hyoka.mtbench.dialogue import SHABERI_DIALOGUE
from hyoka.mtbench.prompt_formats import PythonFString
from hyoka.mtbench.question_formats import SHABERI_ROWS
from hyoka.mtbench.spec import BenchSpec, GenerationDefaults, JudgePromptNames, frozen

#: One name for ELYZA's single prompt (it grades every task against its reference answer).
_PROMPT = "elyza-v1"

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
    headline="turn-mean",
    prompt_names=JudgePromptNames(*([_PROMPT] * 4)),
    dialogue=SHABERI_DIALOGUE,
    # Lightblue's llm_functions.py answers at temperature 0 with 2048 tokens
    generation=GenerationDefaults(frozen({}), 0.0, 2048, None),
    # the prompt's grades 1 (wrong) to 5 (helpful); no rule scores a task 0
    scale=(1, 5),
    integer_scores=True,
    upstream_name="elyza__ELYZA-tasks-100",
    turns=1,
    # any complete Shaberi judgment file carries the 100 tasks unchanged (SOURCE.md)
    question_file="judgments/gpt-4-turbo-preview/gpt-4-turbo-preview.json",
    question_format=SHABERI_ROWS,
    repeated_turns="every",  # Shaberi's results notebook: pandas' mean over every row read
    prompt_file="evaluation_datasets_config.py",
    prompt_format=PythonFString("get_elyza_prompt"),
    # Shaberi's published gpt-4-turbo-preview judgments
    published_judgments="judgments/gpt-4-turbo-preview",
    listing_order=50,
)
