"""A Python caller's bad argument is refused where the call enters the library, as the
command line refuses it while parsing: one ``InputError`` naming the parameter, never a
result for a value no command would take, nor an ``AttributeError`` from deep inside."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from _shared import SHARED_DATA
from hyoka.errors import InputError
from hyoka.judge import judge_pairwise, judge_single
from hyoka.mtbench import bench_leaderboard, generate_bench, iter_verify_bench, judge_bench
from hyoka.pfgen import leaderboard, score_paths, verify_paths

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


# pfgen.leaderboard("runs") and verify_paths("runs") raised a bare AttributeError;
# verify_paths([]) returned no failures with nothing verified; workers 0 or -1 were taken;
# bench_leaderboard(judgments=[]) ranked the published judgments as if none were given.
def test_a_name_where_a_path_belongs_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^`results_dir` must be a path \(pathlib.Path\)"):
        leaderboard(str(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^`paths` must be a sequence of paths"):
        verify_paths(str(tmp_path))  # type: ignore[arg-type]


def test_no_paths_is_no_request() -> None:
    for call in (verify_paths, score_paths):
        with pytest.raises(InputError, match=r"^`paths` must hold at least one path, got \[\]$"):
            call([])
    with pytest.raises(InputError, match=r"^`judgments` must hold at least one path"):
        bench_leaderboard("jmt-bench", [], data_dir=SHARED_DATA)


@pytest.mark.parametrize("workers", [0, -1])
def test_workers_below_one_are_refused(tmp_path: Path, workers: int) -> None:
    for call in (verify_paths, score_paths):
        with pytest.raises(InputError, match=rf"^`workers` must be at least 1, got {workers}$"):
            call([tmp_path], workers=workers)
