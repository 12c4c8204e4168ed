"""Shared fixtures: where the real benchmark data is, one index cache and one llama.cpp
server per session.

Tests read the third-party data from ``../shared/data`` (never a copy in the repository).
Building the n-gram indexes takes seconds, so one cache folder is shared by the session;
starting ``llama_cpp.server`` and warming it up takes seconds too, so every file that talks
to the real model over HTTP shares one (``llama_base_url``).

In CI (``CI=true``) a skip is a failure: a test that skips there proves nothing, and a
missing extra or data folder would otherwise pass unseen. Only the tests named in
``CI_MAY_SKIP`` may skip there, each for a reason CI cannot change (hardware it lacks).
Elsewhere the run ends with one line naming the optional packages and data that are missing
here, gathered from the skips of ``_shared.needs``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest

from _shared import NEEDS, SHARED_DATA
from fault_proxy import llama_server
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.runs import RunOutcome, score_run
from persistent_cache import session_cache_dir

#: ``--dist loadgroup`` kept working under pytest 9.2 (see xdist_groups)
pytest_plugins = ["xdist_groups"]

#: node id -> why CI may skip it (CI machines have no GPU)
CI_MAY_SKIP = {
    "tests/providers/test_vllm_provider.py::test_real_engine_on_a_tiny_random_model": "needs a GPU",
    **{
        f"tests/providers/test_provider_contract.py::{test}[vllm{case}]": "needs a GPU"
        for test, case in [
            ("test_the_registry_builds_it_and_its_identity_holds_no_key", ""),
            ("test_a_reply_has_text_finish_reason_and_usage", ""),
            ("test_what_it_declares_it_can_and_cannot_do_holds", "-supports_completion"),
            ("test_what_it_declares_it_can_and_cannot_do_holds", "-supports_logprobs"),
            ("test_an_option_it_does_not_take_is_refused_before_it_is_built", ""),
            ("test_a_cancelled_call_leaves_nothing_and_the_next_is_answered", ""),
            ("test_a_judge_is_read_off_the_provider", ""),
        ]
    },
}


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1")


def _fail_skip_in_ci(report: pytest.CollectReport | pytest.TestReport, nodeid: str) -> None:
    if not (_in_ci() and report.skipped) or hasattr(report, "wasxfail"):
        return
    if nodeid in CI_MAY_SKIP:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (
        f"{nodeid} skipped in CI ({reason}); a skip fails CI unless it is in "
        "tests/conftest.py's CI_MAY_SKIP"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    outcome = yield
    _fail_skip_in_ci(outcome.get_result(), item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, None]:
    outcome = yield
    _fail_skip_in_ci(outcome.get_result(), collector.nodeid)


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    if isinstance(report.longrepr, tuple):
        return report.longrepr[2].removeprefix("Skipped: ")
    return str(report.longrepr)


#: a test -> the test that runs every step of it, in the same order from the same start, and
#: more: where both are selected (the whole suite), the first is left out, as its steps run
#: anyway; a quick run (``-m "not slow"``) keeps it
SUBSUMED = {
    "tests/test_readme_commands.py::test_the_quick_path_runs_as_typed": (
        "tests/test_readme_commands.py::test_the_whole_path_runs_as_typed"
    ),
}


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected theirs
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    selected = {item.nodeid for item in items}
    covered = [item for item in items if SUBSUMED.get(item.nodeid) in selected]
    if covered:
        config.hook.pytest_deselected(items=covered)
        items[:] = [item for item in items if item not in covered]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line: what is missing here (optional packages, data), and how many tests skipped."""
    missing: Counter[str] = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        reason = _skip_reason(report)
        if reason.startswith(NEEDS):
            # a module's skip at collection stands for all of its tests: counted once
            missing[reason.removeprefix(NEEDS)] += 1
    if missing:
        shown = "; ".join(f"{what} ({count} skips)" for what, count in sorted(missing.items()))
        terminalreporter.write_line(f"missing here: {shown}", yellow=True, bold=True)


@pytest.fixture(scope="session")
def index_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's cache folder; its pfgen indexes persist (``persistent_cache``)."""
    return session_cache_dir(tmp_path_factory.mktemp("index-cache"), SHARED_DATA)


@pytest.fixture(scope="session")
def benchmark(index_cache_dir: Path) -> PfgenBenchmark:
    return PfgenBenchmark.load(SHARED_DATA, index_cache_dir)


@pytest.fixture(scope="session")
def llama_base_url() -> Iterator[str]:
    """``http://127.0.0.1:PORT/v1`` of one ``llama_cpp.server`` on SmolLM2-135M, started when
    the first test asks for it and stopped at the end of the session.

    Tests must not depend on what it served before them: llama.cpp keeps the previous
    request's KV cache, so a seeded draw is repeatable only after the same request (see
    tests/providers/test_openai_provider.py), and greedy answers are compared with a tolerance.
    """
    with llama_server() as base_url:
        yield base_url


@pytest.fixture
def hyoka_env(monkeypatch: pytest.MonkeyPatch, index_cache_dir: Path) -> Iterator[None]:
    """Point the command line at the shared data and the session's index cache."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(index_cache_dir))
    yield


@pytest.fixture(scope="session")
def rescored(benchmark: PfgenBenchmark) -> Callable[[Path], RunOutcome]:
    """``score_run(folder, benchmark, force=True, write=False)`` of a published run, measured
    once per session: the files that rescore the same 100-trial run share its outcome (the
    published folders are read-only, so it cannot change within a session)."""
    outcomes: dict[Path, RunOutcome] = {}

    def rescore(folder: Path) -> RunOutcome:
        if folder not in outcomes:
            outcomes[folder] = score_run(folder, benchmark, force=True, write=False)
        return outcomes[folder]

    return rescore
