"""Benchmark definitions: pfmt-bench-fin-ja and the original MT-bench, loaded from real data."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from _shared import SHARED_DATA
from hyoka.errors import DataError, InputError, MissingDataError
from hyoka.judge.rating import FASTCHAT, PFMT_UPSTREAM
from hyoka.mtbench import Bench, definition, definitions, fastchat_bench, fastchat_benches
from hyoka.mtbench.registry import PACKAGE

MT_BENCH, PFMT_FIN = definition("mt-bench"), definition("pfmt-fin")

MT = SHARED_DATA / "mt-bench"


@pytest.fixture(scope="module")
def mt() -> Bench:
    return Bench.load("mt-bench", SHARED_DATA)


def test_every_definition_module_is_registered() -> None:
    """The registry lists what the definitions package holds, one module each, no hand-kept
    list: every module file there is one benchmark found."""
    package = Path(__import__(PACKAGE, fromlist=["_"]).__file__ or "").parent
    modules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    assert {name.replace("-", "_") for name in definitions()} == modules
    assert definition("mt-bench") is MT_BENCH
    listed = ", ".join(definitions())
    with pytest.raises(InputError, match=f"unknown benchmark 'mt'; choose one of: {listed}$"):
        definition("mt")
    with pytest.raises(InputError, match="Rakuda is judged by its own protocol"):
        fastchat_bench("rakuda")


def test_definitions_carry_their_judging_rules() -> None:
    assert PFMT_FIN.rating_rules is PFMT_UPSTREAM
    assert PFMT_FIN.zero_rules == ("no-answer", "language") and PFMT_FIN.checks_language
    assert MT_BENCH.rating_rules is FASTCHAT
    assert MT_BENCH.zero_rules == () and not MT_BENCH.checks_language
    # FastChat's NEED_REF_CATS, and pfmt's
    assert MT_BENCH.reference_categories == {"math", "reasoning", "coding"}
    assert PFMT_FIN.reference_categories == {"math"}


def test_mt_bench_questions_categories_and_references(mt: Bench) -> None:
    assert len(mt.questions) == 80
    counts = Counter(q.category for q in mt.questions)
    assert counts == dict.fromkeys(MT_BENCH.categories, 10)
    assert [q.question_id for q in mt.questions] == list(range(81, 161))
    # some questions carry upstream's short ``reference`` answers: read and kept
    with_reference = [q for q in mt.questions if q.reference is not None]
    raw = [json.loads(line) for line in (MT / "question.jsonl").read_text().splitlines()]
    assert len(with_reference) == sum("reference" in r for r in raw) == 39
    assert mt.by_id[101].reference == ("You are in second place.", "Uncertain.")
    # every reference category has its GPT-4 reference answer, and no other
    referenced = {
        q.question_id for q in mt.questions if q.category in MT_BENCH.reference_categories
    }
    assert set(mt.references) == referenced and len(referenced) == 30


@pytest.mark.parametrize(
    ("question_id", "turn", "pairwise", "expected"),
    [
        (81, 1, False, "single-v1"),  # writing
        (81, 2, False, "single-v1-multi-turn"),
        (101, 1, False, "single-math-v1"),  # reasoning is judged against the reference
        (111, 2, False, "single-math-v1-multi-turn"),  # math
        (121, 1, True, "pair-math-v1"),  # coding
        (131, 2, True, "pair-v2-multi-turn"),  # extraction
        (141, 1, True, "pair-v2"),  # stem
    ],
)
def test_judge_prompt_by_category_and_turn(
    mt: Bench, question_id: int, turn: int, pairwise: bool, expected: str
) -> None:
    question = mt.by_id[question_id]
    prompt = mt.judge_prompt(question, turn, pairwise=pairwise)
    assert prompt.name == expected
    assert prompt.type == ("pairwise" if pairwise else "single")


def test_reference_prompts_are_filled_with_gpt4_references(mt: Bench) -> None:
    question = mt.by_id[111]
    reference = mt.references[111].turns
    answers = {"answer": "A1", "answer_1": "A1", "answer_2": "A2"}
    first = mt.fill_prompt("single-math-v1", question, answers)
    assert question.turns[0] in first and reference[0] in first and "A1" in first
    second = mt.fill_prompt("single-math-v1-multi-turn", question, answers)
    assert all(part in second for part in (*question.turns, *reference, "A1", "A2"))
    plain = mt.fill_prompt("single-v1", mt.by_id[81], answers)
    assert mt.by_id[81].turns[0] in plain and "{question}" not in plain


def test_generation_defaults_are_fastchats(mt: Bench) -> None:
    gen = mt.spec.generation
    temperatures = {c: gen.temperature(c) for c in MT_BENCH.categories}
    assert temperatures == {
        "writing": 0.7, "roleplay": 0.7, "reasoning": 0.0, "math": 0.0, "coding": 0.0,
        "extraction": 0.0, "stem": 0.1, "humanities": 0.1,
    }  # fmt: skip
    assert (gen.max_tokens, gen.local_repetition_penalty) == (1024, None)
    assert (PFMT_FIN.generation.max_tokens, PFMT_FIN.generation.local_repetition_penalty) == (
        4096,
        1.1,
    )
    # FastChat's gen_api_answer.py: the system message of the template picked by name,
    # read from upstream's conversation.py when a run starts (none carried before)
    assert mt.spec.dialogue.templates is not None and mt.spec.dialogue.system_message is None
    assert PFMT_FIN.dialogue.system_message == "あなたは優秀なアシスタントです。"


def test_missing_data_names_the_fetch_command(tmp_path: Path) -> None:
    with pytest.raises(MissingDataError, match="run `hyoka data fetch mt-bench --data-dir "):
        Bench.load("mt-bench", tmp_path)


def test_a_judge_prompt_file_without_the_needed_prompts_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "mt-bench"
    (folder / "reference_answer").mkdir(parents=True)
    for name in ("question.jsonl", "reference_answer/gpt-4.jsonl"):
        (folder / name).write_bytes((MT / name).read_bytes())
    lines = (MT / "judge_prompts.jsonl").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if json.loads(line)["name"] != "pair-math-v1"]
    (folder / "judge_prompts.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="lacks the judge prompt\\(s\\) pair-math-v1 that MT-bench"):
        Bench.load("mt-bench", tmp_path)


def test_an_unknown_category_names_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / "mt-bench"
    folder.mkdir()
    lines = (MT / "question.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[4])
    record["category"] = "poetry"
    lines[4] = json.dumps(record)
    (folder / "question.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"question\.jsonl:5: unknown category 'poetry'"):
        Bench.load("mt-bench", tmp_path)


def test_every_benchmark_reads_a_pair_verdict_as_fastchat_does() -> None:
    """FastChat's ``run_judge_pair`` (and pfmt-bench-fin-ja's, Stability's and
    ja-vicuna-qa-benchmark's copies) test ``"[[A]]" in judgment``, then ``[[B]]``, then
    ``[[C]]``: a reply that names ``[[A]]`` anywhere is A, even with a later ``[[B]]``."""
    from hyoka.judge import parse_verdict

    reply = "[[A]] の形式で答えます。比べると B が優れています。最終判定: [[B]]"
    for spec in fastchat_benches().values():
        assert spec.pair_verdict == "fastchat-tokens", spec.name
        assert parse_verdict(reply, spec.pair_verdict) == "A", spec.name
    assert parse_verdict(reply, "verdict-after-reasons") == "B"  # hyoka's own reading differs
