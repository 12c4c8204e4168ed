"""``hyoka pfgen verify`` and summation by evidence, on the published pfgen-bench runs.

Whether a published result.json was summed left to right (CPython <= 3.11) or compensated
(CPython >= 3.12) is recorded nowhere; only trying both against the file tells. The sample
holds runs of both kinds, listed here from what ``verify`` found, and the slow test checks
that every one of the 49 is reproduced exactly with the summation listed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _gate import FileGate
from _shared import PFGEN_RESULTS, writable_run_copy
from hyoka.cli.main import app
from hyoka.pfgen import (
    PfgenBenchmark,
    RunReport,
    RunsWatcher,
    Summation,
    Verification,
    score_paths,
    score_run,
    verify_paths,
)
from hyoka.pfgen.compare import first_difference
from hyoka.pfgen.verify import verify_runs

#: The sample runs that only left-to-right sums reproduce; the other 29 are compensated.
SEQUENTIAL_RUNS = frozenset(
    {
        "01-ai/Yi-1.5-34B/45cef0a",
        "01-ai/Yi-1.5-9B/2ff65a8",
        "CohereForAI/c4ai-command-r-plus/0171fdc",
        "Qwen/Qwen2-1.5B-Instruct/b8f3248",
        "SakanaAI/EvoLLM-JP-v1-7B/4a50965",
        "anthracite-org/magnum-32b-v2/c384eb9",
        "cyberagent/Llama-3.1-70B-Japanese-Instruct-2407/380666a",
        "deepseek-ai/deepseek-llm-67b-base/aae75fc",
        "deepseek-ai/deepseek-llm-7b-chat/b2dd66b",
        "lightblue/karasu-7B-chat/9cd24e4",
        "lightblue/karasu-7B-chat-plus/dd860e5",
        "llm-jp/llm-jp-13b-instruct-full-ac_001-dolly-ichikara_004_001_single-oasst-oasst2-v2.0/785bd14",
        "llm-jp/llm-jp-13b-instruct-full-dolly_en-dolly_ja-ichikara_003_001-oasst_en-oasst_ja-v1.1/1df4c26",
        "llm-jp/llm-jp-13b-instruct-full-jaster-v1.0/c55d748",
        "meta-llama/Meta-Llama-3-70B-Instruct/3c91259",
        "pfnet/nekomata-14b-pfn-qfin/5c44fc2",
        "tokyotech-llm/Llama-3-Swallow-8B-Instruct-v0.1/55ea0a9",
        "tokyotech-llm/Llama-3-Swallow-8B-v0.1/98f12b9",
        "tokyotech-llm/Swallow-13b-NVE-hf/3f62f8e",
    }
)
ALL_RUNS = sorted(p.parent for p in PFGEN_RESULTS.rglob("result.json"))
SEQUENTIAL = "01-ai/Yi-1.5-9B/2ff65a8"  # compensated sums do not reproduce it
COMPENSATED = "MiniMaxAI/MiniMax-Text-01/74d4af0"  # sequential sums do not reproduce it
SMALL = "openai/chatgpt-o1/9a61e92"  # one trial: quick to copy and rescore
#: What verify says of every published run (only a trials.jsonl.xz) summed compensated.
ANSWERS = "answers: trials.jsonl.xz"
REPRODUCED = f"reproduced exactly (summation: compensated; {ANSWERS})"
#: Its config.json gained a key after scoring (the folder name is the hash of the old one).
EDITED_CONFIG = "Qwen/Qwen3-1.7B-Base/26f4649"


def _published(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    return data


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _verify(*paths: Path) -> Any:
    return CliRunner().invoke(app, ["pfgen", "verify", *map(str, paths)])


def test_the_sample_lists_both_kinds() -> None:
    names = {p.relative_to(PFGEN_RESULTS).as_posix() for p in ALL_RUNS}
    assert len(names) == 49
    assert names >= SEQUENTIAL_RUNS
    assert len(SEQUENTIAL_RUNS) == 19


@pytest.mark.parametrize(
    ("run", "expected", "other"),
    [
        (SEQUENTIAL, Summation.SEQUENTIAL, Summation.COMPENSATED),
        (COMPENSATED, Summation.COMPENSATED, Summation.SEQUENTIAL),
    ],
)
def test_each_summation_is_found_by_evidence(
    run: str, expected: Summation, other: Summation, benchmark: PfgenBenchmark
) -> None:
    folder = PFGEN_RESULTS / run
    ((_, verdict),) = verify_runs([folder], benchmark)
    assert not isinstance(verdict, Exception)
    assert verdict.reproduced, verdict.verdict
    assert verdict.summation is expected
    # the evidence is needed: the other summation changes the published numbers
    wrong = score_run(folder, benchmark, force=True, write=False, summation=other)
    assert first_difference(_published(folder), wrong.result, ignore=("signature",)) is not None
    assert wrong.signature is not None and wrong.signature.get("sum-from") == "flag"


@pytest.mark.usefixtures("hyoka_env")
def test_verify_prints_one_verdict_per_run_and_writes_nothing() -> None:
    before = _snapshot(PFGEN_RESULTS / "openai")
    result = _verify(PFGEN_RESULTS / SMALL, PFGEN_RESULTS / COMPENSATED)
    assert result.exit_code == 0, result.output
    assert sorted(result.stdout.splitlines()) == [  # each as its run is done: in any order
        f"{PFGEN_RESULTS / COMPENSATED}: {REPRODUCED}",
        f"{PFGEN_RESULTS / SMALL}: {REPRODUCED}",
    ]
    assert _snapshot(PFGEN_RESULTS / "openai") == before


@pytest.mark.usefixtures("hyoka_env")
def test_a_tampered_result_names_the_first_differing_field(tmp_path: Path) -> None:
    folder = writable_run_copy(SMALL, tmp_path)
    result = _published(folder)
    original = result["questions"]["Q07"]["scores"]["fluency"]["P"]
    result["questions"]["Q07"]["scores"]["fluency"]["P"] = 0.99999
    result["questions"]["Q09"]["score"] = 0.1  # a later difference is not the one named
    (folder / "result.json").write_text(json.dumps(result, indent=2, ensure_ascii=False))
    before = _snapshot(tmp_path)

    outcome = _verify(folder)
    assert outcome.exit_code == 1
    assert outcome.stdout.splitlines() == [
        f"{folder}: NOT reproduced (answers: trials.jsonl.xz): first differing field "
        "questions.Q07.scores.fluency.P: "
        f"published 0.99999 vs recomputed {original}"
    ]
    assert _snapshot(tmp_path) == before
    # --json: the same verdict as JSON only, the same exit; the library call says it too
    shown = CliRunner().invoke(app, ["pfgen", "verify", str(folder), "--json"])
    assert shown.exit_code == 1
    (row,) = json.loads(shown.stdout)
    assert (row["folder"], row["reproduced"]) == (str(folder), False)
    assert f"{folder}: {row['verdict']}" == outcome.stdout.strip()
    done = verify_paths([folder])
    assert done.failures == 1 and done.to_json() == [row]


@pytest.mark.usefixtures("hyoka_env")
def test_a_published_field_missing_or_added_is_named(tmp_path: Path) -> None:
    folder = writable_run_copy(SMALL, tmp_path)
    result = _published(folder)
    length_std = result.pop("length_std")
    result["extra"] = 1
    (folder / "result.json").write_text(json.dumps(result, indent=2, ensure_ascii=False))
    outcome = _verify(folder)
    assert outcome.exit_code == 1
    (line,) = outcome.stdout.splitlines()
    assert line.endswith(
        f"first differing field length_std: published (missing) vs recomputed {length_std}"
    )
    del result["extra"]
    result["length_std"] = length_std  # back, but now after "scores": the order differs
    (folder / "result.json").write_text(json.dumps(result, indent=2, ensure_ascii=False))
    (line,) = _verify(folder).stdout.splitlines()
    assert "first differing field (top level): published key order [" in line


@pytest.mark.usefixtures("hyoka_env")
def test_a_run_without_result_json_is_an_error_and_the_others_still_verify(
    tmp_path: Path,
) -> None:
    bare = writable_run_copy(SMALL, tmp_path / "bare")
    (bare / "result.json").unlink()
    good = PFGEN_RESULTS / SMALL
    outcome = _verify(bare, good)
    assert outcome.exit_code == 1
    assert outcome.stdout.splitlines() == [f"{good}: {REPRODUCED}"]
    (error,) = outcome.stderr.strip().splitlines()
    assert error == (
        f"error: {bare}: no result.json to verify (score the run with 'hyoka pfgen score')"
    )
    assert not (bare / "result.json").exists()


@pytest.mark.usefixtures("hyoka_env")
def test_a_config_edited_after_scoring_is_noted_not_failed() -> None:
    folder = PFGEN_RESULTS / EDITED_CONFIG
    outcome = _verify(folder)
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.strip() == f"{folder}: {REPRODUCED}"
    assert "config.add_no_think is (missing) in result.json, true in config.json" in (
        " ".join(outcome.stderr.split())
    )


@pytest.mark.slow
@pytest.mark.usefixtures("hyoka_env")
def test_all_49_published_runs_verify_with_the_listed_summation() -> None:
    outcome = _verify(PFGEN_RESULTS)
    assert outcome.exit_code == 0, outcome.output
    lines = outcome.stdout.splitlines()  # each as its run is done: in any order
    expected = set()
    for folder in ALL_RUNS:
        name = folder.relative_to(PFGEN_RESULTS).as_posix()
        summation = "sequential" if name in SEQUENTIAL_RUNS else "compensated"
        expected.add(f"{folder}: reproduced exactly (summation: {summation}; {ANSWERS})")
    assert len(lines) == 49 and set(lines) == expected


# --- streaming: each run is told as it is done, while others are still in flight ------------

HELD = "sbintuitions/sarashina2-8x70b/0a74f0a"  # compensated; its answers are gated below


class _FirstHeard(RunsWatcher):
    """Hears each run; at the first, records whether the gated run was then waiting at
    its gate (started, not done), and lets it through."""

    def __init__(self, gate: FileGate) -> None:
        self.gate, self.heard, self.held_at_first = gate, list[Path](), False

    def _heard(self, folder: Path) -> None:
        if not self.heard:
            self.held_at_first = self.gate.held()
            self.gate.release()
        self.heard.append(folder)

    def verified(self, verdict: Verification) -> None:
        self._heard(verdict.folder)

    def scored(self, report: RunReport) -> None:
        self._heard(report.folder)


@pytest.mark.usefixtures("hyoka_env")
def test_verify_paths_tells_each_verdict_while_another_run_is_in_flight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two runs on two workers, the larger one's answers gated (``FileGate``): it cannot be
    done until the first verdict has been told, so verdicts kept until every run is done
    would fail this test (the gate's limit), not pass it by luck."""
    held, small = PFGEN_RESULTS / HELD, PFGEN_RESULTS / SMALL
    gate = FileGate(held / "trials.jsonl.xz")
    gate.install(monkeypatch)
    watcher = _FirstHeard(gate)
    done = verify_paths([held, small], workers=2, watcher=watcher)
    assert watcher.held_at_first and watcher.heard == [small, held]
    assert [v.verdict for v in done.verdicts] == [REPRODUCED, REPRODUCED]
    assert done.failures == 0


@pytest.mark.usefixtures("hyoka_env")
def test_score_paths_tells_each_run_while_another_run_is_in_flight(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """As verify: over a tree, each scored run is told (its note, its problem) as it is
    done; the table that ranks them follows once all are."""
    held, small = writable_run_copy(HELD, tmp_path), writable_run_copy(SMALL, tmp_path)
    gate = FileGate(held / "trials.jsonl.xz")
    gate.install(monkeypatch)
    watcher = _FirstHeard(gate)
    done = score_paths([tmp_path], force=True, workers=2, watcher=watcher)
    assert watcher.held_at_first and watcher.heard == [small, held]
    assert done.failures == 0 and {r.folder for r in done.reports} == {held, small}
