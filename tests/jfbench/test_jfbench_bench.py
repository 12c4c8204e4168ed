"""JFBench as one registry definition, run as a user runs it: ``hyoka mtbench generate
--bench jfbench`` answers upstream's default build, ``hyoka mtbench judge`` decides every
constraint (rules here, the 43 judged ones by the judge, three votes each, as upstream's
``BenchmarkData._evaluate_single_constraint`` asks), ``hyoka mtbench leaderboard`` summarises
as upstream's ``analyze.py`` does, and ``hyoka report`` shows the leaderboard's JSON; the
same for M-IFEval-Ja's page.

Upstream's source (which words every prompt and judge question) is code, not data, so the
shared data does not hold it: the data folder here carries a stand-in in its layout with
hyoka's own words (``_shared.jfbench_data``). The judge is scripted (``scripted/PATH``), so
every judged verdict is known in advance: the first eight entries of the build hold two
judged constraints, ``AmericanEnglishStyleConstraint`` (entry 5: three ``True`` votes) and
``NoTypoStyleConstraint`` (entry 7: ``False``, ``True``, ``False``, so its majority fails).
"""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, jfbench_data
from hyoka.cli.main import app
from hyoka.jfbench import Benchmark, load_benchmark, plan_judged
from hyoka.jfbench.judged import EMPTY_RESPONSE, Response, judge_settings
from hyoka.judge import Judged, JudgmentRecord, judge_plan
from hyoka.providers import connect
from hyoka.signature import Signature
from hyoka.store import manifest_path, read_manifest
from wire_servers import OpenAIServer, Reply

LIMIT = 8
#: upstream's published responses of one model (M-IFEval-Ja's ``get_responses.py`` names)
RESPONSES, CLAUDE = "ja_input_response_data_", "claude-3-5-sonnet-20240620"
#: the judged constraints among the build's first eight entries: position -> (class, votes)
JUDGED = {
    5: ("AmericanEnglishStyleConstraint", ["True", "True", "True"]),
    7: ("NoTypoStyleConstraint", ["False: a typo in line 1", "True", "False"]),
}


def _run(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, f"hyoka {' '.join(args)}\n{result.output}"
    return result


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = jfbench_data(tmp_path / "data")
    monkeypatch.setenv("HYOKA_DATA_DIR", str(folder))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def _script(path: Path, rules: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rules), encoding="utf-8")
    return f"scripted/{path}"


def _judge_script(tmp_path: Path) -> str:
    rules = [{"contains": f") {name}: ", "reply": votes} for name, votes in JUDGED.values()]
    return _script(tmp_path / "judge.jsonl", rules)


def _judge(tmp_path: Path, judge: str, answers: Path) -> dict[str, Any]:
    done = _run("mtbench", "judge", "--bench", "jfbench", "-j", judge, "--judge-name",
                "scripted", "-a", str(answers), "--limit", str(LIMIT),
                "--results-dir", str(tmp_path / "results"), "--json")  # fmt: skip
    shown: dict[str, Any] = json.loads(done.stdout)
    return shown


def _records(results: Path) -> dict[int, dict[str, Any]]:
    lines = results.read_text(encoding="utf-8").splitlines()
    return {row["prompt_index"]: row for row in map(json.loads, lines)}


def _built(data: Path) -> Benchmark:
    """The build the stand-in words (a ``HyokaWarning`` names the stand-in's digest the
    first time it is built in a process)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        built = load_benchmark(data / "jfbench" / "data" / "ifbench_ja_translated.jsonl",
                               data / "jfbench")  # fmt: skip
    assert all("not upstream's source at c8fed01" in str(w.message) for w in caught)
    return built


def test_answered_and_judged_as_upstream_asks_and_a_killed_run_resumes(
    data: Path, tmp_path: Path
) -> None:
    """Against a recording server: each entry's prompt alone as the one user message, at
    upstream's client defaults (temperature 0.1, 4096 tokens, no system message), and each
    judged constraint's question to the judge three times (three calls, not one reply
    cached) at the same settings. Then a scripted judge's votes, their majority, the result
    file, a killed run resumed, verify, and a user's file never replaced."""
    built = _built(data)
    answers = tmp_path / "answers" / "m.jsonl"
    with OpenAIServer() as server:
        server.reply_to_all = "  Hello there.  "
        server.thinking, server.thinking_apart = "考え中", "reasoning_content"
        _run("mtbench", "generate", "--bench", "jfbench", "-m", "openai/m", "--limit",
             str(LIMIT), "--base-url", server.base_url, "--template", "chat",
             "--output", str(answers))  # fmt: skip
        asked = [r.body for r in server.received]
    assert sorted(str(b["messages"]) for b in asked) == sorted(
        str([{"role": "user", "content": built.texts[p]}]) for p in range(LIMIT)
    )
    assert {(b["temperature"], b["max_tokens"]) for b in asked} == {(0.1, 4096)}
    with OpenAIServer() as server:
        server.reply_to_all = "True"
        _run("mtbench", "judge", "--bench", "jfbench", "-j", "openai/judge", "--base-url",
             server.base_url, "-a", str(answers), "--limit", str(LIMIT),
             "--results-dir", str(tmp_path / "wire"))  # fmt: skip
        judged = [r.body for r in server.received]
    questions = [f"(stand-in judge) {name}: Hello there." for name, _v in JUDGED.values()]
    assert sorted(b["messages"][0]["content"] for b in judged) == sorted(questions * 3)
    assert {(len(b["messages"]), b["temperature"], b["max_tokens"]) for b in judged} == {
        (1, 0.1, 4096)
    }

    judge = _judge_script(tmp_path)
    first = _judge(tmp_path, judge, answers)
    assert (first["judged"], first["done_before"], first["judge_calls"]) == (2, 0, 6)
    (output,) = first["outputs"]
    log, results = Path(output["judgments"]), Path(output["results"])
    # upstream's name: <benchmark>-<constraint set>-<constraints>-<model>.jsonl
    assert results.name.startswith("ifbench-test-1-") and results.suffix == ".jsonl"

    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    by_id = {line["id"]: line for line in lines}
    assert sorted(by_id) == [f"{p}:{name}" for p, (name, _votes) in sorted(JUDGED.items())]
    for position, (name, votes) in JUDGED.items():
        line = by_id[f"{position}:{name}"]
        assert line["replies"] == votes  # three calls, each reply kept
        assert line["scores"] == [float(v.startswith("True")) for v in votes]
        assert line["score"] == (1 if position == 5 else 0)  # the majority
        assert line["judge"]["temperature"] == 0.1 and line["judge"]["max_tokens"] == 4096
        assert line["prompt"][0]["content"].endswith(") " + name + ": Hello there.")

    records = _records(results)
    assert sorted(records) == list(range(LIMIT))  # each entry answered, in build order
    assert records[5]["results"] == {"AmericanEnglishStyleConstraint": True}
    assert records[7]["results"] == {"NoTypoStyleConstraint": False}
    assert records[0]["response"] == "Hello there."  # stripped, as upstream's client strips
    assert records[0]["reasoning_content"] == "考え中"  # the thinking, set aside
    assert records[0]["data_id"] == "106-KeywordIncludedContentConstraint"
    manifest = read_manifest(results)
    assert manifest is not None
    signature = Signature.from_json(manifest.signature)
    assert signature is not None and signature.get("rating") == "majority-of-3"
    assert signature.get("aggregate") == "majority"  # the votes' majority, no mean

    # a run killed after its first line: the next asks only the other, its votes replayed
    log.write_text(log.read_text(encoding="utf-8").splitlines(keepends=True)[0], "utf-8")
    again = _judge(tmp_path, judge, answers)
    assert (again["judged"], again["done_before"], again["cache_hits"]) == (1, 1, 3)
    assert _records(results) == records

    # upstream's analyze.py summary: the share of entries whose every verdict is true
    table = _run("mtbench", "leaderboard", "--bench", "jfbench", "--judgments", str(results))
    rate = 100 * sum(all(r["results"].values()) for r in records.values()) / LIMIT
    assert f"| 1 | m | {LIMIT} | 0 | {rate:.1f} | [" in table.stdout
    assert "m: constraints satisfied by group: " in table.stdout and "Style 1/2" in table.stdout
    # the judge named beside the verdicts, a script's said to be a dry run
    assert f"{results}: verdicts: judged by {judge} (dry run: replies read from a script" in (
        table.stdout
    )

    # verify decides every rule-based verdict again; the judged ones are the judge's
    verified = _run("mtbench", "verify", "--bench", "jfbench", str(results)).stdout
    assert "reproduced exactly (8 lines; jfbench rules (jfbench@c8fed01)" in verified
    assert "2 judged verdict(s) a judge gave (not re-decided)" in verified
    edited = tmp_path / "edited.jsonl"
    rows = results.read_text(encoding="utf-8").splitlines()
    first = json.loads(rows[0])
    first["results"] = {k: not v for k, v in first["results"].items()}
    edited.write_text("\n".join([json.dumps(first), *rows[1:]]) + "\n", encoding="utf-8")
    shown = CliRunner().invoke(app, ["mtbench", "verify", "--bench", "jfbench", str(edited)])
    assert f"{edited}:1: KeywordIncludedContentConstraint recorded " in shown.output
    assert "NOT reproduced" in shown.output and shown.exit_code == 1
    # a line repeated is one record, said, as score counts it; a changed repeat the difference
    repeated = tmp_path / "repeated.jsonl"
    repeated.write_text("\n".join([*rows, rows[0]]) + "\n", encoding="utf-8")
    verified = _run("mtbench", "verify", "--bench", "jfbench", str(repeated)).stdout
    assert "reproduced exactly (8 lines; " in verified
    assert "1 identical duplicate line(s) counted once)" in verified
    edited.write_text("\n".join([*rows, json.dumps(first)]) + "\n", encoding="utf-8")
    shown = CliRunner().invoke(app, ["mtbench", "verify", "--bench", "jfbench", str(edited)])
    assert f"{edited}:9: a second, different record for prompt_index 0 (first at line 1)" in (
        shown.output
    )
    assert shown.exit_code == 1

    # a file of the user's where a result file goes is never replaced (nor a call made)
    results.unlink()
    results.write_text("mine\n", encoding="utf-8")
    manifest_path(results).unlink()
    silent = _script(tmp_path / "silent.jsonl", [{"prompt": "never asked", "reply": "True"}])
    refused = CliRunner().invoke(app, ["mtbench", "judge", "--bench", "jfbench", "-j", silent,
                                       "-a", str(answers), "--limit", str(LIMIT),
                                       "--results-dir", str(tmp_path / "results")])  # fmt: skip
    assert refused.exit_code == 1 and "not a JFBench result file hyoka wrote" in refused.output
    assert (
        "note: " in refused.output and "upstream's default judge is gpt-oss-120b" in refused.output
    )
    assert results.read_text(encoding="utf-8") == "mine\n"


def test_judge_refuses_what_jfbench_does_not_take(tmp_path: Path) -> None:
    """Pairwise judging, a baseline or a variant mean nothing to JFBench: one error naming
    them, before any file is read."""
    refused = CliRunner().invoke(app, [
        "mtbench", "judge", "--bench", "jfbench", "-j", "scripted/x.jsonl", "-a",
        str(tmp_path / "none.jsonl"), "--mode", "pairwise", "--baseline", "b",
    ])  # fmt: skip
    assert refused.exit_code == 1
    assert "--bench jfbench does not take --baseline, --mode" in refused.output


def test_an_empty_response_fails_englishstyle_without_a_call(data: Path, tmp_path: Path) -> None:
    built = _built(data)
    position, entry = next(
        (p, e)
        for p, e in built.entries.items()
        if e.constraint_types == ("EnglishStyleConstraint",)
    )
    # answers no request this test makes: a call would be an error naming the script
    judge = _script(tmp_path / "none.jsonl", [{"prompt": "never asked", "reply": "True"}])
    plan = plan_judged(
        "m", [Response(position, entry, "")], built.prompts.documents, built.source,
        judge_settings(judge), tmp_path / "log.jsonl", data=built.data,
    )  # fmt: skip
    (task,) = plan.tasks
    assert task.rules == {"answer": EMPTY_RESPONSE}

    async def judged() -> Judged[JudgmentRecord]:
        async with connect(judge) as client:
            return await judge_plan(client, plan)

    done = asyncio.run(judged())
    (line,) = done.lines
    assert (line.score, line.replies, done.report.ruled) == (0, (), 1)


def _page_text(site: Path, target: str) -> str:
    text = (site / target).read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text))


def test_m_ifeval_ja_report_page_shows_the_leaderboard(tmp_path: Path) -> None:
    published = SHARED_DATA / "m-ifeval-ja" / "data" / f"{RESPONSES}{CLAUDE}.jsonl"
    board = _run("mtbench", "leaderboard", "--bench", "m-ifeval-ja", "--data-dir",
                 str(SHARED_DATA), "--judgments", str(published), "--format", "json",
                 "--resamples", "50")  # fmt: skip
    recorded = json.loads(board.stdout)
    path = tmp_path / "m-ifeval-ja.json"
    path.write_text(board.stdout, encoding="utf-8")
    site = tmp_path / "site"
    _run("report", str(path), "-o", str(site), "--no-public")
    assert 'href="rules/board1.html"' in (site / "index.html").read_text(encoding="utf-8")
    shown = _page_text(site, "rules/board1.html")
    first = recorded["models"][0]
    # upstream's published claude-3-5-sonnet responses: 124 of 172 prompts strictly followed
    assert first["model"] == CLAUDE
    assert first["strict"]["prompt_level"]["followed"] == 124
    strict = first["strict"]["prompt_level"]
    assert f"{first['model']} 72.1 [{100 * strict['low']:.1f}, {100 * strict['high']:.1f}]" in shown
    assert "ja:detectable_format" in shown and "Per instruction group" in shown
    signature = Signature.from_json(recorded["signature"])
    assert signature is not None and signature.line in shown


@pytest.mark.slow
def test_generate_judge_rank_report_on_the_embedded_model(
    data: Path, tmp_path: Path, llama_base_url: str
) -> None:
    answers = tmp_path / "answers" / "smollm2.jsonl"
    _run("mtbench", "generate", "--bench", "jfbench", "-m", "openai/smollm2", "--base-url",
         llama_base_url, "--limit", str(LIMIT), "--max-tokens", "8",
         "--output", str(answers))  # fmt: skip
    done = _judge(tmp_path, _judge_script(tmp_path), answers)
    (output,) = done["outputs"]
    records = _records(Path(output["results"]))
    assert records[5]["results"] == {"AmericanEnglishStyleConstraint": True}
    assert records[7]["results"] == {"NoTypoStyleConstraint": False}

    board = _run("mtbench", "leaderboard", "--bench", "jfbench", "--judgments",
                 output["results"], "--format", "json")  # fmt: skip
    summary = json.loads(board.stdout)
    (row,) = summary["groups"]
    evaluated = [r for r in records.values() if r["results"] is not None]
    assert (row["model"], row["generated"], row["evaluated"]) == ("smollm2", LIMIT, len(evaluated))
    assert row["success"] == sum(all(r["results"].values()) for r in evaluated)
    assert summary["constraint_groups"]["smollm2"]["Style"] == {
        "satisfied": 1, "total": 2, "share": 0.5,
    }  # fmt: skip
    path = tmp_path / "jfbench.json"
    path.write_text(board.stdout, encoding="utf-8")
    site = tmp_path / "site"
    _run("report", str(path), "-o", str(site), "--no-public")
    shown = _page_text(site, "rules/board1.html")
    assert "smollm2 ifbench 1" in shown and "Per constraint group" in shown
    assert "kind:jfbench-judged" in shown  # how the verdicts were made, named
    assert "(dry run: replies read from a script" in shown


@pytest.mark.slow
def test_m_ifeval_ja_generate_score_report_on_the_embedded_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, llama_base_url: str
) -> None:
    """M-IFEval-Ja's three first prompts answered by the embedded model, scored by its rules
    (``hyoka ifeval score --json``: the leaderboard takes whole files only) and shown."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    answers = tmp_path / "smollm2.jsonl"
    _run("mtbench", "generate", "--bench", "m-ifeval-ja", "-m", "openai/smollm2",
         "--base-url", llama_base_url, "--limit", "3", "--max-tokens", "16",
         "--output", str(answers))  # fmt: skip
    scored = _run("ifeval", "score", str(answers), "--limit", "3", "--json").stdout
    (result,) = json.loads(scored)["results"]
    path = tmp_path / "scored.json"
    path.write_text(scored, encoding="utf-8")
    site = tmp_path / "site"
    _run("report", str(path), "-o", str(site), "--no-public")
    shown = _page_text(site, "rules/board1.html")
    strict = result["strict"]["prompt_level"]
    assert f"smollm2.jsonl {100 * strict['accuracy']:.1f}" in shown
    assert strict["total"] == 3 and "Per instruction group" in shown


def _reworded(tmp_path: Path) -> Path:
    """Another stand-in: the same prompts, the prompt's wording edited (a source checkout
    changed after the answers were made)."""
    other = jfbench_data(tmp_path / "other")
    wording = other / "jfbench" / "src" / "jfbench" / "prompts" / "ifbench.py"
    text = wording.read_text(encoding="utf-8")
    wording.write_text(text.replace("(stand-in) follow", "(edited) follow"), encoding="utf-8")
    return other


def test_answers_are_judged_and_continued_only_in_the_words_they_were_made_from(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answers' manifest and signature record the build's ``data`` (prompts and source
    digests); judging them, or continuing them, with a source that words the prompts
    otherwise is refused in one line naming both, before any judge call."""
    made = _built(data).data
    answers = tmp_path / "answers" / "m.jsonl"
    with OpenAIServer() as server:
        server.reply_to_all = "Hello there."
        _run("mtbench", "generate", "--bench", "jfbench", "-m", "openai/m", "--limit", "2",
             "--base-url", server.base_url, "--template", "chat",
             "--output", str(answers))  # fmt: skip
        manifest = read_manifest(answers)
        assert manifest is not None and manifest.identity["data"] == made
        signature = Signature.from_json(manifest.signature)
        assert signature is not None and signature.get("data") == made
        other = _reworded(tmp_path)
        monkeypatch.setenv("HYOKA_DATA_DIR", str(other))
        now = _built(other).data
        assert now != made
        silent = _script(tmp_path / "silent.jsonl", [{"prompt": "never asked", "reply": "True"}])
        refused = CliRunner().invoke(app, [
            "mtbench", "judge", "--bench", "jfbench", "-j", silent, "-a", str(answers),
            "--limit", "2", "--results-dir", str(tmp_path / "results"),
        ])  # fmt: skip
        assert refused.exit_code == 1
        assert (
            f"error: {answers}: answers to questions worded as {made} (its manifest), not "
            f"as {now} here" in refused.stderr
        )
        assert not (tmp_path / "results").exists()
        resumed = CliRunner().invoke(app, [
            "mtbench", "generate", "--bench", "jfbench", "-m", "openai/m", "--limit", "3",
            "--base-url", server.base_url, "--template", "chat", "--output", str(answers),
        ])  # fmt: skip
        assert resumed.exit_code == 1
        assert f'data: "{made}" vs "{now}", file vs this run' in resumed.output
        assert len(server.received) == 2
    # a file that records no wording (made before answers recorded it) is read with a warning
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data))
    manifest.identity.pop("data")
    manifest_path(answers).write_text(manifest.text(), encoding="utf-8")
    judged = _run("mtbench", "judge", "--bench", "jfbench", "-j", silent, "-a", str(answers),
                  "--limit", "2", "--results-dir", str(tmp_path / "results"))  # fmt: skip
    assert f"warning: {answers}: does not record the words its questions were asked in" in (
        judged.stderr
    )
    assert f"taken as {made}" in judged.stderr


def test_a_source_without_a_rules_word_list_stops_the_run_before_any_judge_call(
    data: Path, tmp_path: Path
) -> None:
    """Entry 10 of the build is ``PronounsCountIfbenchConstraint``, whose pronouns are a
    list upstream's source assigns; the stand-in assigns none, so the rule cannot be
    decided: one line naming the class and the list, before the judged entries 5 and 7
    cost a call or a log line."""
    answers = tmp_path / "answers" / "m.jsonl"
    with OpenAIServer() as server:
        server.reply_to_all = "Hello there."
        _run("mtbench", "generate", "--bench", "jfbench", "-m", "openai/m", "--limit", "11",
             "--base-url", server.base_url, "--template", "chat",
             "--output", str(answers))  # fmt: skip
    silent = _script(tmp_path / "silent.jsonl", [{"prompt": "never asked", "reply": "True"}])
    refused = CliRunner().invoke(app, [
        "mtbench", "judge", "--bench", "jfbench", "-j", silent, "--judge-name", "scripted",
        "-a", str(answers), "--limit", "11", "--results-dir", str(tmp_path / "results"),
    ])  # fmt: skip
    assert refused.exit_code == 1, refused.output
    source = _built(data).source
    assert refused.stderr.splitlines()[-1] == (
        f"error: {source.root}: constraint PronounsCountIfbenchConstraint reads its list "
        f"_pronouns from upstream's source; this one (digest {source.digest[:12]}) assigns "
        "none in its __init__"
    )
    assert not (tmp_path / "results").exists()  # no judgment log, no result file


def test_report_names_the_leaderboards_it_takes_when_a_file_is_none(tmp_path: Path) -> None:
    """An empty (or hand-edited) leaderboard JSON is refused in one line that names the
    JFBench and M-IFEval-Ja leaderboards among what ``hyoka report`` takes."""
    path = tmp_path / "jfbench.json"
    path.write_text('{"bench": "JFBench"}\n', encoding="utf-8")
    refused = CliRunner().invoke(app, ["report", str(path), "-o", str(tmp_path / "site")])
    assert refused.exit_code == 1
    assert (
        "a JFBench or M-IFEval-Ja leaderboard (`hyoka mtbench leaderboard --format "
        "json`, `hyoka ifeval score --json`)" in refused.stderr
    )


def test_the_judges_reply_is_read_as_upstream_reads_it_and_a_refused_call_fails_one(
    data: Path, tmp_path: Path
) -> None:
    """Upstream reads the judge's ``message.content`` as it is: ``<think>hmm</think>True``
    does not start with ``True``, so it fails (signed ``thinking:keep``). A call the server
    refuses (HTTP 400) fails its constraint, as upstream's eval.py records it, and the run
    goes on to its result file, saying so in a note."""
    answers = tmp_path / "answers" / "m.jsonl"
    with OpenAIServer() as server:
        server.reply_to_all = "Hello there."
        _run("mtbench", "generate", "--bench", "jfbench", "-m", "openai/m", "--limit",
             str(LIMIT), "--base-url", server.base_url, "--template", "chat",
             "--output", str(answers))  # fmt: skip
    with OpenAIServer() as server:
        server.reply_to_all, server.thinking, server.thinking_apart = "True", "hmm", False
        server.script(Reply(400, {"error": {"message": "prompt too long", "type": "x"}}))
        done = _run("mtbench", "judge", "--bench", "jfbench", "-j", "openai/judge",
                    "--base-url", server.base_url, "-a", str(answers), "--limit", str(LIMIT),
                    "--results-dir", str(tmp_path / "results"), "--json")  # fmt: skip
    assert "note: 1 judged constraint(s) recorded false because a judge call failed" in (
        done.stderr
    )
    assert "prompt too long" in done.stderr
    shown = json.loads(done.stdout)
    (output,) = shown["outputs"]
    records = _records(Path(output["results"]))
    assert records[5]["results"] == {"AmericanEnglishStyleConstraint": False}
    assert records[7]["results"] == {"NoTypoStyleConstraint": False}
    signature = Signature.from_json(shown["signature"])
    assert signature is not None
    assert (signature.get("thinking"), signature.get("aggregate")) == ("keep", "majority")
    table = _run("mtbench", "leaderboard", "--bench", "jfbench", "--judgments",
                 output["results"]).stdout  # fmt: skip
    assert f"{output['results']}: verdicts: judged by openai/judge: " in table
    assert "dry run" not in table
