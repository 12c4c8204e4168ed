"""Fuzzing the readers people feed by hand: one clear error or a correct result, never a
traceback, never a changed input file.

Random JSON, random Unicode (lone surrogates and control characters included) and
truncated lines go through the real commands (``pfgen score``, ``mtbench leaderboard``,
``judge agreement``) in a fresh folder per example. Whatever the input, the command either
succeeds or exits with one ``error:`` line; the input files are byte-identical afterwards.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, data_mark, needs
from hyoka.cli.main import app

needs("hypothesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

QUESTION_DIR = SHARED_DATA / "pfgen-bench" / "data"
PFMT = SHARED_DATA / "pfmt-bench-fin-ja"

pytestmark = data_mark(QUESTION_DIR / "Q01.json")

FUZZ = settings(
    max_examples=25,
    deadline=None,
    # each example runs a whole command: shrinking a failure could take many minutes, and
    # the failing input is printed as found
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

#: Any text at all, surrogates and control characters included (st.text leaves out
#: surrogates by default).
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | any_text
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)


def _dump(value: Any) -> str:
    """A value as one JSON line, as a careless or hostile producer might write it."""
    return json.dumps(value, ensure_ascii=True, allow_nan=True)


@st.composite
def lines_file(draw: st.DrawFn, good: st.SearchStrategy[dict[str, Any]]) -> bytes:
    """A JSON Lines file mixing plausible records, random JSON, raw bytes and truncations."""
    chunks: list[bytes] = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["good", "good", "json", "bytes", "cut"]))
        if kind == "good":
            chunks.append(_dump(draw(good)).encode() + b"\n")
        elif kind == "json":
            chunks.append(_dump(draw(json_values)).encode() + b"\n")
        elif kind == "bytes":
            chunks.append(draw(st.binary(max_size=30)) + b"\n")
        else:
            whole = _dump(draw(good)).encode()
            chunks.append(whole[: draw(st.integers(0, len(whole)))] + b"\n")
    if draw(st.booleans()):  # a last line cut short by a crash
        chunks[-1] = chunks[-1].rstrip(b"\n")
    return b"".join(chunks)


def _question_texts() -> list[str]:
    return [
        json.loads((QUESTION_DIR / f"Q{n:02d}.json").read_text(encoding="utf-8"))["question"]
        for n in (1, 2)
    ]


def trial_records() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "question": st.sampled_from(_question_texts()) | any_text,
            "answer": any_text | json_values,
            "timestamp": st.just("2025-01-01T00:00:00") | any_text,
        }
    )


def judgment_records() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "question_id": st.integers(0, 3) | json_values,
            "model": st.sampled_from(["m1", "m2"]) | any_text,
            "judge": st.just(["gpt-4o-mini", "single-v1"]) | json_values,
            "judgment": any_text,
            "score": st.integers(-3, 12) | st.floats() | json_values,
            "turn": st.sampled_from([1, 2]) | json_values,
        }
    )


@pytest.fixture
def workdir() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="hyoka-fuzz-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _assert_clean(args: list[str], inputs: Path) -> None:
    before = _snapshot(inputs)
    result = CliRunner().invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback for {args}:\n{result.output}") from result.exception
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 1:
        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert len(errors) >= 1, result.output
        assert "Traceback" not in result.output
    after = _snapshot(inputs)
    changed = [name for name in before if after.get(name) != before[name]]
    assert not changed, f"input files changed: {changed}"


@FUZZ
@given(trials=lines_file(trial_records()))
def test_pfgen_score_on_random_trials(
    trials: bytes, workdir: Path, hyoka_env: None, tmp_path: Path
) -> None:
    run = workdir / "org" / "model" / "abc1234"
    shutil.rmtree(workdir / "org", ignore_errors=True)
    run.mkdir(parents=True)
    (run / "trials.jsonl").write_bytes(trials)
    # score writes result.json beside the trials: only the trials file is input
    inputs = workdir / "inputs"
    shutil.rmtree(inputs, ignore_errors=True)
    inputs.mkdir()
    before = trials
    _assert_clean(["pfgen", "score", str(run)], inputs)
    assert (run / "trials.jsonl").read_bytes() == before


@FUZZ
@given(judgments=lines_file(judgment_records()))
def test_mtbench_leaderboard_on_random_judgments(judgments: bytes, workdir: Path) -> None:
    folder = workdir / "model_judgment" / "gpt-4o-mini_single"
    shutil.rmtree(workdir / "model_judgment", ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "m1.jsonl").write_bytes(judgments)
    _assert_clean(
        ["mtbench", "leaderboard", "--judgments", str(folder), "--data-dir", str(SHARED_DATA)],
        workdir / "model_judgment",
    )


@FUZZ
@given(first=lines_file(judgment_records()), second=lines_file(judgment_records()))
def test_judge_agreement_on_random_single_grades(
    first: bytes, second: bytes, workdir: Path
) -> None:
    shutil.rmtree(workdir / "j", ignore_errors=True)
    a, b = workdir / "j" / "a", workdir / "j" / "b"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    (a / "m1.jsonl").write_bytes(first)
    (b / "m1.jsonl").write_bytes(second)
    _assert_clean(
        [
            "judge",
            "agreement",
            "--single",
            str(a),
            "--single",
            str(b),
            "--questions",
            str(PFMT / "question.jsonl"),
            "--resamples",
            "20",
        ],
        workdir / "j",
    )


def pair_records() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "question_id": st.integers(0, 3) | json_values,
            "model_1": st.sampled_from(["m1", "m2"]) | any_text,
            "model_2": st.sampled_from(["m2", "m3"]) | any_text,
            "g1_winner": st.sampled_from(["model_1", "model_2", "tie", "error"]) | json_values,
            "g2_winner": st.sampled_from(["model_1", "model_2", "tie"]) | json_values,
            "judge": st.just(["gpt-4o-mini", "pair-v2"]) | json_values,
            "turn": st.sampled_from([1, 2]) | json_values,
        }
    )


def hyoka_judgment_records() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "id": any_text,
            "kind": st.sampled_from(["single", "pairwise"]) | any_text,
            "judge": st.fixed_dictionaries({"judge": st.just("openai/j")}) | json_values,
            "template": st.just("pfgen-single") | any_text,
            "template_version": st.just("1") | json_values,
            "score": st.integers(-1, 10) | json_values,
        }
    )


@FUZZ
@given(
    lines=lines_file(
        judgment_records() | pair_records() | hyoka_judgment_records() | trial_records()
    ),
    deep=st.booleans(),
)
def test_report_on_random_input_files(lines: bytes, deep: bool, workdir: Path) -> None:
    """Whatever a ``.jsonl`` given to ``hyoka report`` holds (MT-bench, pairwise, hyoka
    judgments, trials, garbage, a line nested 50,000 deep): a site or one error line."""
    inputs = workdir / "inputs"
    shutil.rmtree(inputs, ignore_errors=True)
    shutil.rmtree(workdir / "site", ignore_errors=True)
    inputs.mkdir()
    if deep:
        lines = b'{"a":' * 50_000 + b"1" + b"}" * 50_000 + b"\n" + lines
    (inputs / "m1.jsonl").write_bytes(lines)
    _assert_clean(["report", str(inputs), "--no-public", "--data-dir", str(SHARED_DATA),
                   "-o", str(workdir / "site")], inputs)  # fmt: skip


def question_files() -> st.SearchStrategy[dict[str, Any]]:
    texts = st.lists(any_text, max_size=3)
    return st.fixed_dictionaries(
        {
            "question_id": st.just("Q01") | json_values,
            "question": any_text | json_values,
            "keywords": st.lists(any_text | json_values, max_size=3) | json_values,
            "answers": st.dictionaries(st.sampled_from(["set_a", "set-b"]), texts, max_size=2)
            | json_values,
        }
    )


@FUZZ
@given(
    question=question_files() | json_values,
    raw=st.none() | st.binary(max_size=60),
)
def test_refset_import_on_random_question_files(
    question: Any, raw: bytes | None, workdir: Path
) -> None:
    """A ``Qxx.json`` as a user or another tool might leave it: imported, or one error."""
    data, work = workdir / "data", workdir / "work"
    shutil.rmtree(data, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    data.mkdir()
    text = raw if raw is not None else json.dumps(question, ensure_ascii=True).encode()
    (data / "Q01.json").write_bytes(text)
    _assert_clean(["refset", "import", str(data), str(work)], data)
