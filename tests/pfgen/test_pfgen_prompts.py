"""Prompt texts, config hashes and run folders, checked against the spec and public runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from _shared import PFGEN_RESULTS
from hyoka.errors import HyokaError
from hyoka.pfgen.benchmark import PfgenBenchmark, SampleAnswer
from hyoka.pfgen.prompts import (
    Mode,
    build_prompt,
    clean_answer,
    select_examples,
    stops_for,
    trial_seed,
)
from hyoka.pfgen.run_config import config_hash, config_text, make_config, run_folder
from hyoka.providers.types import SamplingParams

PUBLIC_CONFIGS = sorted(PFGEN_RESULTS.rglob("config.json"))
#: This folder's config.json gained a key after it was scored, so its hash no longer matches.
EDITED_AFTER_THE_FACT = "Qwen/Qwen3-1.7B-Base/26f4649"
#: the keys ``make_config`` needs; the earliest upstream configs predate ``max_tokens``
MAKE_CONFIG_KEYS = {"engine", "model", "mode", "num_examples", "max_tokens"}
MODERN_CONFIGS = [
    path
    for path in PUBLIC_CONFIGS
    if json.loads(path.read_text(encoding="utf-8")).keys() >= MAKE_CONFIG_KEYS
]


@pytest.fixture(scope="module")
def samples(benchmark: PfgenBenchmark) -> list[SampleAnswer]:
    return benchmark.sample_answers()


def test_fifty_sample_answers_in_question_order(
    samples: list[SampleAnswer], benchmark: PfgenBenchmark
) -> None:
    assert len(samples) == 50
    assert [s.question for s in samples] == [q.question for q in benchmark.questions.values()]


def test_examples_exclude_the_question_and_follow_the_seeded_hash(
    samples: list[SampleAnswer],
) -> None:
    question = samples[0].question
    chosen = select_examples(samples, question, trial=3, num_examples=20, seed="s")
    assert len(chosen) == 20 and question not in {c.question for c in chosen}
    digests = [hashlib.sha1(f"s::3::{c.question}".encode()).hexdigest() for c in chosen]
    assert digests == sorted(digests)
    rest = [s for s in samples[1:] if s not in chosen]
    assert all(hashlib.sha1(f"s::3::{r.question}".encode()).hexdigest() > digests[-1] for r in rest)
    assert select_examples(samples, question, 4, 20, "s") != chosen


def test_the_three_prompt_texts(samples: list[SampleAnswer]) -> None:
    question = samples[0].question
    (example,) = select_examples(samples, question, trial=1, num_examples=1)
    shot = f"Q: {example.question}\nA: {example.answer}"
    completion = build_prompt(samples, question, Mode.COMPLETION, 1, num_examples=1)
    assert completion.text == f"## 回答例\n{shot}\n\nQ: {question}\nA:"
    assert completion.system is None
    qa = build_prompt(samples, question, Mode.QA, 1, num_examples=1, prefix="P")
    assert qa.text == (
        "P例と同様の文体及び文字数で、質問に1行で答えてください。\n\n"
        f"## 回答例\n{shot}\n\n## 質問\nQ: {question}"
    )
    chat = build_prompt(samples, question, Mode.CHAT, 1, num_examples=1)
    assert chat.system == (
        f"例と同様の文体及び文字数で、ユーザの質問に1行で答えてください。\n\n## 回答例\n{shot}"
    )
    assert chat.text == f"Q: {question}"
    request = chat.to_request(SamplingParams(temperature=1.0))
    assert request.messages is not None
    assert [m.role for m in request.messages] == ["system", "user"]
    assert completion.to_request(SamplingParams()).prompt == completion.text


def test_twenty_shot_prompt_separates_examples_by_blank_lines(samples: list[SampleAnswer]) -> None:
    prompt = build_prompt(samples, samples[5].question, Mode.COMPLETION, trial=7)
    assert prompt.text.count("\nA: ") == 20
    assert prompt.text.count("\n\nQ: ") == 20
    assert "\n\n\n" not in prompt.text


def test_trial_seeds_follow_the_spec() -> None:
    assert trial_seed(1) == 818176819
    assert trial_seed(2) == 2006616228
    assert trial_seed(1, "x") == 107412967
    assert trial_seed(1) == int(hashlib.sha1(b"::1").hexdigest(), 16) % 2**31


@pytest.mark.parametrize(
    ("raw", "mode", "expected"),
    [
        ("  答えです。 \n", Mode.CHAT, "答えです。"),
        ("A: 答えです。", Mode.QA, "答えです。"),
        ("前置き A: 本文 A: 続き", Mode.CHAT, "本文 A: 続き"),
        ("A: 答えです。", Mode.COMPLETION, "A: 答えです。"),
        ("答えです。\nQ:", Mode.COMPLETION, "答えです。"),
        ("   ", Mode.CHAT, ""),
    ],
)
def test_answer_cleaning(raw: str, mode: Mode, expected: str) -> None:
    assert clean_answer(raw, mode, stops_for(mode)) == expected


@pytest.mark.parametrize("path", PUBLIC_CONFIGS, ids=lambda p: p.parent.name)
def test_public_config_hashes_name_their_folders(path: Path) -> None:
    folder = path.parent.relative_to(PFGEN_RESULTS).as_posix()
    config = json.loads(path.read_text(encoding="utf-8"))
    if folder != EDITED_AFTER_THE_FACT:
        assert path.read_text(encoding="utf-8") == config_text(config) + "\n"
        assert config_hash(config) == path.parent.name


def test_early_public_configs_are_the_known_few() -> None:
    """Configs without ``max_tokens`` are upstream's earliest runs, which hyoka never writes
    (its runs always record ``max_tokens``); their text and hash are checked above."""
    assert MODERN_CONFIGS
    for path in sorted(set(PUBLIC_CONFIGS) - set(MODERN_CONFIGS)):
        early = json.loads(path.read_text(encoding="utf-8"))
        assert "max_tokens" not in early, path


@pytest.mark.parametrize("path", MODERN_CONFIGS, ids=lambda p: p.parent.name)
def test_make_config_reproduces_public_configs(path: Path) -> None:
    """Every public setting rebuilt through make_config gives the same text and folder."""
    public = json.loads(path.read_text(encoding="utf-8"))
    known = {"engine", "model", "mode", "num_examples", "max_tokens", "stop", "temperature"}
    known |= {"top_p", "prefix"}
    extra = {k: v for k, v in public.items() if k not in known}
    ours = make_config(
        engine=public["engine"], model=public["model"], mode=Mode(public["mode"]),
        num_examples=public["num_examples"], max_tokens=public["max_tokens"],
        temperature=public.get("temperature"), top_p=public.get("top_p"),
        prefix=public.get("prefix"), stop=public["stop"], extra=extra,
    )  # fmt: skip
    assert config_text(ours) == config_text(public)
    relative = path.parent.relative_to(PFGEN_RESULTS)
    if relative.as_posix() != EDITED_AFTER_THE_FACT:
        model_name = relative.parent.as_posix()
        assert run_folder(Path("/r"), model_name, ours) == Path("/r") / relative


def test_secrets_never_enter_a_config() -> None:
    with pytest.raises(HyokaError, match="secret"):
        make_config(engine="x", model="m", mode=Mode.CHAT, extra={"api_key": "sk-123"})


@pytest.mark.parametrize("name", ["", "../evil", "a/../../b", "/abs/path", "a\\b", "a//b", "."])
def test_model_names_cannot_escape_the_results_folder(tmp_path: Path, name: str) -> None:
    config = make_config(engine="x", model="m", mode=Mode.CHAT)
    with pytest.raises(HyokaError):
        run_folder(tmp_path, name, config)


def test_a_hub_style_name_nests(tmp_path: Path) -> None:
    config = make_config(engine="x", model="m", mode=Mode.CHAT)
    folder = run_folder(tmp_path, "org/model-7b", config)
    assert folder == tmp_path / "org" / "model-7b" / config_hash(config)
