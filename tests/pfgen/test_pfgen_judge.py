"""``hyoka pfgen judge`` on copies of published runs, then correlate.

A scripted judge (``scripted/PATH``) rates one run's answer and writes no rating for the
other's: the rated summary has its mean, the other fails in one line and ``hyoka pfgen
correlate`` refuses it. The real SmolLM2 judge checks the wiring only (files, fields,
signature, counts), whatever it writes. The correlation path itself is checked on
summaries written by the same code from records whose scores are stated in the test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, needs, needs_embedded_model
from hyoka.cli.main import app
from hyoka.judge.records import JudgeSettings, JudgmentRecord
from hyoka.judge.templates import load_template
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.judge import JUDGMENTS_FILE, collect_items, write_summary
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.store import append_record, read_records, safe_name

scipy_stats = needs("scipy").stats

#: three published runs whose first answer to Q01 is short (a short prompt is a quick call)
RUNS = (
    "llm-jp/llm-jp-13b-instruct-full-jaster-v1.0/c55d748",
    "CohereForAI/c4ai-command-r-plus/0171fdc",
    "llm-jp/llm-jp-3-13b-instruct2/d879644",
)
JUDGE_OPTIONS = [
    "--max-tokens", "16", "--max-attempts", "1", "--per-question", "1", "--limit", "1", "--json",
]  # fmt: skip
SMOLLM2 = ["-j", EMBEDDED_MODEL, "-o", "n_ctx=2048", "-o", "n_threads=1", *JUDGE_OPTIONS]
SUMMARY_KEYS = {
    "judge", "template", "template_version", "mean", "n", "failures", "per_question", "pending",
    "signature",
}  # fmt: skip


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def runs(tmp_path: Path) -> list[Path]:
    copies = []
    for run in RUNS:
        target = tmp_path / "results" / run
        shutil.copytree(PFGEN_RESULTS / run, target)
        copies.append(target)
    return copies


def _judged_files(run: Path, judge: str) -> tuple[dict[str, Any], JudgmentRecord]:
    folder = run / "judge" / safe_name(judge)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    (record,) = [r for _, r in read_records(folder / JUDGMENTS_FILE, JudgmentRecord)]
    return summary, record


def test_real_smollm2_judge_wiring(runs: list[Path], hyoka_env: None) -> None:
    """The real judge on one answer: the files, their fields and the signature, and a second
    run with nothing left to do; whether SmolLM2 wrote a rating is not asserted."""
    needs_embedded_model()
    run = runs[0]
    result = _invoke("pfgen", "judge", str(run), *SMOLLM2)
    out = json.loads(result.stdout)
    summary, record = _judged_files(run, EMBEDDED_MODEL)
    assert set(summary) == SUMMARY_KEYS
    assert (summary["judge"], summary["template"], summary["template_version"]) == (
        EMBEDDED_MODEL, "pfgen-single", "1",
    )  # fmt: skip
    config = json.loads((run / "config.json").read_text(encoding="utf-8"))
    assert (record.id, record.models, record.kind) == ("Q01#0", (config["model"],), "single")
    assert "時計の長針と短針が1日に重なる回数は？" in record.prompt[-1].content
    assert len(record.replies) == 1 and record.usage.prompt_tokens > 0
    # the summary counts the record; no grade at all is exit 1, a grade exit 0
    assert (summary["n"], summary["failures"]) == ((0, 1) if record.failed else (1, 0))
    assert result.exit_code == int(record.failed), result.output
    # how the numbers were produced: judge, template, settings, the benchmark data
    fields = summary["signature"]["fields"]
    assert (fields["kind"], fields["judge"], fields["template"]) == (
        "judge-single", EMBEDDED_MODEL, "pfgen-single@1",
    )  # fmt: skip
    settings = (fields["temperature"], fields["max-tokens"], fields["repeats"])
    assert settings == ("0.0", "16", "1")
    assert fields["aggregate"] == "mean" and fields["data"].startswith("pfgen@")
    assert out["signature"] == summary["signature"]
    assert (out["judged_now"], out["done_before"], out["provider_calls"]) == (1, 0, 1)
    # a second run has nothing left to do and costs no call
    again = json.loads(_invoke("pfgen", "judge", str(run), *SMOLLM2).stdout)
    assert (again["judged_now"], again["done_before"], again["provider_calls"]) == (0, 1, 0)


def test_scripted_judge_then_correlate(
    runs: list[Path], benchmark: PfgenBenchmark, tmp_path: Path, hyoka_env: None
) -> None:
    """The second run's answer gets [[8]], the first's no rating."""
    (to_rate,) = collect_items(runs[1], benchmark, per_question=1, limit=1).items
    script = tmp_path / "judge.jsonl"
    rules = [{"contains": to_rate.answer, "reply": "評価: [[8]]"}, {"reply": "よく分かりません。"}]
    script.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules), "utf-8")
    judge = f"scripted/{script}"
    results = []
    for run in runs[:2]:
        result = _invoke("pfgen", "judge", str(run), "-j", judge, *JUDGE_OPTIONS)
        results.append(result)
        summary, record = _judged_files(run, judge)
        assert record.id == "Q01#0" and record.replies[0] in {r["reply"] for r in rules}
        assert json.loads(result.stdout)["signature"] == summary["signature"]
        assert summary["signature"]["fields"]["judge"] == judge
    failed, rated = results
    # no grade at all is not a success: the totals, then one line and exit 1
    assert failed.exit_code == 1, failed.output
    assert f"no grade: {judge} wrote no rating in any reply" in failed.stderr
    summary, record = _judged_files(runs[0], judge)
    assert (record.score, record.failures, record.replies) == (-1, 1, ("よく分かりません。",))
    assert (summary["mean"], summary["n"], summary["failures"]) == (None, 0, 1)
    assert summary["per_question"] == {}
    assert rated.exit_code == 0, rated.output
    summary, record = _judged_files(runs[1], judge)
    assert (record.score, record.failures) == (8.0, 0)
    assert (summary["mean"], summary["n"], summary["failures"]) == (8.0, 1, 0)
    assert summary["per_question"] == {"Q01": 8.0}
    # correlate refuses a summary with no rating at all, naming it
    result = _invoke("pfgen", "correlate", str(runs[0].parents[2]), "--json")
    assert result.exit_code == 1
    assert "summary.json: the judge rated none of its 1 judged answers" in result.output


def test_summaries_feed_correlate(
    runs: list[Path], benchmark: PfgenBenchmark, hyoka_env: None
) -> None:
    """Records with stated scores, summarised by ``write_summary``: what correlate reads."""
    template = load_template("pfgen-single")
    judge = "openai/some-judge"
    settings = JudgeSettings(judge=judge)
    stated = [[8.0, -1.0, 6.0], [5.0, 4.0, 3.0], [9.0, 9.0, 7.5]]  # per run, Q01..Q03
    for run, scores in zip(runs, stated, strict=True):
        chosen = collect_items(run, benchmark, per_question=1, limit=3)
        assert [item.id for item in chosen.items] == ["Q01#0", "Q02#0", "Q03#0"]
        for item, score in zip(chosen.items, scores, strict=True):
            record = JudgmentRecord(
                id=item.id, kind="single", judge=settings, template=template.name,
                template_version=template.version, score=score, failures=int(score < 0),
            )  # fmt: skip
            append_record(chosen.folder(judge) / JUDGMENTS_FILE, record)
        path, summary = write_summary(chosen, judge, template)
        assert path == run / "judge" / safe_name(judge) / "summary.json"
        rated = [s for s in scores if s >= 0]
        assert summary["mean"] == pytest.approx(sum(rated) / len(rated))
        assert (summary["n"], summary["failures"]) == (len(rated), len(scores) - len(rated))
        assert summary["per_question"] == {
            q: s for q, s in zip(["Q01", "Q02", "Q03"], scores, strict=True) if s >= 0
        }
    result = _invoke("pfgen", "correlate", str(runs[0].parents[2]), "--json", "--resamples", "200")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    pfgen = [json.loads((run / "result.json").read_text())["score"] for run in runs]
    means = [7.0, 4.0, 8.5]
    assert out["n"] == 3
    assert out["pearson"]["estimate"] == pytest.approx(scipy_stats.pearsonr(pfgen, means)[0])
    assert out["spearman"]["estimate"] == pytest.approx(scipy_stats.spearmanr(pfgen, means)[0])
