"""Drop-in with pfgen-bench's own tools (issue 22, items 4, 5, 7, 8 and 9).

A catalogue: each test is one promise that a maintainer swapping hyoka in for upstream's
scripts relies on, checked against upstream's published files in ``../shared/data``:

- #4 ``leaderboard --format upstream`` on a checkout is upstream's README table: the same
  rows (``result/`` and the system rows of ``data/``, not ``result_greedy/``), the labels
  the configs record, links relative to the checkout, ties in path order;
- #5 ``trials.jsonl.xz`` is written as upstream's Makefile writes it (``xz -9``): the
  published file's bytes, so the published ``input_hash``;
- #7 the same settings write the same ``config.json`` as upstream's current run scripts
  (``enable_thinking`` for ``run-openai.py``, engine ``hf`` for ``run-hf.py``), so they
  hash to the published run folder;
- #8 ``verify`` over a tree prints each verdict as its run is done, while another run is
  still held at a gate the test controls (memory: ``benchmarks/pfgen_verify_memory.py``),
  and waits on no run: a FIFO is not opened;
- #9 a tree's folders that look like runs but hold no answers are named, with why:
  ``verify`` checks everything else and exits 1, ``score`` scores the rest and notes them.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _gate import FileGate
from _shared import PFGEN_RESULTS, SHARED_DATA
from hyoka.cli.main import app
from hyoka.pfgen import GenerateSettings, Mode, PfgenBenchmark, plan_generation, score_run
from hyoka.pfgen.generate import write_trials_xz
from hyoka.pfgen.run_config import config_text

QUESTIONS = SHARED_DATA / "pfgen-bench" / "data"
#: Two public runs of equal score (0.7748), and a third copy of one to tie with them.
TIED = ("openai/chatgpt-o1/9a61e92", "sbintuitions/sarashina2-8x70b/0a74f0a")
MIRROR = "aaa-mirror/sarashina2-8x70b/0a74f0a"
#: The ground-truth row exactly as upstream's README (commit 03db7c4) shows it.
GROUND_TRUTH_ROW = (
    "| <code>N/A</code> | <code>1.0501 (±0.0000/√1)</code> "
    "| <code>[👑 system/ground-truth](data/README.md)</code> | <code>100.0 (±0.0)</code> "
    "| <code>1.155</code> | <code>0.996</code> | <code>1.000</code> |"
)


def _copy_results(source: Path, target: Path) -> None:
    target.mkdir(parents=True)
    for name in ("result.json", "config.json"):
        if (source / name).exists():
            shutil.copyfile(source / name, target / name)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory, benchmark: PfgenBenchmark) -> Path:
    """A pfgen-bench checkout of the 49 public runs, laid out as upstream's repository:
    ``result/`` (plus a copy of one run under another organisation, to tie), a greedy run
    under ``result_greedy/`` (not on upstream's leaderboard), and ``data/`` with the
    ground-truth pseudo-model, scored from the sample answers as upstream scores it."""
    root = tmp_path_factory.mktemp("pfgen-bench")
    runs = sorted(p.parent.relative_to(PFGEN_RESULTS) for p in PFGEN_RESULTS.rglob("result.json"))
    for run in runs:
        _copy_results(PFGEN_RESULTS / run, root / "result" / run)
    _copy_results(PFGEN_RESULTS / TIED[1], root / "result" / MIRROR)
    _copy_results(PFGEN_RESULTS / TIED[0], root / "result_greedy" / TIED[0])
    data = root / "data"
    data.mkdir()
    shutil.copyfile(QUESTIONS / "config.json", data / "config.json")
    shutil.copyfile(QUESTIONS / "questions.jsonl", data / "trials.jsonl")
    score_run(data, benchmark)
    return root


def _upstream_table(path: Path) -> list[str]:
    result = CliRunner().invoke(app, ["pfgen", "leaderboard", str(path), "--format", "upstream"])
    assert result.exit_code == 0, result.output
    lines: list[str] = result.stdout.splitlines()
    return lines


def _link(line: str) -> str:
    return line.split("](", 1)[1].split(")</code>", 1)[0]


def _label(line: str) -> str:
    return line.split("<code>[", 1)[1].split("](", 1)[0].split(" ", 1)[1]


def _result(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_4_upstream_table_of_a_checkout_is_upstreams_readme_table(checkout: Path) -> None:
    lines = _upstream_table(checkout.absolute())
    rows = lines[2:]
    assert rows[0] == GROUND_TRUTH_ROW  # the system row, as upstream's README shows it
    # upstream's set: result/ and data/, never result_greedy/; links relative to the checkout
    links = [_link(row) for row in rows]
    expected = sorted(
        str(p.parent.relative_to(checkout).as_posix()) + "/README.md"
        for folder in ("result", "data")
        for p in (checkout / folder).rglob("result.json")
    )
    assert sorted(links) == expected and len(links) == 51
    # best score first; equal scores keep upstream's path order, whatever their names
    scores = [_result(checkout / link.removesuffix("README.md") / "result.json") for link in links]
    assert [s["score"] for s in scores] == sorted((s["score"] for s in scores), reverse=True)
    tied = [link for link, s in zip(links, scores, strict=True) if s["score"] == 0.7748]
    assert tied == [f"result/{run}/README.md" for run in (MIRROR, *TIED)]
    # each label is the model name the config records (no organisation added), cut to 40
    for row, result in zip(rows, scores, strict=True):
        name = result["config"]["model"]
        assert _label(row) == (name if len(name) <= 40 else name[:37] + "...")
    opus = [row for row in rows if "claude-opus-4-20250514/2dafa10" in row]
    assert _label(opus[0]) == "claude-opus-4-20250514"
    # the header pads Score to its widest cell, the system row's included, counting "±" and
    # "√" as two columns as upstream does
    cells = [row.split(" | <code>")[1].removesuffix("</code>") for row in rows]
    width = max(len(cell) + 2 for cell in cells)
    assert f"| <code>Score{'&nbsp;' * (width - len('Score'))}</code> |" in lines[0]
    assert lines[1] == "|-----" * 7 + "|"


def test_4_a_results_folder_links_from_the_folder_above_it(checkout: Path) -> None:
    rows = _upstream_table(checkout.absolute() / "result")[2:]
    links = [_link(row) for row in rows]
    assert len(links) == 50 and all(link.startswith("result/") for link in links)
    assert not any("ground-truth" in row for row in rows)  # data/ was not named


# --- #5 trials.jsonl.xz as xz -9 writes it -----------------------------------------------

#: Published runs compressed by single-threaded ``xz -9`` (others were compressed by
#: XZ Utils >= 5.6, multi-threaded by default, which records sizes in the block header).
XZ_RUNS = (
    "elyza/Llama-3-ELYZA-JP-70B/74c4304",
    "llm-jp/llm-jp-13b-instruct-full-jaster-v1.0/c55d748",
)


def _unpacked_trials(run: str, folder: Path) -> bytes:
    """The published run's answers as trial parts in ``folder``, in no particular order
    (the writer sorts them, as upstream's ``LC_ALL=C sort`` does); their sorted content."""
    content = lzma.decompress((PFGEN_RESULTS / run / "trials.jsonl.xz").read_bytes())
    lines = content.splitlines(keepends=True)[::-1]
    folder.mkdir(parents=True)
    for part in range(3):
        (folder / f"trial_{part + 1:03d}.jsonl").write_bytes(b"".join(lines[part::3]))
    return content


@pytest.mark.parametrize("run", XZ_RUNS)
def test_5_trials_xz_is_the_published_file_byte_for_byte(tmp_path: Path, run: str) -> None:
    _unpacked_trials(run, tmp_path / "run")
    written = write_trials_xz(tmp_path / "run").read_bytes()
    assert written == (PFGEN_RESULTS / run / "trials.jsonl.xz").read_bytes()
    published = _result(PFGEN_RESULTS / run / "result.json")
    assert hashlib.sha1(written).hexdigest() == published["input_hash"]


def test_5_trials_xz_is_what_xz_9_writes(tmp_path: Path) -> None:
    xz = shutil.which("xz")
    if xz is None:
        pytest.skip("no xz on this machine to compare with")
    content = _unpacked_trials(XZ_RUNS[1], tmp_path / "run")
    written = write_trials_xz(tmp_path / "run").read_bytes()
    # -T1: the single-threaded encoder, which xz -9 is by default before XZ Utils 5.6
    made = subprocess.run([xz, "-9", "-T1", "-c"], input=content, capture_output=True, check=True)
    assert written == made.stdout


# --- #7 config.json as upstream's run scripts write it -----------------------------------

#: Our provider for each engine upstream's current run scripts write.
PROVIDERS = {"openai-api": "openai", "vllm": "vllm"}
#: The settings hyoka's flags set; a config with others was made with options hyoka lacks.
FLAG_KEYS = {"engine", "model", "mode", "num_examples", "max_tokens", "stop"}
FLAG_KEYS |= {"temperature", "top_p", "prefix", "enable_thinking"}
#: What the current scripts always record (older ones left out top_p or max_tokens).
CURRENT_KEYS = {"engine", "model", "mode", "num_examples", "max_tokens", "stop"}
CURRENT_KEYS |= {"temperature", "top_p"}


def _configs_of_current_scripts() -> list[Path]:
    """Published configs written by upstream's current run-openai.py (which records
    ``enable_thinking``) or run-vllm.py, with no setting beyond hyoka's flags."""
    found = []
    for path in sorted(PFGEN_RESULTS.rglob("config.json")):
        config = _result(path)
        engine = config.get("engine")
        if engine not in PROVIDERS or not FLAG_KEYS >= config.keys() >= CURRENT_KEYS:
            continue
        if (engine == "openai-api") == ("enable_thinking" in config):
            found.append(path)
    return found


CURRENT_CONFIGS = _configs_of_current_scripts()


def test_7_the_sample_holds_runs_of_the_current_openai_script() -> None:
    thinking = [p for p in CURRENT_CONFIGS if "enable_thinking" in _result(p)]
    assert [p.parent.name for p in thinking] == ["2dafa10", "d33465d"]
    assert len(CURRENT_CONFIGS) > 20


@pytest.mark.parametrize("path", CURRENT_CONFIGS, ids=lambda p: p.parent.name)
def test_7_same_settings_hash_to_the_published_run_folder(path: Path, tmp_path: Path) -> None:
    published = _result(path)
    settings = GenerateSettings(
        model=f"{PROVIDERS[published['engine']]}/{published['model']}",
        mode=Mode(published["mode"]), temperature=published["temperature"],
        top_p=published["top_p"], max_tokens=published["max_tokens"],
        num_examples=published["num_examples"], prefix=published.get("prefix"),
        results_dir=tmp_path,
    )  # fmt: skip
    plan = plan_generation(settings, PfgenBenchmark.load(SHARED_DATA)).plan
    assert config_text(plan.config) + "\n" == path.read_text(encoding="utf-8")
    assert plan.folder == tmp_path / published["model"] / path.parent.name


def test_7_a_transformers_run_is_recorded_as_run_hf_py_records_it(tmp_path: Path) -> None:
    # upstream's run-hf.py writes engine "hf" (as every published transformers run says)
    settings = GenerateSettings(model="hf/org/model", mode=Mode.COMPLETION, results_dir=tmp_path)
    config = plan_generation(settings, PfgenBenchmark.load(SHARED_DATA)).plan.config
    assert config["engine"] == "hf" and "enable_thinking" not in config


# --- #8 verify streams its verdicts --------------------------------------------------------

SMALL = "openai/chatgpt-o1/9a61e92"  # one trial: verified at once
BIG = ("01-ai/Yi-1.5-9B/2ff65a8",)  # 5,000 answers


def _linked_run(run: str, target: Path) -> Path:
    """Public run ``run`` under ``target``, its files linked (verify writes nothing)."""
    folder = target / run
    folder.mkdir(parents=True)
    for file in (PFGEN_RESULTS / run).iterdir():
        (folder / file.name).symlink_to(file)
    return folder


@pytest.mark.usefixtures("hyoka_env")
def test_8_verify_prints_each_verdict_and_waits_on_no_run(tmp_path: Path) -> None:
    """Two workers, two runs, the big run's answers a FIFO that no one writes (this test
    gated the big run on such a pipe, opened once the small run's verdict was printed):
    the store opens no FIFO (issue 29: it waited forever), so the big run is one line
    naming its file, at once, and the small run's verdict is printed beside it."""
    _linked_run(SMALL, tmp_path / "tree")
    big = tmp_path / "tree" / BIG[0]
    big.mkdir(parents=True)
    for file in (PFGEN_RESULTS / BIG[0]).iterdir():
        if file.name != "trials.jsonl.xz":
            (big / file.name).symlink_to(file)
    os.mkfifo(big / "trials.jsonl.xz")  # never opened for writing
    command = [sys.executable, "-m", "hyoka", "pfgen", "verify", str(tmp_path / "tree")]
    process = subprocess.Popen(
        [*command, "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "COLUMNS": "300"},
    )  # fmt: skip
    watchdog = threading.Timer(300, process.kill)  # a hang fails the test, never the suite
    watchdog.start()
    try:
        out, err = process.communicate()
    finally:
        watchdog.cancel()
    assert process.returncode == 1, err
    (verdict,) = out.splitlines()
    assert SMALL in verdict and ": reproduced exactly (summation: " in verdict
    assert f"{big / 'trials.jsonl.xz'}: a FIFO, not a regular file; not read" in err


@pytest.mark.usefixtures("hyoka_env")
def test_8_verify_prints_a_verdict_while_another_run_is_held(tmp_path: Path) -> None:
    """Two workers, two runs, the larger run's answers gated by the test (``FileGate``): the
    small run's verdict must be on stdout while the large run waits at its gate, which the
    test opens only once it has read that line (kept until all were done, it never comes:
    the watchdog ends the command and the test fails). Then the large run's verdict."""
    held, small = _linked_run(TIED[1], tmp_path / "tree"), _linked_run(SMALL, tmp_path / "tree")
    gate = FileGate(held / "trials.jsonl.xz")
    command = gate.command("pfgen", "verify", str(tmp_path / "tree"), "--workers", "2")
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "COLUMNS": "300"}, pass_fds=gate.child_fds(),
    )  # fmt: skip
    watchdog = threading.Timer(300, process.kill)  # a hang fails the test, never the suite
    watchdog.start()
    try:
        assert gate.held()  # the large run is reading its answers, and waits
        assert process.stdout is not None
        first = process.stdout.readline()
        gate.release()
        rest, err = process.communicate()
    finally:
        watchdog.cancel()
    assert process.returncode == 0, err
    reproduced = ": reproduced exactly (summation: compensated; answers: trials.jsonl.xz)"
    assert [first, *rest.splitlines()] == [f"{small}{reproduced}\n", f"{held}{reproduced}"]


# --- #9 folders without answers in a tree ----------------------------------------------------


def _tree_with_unverifiable_folders(root: Path) -> tuple[Path, Path, Path]:
    """A tree of one real run, a run with a result.json but no answers (its trials file
    lost) and a run with only its config.json (never generated)."""
    good = _linked_run(SMALL, root)
    lost = root / "org" / "lost" / "0a74f0a"
    _copy_results(PFGEN_RESULTS / TIED[1], lost)
    pending = root / "org" / "pending" / "74c4304"
    pending.mkdir(parents=True)
    shutil.copyfile(PFGEN_RESULTS / XZ_RUNS[0] / "config.json", pending / "config.json")
    return good, lost, pending


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


@pytest.mark.usefixtures("hyoka_env")
def test_9_verify_names_each_folder_it_cannot_verify_and_fails(tmp_path: Path) -> None:
    good, lost, pending = _tree_with_unverifiable_folders(tmp_path)
    result = CliRunner().invoke(app, ["pfgen", "verify", str(tmp_path)])
    assert result.exit_code == 1
    assert _lines(result.stdout) == [
        f"{good}: reproduced exactly (summation: compensated; answers: trials.jsonl.xz)"
    ]
    assert _lines(result.stderr) == [
        f"error: {lost}: cannot be verified: a result.json but no answers "
        "(trials.jsonl.xz, trials.jsonl or trial_*.jsonl) to check it against",
        f"error: {pending}: cannot be verified: a config.json but no answers "
        "(trials.jsonl.xz, trials.jsonl or trial_*.jsonl): not generated, or its answers are "
        "missing",
        "error: 2 folders cannot be verified: 1 with a result.json but no answers "
        "(trials.jsonl.xz, trials.jsonl or trial_*.jsonl) to check it against; 1 with a "
        "config.json but no answers (trials.jsonl.xz, trials.jsonl or trial_*.jsonl): not "
        "generated, or its answers are missing",
    ]
    # named on its own, such a folder is the same error (it always was one)
    alone = CliRunner().invoke(app, ["pfgen", "verify", str(lost)])
    assert alone.exit_code == 1
    assert _lines(alone.stderr) == [_lines(result.stderr)[0]]
    nothing = CliRunner().invoke(app, ["pfgen", "score", str(pending)])
    assert nothing.exit_code == 1
    assert _lines(nothing.stderr)[0].startswith(f"error: {pending}: nothing to score: a config")


@pytest.mark.usefixtures("hyoka_env")
def test_9_score_notes_the_folders_it_skips_and_scores_the_rest(tmp_path: Path) -> None:
    good, lost, pending = _tree_with_unverifiable_folders(tmp_path / "links")
    shutil.copytree(good, tmp_path / "run", symlinks=False)  # a copy score may write in
    shutil.rmtree(good)
    shutil.move(tmp_path / "run", good)
    (good / "result.json").unlink()
    result = CliRunner().invoke(app, ["pfgen", "score", str(tmp_path / "links")])
    assert result.exit_code == 0, result.output
    assert (good / "result.json").is_file()
    warnings = _lines(result.stderr)
    assert warnings[0].startswith(f"warning: {lost}: skipped: a result.json but no answers")
    assert warnings[1].startswith(f"warning: {pending}: skipped: a config.json but no answers")
    assert warnings[2].startswith("warning: 2 folders skipped: 1 with a result.json")
    assert len(warnings) == 3
