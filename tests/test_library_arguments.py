"""A Python caller's bad argument is refused where the call enters the library, as the
command line refuses it while parsing: one ``InputError`` naming the parameter, never a
result for a value no command would take, nor an ``AttributeError`` from deep inside."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from _shared import SHARED_DATA
from hyoka.errors import InputError
from hyoka.judge import judge_pairwise, judge_single
from hyoka.mtbench import bench_leaderboard, generate_bench, iter_verify_bench, judge_bench

ANSWERS = SHARED_DATA / "pfmt-bench-fin-ja" / "model_answer"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # a rule-checked board was returned for a format no renderer knows
        (lambda: bench_leaderboard("m-ifeval-ja", fmt="bogus", data_dir=SHARED_DATA),
         "`fmt` must be one of md, csv, json, got 'bogus'"),
        # one path as a str: an AttributeError ('str' object has no attribute 'is_dir')
        (lambda: bench_leaderboard("pfmt-fin", str(ANSWERS), data_dir=SHARED_DATA),  # type: ignore[arg-type]
         f"`judgments` must be a sequence of paths (pathlib.Path), got {str(ANSWERS)!r}"),
        (lambda: bench_leaderboard("rakuda", [str(ANSWERS)], data_dir=SHARED_DATA),  # type: ignore[list-item]
         "`judgments` must be a sequence of paths (pathlib.Path), got ["),
        (lambda: list(iter_verify_bench(ANSWERS)),  # type: ignore[arg-type]
         f"`judgments` must be a sequence of paths (pathlib.Path), got {ANSWERS!r}"),
        (lambda: judge_bench("openai/gpt-4o", ANSWERS),  # type: ignore[arg-type]
         f"`answers` must be a sequence of paths (pathlib.Path), got {ANSWERS!r}"),
        # limit 0 judged everything (a slice [:None]); the command requires at least 1
        (lambda: judge_single(ANSWERS / "gpt-4o.jsonl", "openai/gpt-4o", limit=0),
         "`limit` must be at least 1, got 0"),
        (lambda: judge_pairwise(ANSWERS, ANSWERS, "openai/gpt-4o", limit=-1),
         "`limit` must be at least 1, got -1"),
        (lambda: judge_bench("openai/gpt-4o", [ANSWERS / "gpt-4o.jsonl"], limit=0),
         "`limit` must be at least 1, got 0"),
        (lambda: generate_bench("openai/gpt-4o-mini", limit=0),
         "`limit` must be at least 1, got 0"),
    ],
)  # fmt: skip
def test_a_bad_argument_is_one_error_naming_the_parameter(
    call: Callable[[], object], message: str
) -> None:
    with pytest.raises(InputError) as refused:
        call()
    assert str(refused.value).startswith(message)
