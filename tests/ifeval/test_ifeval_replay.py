"""hyoka's M-IFEval-Ja verdicts against upstream's published ones, every prompt and model.

``../shared/data/m-ifeval-ja`` holds upstream's prompts, nine models' responses and the
verdicts upstream's code wrote for them (lightblue-tech/M-IFEval 0bc3143). hyoka rescores
every response and must agree on every instruction, strict and loose.

One verdict differs, and upstream's unseeded language detection explains it: the strict
reading of claude-3-5-sonnet-20240620's answer to prompt 2 (an e-mail in Thai, opened by
one line of Japanese). langdetect names it Thai under seed 0 (hyoka's rule, as Swallow's)
and Japanese under seed 1 (as in upstream's run); its loose verdict, read also without the
Japanese first line, is Thai either way. That one verdict moves Claude's strict scores
from upstream's 123/172 prompts and 174/226 instructions to 124 and 175.

The checks that need no word segmentation (and the language ones) run over all nine
models in the fast tests; the four checks that read Janome's tokens cost about 5 s a model,
so the whole replay per model is marked slow (CI runs it).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from _shared import SHARED_DATA, needs

needs("langdetect")
needs("janome")
needs("ja_sentence_segmenter")

from hyoka.ifeval import (  # noqa: E402
    LANGUAGE_ID,
    MODES,
    SEEDS_COMPARED,
    Mode,
    PromptSet,
    PublishedVerdicts,
    follows,
    judge_all,
    matched,
    read_evaluation,
    read_prompts,
    read_responses,
    tally,
)

DATA = SHARED_DATA / "m-ifeval-ja"
MODELS = (
    "claude-3-5-sonnet-20240620",
    "o1-mini-2024-09-12",
    "gpt-4o-2024-08-06",
    "Qwen__Qwen2.5-32B-Instruct-GPTQ-Int4",
    "Qwen__Qwen2.5-7B-Instruct-GPTQ-Int4",
    "hugging-quants__Meta-Llama-3.1-8B-Instruct-AWQ-INT4",
    "CohereForAI__aya-23-8B",
    "deepseek-ai__deepseek-llm-7b-chat",
    "Qwen__Qwen2.5-0.5B-Instruct-GPTQ-Int4",
)
#: SOURCE.md's table: strict prompt, strict instruction, loose prompt, loose instruction
PUBLISHED = {
    "claude-3-5-sonnet-20240620": (0.7151, 0.7699, 0.8140, 0.8496),
    "o1-mini-2024-09-12": (0.6453, 0.6947, 0.6802, 0.7257),
    "gpt-4o-2024-08-06": (0.6337, 0.7035, 0.6977, 0.7611),
    "Qwen__Qwen2.5-32B-Instruct-GPTQ-Int4": (0.6163, 0.6593, 0.6628, 0.7035),
    "Qwen__Qwen2.5-7B-Instruct-GPTQ-Int4": (0.4651, 0.5088, 0.5174, 0.5619),
    "hugging-quants__Meta-Llama-3.1-8B-Instruct-AWQ-INT4": (0.3314, 0.3982, 0.4012, 0.4602),
    "CohereForAI__aya-23-8B": (0.2791, 0.3496, 0.3081, 0.3850),
    "deepseek-ai__deepseek-llm-7b-chat": (0.2035, 0.2522, 0.2500, 0.3009),
    "Qwen__Qwen2.5-0.5B-Instruct-GPTQ-Int4": (0.1395, 0.1991, 0.1744, 0.2301),
}
#: the checks that read Janome's tokens (slow)
WORD_IDS = frozenset(
    {
        "ja:keywords:existence",
        "ja:keywords:frequency",
        "ja:keywords:forbidden_words",
        "ja:detectable_format:nominal_ending",
    }
)
#: the one verdict langdetect's draw decides otherwise than upstream's run: (model, mode,
#: prompt key, instruction id)
SEED_DEPENDENT: tuple[str, Mode, object, str] = (
    "claude-3-5-sonnet-20240620",
    "strict",
    2,
    LANGUAGE_ID,
)


@pytest.fixture(scope="module")
def prompts() -> PromptSet:
    return read_prompts(DATA / "data" / "ja_input_data.jsonl")


@cache
def _responses(model: str) -> tuple[str | None, ...]:
    path = DATA / "data" / f"ja_input_response_data_{model}.jsonl"
    found = read_prompts(DATA / "data" / "ja_input_data.jsonl").prompts
    return tuple(matched(found, read_responses(path), path))


@cache
def _published(model: str, mode: Mode) -> tuple[PublishedVerdicts, ...]:
    return read_evaluation(
        DATA / "evaluations" / f"ja_input_response_data_{model}" / f"eval_results_{mode}.jsonl"
    )


def _differences(
    prompts: PromptSet, keep: frozenset[str] | None, skip: frozenset[str] = frozenset()
) -> tuple[int, list[tuple[str, Mode, object, str]]]:
    """How many verdicts were compared, and where hyoka's differ from upstream's."""
    compared, found = 0, []
    for model in MODELS:
        for mode in MODES:
            published = _published(model, mode)
            for prompt, response, row in zip(
                prompts.prompts, _responses(model), published, strict=True
            ):
                assert row.prompt == prompt.text and row.ids == prompt.ids
                for instruction, verdict in zip(prompt.instructions(), row.follows, strict=True):
                    if instruction.id in skip or (keep is not None and instruction.id not in keep):
                        continue
                    compared += 1
                    if follows(instruction, response, mode) != verdict:
                        found.append((model, mode, prompt.key, instruction.id))
    return compared, found


def test_every_rule_verdict_of_nine_models_equals_the_published(prompts: PromptSet) -> None:
    compared, found = _differences(prompts, None, skip=WORD_IDS | {LANGUAGE_ID})
    assert compared == 9 * 2 * (226 - 28 - 4)
    assert found == []


def test_language_verdicts_differ_only_where_the_seed_decides(prompts: PromptSet) -> None:
    compared, found = _differences(prompts, frozenset({LANGUAGE_ID}))
    assert compared == 9 * 2 * 4
    assert found == [SEED_DEPENDENT]
    model, mode, key, _ = SEED_DEPENDENT
    index = [p.key for p in prompts.prompts].index(key)
    prompt, response = prompts.prompts[index], _responses(model)[index]
    drawn = {seed: follows(prompt.instructions(seed)[0], response, mode) for seed in (0, 1)}
    assert drawn == {0: True, 1: False}  # upstream's run drew as seed 1 does
    assert _published(model, mode)[index].follows == (False,)
    loose = {seed: follows(prompt.instructions(seed)[0], response, "loose") for seed in (0, 1)}
    assert loose == {0: True, 1: True}


def test_the_published_files_give_source_md_accuracies() -> None:
    for model, figures in PUBLISHED.items():
        strict, loose = tally(_published(model, "strict")), tally(_published(model, "loose"))
        shown = (
            strict.prompt_level.value,
            strict.instruction_level.value,
            loose.prompt_level.value,
            loose.instruction_level.value,
        )
        assert tuple(round(value, 4) for value in shown) == figures, model
    claude = tally(_published("claude-3-5-sonnet-20240620", "strict"))
    assert (claude.prompt_level.followed, claude.instruction_level.followed) == (123, 174)
    assert sum(a.total for a in claude.groups.values()) == 226
    assert claude.instructions["ja:letters:furigana"].total == 12


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_every_verdict_and_accuracy_of_a_model_equals_the_published(
    prompts: PromptSet, model: str
) -> None:
    ours = judge_all(prompts.prompts, _responses(model))
    for mode in MODES:
        published = _published(model, mode)
        differences = [
            (model, mode, verdict.prompt.key, iid)
            for verdict, row in zip(ours[mode], published, strict=True)
            for iid, mine, theirs in zip(row.ids, verdict.follows, row.follows, strict=True)
            if mine != theirs
        ]
        assert differences == ([SEED_DEPENDENT] if SEED_DEPENDENT[:2] == (model, mode) else [])
        mine, theirs = tally(ours[mode]), tally(published)
        moved = len(differences)  # each difference made hyoka's verdict true
        assert mine.instruction_level.followed == theirs.instruction_level.followed + moved
        assert mine.prompt_level.followed == theirs.prompt_level.followed + moved
        if not moved:
            assert mine == theirs


@pytest.mark.slow
def test_which_language_verdicts_depend_on_the_seed(prompts: PromptSet) -> None:
    """Of the 72 language verdicts, two change with langdetect's seed (0 to 9): Claude's,
    which upstream's draw decided otherwise than seed 0, and Qwen2.5-32B's strict one on the
    same prompt, which upstream's draw decided as seed 0 does."""
    found = []
    for model in MODELS:
        for mode in MODES:
            for prompt, response in zip(prompts.prompts, _responses(model), strict=True):
                if LANGUAGE_ID not in prompt.ids:
                    continue
                index = prompt.ids.index(LANGUAGE_ID)
                drawn = {
                    follows(prompt.instructions(seed)[index], response, mode)
                    for seed in SEEDS_COMPARED
                }
                if len(drawn) > 1:
                    found.append((model, mode, prompt.key))
    assert found == [
        ("claude-3-5-sonnet-20240620", "strict", 2),
        ("Qwen__Qwen2.5-32B-Instruct-GPTQ-Int4", "strict", 2),
    ]


def test_the_prompts_file_is_upstreams(prompts: PromptSet) -> None:
    assert len(prompts.prompts) == 172
    assert sum(len(p.ids) for p in prompts.prompts) == 226
    assert len({i for p in prompts.prompts for i in p.ids}) == 33
    assert prompts.sha256.startswith("d74fbbd1")  # SHA256SUMS beside the data
    assert Path(prompts.path).name == "ja_input_data.jsonl"
