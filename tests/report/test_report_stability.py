"""``hyoka report``'s reference-set stability page: each run's pfgen score with one reference
set alone against another, drawn from real answers scored against the real reference sets.

Four public runs are chosen because the sets disagree about them (ELYZA-JP-70B is ahead of
llm-jp-3-172b with the ensemble and with T, behind with P and S), so the rank correlations
are not trivially 1; three of them hold 50 answers, so measuring them is quick. Kendall's
τ-b with ties is checked against scipy on its own. The same experiment reaches the page
twice: from the file
``hyoka pfgen stability --json`` writes (run as a real process) and computed by the report
(``--stability``); both must show the same points, and every correlation printed must equal
scipy's on those points.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, SHARED_DATA, needs
from hyoka.cli.report_cmd import report_command
from hyoka.errors import InputError
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.refset_stability import stability_signature
from hyoka.report import ReportOptions, build_report
from hyoka.stats import kendall_tau_b

needs("scipy")
from scipy import stats  # type: ignore[import-untyped]  # noqa: E402

RUNS = (
    "elyza/Llama-3-ELYZA-JP-70B/74c4304",
    "llm-jp/llm-jp-3-172b-beta2/ea5edfc",
    "openai/chatgpt-o1/9a61e92",
    "openai/chatgpt-o1-pro/8e09b44",
)
MINE = "#b3261e"
PAIRS = [("ensemble", s) for s in "PST"] + [("P", "S"), ("P", "T"), ("S", "T")]


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The four runs as a public results folder of their own (config, trials, result)."""
    root = tmp_path_factory.mktemp("public")
    for run in RUNS:
        target = root / run
        target.mkdir(parents=True)
        for name in ("config.json", "trials.jsonl.xz", "result.json"):
            shutil.copy(PFGEN_RESULTS / run / name, target / name)
    return root


@pytest.fixture(scope="module")
def stability_file(
    public: Path, tmp_path_factory: pytest.TempPathFactory, index_cache_dir: Path
) -> Path:
    """What the documented command writes: ``hyoka pfgen stability DIR --json > FILE``."""
    env = {
        **os.environ,
        "HYOKA_DATA_DIR": str(SHARED_DATA),
        "HYOKA_CACHE_DIR": str(index_cache_dir),
    }
    done = subprocess.run(
        [sys.executable, "-m", "hyoka", "pfgen", "stability", str(public), "--json",
         "--resamples", "100"],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    path = tmp_path_factory.mktemp("stability") / "stability.json"
    path.write_text(done.stdout, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def recorded(stability_file: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(stability_file.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def page(
    public: Path,
    stability_file: Path,
    tmp_path_factory: pytest.TempPathFactory,
    index_cache_dir: Path,
) -> str:
    """The site over the file and, with ``--stability``, the report's own experiment; the
    first run is named, so it is the user's."""
    out = tmp_path_factory.mktemp("site")
    options = ReportOptions(
        data_dir=SHARED_DATA, cache_dir=index_cache_dir, public_dir=public, stability=True
    )
    built = build_report([public / RUNS[0], stability_file], out, options)
    assert built.notes == []
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="pfgen/stability.html"' in index
    return (out / "pfgen" / "stability.html").read_text(encoding="utf-8")


def _sections(html: str) -> list[str]:
    return re.findall(r'<section class="stability-set"(.*?)</section>', html, flags=re.S)


def _points(figure: str) -> dict[str, tuple[float, float, str]]:
    """label -> (x, y, colour), read from the circles' tooltips."""
    found = re.findall(
        r"<g><title>(.*?): ([-\d.]+), ([-\d.]+)</title><circle [^>]*fill=\"([^\"]+)\"", figure
    )
    return {unescape(label): (float(x), float(y), colour) for label, x, y, colour in found}


def _figures(section: str) -> dict[tuple[str, str], str]:
    found = re.findall(
        r'<figure class="scatter stability" data-x="(\w+)" data-y="(\w+)">(.*?)</figure>',
        section,
        flags=re.S,
    )
    return {(x, y): body for x, y, body in found}


def _table(section: str) -> list[list[str]]:
    body = section.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [
        [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        for r in re.findall(r"<tr[^>]*>(.*?)</tr>", body)
    ]


def test_both_sources_draw_the_commands_scores(page: str, recorded: dict[str, Any]) -> None:
    sections = _sections(page)
    assert len(sections) == 2  # the file, then the report's own experiment
    runs = {r["run"]: r for r in recorded["runs"]}
    assert len(runs) == len(RUNS)
    for section in sections:
        figures = _figures(section)
        assert list(figures) == PAIRS
        for (first, second), figure in figures.items():
            points = _points(figure)
            assert set(points) == set(runs)
            for label, (x, y, _) in points.items():
                assert x == pytest.approx(runs[label][first], abs=5e-5)
                assert y == pytest.approx(runs[label][second], abs=5e-5)
            assert f"score with set {second} alone" in figure
            assert 'class="diagonal"' in figure
    # two paths, the same numbers; the intervals (columns 4 and 7) differ only because the
    # file was made with --resamples 100 and the report's own experiment draws the default 2000
    without_intervals = [[r[:4] + r[5:7] for r in _table(s)] for s in sections]
    assert without_intervals[0] == without_intervals[1]
    # the runs do order differently under different sets: ELYZA ahead with the ensemble and
    # with T, behind with P and S
    elyza = runs["elyza/Llama-3-ELYZA-JP-70B (qa)"]
    llmjp = runs["llm-jp/llm-jp-3-172b-beta2 (completion)"]
    assert elyza["ensemble"] > llmjp["ensemble"] and elyza["P"] < llmjp["P"]


def test_printed_correlations_equal_scipys_on_the_same_points(
    page: str, recorded: dict[str, Any]
) -> None:
    rows = _table(_sections(page)[0])
    assert len(rows) == len(PAIRS)
    spearmans = []
    for row, (first, second) in zip(rows, PAIRS, strict=True):
        xs = [r[first] for r in recorded["runs"]]
        ys = [r[second] for r in recorded["runs"]]
        assert row[2] == str(len(RUNS))
        spearman = stats.spearmanr(xs, ys).statistic
        assert row[3] == f"{spearman:.5f}", (first, second)
        assert row[5] == f"{stats.kendalltau(xs, ys).statistic:.5f}", (first, second)
        assert row[6] == f"{stats.pearsonr(xs, ys).statistic:.5f}", (first, second)
        low, high = (float(v) for v in re.findall(r"-?[\d.]+", row[4]))
        assert low <= spearman <= high + 1e-12
        spearmans.append(spearman)
    assert min(spearmans) < 1.0  # not a trivial agreement


def test_the_page_shows_the_intervals_the_command_printed(
    page: str, recorded: dict[str, Any]
) -> None:
    """The file's signature records how its intervals were drawn (--resamples 100, seed 0):
    the page redraws them with those settings, so they are the command's own."""
    printed = {(c["first"], c["second"]): c for c in recorded["correlations"]}
    for row, pair in zip(_table(_sections(page)[0]), PAIRS, strict=True):
        for column, name in ((4, "spearman"), (7, "pearson")):
            low, high = (float(v) for v in re.findall(r"-?[\d.]+", row[column]))
            assert low == pytest.approx(printed[pair][name]["low"], abs=5e-6), (pair, name)
            assert high == pytest.approx(printed[pair][name]["high"], abs=5e-6), (pair, name)


def test_signature_axes_and_provenance(page: str, benchmark: PfgenBenchmark) -> None:
    file_section, computed = _sections(page)
    made = {
        file_section: stability_signature(  # `hyoka pfgen stability --json` signs too
            benchmark.metadata_hash, "PST", False, len(RUNS), resamples=100, seed=0
        ),
        computed: stability_signature(
            benchmark.metadata_hash, "PST", False, len(RUNS), resamples=2000, seed=0
        ),
    }
    for section, expected in made.items():
        assert f"signature: <code>{expected.line}</code>" in section
        assert f"data:pfgen@{benchmark.metadata_hash[:8]}" in expected.line
        assert "|sets:P,S,T|common-only:no|runs:4|" in expected.line
    assert "|resamples:100|confidence:0.95|seed:0" in made[file_section].line
    for section in (file_section, computed):
        text = unescape(re.sub(r"<[^>]+>", " ", section))
        assert "P: 47, S: 39, T: 38" in text  # questions that have the set, of 50
        assert "equals the published score (result.json) for 4 of the 4 runs" in text
        assert "score with every reference set (ensemble)" in text
    assert "hyoka report --stability" in computed


def test_the_named_run_is_drawn_red(page: str) -> None:
    for section in _sections(page):
        for figure in _figures(section).values():
            colours = {label: colour for label, (_, _, colour) in _points(figure).items()}
            assert colours.pop("elyza/Llama-3-ELYZA-JP-70B (qa)") == MINE
            assert MINE not in colours.values()


def test_kendall_tau_b_matches_scipy_with_ties() -> None:
    rng = np.random.default_rng(7)
    for size in (3, 5, 12, 40):
        xs = rng.integers(0, 4, size).astype(float).tolist()
        ys = (np.array(xs) + rng.integers(-2, 3, size)).tolist()
        assert kendall_tau_b(xs, ys) == pytest.approx(stats.kendalltau(xs, ys).statistic)
    assert np.isnan(kendall_tau_b([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))


def test_a_malformed_stability_file_is_noted_and_other_json_refused(
    tmp_path: Path, recorded: dict[str, Any]
) -> None:
    broken = {**recorded, "runs": [{**r, "P": "high"} for r in recorded["runs"]]}
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    options = ReportOptions(data_dir=SHARED_DATA, public=False)
    with pytest.raises(InputError, match="nothing to report"):
        build_report([path], tmp_path / "out", options)
    folder = tmp_path / "folder"  # found in a folder too, beside a run
    (folder / "run").mkdir(parents=True)
    shutil.copy(path, folder / "stability.json")
    shutil.copy(PFGEN_RESULTS / RUNS[0] / "result.json", folder / "run" / "result.json")
    built = build_report([folder], tmp_path / "out", options)
    assert built.notes == [
        f"{folder / 'stability.json'}: run 1 lacks a finite score for each of ensemble, P, S, "
        "T; skipped"
    ]
    assert not (tmp_path / "out" / "pfgen" / "stability.html").exists()
    other = tmp_path / "other.json"
    other.write_text('{"score": 1}', encoding="utf-8")
    with pytest.raises(InputError, match=r"other\.json: not a run, a judgment file, a stability"):
        build_report([other], tmp_path / "out", options)


def test_stability_needs_three_runs_with_answers(
    public: Path, tmp_path: Path, index_cache_dir: Path
) -> None:
    two = tmp_path / "two"
    for run in RUNS[:2]:
        shutil.copytree(public / run, two / run)
    (two / RUNS[1] / "trials.jsonl.xz").unlink()  # a result.json alone: no answers
    options = ReportOptions(
        data_dir=SHARED_DATA, cache_dir=index_cache_dir, public_dir=two, stability=True
    )
    built = build_report([two], tmp_path / "out", options)
    assert "--stability: 1 run(s) without answers (result.json only) left out" in built.notes
    assert any(n.startswith("--stability: not computed: need at least 3 runs") for n in built.notes)
    assert not (tmp_path / "out" / "pfgen" / "stability.html").exists()


def test_the_command_line_reads_the_file_and_passes_stability_on(
    public: Path, stability_file: Path, tmp_path: Path, hyoka_env: None
) -> None:
    app = typer.Typer()
    app.command("report")(report_command)
    app.command("other")(report_command)  # two commands: "report" is named, as in hyoka
    runner = CliRunner()
    out = tmp_path / "site"
    done = runner.invoke(app, ["report", str(stability_file), "-o", str(out), "--no-public"])
    assert done.exit_code == 0, done.output
    assert "Sets P, S, T over 4 runs" in (out / "pfgen" / "stability.html").read_text("utf-8")
    one = tmp_path / "one"
    shutil.copytree(public / RUNS[0], one / RUNS[0])
    done = runner.invoke(
        app, ["report", str(one), "-o", str(tmp_path / "o2"), "--stability", "--no-public"]
    )
    assert done.exit_code == 0, done.output
    assert "--stability: not computed: need at least 3 runs to correlate, got 1" in " ".join(
        done.output.split()
    )
