"""Promise: a judged number names the judge that answered, and a file is continued only by
that judge.

Before: editing a scripted judge's script and running the same command again appended the
new script's grades to the old file, under one manifest and one signature; and the report
named a judge that never answered: a benchmark page's settings said ``judge gpt-4`` (the
variant's upstream judge) above grades a script made with ``--judge-name gpt-4`` (a
label), pair pages named no judge at all, and Rakuda's ranking signature had no judge.

Now the script's digest is part of the judge's settings (identity and signature); a file
graded by another script is refused with one line naming it; and every page of judged
numbers names what answered (``provider/model``, the script's digest, the snapshots that
served), a scripted judge's numbers marked as a dry run.
"""

from __future__ import annotations

import json
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.judge import JudgeRun, JudgeSettings
from hyoka.store import Manifest
from wire_servers import OpenAIServer

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
RAKUDA = SHARED_DATA / "rakuda"


def _invoke(args: list[str]) -> Result:
    return CliRunner().invoke(app, args)


def _write_script(path: Path, reply: str) -> str:
    path.write_text(json.dumps({"reply": reply}, ensure_ascii=False) + "\n", encoding="utf-8")
    return f"scripted/{path}"


def _pin(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _single(answers: Path, judge: str, output: Path) -> Result:
    return _invoke(
        ["judge", "single", str(answers), "-j", judge, "--output", str(output), "--json"]
    )


def test_an_edited_script_does_not_continue_the_file_judge_single_wrote(env: Path) -> None:
    answers = env / "answers.jsonl"
    items = [{"id": f"q{i}", "question": "1+1は?", "answer": "2", "reference": "2"} for i in (1, 2)]
    answers.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), "utf-8")
    script = env / "judge.jsonl"
    judge = _write_script(script, "評価: [[7]]")
    output = env / "graded.jsonl"
    first = _single(answers, judge, output)
    assert first.exit_code == 0, first.output
    made = json.loads(first.stdout)
    assert (made["mean"], made["n"]) == (7.0, 2)
    # the signature names the script it graded with, beside the judge
    fields = made["signature"]["fields"]
    assert (fields["judge"], fields["judge-script"]) == (judge, _pin(script))
    again = _single(answers, judge, output)  # the same script continues its file
    assert again.exit_code == 0 and json.loads(again.stdout)["done_before"] == 2
    graded = output.read_bytes()
    manifest = output.with_name(output.name + ".manifest.json").read_bytes()

    _write_script(script, "評価: [[3]]")  # the judge's script changed
    refused = _single(answers, judge, output)
    assert refused.exit_code == 1
    (line,) = refused.output.strip().splitlines()
    assert line.startswith(f"error: {output}: graded by {judge} with another script")
    assert "the judge's script changed" in line and "choose another output" in line
    assert output.read_bytes() == graded  # not one grade appended
    assert output.with_name(output.name + ".manifest.json").read_bytes() == manifest

    elsewhere = _single(answers, judge, env / "new.jsonl")  # its own file, its own signature
    assert elsewhere.exit_code == 0, elsewhere.output
    redone = json.loads(elsewhere.stdout)
    assert redone["mean"] == 3.0
    assert redone["signature"]["fields"]["judge-script"] == _pin(script) != fields["judge-script"]
    # the report names the script that made the first file's grades, as a dry run
    site = env / "site"
    built = _invoke(["report", str(output), "--no-public", "-o", str(site)])
    assert built.exit_code == 0, built.output
    (page,) = (site / "mtbench").glob("graded*.html")
    shown = _text(page.read_text("utf-8"))
    assert f"Single grading: {output.name} (dry run)" in shown
    assert f"judged by {judge}, script {fields['judge-script']} (dry run: replies read" in shown


def _fin_args(judge: str, out: Path, *extra: str) -> list[str]:
    args = ["mtbench", "judge", "--bench", "pfmt-fin", "-j", judge, "--judge-name", "gpt-4"]
    args += ["--lang-check", "script", "--limit", "1", "--output-dir", str(out), *extra]
    return [*args, "-a", str(FIN / "model_answer" / "gpt-4.jsonl")]


def test_an_edited_script_does_not_continue_the_file_mtbench_judge_wrote(env: Path) -> None:
    script = env / "judge.jsonl"
    judge = _write_script(script, "評価: [[7]]")
    out = env / "judgments"
    first = _invoke(_fin_args(judge, out))
    assert first.exit_code == 0, first.output
    assert f"judge-script:{_pin(script)}" in first.stdout
    (written,) = out.glob("*.jsonl")
    before = written.read_bytes()
    _write_script(script, "評価: [[2]]")
    refused = _invoke(_fin_args(judge, out))
    assert refused.exit_code == 1
    assert f"error: {written}: graded by {judge} with another script" in refused.output
    assert written.read_bytes() == before


def test_a_models_file_from_before_keeps_its_identity() -> None:
    """A judge that is a model has no script: its identity is what it was before the
    script's digest existed, so the files it wrote continue (the store compares a field a
    manifest lacks as none)."""
    run = JudgeRun(
        kind="judge-single", benchmark="answers", data="d", template="t@1",
        settings=JudgeSettings(judge="openai/gpt-4o-2024-08-06", max_attempts=3),
    )  # fmt: skip
    ours = run.manifest()
    older = dict(ours.identity)
    older["judge"] = {k: v for k, v in older["judge"].items() if k != "script"}
    assert "script" in ours.identity["judge"] and ours.identity["judge"]["script"] is None
    assert Manifest(kind=ours.kind, identity=older).differences(ours) == []
    assert "judge-script" not in run.signature().as_dict()


def _text(html: str) -> str:
    import re

    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def test_the_report_names_the_scripted_judge_not_its_label(env: Path) -> None:
    """``--judge-name gpt-4`` labels the files; the pages say a script answered."""
    single = env / "single-judge.jsonl"
    judge = _write_script(single, "評価: [[7]]")
    fin = env / "fin"
    assert _invoke(_fin_args(judge, fin)).exit_code == 0
    pair = env / "pair-judge.jsonl"
    pair_judge = _write_script(pair, "1")
    rakuda = env / "rakuda"
    args = ["mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches", "4"]
    args += ["-j", pair_judge, "--judge-name", "gpt-4", "--output-dir", str(rakuda)]
    for model in ("claude-2", "rinna-3.6b-sft"):
        args += ["-a", str(RAKUDA / "answers" / f"{model}.jsonl")]
    assert _invoke(args).exit_code == 0
    board = _invoke(["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(rakuda),
                     "--format", "json", "--rounds", "5"])  # fmt: skip
    assert board.exit_code == 0, board.output
    ranked = json.loads(board.stdout)
    # the ranking signs the judge whose verdicts it ranks, the script's digest with it
    token = f"{pair_judge}@script-{_pin(pair)}"
    assert ranked["signature"]["fields"]["judge"] == token
    ranking = env / "ranking.json"
    ranking.write_text(board.stdout, encoding="utf-8")

    site = env / "site"
    built = _invoke(["report", str(fin), str(rakuda), str(ranking), "-o", str(site),
                     "--no-public", "--rounds", "5", "--data-dir", str(SHARED_DATA)])  # fmt: skip
    assert built.exit_code == 0, built.output
    fin_page = _text((site / "mtbench" / "pfmt-fin" / "index.html").read_text("utf-8"))
    assert (
        f"Judge: {judge}, script {_pin(single)} (dry run: replies read from a script, not a "
        "model's judgment)"
    ) in fin_page
    assert "(dry run)" in fin_page.split("judgment files")[0]  # the judge set's heading
    (pair_page,) = [
        _text(p.read_text("utf-8"))
        for p in (site / "pairwise").glob("p*.html")
        if "Rakuda" in p.read_text("utf-8")
    ]
    assert "Pairwise: Rakuda: gpt-4_pair.jsonl (dry run)" in pair_page
    assert f"Judge: {pair_judge}, script {_pin(pair)} (dry run" in pair_page
    ranking_page = _text((site / "pairwise" / "ranking1.html").read_text("utf-8"))
    assert f"Judge: {token} (dry run" in ranking_page
    index = _text((site / "index.html").read_text("utf-8"))
    assert "fin (dry run) : 1 models" in index  # the judge set, listed
    question = _text((site / "mtbench" / "pfmt-fin" / "q0000.html").read_text("utf-8"))
    # its grades beside each question, under the judge that answered (not the folder's name)
    assert f"gpt-4 {judge} (dry run) 7" in question


JMT_ANSWERS = (
    SHARED_DATA / "jmt-bench/history/aed16da/model_answer/japanese-stablelm-instruct-alpha-7b.jsonl"
)
SNAPSHOT, LATER = "gpt-4o-2024-08-06", "gpt-4o-2024-11-20"


def test_the_snapshots_that_served_a_moving_alias_are_signed_and_shown(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gpt-4o`` is whatever OpenAI serves that day: the file's signature and its page name
    the snapshots that answered (a loopback OpenAI server naming them, as OpenAI does)."""
    needs("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = env / "out"

    def judge(base_url: str, limit: str) -> Result:
        return _invoke(["mtbench", "judge", "--bench", "jmt-bench", "--variant",
                        "stability@aed16da", "-j", "openai/gpt-4o", "--base-url", base_url,
                        "--judge-name", "gpt-4", "--limit", limit, "--layout", "upstream",
                        "--output-dir", str(out), "-a", str(JMT_ANSWERS)])  # fmt: skip

    manifest = out / "gpt-4_single.jsonl.manifest.json"
    with OpenAIServer() as server:
        server.reply_to_all = "評価：[[7]]"
        server.serves = lambda _number: SNAPSHOT
        first = judge(server.base_url, "2")
        assert first.exit_code == 0, first.output
        assert first.stdout.rstrip().endswith(f"|judge-served:{SNAPSHOT}")
        stored = json.loads(manifest.read_text("utf-8"))["signature"]["fields"]
        assert stored["judge"] == "openai/gpt-4o" and stored["judge-served"] == SNAPSHOT
        server.serves = lambda _number: LATER  # the alias moved: one question more
        later = judge(server.base_url, "3")
        assert later.exit_code == 0, later.output
    both = f"{SNAPSHOT},{LATER}"
    assert later.stdout.rstrip().endswith(
        f"|judge-served:{both}"
    )  # the file's calls, earlier runs' too
    assert json.loads(manifest.read_text("utf-8"))["signature"]["fields"]["judge-served"] == both
    site = env / "site"
    built = _invoke(["report", str(out), "--no-public", "-o", str(site), "--rounds", "5"])
    assert built.exit_code == 0, built.output
    page = _text((site / "mtbench" / "jmt-bench.stability@aed16da" / "index.html").read_text())
    assert f"Judge: openai/gpt-4o, served as {SNAPSHOT}, {LATER} Model" in page
    assert "dry run" not in page
