"""Promise: text from outside reaches the terminal printable, and is bounded where it is kept.

A server says what model served a call and why a request failed; either may hold escape
sequences (clear the screen, set the window's title), a line break that forges hyoka's
own ``error:`` line, or a megabyte. The server here is a real OpenAI-compatible one on
127.0.0.1 (``wire_servers.OpenAIServer``) and each check runs a real ``hyoka`` command
against it, reading what the command printed and the judgments it wrote.
"""

from __future__ import annotations

import json
import lzma
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.printable import MESSAGE_LIMIT, NAME_LIMIT, printable
from wire_servers import OpenAIServer, Reply

JMT = SHARED_DATA / "jmt-bench"
ANSWERS = JMT / "history/aed16da/model_answer/japanese-stablelm-instruct-alpha-7b.jsonl"
#: clears the screen, sets the window's title (ended by BEL), then poses as an error line
HOSTILE = "\x1b[2J\x1b]0;pwned\x07\nerror: forged"
#: what a terminal would act on: C0 controls (tab and newline aside), DEL, the C1 controls
_ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture(autouse=True)
def _environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _judge(tmp_path: Path, base_url: str) -> tuple[Result, list[dict[str, Any]]]:
    """``hyoka mtbench judge`` of two turns by ``openai/gpt-4o`` (a moving alias, so the
    served snapshot is named in a warning); what it printed and the lines it wrote."""
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["mtbench", "judge", "--bench", "jmt-bench", "--variant", "stability@aed16da",
         "-j", "openai/gpt-4o", "--base-url", base_url, "--judge-name", "gpt-4", "--limit", "2",
         "--layout", "upstream", "--output-dir", str(out), "-a", str(ANSWERS)],
    )  # fmt: skip
    written = out / "gpt-4_single.jsonl"
    lines = []
    if written.exists():
        lines = [json.loads(line) for line in written.read_text().splitlines()]
    return result, lines


def _assert_shown_safely(output: str) -> None:
    assert _ACTING.search(output) is None, repr(output)
    assert not any(line.startswith("error: forged") for line in output.splitlines())


def test_a_served_model_name_with_escape_sequences_is_shown_and_kept_printable(
    tmp_path: Path,
) -> None:
    with OpenAIServer() as server:
        server.serves = lambda _number: HOSTILE
        server.reply_to_all = "評価：[[7]]"
        result, lines = _judge(tmp_path, server.base_url)
    assert result.exit_code == 0, result.output
    _assert_shown_safely(result.output)
    shown = printable(HOSTILE)
    assert shown == "\\x1b[2J\\x1b]0;pwned\\x07\\nerror: forged"
    (warning,) = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert f"the provider served {shown}, kept in each judgment" in warning
    assert [line["served_models"] for line in lines] == [[shown], [shown]]
    assert [line["score"] for line in lines] == [7, 7]


def test_a_megabyte_model_name_is_kept_and_shown_bounded(tmp_path: Path) -> None:
    name = "m" * 1_000_000
    with OpenAIServer() as server:
        server.serves = lambda _number: name
        server.reply_to_all = "評価：[[7]]"
        result, lines = _judge(tmp_path, server.base_url)
    assert result.exit_code == 0, result.output
    bounded = "m" * NAME_LIMIT + "…"
    assert [line["served_models"] for line in lines] == [[bounded], [bounded]]
    manifest = json.loads((tmp_path / "out" / "gpt-4_single.jsonl.manifest.json").read_text())
    assert manifest["notes"] == {"served_models": {bounded: 2}}
    assert len(result.output) < 2_000


def test_a_servers_error_message_cannot_act_on_the_terminal_or_forge_a_line(
    tmp_path: Path,
) -> None:
    """The error body a server sends is quoted in the one ``error:`` line, escaped; one of
    a megabyte is cut to ``MESSAGE_LIMIT`` characters."""
    for message in (HOSTILE, HOSTILE + "x" * 1_000_000):
        body = {"error": {"message": message, "type": "invalid_request_error"}}
        with OpenAIServer() as server:
            server.script(Reply(400, body))
            result, _ = _judge(tmp_path, server.base_url)
        assert result.exit_code == 1, result.output
        _assert_shown_safely(result.output)
        (error,) = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert "HTTP 400: \\x1b[2J\\x1b]0;pwned\\x07 error: forged" in error
        assert len(error) < MESSAGE_LIMIT + 200


def test_a_name_from_a_file_reaches_a_rich_table_printable(tmp_path: Path) -> None:
    """``judge agreement`` shows each label file's categories in a rich table: file
    contents, shown escaped there as in every string the console prints."""
    category = "\x1b[2J\x1b]0;pwned\x07writing"
    human = tmp_path / "human.csv"
    human.write_text(
        "item,rater,label,category\n"
        + "".join(
            f"i{i},{rater},{label},{category}\n"
            for rater, labels in (("r1", "AABCA"), ("r2", "ABBCA"))
            for i, label in enumerate(labels)
        ),
        "utf-8",
    )
    auto = tmp_path / "auto.jsonl"
    auto.write_text("".join(json.dumps({"item": f"i{i}", "verdict": v}) + "\n"
                            for i, v in enumerate("AABCB")), "utf-8")  # fmt: skip
    result = CliRunner().invoke(
        app,
        ["judge", "agreement", "--human", str(human), "--auto", str(auto), "--resamples", "50"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    _assert_shown_safely(result.output)
    assert f"│ {printable(category)} │" in result.stdout


def test_a_model_name_from_a_file_reaches_a_text_table_printable(tmp_path: Path) -> None:
    """``mtbench leaderboard --format md`` writes its table as text: a judgment file's
    ``model`` field is shown escaped there too."""
    lines = SHARED_DATA / "pfmt-bench-fin-ja/model_judgment/gpt-4o-mini_single/gpt-4.jsonl"
    judged = tmp_path / "judged.jsonl"
    name = "\x1b]0;pwned\x07\x1b[2Jgpt-4"
    judged.write_text(
        "".join(
            json.dumps({**json.loads(line), "model": name}, ensure_ascii=False) + "\n"
            for line in lines.read_text("utf-8").splitlines()
        ),
        "utf-8",
    )
    result = CliRunner().invoke(
        app, ["mtbench", "leaderboard", "--judgments", str(judged), "--format", "md"]
    )
    assert result.exit_code == 0, result.output
    _assert_shown_safely(result.output)
    assert "| \\x1b]0;pwned\\x07\\x1b[2Jgpt-4 | 8.37 |" in result.stdout


def test_an_answer_explained_is_shown_printable(tmp_path: Path) -> None:
    """``pfgen explain`` shows a model's answer character by character, coloured by its
    n-grams: each character is made printable where it is styled."""
    published = SHARED_DATA / "pfgen-bench/results/sbintuitions/sarashina2-8x70b/0a74f0a"
    first = lzma.decompress((published / "trials.jsonl.xz").read_bytes()).splitlines()[0]
    record = json.loads(first)  # an answer to Q21 (Ruby)
    record["answer"] = "\x1b[2J" + record["answer"] + "\x1b]0;pwned\x07"
    trials = tmp_path / "trials.jsonl"
    trials.write_text(json.dumps(record, ensure_ascii=False) + "\n", "utf-8")
    result = CliRunner().invoke(app, ["pfgen", "explain", str(trials), "Q21"])
    assert result.exit_code == 0, result.output
    _assert_shown_safely(result.output)
    assert "\\x1b[2JRuby" in result.output and "\\x1b]0;pwned\\x07" in result.output


def test_a_file_name_in_a_progress_bar_is_printable_and_never_markup(tmp_path: Path) -> None:
    """The judging progress bar is labelled with the answer file's name: shown escaped
    and as written, never read as rich markup (``[bold]`` was taken for a style)."""
    name = "\x1b[2Jevil[bold]"
    answers = tmp_path / f"{name}.jsonl"
    answers.write_bytes(ANSWERS.read_bytes())
    with OpenAIServer() as server:
        server.reply_to_all = "評価：[[7]]"
        result = CliRunner().invoke(
            app,
            ["mtbench", "judge", "--bench", "jmt-bench", "--variant", "stability@aed16da",
             "-j", "openai/gpt-4-0613", "--base-url", server.base_url, "--limit", "1",
             "--layout", "upstream", "--output-dir", str(tmp_path / "out"), "-a", str(answers)],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    _assert_shown_safely(result.output)
    assert "\\x1b[2Jevil[bold] ━" in result.output  # the bar's label, as written


def test_printable_escapes_what_a_terminal_obeys_and_keeps_every_script() -> None:
    text = "日本語 ok\tcafé \u202eevil\u202c \x9b31m \ud800"
    assert printable(text) == "日本語 ok\\tcafé \\u202eevil\\u202c \\x9b31m \\ud800"
    assert printable("a\tb\nc\rd", lines=True) == "a\tb\nc\\rd"
    assert printable("x" * 10, limit=4) == "xxxx…"
    once = printable(HOSTILE * 3, limit=20)
    assert len(once) == 21 and printable(once, limit=20) == once
