"""Promise: text from outside reaches the terminal printable, and is bounded where it is kept.

A server says what model served a call and why a request failed; either may hold escape
sequences (clear the screen, set the window's title), a line break that forges hyoka's
own ``error:`` line, or a megabyte. The server here is a real OpenAI-compatible one on
127.0.0.1 (``wire_servers.OpenAIServer``) and each check runs a real ``hyoka`` command
against it, reading what the command printed and the judgments it wrote.
"""

from __future__ import annotations

import csv
import io
import json
import lzma
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, writable_run_copy
from hyoka.cli.main import app
from hyoka.printable import MESSAGE_LIMIT, NAME_LIMIT, one_line, printable
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
    for number, message in enumerate((HOSTILE, HOSTILE + "x" * 1_000_000)):
        body = {"error": {"message": message, "type": "invalid_request_error"}}
        folder = tmp_path / str(number)  # the other turn may be judged before the error
        folder.mkdir()
        with OpenAIServer() as server:
            server.script(Reply(400, body))
            result, _ = _judge(folder, server.base_url)
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


# --- tables, JSON and lines a command writes whole -----------------------------------------

#: a name that would end its Markdown row and forge one of its own, or add a cell
FORGING = "evil | forged |\n| 9.99 | row |"
#: in its cell: on one line, its bars escaped
FORGING_CELL = "evil \\| forged \\| \\| 9.99 \\| row \\|"
#: what a terminal acts on that JSON leaves as it is: DEL, a C1 control (a one-character
#: ``ESC [``), a bidirectional override, the line separator
UNESCAPED_BY_JSON = "m\x7f\x9b2J\u202eevil\u2028x"


def _with_model(source: Path, target: Path, name: str) -> Path:
    """``source``'s judgment lines, each with ``model`` set to ``name``."""
    target.write_text(
        "".join(
            json.dumps({**json.loads(line), "model": name}, ensure_ascii=False) + "\n"
            for line in source.read_text("utf-8").splitlines()
        ),
        "utf-8",
    )
    return target


def _rows_whole(text: str, cell: str) -> None:
    """Every Markdown table in ``text`` has as many cells in each row as in its header
    (a bar escaped as ``\\|`` is no cell's end), no row was forged, and ``cell`` is one."""
    tables: list[list[str]] = []
    previous = ""
    for line in text.splitlines():
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    assert tables, text
    for table in tables:
        widths = {len(re.split(r"(?<!\\)\|", line)) for line in table}
        assert len(widths) == 1, table
    assert not any(line.startswith("| 9.99") for line in text.splitlines()), text
    assert f"| {cell} |" in text or f"| {cell} (" in text, text


def _rakuda_questions() -> list[str]:
    """The ids of Rakuda's questions, in its file's order."""
    questions = (SHARED_DATA / "rakuda" / "questions.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line)["question_id"] for line in questions]


def _rakuda_judgments(tmp_path: Path, first: str) -> Path:
    """A Rakuda pair file of two models, ``first`` and ``b``, where each wins some games."""
    path = tmp_path / "rakuda_pair.jsonl"
    lines = [
        {"question_id": q, "model1_id": m1, "model2_id": m2, "winner": w,
         "judge": ["gpt-4", "pair-ja"]}
        for q, (m1, m2, w) in zip(_rakuda_questions(), [
            (first, "b", 1), ("b", first, 1), (first, "b", 3), ("b", first, 2),
            (first, "b", 2), ("b", first, 3)] * 2, strict=False)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return path


def test_a_name_with_a_line_break_or_a_bar_stays_in_its_markdown_cell(tmp_path: Path) -> None:
    """A model's or a judge's name read from a file is one cell of every Markdown table:
    a line break in it cannot end the row and forge the next, nor a ``|`` add a cell."""
    published = SHARED_DATA / "pfmt-bench-fin-ja/model_judgment/gpt-4o-mini_single/gpt-4.jsonl"
    judged = _with_model(published, tmp_path / "judged.jsonl", FORGING)
    board = CliRunner().invoke(
        app, ["mtbench", "leaderboard", "--judgments", str(judged), "--format", "md"]
    )
    assert board.exit_code == 0, board.output
    _rows_whole(board.stdout, FORGING_CELL)

    rakuda = _rakuda_judgments(tmp_path, FORGING)
    ranked = CliRunner().invoke(
        app, ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(rakuda),
              "--format", "md", "--rounds", "5"],
    )  # fmt: skip
    assert ranked.exit_code == 0, ranked.output
    _rows_whole(ranked.stdout, FORGING_CELL)

    scores = tmp_path / "grades.jsonl"
    scores.write_text(
        "".join(
            json.dumps({"suite": "yuzuai__rakuda-questions", "model": f"m{m}", "item": str(i),
                        "judge": judge, "score": 1 + (i * (m + k)) % 10}) + "\n"
            for k, judge in enumerate(("plain", FORGING)) for m in range(3) for i in range(6)
        ),
        "utf-8",
    )  # fmt: skip
    meta = CliRunner().invoke(
        app, ["judge", "meta", "--scores", str(scores), "--resamples", "20", "-f", "md"]
    )
    assert meta.exit_code == 0, meta.output
    _rows_whole(meta.stdout, FORGING_CELL)


def _same_value_printable_json(stdout: str) -> Any:
    """What ``stdout`` holds as JSON, checked to hold nothing a terminal acts on: each
    such character is written as its ``\\u`` escape."""
    assert re.search("[\x7f-\x9f\u2028\u2029\u202a-\u202e]", stdout) is None, repr(stdout)
    _assert_shown_safely(stdout)
    return json.loads(stdout)


def test_json_printed_escapes_what_a_terminal_acts_on_and_keeps_the_value(
    tmp_path: Path,
) -> None:
    """JSON escapes the C0 controls but writes DEL, the C1 controls, the bidirectional
    overrides and U+2028 as they are: printed, each is its ``\\u`` escape, so the terminal
    shows them and the JSON decodes to the very same names (Japanese stays readable)."""
    name = UNESCAPED_BY_JSON + "日本語"
    published = SHARED_DATA / "pfmt-bench-fin-ja/model_judgment/gpt-4o-mini_single/gpt-4.jsonl"
    judged = _with_model(published, tmp_path / "judged.jsonl", name)
    board = CliRunner().invoke(
        app, ["mtbench", "leaderboard", "--judgments", str(judged), "--format", "json"]
    )
    assert board.exit_code == 0, board.output
    assert "\\u009b" in board.stdout and "日本語" in board.stdout
    rows = _same_value_printable_json(board.stdout)
    assert [row["model"] for row in rows] == [name]

    rakuda = _rakuda_judgments(tmp_path, name)
    ranked = CliRunner().invoke(
        app, ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(rakuda),
              "--format", "json", "--rounds", "5"],
    )  # fmt: skip
    assert ranked.exit_code == 0, ranked.output
    shown = _same_value_printable_json(ranked.stdout)
    assert {row["model_id"] for row in shown["ranking"]} == {name, "b"}

    rater = "r\x7f\x9b2J\u202e1"  # a label file's line ends at U+2028 (str.splitlines)
    labels = tmp_path / "human.csv"
    labels.write_text(
        "item,rater,label\n" + "".join(f"i{i},{who},{label}\n"
                                       for who, row in ((rater, "AABCA"), ("r2", "ABBCA"))
                                       for i, label in enumerate(row)),
        "utf-8",
    )  # fmt: skip
    auto = tmp_path / "auto.jsonl"
    auto.write_text("".join(json.dumps({"item": f"i{i}", "verdict": v}) + "\n"
                            for i, v in enumerate("AABCB")), "utf-8")  # fmt: skip
    agreement = CliRunner().invoke(
        app, ["judge", "agreement", "--human", str(labels), "--auto", str(auto),
              "--resamples", "20", "--json"],
    )  # fmt: skip
    assert agreement.exit_code == 0, agreement.output
    assert rater in _same_value_printable_json(agreement.stdout)["raters"]


def test_a_file_name_in_a_line_is_never_read_as_markup(tmp_path: Path) -> None:
    """The lines that name a file a command wrote (or read) show its name as written:
    ``[bold]`` in it is no style, ``:smile:`` no emoji."""
    published = SHARED_DATA / "pfmt-bench-fin-ja/model_judgment/gpt-4o-mini_single/gpt-4.jsonl"
    output = tmp_path / "board[bold]:smile:.md"
    board = CliRunner().invoke(
        app, ["mtbench", "leaderboard", "--judgments", str(published), "--format", "md",
              "--output", str(output)],
    )  # fmt: skip
    assert board.exit_code == 0, board.output
    assert output.is_file()
    assert f"wrote {output}" in board.stderr.replace("\n", "")

    answers = tmp_path / "x[bold]y:smile:.jsonl"
    answers.write_bytes(ANSWERS.read_bytes())
    with OpenAIServer() as server:
        server.reply_to_all = "評価：[[7]]"
        judged = CliRunner().invoke(
            app,
            ["mtbench", "judge", "--bench", "jmt-bench", "--variant", "stability@aed16da",
             "-j", "openai/gpt-4-0613", "--base-url", server.base_url, "--limit", "1",
             "--output-dir", str(tmp_path / "out"), "-a", str(answers)],
        )  # fmt: skip
    assert judged.exit_code == 0, judged.output
    (line,) = [line for line in judged.stderr.splitlines() if " -> " in line]
    assert line.startswith(f"{answers} -> "), line


def test_printable_json_is_the_same_value_and_a_markdown_cell_one_cell() -> None:
    from hyoka.printable import markdown_cell, printable_json

    value = {"名前": ["\x7f\x9b\u202e\u2028\u2066x\ud800", "日本語\t\n\x1b"], "n": 1}
    for indent in (None, 2):
        text = json.dumps(value, ensure_ascii=False, indent=indent)
        shown = printable_json(text)
        assert json.loads(shown) == value
        assert _ACTING.search(shown) is None and "日本語" in shown
        assert printable_json(shown) == shown
    assert markdown_cell("a|b\\\nc\u2028d") == "a\\|b\\\\ c d"


# --- a name inside a line of text ----------------------------------------------------------

#: a folder's or a model's name that ends its line and poses as hyoka's own error line
LINE_BREAKING = "o\x1b[31mrg\nerror: forged"


def test_a_folder_name_with_a_line_break_is_one_line_of_pfgen_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index_cache_dir: Path
) -> None:
    """``pfgen verify`` names each run folder in its verdict: a folder named with a line
    break is shown on that one line, its break escaped, not as a forged ``error:`` line."""
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(index_cache_dir))
    run = writable_run_copy("openai/chatgpt-o1/9a61e92", tmp_path / "res" / LINE_BREAKING)
    result = CliRunner().invoke(app, ["pfgen", "verify", str(tmp_path / "res")])
    assert result.exit_code == 0, result.output
    _assert_shown_safely(result.output)
    assert f"{printable(str(run))}: reproduced exactly" in result.stdout


def test_a_name_with_a_line_break_is_one_line_of_every_note(tmp_path: Path) -> None:
    """A model's name in a leaderboard's note (an incomplete row), Rakuda's line saying
    who never loses, and the rankings' ``Only in the ranking`` stay one line each."""
    shown = printable(one_line(LINE_BREAKING))  # a document's line: each break a space
    published = SHARED_DATA / "pfmt-bench-fin-ja/model_judgment/gpt-4o-mini_single/gpt-4.jsonl"
    partial = published.read_text("utf-8").splitlines()[:-6]
    source = tmp_path / "partial.jsonl"
    source.write_text("".join(line + "\n" for line in partial), "utf-8")
    judged = _with_model(source, tmp_path / "judged.jsonl", LINE_BREAKING)
    for fmt in ("md", "csv"):
        board = CliRunner().invoke(
            app, ["mtbench", "leaderboard", "--judgments", str(judged), "--format", fmt]
        )
        assert board.exit_code == 0, board.output
        _assert_shown_safely(board.output)
        assert f"{shown}: incomplete, " in board.stdout

    winner = tmp_path / "rakuda_pair.jsonl"
    games = [(LINE_BREAKING, "b", 1), ("b", LINE_BREAKING, 2)] * 3 + [("b", "c", 1), ("c", "b", 1)]
    winner.write_text(
        "".join(json.dumps({"question_id": question, "model1_id": m1, "model2_id": m2,
                            "winner": w, "judge": ["j", "pair-ja"]}) + "\n"
                for question, (m1, m2, w) in zip(_rakuda_questions(), games, strict=False)),
        "utf-8",
    )  # fmt: skip
    for fmt in ("md", "csv"):
        ranked = CliRunner().invoke(
            app, ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(winner),
                  "--format", fmt, "--rounds", "3"],
        )  # fmt: skip
        assert ranked.exit_code == 0, ranked.output
        _assert_shown_safely(ranked.output)
        assert f"ratings n/a: no finite maximum ({shown} never loses)" in ranked.stdout

    three = tmp_path / "three"
    three.mkdir()
    for name in ("gpt-4", "claude-2.1", "gpt-35-turbo"):
        (three / f"{name}.jsonl").write_bytes((published.parent / f"{name}.jsonl").read_bytes())
    _with_model(published.parent / "claude-3-haiku-20240307.jsonl", three / "x.jsonl",
                LINE_BREAKING)  # fmt: skip
    reference = tmp_path / "reference.csv"
    reference.write_text("model,score\ngpt-4,8\nclaude-2.1,7\nb,5\ngpt-35-turbo,4\n", "utf-8")
    compared = CliRunner().invoke(
        app, ["judge", "rankings", "--judgments", str(three), "--reference", str(reference),
              "--resamples", "20"],
    )  # fmt: skip
    assert compared.exit_code == 0, compared.output
    _assert_shown_safely(compared.output)
    assert f"Only in the ranking: {shown}\n" in compared.stdout


#: a model's name whose CSV field, printed as it is, would end its record and forge a line
CSV_BREAKING = "evil\r\nerror: forged"


def test_a_csv_field_with_a_line_break_is_shown_escaped_and_written_whole(
    tmp_path: Path,
) -> None:
    """``--format csv`` keeps a name whole in its quoted field: printed, the field's line
    breaks are escaped (as Markdown and JSON show them); written with ``--output`` the file
    holds the name as it is, which a CSV reader reads back."""
    run = writable_run_copy("openai/chatgpt-o1/9a61e92", tmp_path / "res")
    for name in ("config.json", "result.json"):
        data = json.loads((run / name).read_text("utf-8"))
        config = data["config"] if name == "result.json" else data
        config["model"] = CSV_BREAKING
        (run / name).write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    published = SHARED_DATA / "pfmt-bench-fin-ja/model_judgment/gpt-4o-mini_single/gpt-4.jsonl"
    judged = _with_model(published, tmp_path / "judged.jsonl", CSV_BREAKING)
    commands = {
        "pfgen": ["pfgen", "leaderboard", str(tmp_path / "res"), "--format", "csv"],
        "mtbench": ["mtbench", "leaderboard", "--judgments", str(judged), "--format", "csv"],
    }
    for what, args in commands.items():
        shown = CliRunner().invoke(app, args)
        assert shown.exit_code == 0, shown.output
        _assert_shown_safely(shown.output)
        assert '"evil\\r\\nerror: forged",' in shown.stdout, shown.stdout
        written = tmp_path / f"{what}.csv"
        result = CliRunner().invoke(app, [*args, "--output", str(written)])
        assert result.exit_code == 0, result.output
        text = written.read_bytes().decode("utf-8")
        assert '"evil\r\nerror: forged",' in text
        records = list(csv.reader(io.StringIO(text, newline="")))
        named = [cell for row in records for cell in row if "evil" in cell]
        assert named[:1] == [CSV_BREAKING]


def test_csv_text_quotes_whatever_a_reader_would_split_and_is_shown_one_field_a_line() -> None:
    """A bare carriage return (which ``csv.writer`` leaves unquoted under a ``\\n`` line
    end) and a leading ``#`` (a comment to many readers) are quoted too: read back, each
    record is the one written; shown, only the records' own line breaks remain."""
    from hyoka.printable import csv_text, printable_csv

    rows: list[list[object]] = [
        ["model", "score"],
        ["a\rb", 1.5],
        ["#c", None],
        ['d "e",\nf', True],
    ]
    text = csv_text(rows, ['a note, "quoted', "two\nlines"])
    assert text == (
        'model,score\n"a\rb",1.5\n"#c",\n"d ""e"",\nf",True\n# a note, "quoted\n# two lines\n'
    )
    read = list(csv.reader(io.StringIO(text, newline="")))
    assert read[:4] == [["model", "score"], ["a\rb", "1.5"], ["#c", ""], ['d "e",\nf', "True"]]
    assert printable_csv(text).splitlines() == [
        "model,score", '"a\\rb",1.5', '"#c",', '"d ""e"",\\nf",True', '# a note, "quoted',
        "# two lines",
    ]  # fmt: skip


# --- a server's reply that no JSON reader can take, or whose counts are no counts ----------

#: an array nested deeper than Python's JSON decoder goes (its recursion limit)
TOO_DEEP = b"[" * 1_100 + b"]" * 1_100
KEY = "test-key-0123456789"


def _counted(body: dict[str, Any], counts: dict[str, str]) -> bytes:
    """``body`` as JSON with each of ``counts``' fields set to the raw JSON text given
    (``1e400``, which Python reads as infinity; ``NaN``, which it reads at all)."""
    text = json.dumps(body)
    for name, raw in counts.items():
        text, found = re.subn(f'"{name}": -?[0-9]+', f'"{name}": {raw}', text)
        assert found == 1, (name, text)
    return text.encode()


def _openai(counts: dict[str, str]) -> bytes:
    return _counted(
        {"id": "x", "object": "chat.completion", "created": 1, "model": "gpt-4-0613",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": "[[5]]"},
                      "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
        counts,
    )  # fmt: skip


def _anthropic(counts: dict[str, str]) -> bytes:
    from wire_servers import anthropic_message

    return _counted(anthropic_message("[[5]]"), counts)


def _gemini(counts: dict[str, str]) -> bytes:
    from wire_servers import gemini_candidate, gemini_response

    return _counted(gemini_response([gemini_candidate("[[5]]")]), counts)


MALFORMED = [
    ("openai", TOO_DEEP, "the server sent malformed JSON (nested too deeply to read)"),
    ("openai", _openai({"prompt_tokens": "1e400", "completion_tokens": "NaN"}),
     "usage.prompt_tokens: inf is no count of tokens"),
    ("openai", _openai({"prompt_tokens": "-5"}), "usage.prompt_tokens: -5 is no count of tokens"),
    ("openai", _openai({"completion_tokens": "2.5"}),
     "usage.completion_tokens: 2.5 is no count of tokens"),
    ("anthropic", TOO_DEEP, "the response body is not JSON (nested too deeply to read)"),
    ("anthropic", _anthropic({"input_tokens": "1e400", "output_tokens": "NaN"}), "garbled body"),
    ("anthropic", _anthropic({"input_tokens": "-5"}), "garbled body"),
    ("google", TOO_DEEP, "the response body is not JSON (nested too deeply to read)"),
    ("google", _gemini({"promptTokenCount": "1e400"}),
     "(usage_metadata.promptTokenCount: Input should be a finite number)"),
    ("google", _gemini({"promptTokenCount": "-5"}), "garbled body"),
]  # fmt: skip


@pytest.mark.parametrize(("provider", "body", "said"), MALFORMED)
def test_a_reply_nested_too_deeply_or_counting_no_tokens_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str, body: bytes, said: str
) -> None:
    """A 200 reply nested deeper than Python's JSON decoder goes (a RecursionError), or
    whose usage holds no count of tokens (``1e400`` read as infinity: an OverflowError
    in ``int``; ``NaN``, ``-5``, ``2.5``), is a malformed reply like any other: retried,
    then the one ``error:`` line naming the judge, never a traceback, never counted.
    The client's waits between retries are made instant here; every attempt is real."""
    import functools

    import hyoka.providers.client as client
    from wire_servers import AnthropicServer, GeminiServer

    monkeypatch.setattr(
        client, "RetryPolicy", functools.partial(client.RetryPolicy, base_delay=0, max_delay=0)
    )
    servers = {"openai": OpenAIServer, "anthropic": AnthropicServer, "google": GeminiServer}
    judges = {"openai": "openai/gpt-4-0613", "anthropic": "anthropic/claude-3-5-sonnet-20241022",
              "google": "google/gemini-1.5-pro-002"}  # fmt: skip
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with servers[provider](api_key=KEY if provider != "openai" else "") as server:
        server.script(*[Reply(200, body)] * client.RetryPolicy().max_attempts)
        result = CliRunner().invoke(
            app,
            ["mtbench", "judge", "--bench", "jmt-bench", "--variant", "stability@aed16da",
             "-j", judges[provider], "--base-url", server.base_url, "--limit", "1",
             "--layout", "upstream", "--output-dir", str(tmp_path / "out"), "-a", str(ANSWERS)],
        )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, (RecursionError, OverflowError, ValueError))
    (error,) = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert error.startswith(f"error: {judges[provider]}: ") and said in error, error
    assert error.endswith("(gave up after 6 attempts)"), error


def test_a_stored_reply_counting_no_tokens_is_asked_again(tmp_path: Path) -> None:
    """The response cache reads a stored reply as a server's: one whose usage holds no
    count of tokens (here ``-987654321``, written into the database) is a miss, and the judge
    is asked again, never counted as having cost those tokens (a number no temporary folder's
    name holds, so the check cannot pass or fail by the folder's number)."""
    import sqlite3

    def judge(out: str) -> Result:
        return CliRunner().invoke(
            app,
            ["mtbench", "judge", "--bench", "jmt-bench", "--variant", "stability@aed16da",
             "-j", "openai/gpt-4-0613", "--base-url", server.base_url, "--limit", "1",
             "--layout", "upstream", "--output-dir", str(tmp_path / out), "-a", str(ANSWERS)],
        )  # fmt: skip

    with OpenAIServer() as server:
        server.reply_to_all = "評価：[[7]]"
        first = judge("first")
        assert first.exit_code == 0, first.output
        asked = server.served
        with sqlite3.connect(tmp_path / "cache" / "responses.sqlite3") as db:
            stored = db.execute("SELECT key, response FROM responses").fetchall()
            assert stored
            for key, response in stored:
                changed = re.sub(r'"prompt_tokens":\d+', '"prompt_tokens":-987654321', response)
                assert changed != response
                db.execute("UPDATE responses SET response = ? WHERE key = ?", (changed, key))
        again = judge("again")
        assert again.exit_code == 0, again.output
        assert server.served == 2 * asked  # every stored reply was asked again
    assert "987654321" not in again.output
    written = (tmp_path / "again" / "gpt-4-0613_single.jsonl").read_text("utf-8").splitlines()
    assert [json.loads(line)["score"] for line in written] == [7]
