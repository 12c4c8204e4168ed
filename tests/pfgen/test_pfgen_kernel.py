"""The compiled n-gram kernel against the numpy engine, its oracle, float for float.

Every comparison is ``==`` on the floats: the kernel must give the numbers of the numpy
engine bit for bit (which test_pfgen_metrics ties to the pure-Python reference), not nearly.
Answers are drawn from the characters of real reference answers, so that long n-grams hit,
plus the punctuation Truthfulness skips, the wrap markers, characters outside the BMP, lone
surrogates, empty strings, answers past every length boundary and exact reference answers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import hyoka
from _shared import PFGEN_RESULTS, SHARED_DATA, data_mark, needs
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.pfgen import engine
from hyoka.pfgen import scorer as scorer_module
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.index_cache import IndexCache
from hyoka.pfgen.ngram_index import MAX_NGRAM, NgramIndex
from hyoka.pfgen.ngram_metrics import (
    FLUENCY_WINDOW,
    TRUTHFULNESS_NGRAM,
    TRUTHFULNESS_SATURATION,
    TRUTHFULNESS_WINDOW,
    fluency_values,
    truthfulness_values,
)
from hyoka.pfgen.ngram_trie import QuestionTrie
from hyoka.pfgen.runs import score_run
from hyoka.pfgen.scorer import ReferenceSet

needs("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from test_pfgen_metrics import PROPERTY, Scenario, scenarios  # noqa: E402

kernel = pytest.importorskip(
    "hyoka.pfgen._ngram_kernel", reason="the compiled kernel is not built (see setup.py)"
)

QUESTION_DIR = SHARED_DATA / "pfgen-bench" / "data"
#: one reference set (Q01), three (Q04, Q13)
REAL_QUESTIONS = ("Q01", "Q04", "Q13")
needs_data = data_mark(*(QUESTION_DIR / f"{q}.json" for q in REAL_QUESTIONS))


def numpy_values(sets: list[ReferenceSet], answers: list[str]) -> tuple[np.ndarray, np.ndarray]:
    fluency = [fluency_values(s.index, answers, s.baseline) for s in sets]
    truth = [truthfulness_values(s.index, answers) for s in sets]
    return np.array(fluency).reshape(len(sets), -1), np.array(truth).reshape(len(sets), -1)


def assert_identical(
    sets: list[ReferenceSet], answers: list[str], trie: QuestionTrie | None = None
) -> None:
    trie = trie or QuestionTrie.build([s.index for s in sets])
    fluency, truth = engine.kernel_values(
        trie, [(k, s.baseline) for k, s in enumerate(sets)], answers
    )
    want_fluency, want_truth = numpy_values(sets, answers)
    for k in range(len(sets)):
        for i, answer in enumerate(answers):
            assert fluency[k][i] == want_fluency[k, i], (k, answer)
            assert truth[k][i] == want_truth[k, i], (k, answer)


def test_the_kernel_windows_are_the_metrics_windows() -> None:
    assert kernel.FLUENCY_WINDOW == FLUENCY_WINDOW
    assert kernel.TRUTHFULNESS_WINDOW == TRUTHFULNESS_WINDOW
    assert kernel.TRUTHFULNESS_NGRAM == TRUTHFULNESS_NGRAM
    assert kernel.TRUTHFULNESS_SATURATION == TRUTHFULNESS_SATURATION
    assert kernel.MAX_NGRAM == MAX_NGRAM


@PROPERTY
@given(scenarios(max_sets=3))
def test_kernel_equals_numpy_on_random_reference_sets(scenario: Scenario) -> None:
    """Up to three random sets in one trie: n-grams of one set absent from another."""
    sets = []
    for k, refs in enumerate(scenario.sets):
        index = NgramIndex.build(refs)
        baseline = float(np.mean(fluency_values(index, refs, 1.0)))
        sets.append(ReferenceSet(f"s{k}", index, baseline if baseline > 0 else 0.37))
    assert_identical(sets, scenario.answers)


# --- real questions --------------------------------------------------------------------------

RealQuestion = tuple[list[ReferenceSet], list[str], QuestionTrie]
_real: dict[str, RealQuestion] = {}


def real_question(benchmark: PfgenBenchmark, question: str) -> RealQuestion:
    """The question's sets, its reference answers (each set's, in file order), its trie."""
    if question not in _real:
        sets = list(benchmark.scorer(question).sets)
        raw = json.loads((QUESTION_DIR / f"{question}.json").read_text(encoding="utf-8"))
        references = [a for answers in raw["answers"].values() for a in answers]
        _real[question] = sets, references, QuestionTrie.build([s.index for s in sets])
    return _real[question]


EXTRA = (
    "、",
    "。",
    "「",
    "」",
    "（",
    "）",
    "^",
    "$",
    "\U0001f600",
    "\U00020bb7",
    "\ud800",
    "\udfff",
)
LENGTHS = (0, 1, 2, 3, 99, 100, 101, 149, 150, 151, 199, 200, 201, 202, 203, 260)


@st.composite
def real_answers(draw: st.DrawFn, references: list[str]) -> str:
    reference = draw(st.sampled_from(references))
    kind = draw(st.integers(0, 4))
    if kind == 0:  # a reference answer exactly
        return reference
    if kind == 1:  # a piece of one, cut anywhere
        start = draw(st.integers(0, len(reference)))
        return reference[start : start + draw(st.integers(0, 250))]
    alphabet = sorted(set(reference)) + list(EXTRA)
    if kind == 2:  # the reference's characters in random order
        return draw(st.text(alphabet=st.sampled_from(alphabet), max_size=260))
    # a reference with random edits, stretched or cut to a boundary length
    pieces = draw(
        st.lists(
            st.one_of(
                st.sampled_from(references).map(lambda r: r[:40]),
                st.text(alphabet=st.sampled_from(alphabet), max_size=5),
            ),
            max_size=12,
        )
    )
    text = "".join(pieces) or reference
    length = draw(st.sampled_from(LENGTHS))
    return (text * (length // max(len(text), 1) + 1))[:length]


@needs_data
@pytest.mark.parametrize("question", REAL_QUESTIONS)
@settings(
    max_examples=PROPERTY.max_examples,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_kernel_equals_numpy_on_real_questions(
    benchmark: PfgenBenchmark, question: str, data: st.DataObject
) -> None:
    sets, references, trie = real_question(benchmark, question)
    answers = data.draw(st.lists(real_answers(references), min_size=1, max_size=12))
    assert_identical(sets, answers, trie)


@needs_data
def test_kernel_equals_numpy_on_every_reference_answer(benchmark: PfgenBenchmark) -> None:
    """Each reference answer of a three-set question against all three sets at once."""
    sets, references, trie = real_question(benchmark, "Q04")
    assert_identical(sets, references, trie)


def test_a_damaged_table_gives_numbers_not_a_crash() -> None:
    """Child ranges past the table's end are read as no children: nothing outside is read."""
    trie = QuestionTrie.build([NgramIndex.build(["日本語です", "日本"])])
    damaged = trie.nodes.copy()
    damaged[1:, 1] = np.uint32(0xFFFFFFF0)
    broken = QuestionTrie(damaged, trie.num_answers)
    fluency, truth = engine.kernel_values(broken, [(0, 1.0)], ["日本語です" * 50, ""])
    assert np.shape(fluency) == np.shape(truth) == (1, 2)
    assert np.isfinite(fluency).all()
    assert np.isfinite(truth).all()


def test_bad_arguments_are_errors_not_crashes() -> None:
    trie = QuestionTrie.build([NgramIndex.build(["abc"])])
    out = np.empty((1, 1))
    with pytest.raises(ValueError, match="df column"):
        kernel.measure(trie.nodes, 3, [(1, 1, 1.0)], ["a"], "", out, out.copy())
    with pytest.raises(ValueError, match="rows"):
        kernel.measure(trie.nodes, 5, [(0, 1, 1.0)], ["a"], "", out, out.copy())
    with pytest.raises(ValueError, match="outputs"):
        kernel.measure(trie.nodes, 3, [(0, 1, 1.0)], ["a", "b"], "", out, out.copy())
    with pytest.raises(TypeError, match="answer 0"):
        kernel.measure(trie.nodes, 3, [(0, 1, 1.0)], [b"a"], "", out, out.copy())


# --- choosing the engine -----------------------------------------------------------------------

#: one trial of an API model: the cheapest run to score (the slow tests rescore all 49)
SMALL_RUN = PFGEN_RESULTS / "openai" / "chatgpt-o1" / "9a61e92"


@needs_data
@data_mark(SMALL_RUN / "result.json")
def test_the_numpy_engine_still_reproduces_upstream(
    benchmark: PfgenBenchmark, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other parity tests run on the kernel; this one forces numpy (and proves it did)."""

    def no_kernel(*args: object) -> None:
        raise AssertionError("the kernel ran though numpy was forced")

    monkeypatch.setenv(engine.ENGINE_ENV, engine.NUMPY)
    monkeypatch.setattr(engine, "kernel_values", no_kernel)
    monkeypatch.setattr(scorer_module, "kernel_values", no_kernel)
    upstream = json.loads((SMALL_RUN / "result.json").read_text(encoding="utf-8"))
    ours = score_run(SMALL_RUN, benchmark, force=True, write=False).result
    for field in ("score", "score_std", "scores", "questions"):
        assert ours[field] == upstream[field], field


def test_an_unknown_engine_name_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engine.ENGINE_ENV, "fast")
    with pytest.raises(InputError, match="HYOKA_PFGEN_ENGINE='fast': use 'kernel' or 'numpy'"):
        engine.use_kernel()


@needs_data
@data_mark(SMALL_RUN / "trials.jsonl.xz")
@pytest.mark.usefixtures("hyoka_env")
def test_a_forced_kernel_that_does_not_load_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "openai" / "chatgpt-o1" / "9a61e92"
    shutil.copytree(SMALL_RUN, run)
    (run / "result.json").unlink()
    monkeypatch.setattr(engine, "_kernel", None)
    monkeypatch.setattr(engine, "_kernel_problem", "No module named 'hyoka.pfgen._ngram_kernel'")
    monkeypatch.setenv(engine.ENGINE_ENV, engine.KERNEL)
    outcome = CliRunner().invoke(app, ["pfgen", "score", str(run)])
    assert outcome.exit_code != 0
    assert outcome.output.strip().splitlines() == [
        "error: HYOKA_PFGEN_ENGINE=kernel but the compiled kernel does not load (No module "
        "named 'hyoka.pfgen._ngram_kernel'): reinstall hyoka where a C compiler is found, "
        "or unset it"
    ]
    assert not (run / "result.json").exists()


WITHOUT_KERNEL = """
import json, sys
sys.modules["hyoka.pfgen._ngram_kernel"] = None  # the import fails, as without a compiler
from pathlib import Path
from hyoka.pfgen.benchmark import PfgenBenchmark
bench = PfgenBenchmark.load(Path(sys.argv[1]), Path(sys.argv[2]))
answers = json.loads(sys.stdin.read())
scores = {q: [s.to_upstream() for s in bench.score_many(q, a)] for q, a in answers.items()}
print(json.dumps(scores))
"""


@needs_data
def test_without_the_kernel_numpy_gives_the_same_numbers_and_one_note(
    benchmark: PfgenBenchmark, index_cache_dir: Path
) -> None:
    """A real process whose import of the kernel fails: it says so once, on stderr, and
    scores every answer exactly as the kernel does in this process."""
    answers = {}
    for question in ("Q01", "Q04"):
        references = real_question(benchmark, question)[1]
        answers[question] = [references[0], references[-1][:150] * 2, "", "^日本語$。"]
    env = {**os.environ, "PYTHONPATH": str(Path(hyoka.__file__).parents[1])}
    env.pop(engine.ENGINE_ENV, None)
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_KERNEL, str(SHARED_DATA), str(index_cache_dir)],
        input=json.dumps(answers),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("pfgen scoring runs on the numpy engine") == 1, done.stderr
    assert engine.use_kernel()  # this process has the kernel
    assert json.loads(done.stdout) == {
        q: [s.to_upstream() for s in benchmark.score_many(q, a)] for q, a in answers.items()
    }


LOAD_EVERY_INDEX = """
import sys
from pathlib import Path
from hyoka.pfgen.benchmark import PfgenBenchmark
def resident_kb():
    return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0])
bench = PfgenBenchmark.load(Path(sys.argv[1]), Path(sys.argv[2]))
before = resident_kb()
bench.scorers(bench.questions)
print(resident_kb() - before)
"""


@needs_data
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_loading_every_question_index_reads_almost_none_of_it(
    benchmark: PfgenBenchmark, index_cache_dir: Path
) -> None:
    """The cache's blobs are mapped, not read: loading all 50 questions' scorers adds less
    to the process than a twentieth of the blobs' size (reading them added all of it)."""
    benchmark.scorers(benchmark.questions)  # every entry in the cache
    blobs = sum(p.stat().st_size for p in IndexCache(index_cache_dir).root.glob("*.bin"))
    done = subprocess.run(
        [sys.executable, "-c", LOAD_EVERY_INDEX, str(SHARED_DATA), str(index_cache_dir)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(hyoka.__file__).parents[1])},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert blobs > 200_000_000
    assert int(done.stdout) * 1024 < blobs / 20


def test_answers_past_one_kernel_call_are_walked_in_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    index = NgramIndex.build(["日本語です。", "日本の首都は東京です。"])
    sets = [ReferenceSet("s", index, 2.5)]
    answers = [f"日本{'語' * (i % 7)}です{i}" for i in range(11)] + [""]
    monkeypatch.setattr(engine, "KERNEL_CHUNK", 5)
    assert_identical(sets, answers)
    assert_identical(sets, [])


#: processes forked while ``_FORKS_SEEN`` is being watched (an at-fork hook cannot be removed)
_FORKS_SEEN: list[int] | None = None


def _note_fork() -> None:
    if _FORKS_SEEN is not None:
        _FORKS_SEEN.append(os.getpid())


os.register_at_fork(before=_note_fork)


@needs_data
@data_mark(SMALL_RUN / "trials.jsonl.xz")
def test_measuring_with_the_kernel_spreads_questions_over_threads_and_forks_nothing(
    benchmark: PfgenBenchmark,
) -> None:
    """With the kernel, ``measure_answers`` on 2 workers measures on threads of this process
    (it walks without the GIL; forking and pickling back cost more at every size measured):
    no process is forked, every question is measured on a thread of its own pool, and the
    measurements are those of one thread, value for value."""
    global _FORKS_SEEN
    from hyoka.pfgen._measure import measure_answers
    from hyoka.store import pfgen_runs

    grouped = benchmark.group_by_question(pfgen_runs.read_trials(SMALL_RUN))
    wanted = {q: dict.fromkeys(r["answer"] for r in records) for q, records in grouped.items()}
    threads: set[str] = set()
    real_measure = scorer_module.QuestionScorer.measure

    def noting_thread(self: scorer_module.QuestionScorer, answers: list[str]) -> object:
        threads.add(__import__("threading").current_thread().name)
        return real_measure(self, answers)

    one_thread = measure_answers(benchmark, wanted, 1, None)
    _FORKS_SEEN = []
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(scorer_module.QuestionScorer, "measure", noting_thread)
            two = measure_answers(benchmark, wanted, 2, None)
        forks = list(_FORKS_SEEN)
    finally:
        _FORKS_SEEN = None
    assert forks == []
    assert threads and all(name.startswith("hyoka-measure") for name in threads)
    assert two == one_thread and len(two) == len(wanted) == 50
