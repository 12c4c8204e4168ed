"""A judge named by an alias that moves (``gpt-4o``) is said once per run, and each judgment
keeps the snapshot the provider said served it (issue 19).

The provider is a real OpenAI-compatible server on 127.0.0.1 (``wire_servers.OpenAIServer``)
that answers ``gpt-4o`` as OpenAI does, naming the dated snapshot in the reply's ``model``;
the replaying judge server of the published-judgment tests names none, or the alias.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.providers import alias_note, moving_alias
from replay_judge_server import ReplayJudge
from wire_servers import (
    AnthropicServer,
    GeminiServer,
    OpenAIServer,
    Reply,
    anthropic_message,
    gemini_candidate,
    gemini_response,
)

JMT = SHARED_DATA / "jmt-bench"
ANSWERS = JMT / "history/aed16da/model_answer/japanese-stablelm-instruct-alpha-7b.jsonl"
VICUNA = SHARED_DATA / "ja-vicuna-qa" / "model_answer"
SNAPSHOT = "gpt-4o-2024-08-06"
#: the fields of FastChat's single lines, in its order (``gen_judgment.py``)
FASTCHAT_SINGLE = ["question_id", "model", "judge", "user_prompt", "judgment", "score", "turn",
                   "tstamp"]  # fmt: skip


@pytest.fixture(autouse=True)
def _environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.mark.parametrize(
    ("spec", "moves"),
    [
        ("openai/gpt-4", True),
        ("openai/gpt-4o", True),
        ("openai/gpt-4o-mini", True),
        ("openai/gpt-3.5-turbo-16k", True),
        ("openai/o1", True),
        ("openai/chatgpt-4o-latest", True),
        ("anthropic/claude-3-5-sonnet-latest", True),
        ("google/gemini-1.5-pro-latest", True),
        ("openai/gpt-4o-2024-08-06", False),
        ("openai/gpt-4-0613", False),
        ("openai/gpt-4-1106-preview", False),
        ("openai/o3-mini-2025-01-31", False),
        ("anthropic/claude-3-5-sonnet-20241022", False),
        ("openai/Qwen/Qwen2.5-7B-Instruct", False),  # a local server's model: not OpenAI's
        ("scripted/judge.jsonl", False),
    ],
)
def test_moving_aliases_are_known_by_the_providers_naming_rule(spec: str, moves: bool) -> None:
    assert (moving_alias(spec) is not None) is moves


def _judge(tmp_path: Path, base_url: str, judge: str, limit: str = "2") -> tuple[Result, list[Any]]:
    """``hyoka mtbench judge`` of two Japanese MT-bench turns; what it printed and its lines."""
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["mtbench", "judge", "--bench", "jmt-bench", "--variant", "stability@aed16da",
         "-j", judge, "--base-url", base_url, "--judge-name", "gpt-4", "--limit", limit,
         "--layout", "upstream", "--output-dir", str(out), "-a", str(ANSWERS)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in (out / "gpt-4_single.jsonl").read_text().splitlines()]
    return result, lines


def _warnings(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("warning:")]


def test_a_moving_alias_is_said_once_and_each_line_keeps_the_served_snapshot(
    tmp_path: Path,
) -> None:
    with OpenAIServer() as server:
        server.serves = lambda _number: SNAPSHOT
        server.reply_to_all = "評価：[[7]]"
        result, lines = _judge(tmp_path, server.base_url, "openai/gpt-4o")
        asked = len(server.received)
    assert asked == 2
    (warning,) = _warnings(result)  # one line per run, not one per request
    assert "judge openai/gpt-4o is a moving alias" in warning
    assert f"the provider served {SNAPSHOT}" in warning
    assert [line["served_models"] for line in lines] == [[SNAPSHOT], [SNAPSHOT]]
    # FastChat's fields stay as they were, hyoka's one addition after them
    assert list(lines[0]) == [*FASTCHAT_SINGLE, "served_models"]
    assert [line["score"] for line in lines] == [7, 7]


def test_the_manifest_counts_the_files_calls_by_snapshot(tmp_path: Path) -> None:
    """Beside the identity, never compared: a later run on the file adds its own calls."""
    manifest = tmp_path / "out" / "gpt-4_single.jsonl.manifest.json"
    with OpenAIServer() as server:
        server.serves = lambda _number: SNAPSHOT
        server.reply_to_all = "評価：[[7]]"
        _judge(tmp_path, server.base_url, "openai/gpt-4o")
        assert json.loads(manifest.read_text())["notes"] == {"served_models": {SNAPSHOT: 2}}
        server.serves = lambda _number: "gpt-4o-2024-11-20"
        _judge(tmp_path, server.base_url, "openai/gpt-4o", "3")  # one question more
    notes = json.loads(manifest.read_text())["notes"]
    assert notes == {"served_models": {SNAPSHOT: 2, "gpt-4o-2024-11-20": 1}}


@pytest.mark.parametrize("provider", ["anthropic", "google"])
def test_anthropic_and_gemini_name_their_snapshot_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    """Anthropic's ``model`` and Gemini's ``modelVersion`` name what served a ``-latest``
    judge, as OpenAI's ``model`` does (each provider's own wire format)."""
    needs("anthropic" if provider == "anthropic" else "google.genai")
    key = "test-key-0123456789"
    if provider == "anthropic":
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
        judge, snapshot = "anthropic/claude-3-5-sonnet-latest", "claude-3-5-sonnet-20241022"
        server: AnthropicServer | GeminiServer = AnthropicServer(api_key=key)
        reply = Reply(200, anthropic_message("評価：[[7]]", model=snapshot))
    else:
        monkeypatch.setenv("GEMINI_API_KEY", key)
        judge, snapshot = "google/gemini-1.5-pro-latest", "gemini-1.5-pro-002"
        server = GeminiServer(api_key=key)
        reply = Reply(
            200, gemini_response([gemini_candidate("評価：[[7]]")], model_version=snapshot)
        )
    with server:
        server.script(reply, reply)
        result, lines = _judge(tmp_path, server.base_url, judge)
    (warning,) = _warnings(result)
    assert f"judge {judge} is a moving alias" in warning and snapshot in warning
    assert [line["served_models"] for line in lines] == [[snapshot], [snapshot]]


def test_an_alias_that_moves_during_the_run_shows_every_snapshot(tmp_path: Path) -> None:
    """Pairwise, four calls: the first two served by one snapshot, the last two by the next."""
    with OpenAIServer() as server:
        server.serves = lambda number: "gpt-4o-2024-05-13" if number <= 2 else SNAPSHOT
        server.reply_to_all = "理由。[[A]]"
        out = tmp_path / "out"
        result = CliRunner().invoke(
            app,
            ["mtbench", "judge", "--bench", "ja-vicuna-qa", "--mode", "pairwise",
             "-j", "openai/gpt-4o", "--base-url", server.base_url, "--concurrency", "1",
             "--limit", "2", "--baseline", "openai--text-davinci-003", "--output-dir", str(out),
             "-a", str(VICUNA / "openai--text-davinci-003" / "results.jsonl"),
             "-a", str(VICUNA / "cyberagent--calm2-7b-chat" / "results.jsonl")],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    (warning,) = _warnings(result)
    assert f"gpt-4o-2024-05-13 (2 calls), {SNAPSHOT} (2 calls)" in warning
    assert "moved during this run" in warning
    lines = [json.loads(line) for line in (out / "gpt-4o_pair.jsonl").read_text().splitlines()]
    served = [name for line in lines for name in line["served_models"]]
    assert sorted(served) == ["gpt-4o-2024-05-13", SNAPSHOT]


def test_a_dated_judge_gets_no_warning_and_lines_as_before(tmp_path: Path) -> None:
    with OpenAIServer() as server:
        server.reply_to_all = "評価：[[7]]"
        result, lines = _judge(tmp_path, server.base_url, f"openai/{SNAPSHOT}")
    assert _warnings(result) == []
    assert all("served_models" not in line for line in lines)
    manifest = json.loads((tmp_path / "out" / "gpt-4_single.jsonl.manifest.json").read_text())
    assert "notes" not in manifest


@pytest.mark.parametrize("names_model", [False, True])
def test_a_replay_that_names_no_snapshot_keeps_the_lines_as_they_were(
    tmp_path: Path, names_model: bool
) -> None:
    """The replaying judge answers without ``model``, or with the alias asked for: nothing
    is kept (no snapshot was named), and the warning says so."""
    with ReplayJudge({}, missing_reply="評価：[[7]]", names_model=names_model) as judge:
        result, lines = _judge(tmp_path, judge.base_url, "openai/gpt-4")
    assert [list(line) for line in lines] == [FASTCHAT_SINGLE] * 2
    (warning,) = _warnings(result)
    assert "judge openai/gpt-4 is a moving alias" in warning and "named no snapshot" in warning


def test_the_summary_counts_calls_by_served_snapshot(tmp_path: Path) -> None:
    """``judge single --json``: ``served_models`` beside the run's other counts."""
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"id": i, "question": f"問{i}", "answer": "答え"}, ensure_ascii=False) + "\n"
            for i in range(3)
        ),
        encoding="utf-8",
    )
    references = tmp_path / "refs.jsonl"
    references.write_text(
        "".join(json.dumps({"id": i, "reference": "答え"}) + "\n" for i in range(3)), "utf-8"
    )
    with OpenAIServer() as server:
        server.serves = lambda _number: SNAPSHOT
        server.reply_to_all = "評価：[[7]]"
        result = CliRunner().invoke(
            app,
            ["judge", "single", str(answers), "--references", str(references), "-j",
             "openai/gpt-4o", "--base-url", server.base_url, "--max-attempts", "1", "--json"],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["served_models"] == {SNAPSHOT: 3} and summary["mean"] == 7.0


def test_the_note_names_what_it_knows() -> None:
    assert alias_note(f"openai/{SNAPSHOT}", {}) is None
    assert alias_note("openai/local", {"local-a": 1}) is None  # one name: nothing moved
    several = alias_note("openai/local", {"a": 1, "b": 2})
    assert several == (
        "judge openai/local: the provider served a (1 calls), b (2 calls), so the name moved "
        "during this run; each judgment keeps its own in served_models"
    )
