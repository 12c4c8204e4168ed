"""The pfmt-bench-fin-ja leaderboard against the paper's Table 1, cell by cell."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.mtbench import Bench, build_leaderboard, judgment_files, render, round_half_up
from hyoka.mtbench.radar import write_radar

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
PUBLISHED = FIN / "model_judgment" / "gpt-4o-mini_single"
ANSWERS = FIN / "model_answer"

# Seed 004 (Hirano & Imajo, pfmt-bench-fin-ja), Table 1, transcribed from the paper:
# Avg., Writ., Role., Kno., Ext., Reas., Math, Cod., Idea, Tran., Eth., Trust., ESGs.
# gpt-4o is in the table but its gpt-4o-mini judgment file is not published.
TABLE_1 = {
    "claude-3-5-sonnet-20240620": "9.07 9.38 9.38 8.93 8.93 9.35 5.52 9.57 9.63 9.62 9.65 9.47 "
    "9.45",
    "claude-3-opus-20240229": "8.70 9.23 9.18 9.45 6.78 8.97 4.35 9.72 9.45 9.52 9.25 9.30 9.22",
    "claude-3-haiku-20240307": "8.55 9.02 8.93 8.53 7.70 8.98 3.97 9.57 9.25 9.30 9.08 9.17 9.12",
    "claude-3-sonnet-20240229": "8.41 9.18 8.95 9.12 6.38 9.02 3.00 9.27 9.08 9.45 9.08 9.20 9.17",
    "gpt-4": "8.37 8.42 8.70 8.62 7.17 8.80 4.55 8.95 9.07 9.33 8.90 9.12 8.78",
    "plamo-1.0-prime-beta": "8.33 9.33 9.12 9.12 6.45 9.00 3.25 8.77 9.40 7.85 9.32 9.22 9.08",
    "claude-2.1": "8.20 8.42 8.17 8.45 8.17 8.62 4.12 8.82 8.38 9.25 8.42 8.80 8.83",
    "nvidia/nemotron-4-340b-instruct": "8.07 9.35 9.30 8.77 5.30 9.20 2.45 5.77 9.53 9.38 9.37 "
    "9.37 9.07",
    "gpt-35-turbo": "8.04 8.78 8.50 8.57 6.82 8.68 3.27 9.00 8.82 8.28 8.73 8.87 8.12",
}
HEADER = [
    "Model",
    "Avg.",
    "95% CI",  # hyoka's: the paper has no interval (the cells are checked on their own)
    "Writ.",
    "Role.",
    "Kno.",
    "Ext.",
    "Reas.",
    "Math",
    "Cod.",
    "Idea",
    "Tran.",
    "Eth.",
    "Trust.",
    "ESGs",
]


@pytest.fixture(scope="module")
def bench() -> Bench:
    return Bench.load("pfmt-fin", SHARED_DATA)


def test_every_cell_of_table_1(bench: Bench) -> None:
    board = build_leaderboard(bench, judgment_files([PUBLISHED]))
    text = render(board, "md", per_turn=False)
    rows = [line.strip("| ").split(" | ") for line in text.splitlines() if line.startswith("| ")]
    assert rows[0] == HEADER
    got = {row[0]: " ".join([row[1], *row[3:]]) for row in rows[1:]}
    assert got == TABLE_1
    # and in the paper's order (gpt-4o left out)
    assert [row[0] for row in rows[1:]] == list(TABLE_1)
    assert not board.incomplete()


def test_json_has_one_object_per_model_with_turn_tables(bench: Bench) -> None:
    board = build_leaderboard(bench, judgment_files([PUBLISHED]))
    entries = json.loads(render(board, "json"))
    assert [e["model"] for e in entries] == list(TABLE_1)
    top = entries[0]
    # full precision (Markdown shows 9.07 and 5.52): the exact mean as the nearest float
    best = board.ranked()[0]
    assert top["overall"] == float(best.overall() or 0) == 9.073611111111111
    assert top["categories"]["math"] == float(best.means()["math"] or 0) == 5.516666666666667
    assert top["headline"] == "category-mean"
    assert top["judged_turns"] == 720 and top["unrated_turns"] == 0
    # the both-turn mean of a category is the mean of its two turn means (30 turns each)
    for entry in entries:
        for category, both in entry["categories"].items():
            one, two = (
                entry["turn1"]["categories"][category],
                entry["turn2"]["categories"][category],
            )
            assert abs(both - (one + two) / 2) <= 0.01


def test_csv_has_three_tables(bench: Bench) -> None:
    board = build_leaderboard(bench, judgment_files([PUBLISHED]))
    lines = render(board, "csv").splitlines()
    assert lines[0] == "Turns," + ",".join(HEADER)
    best = "claude-3-5-sonnet-20240620"
    cells = lines[1].split(",")
    assert ",".join(cells[:3] + cells[5:]) == f"both,{best}," + TABLE_1[best].replace(" ", ",")
    assert cells[3].startswith('"[') and cells[4].endswith(']"')  # the interval, quoted
    assert sum(line.startswith("Turns,") for line in lines) == 3
    table = [line for line in lines if not line.startswith("#")]
    assert len(table) == 3 * (1 + 9)
    notes = lines[len(table) :]
    assert notes[0].startswith("# signature: hyoka:")
    assert notes[0].endswith(
        "|interval:two-level-bootstrap/0.95/resamples-2000/seed-0|headline:category-mean"
    )
    # the judge its lines name (no hyoka manifest says which model answered)
    assert notes[1].startswith("# judged by: gpt-4o-mini (the name the judgments give; ")
    assert notes[2].startswith("# 95% CI: percentile bootstrap")
    assert notes[3].startswith("# separability: ") and "of the 36 model pairs" in notes[3]
    assert notes[4] == "# Avg.: mean of the category means (upstream's make_leaderboard.py)"
    # the categories hold unequal numbers of questions: where that moves a shown digit, the
    # note says what the row's interval is of
    assert notes[5:] == [
        "# plamo-1.0-prime-beta: 95% CI: interval of the mean of question means, 8.32 (Avg. 8.33)",
        "# gpt-35-turbo: 95% CI (turn 1): interval of the mean of question means, 7.72 (Avg. 7.73)",
    ]


def test_round_half_up_is_exact() -> None:
    assert round_half_up(Fraction(8125, 1000)) == Decimal("8.13")  # round() gives 8.12
    assert round_half_up(Fraction(2, 3)) == Decimal("0.67")
    assert round_half_up(Fraction(-1, 8)) == Decimal("-0.13")
    assert round_half_up(Fraction(9)) == Decimal("9.00")


def _copy(tmp_path: Path, name: str = "gpt-4.jsonl") -> Path:
    folder = tmp_path / "judgments"
    folder.mkdir()
    shutil.copy(PUBLISHED / name, folder / name)
    return folder / name


def test_unrated_turns_are_left_out_and_zeros_count(bench: Bench, tmp_path: Path) -> None:
    path = _copy(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    # make the first writing turn unrated: the writing mean is then over 59 turns
    first = json.loads(lines[0])
    assert first["question_id"] == 0 and first["turn"] == 1
    scores = [json.loads(line)["score"] for line in lines if json.loads(line)["question_id"] < 30]
    first["score"] = -1
    lines[0] = json.dumps(first, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    board = build_leaderboard(bench, [path])
    (model,) = board.models
    expected = Fraction(sum(scores) - scores[0], len(scores) - 1)
    assert model.category_mean("writing") == expected
    assert model.unrated == 1


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: {**r, "question_id": 9999}, "question_id 9999 is not a pfmt-bench-fin-ja"),
        (lambda r: {**r, "user_prompt": "### ユーザー:\nWrite a haiku."}, "another benchmark"),
        (lambda r: {**r, "turn": 3}, r"not a SingleGradingLine record \(SingleJudgmentLine\.turn"),
        (lambda r: {**r, "score": 42}, r"score 42 is outside the pfmt-bench-fin-ja scale"),
        (lambda r: {**r, "score": -7.5}, r"score -7\.5 is outside the pfmt-bench-fin-ja scale"),
    ],
)  # fmt: skip
def test_bad_judgment_lines_name_file_and_line(
    bench: Bench, tmp_path: Path, edit: object, message: str
) -> None:
    path = _copy(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert callable(edit)
    lines[4] = json.dumps(edit(json.loads(lines[4])), ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"{path.name}:5: .*{message}"):
        build_leaderboard(bench, [path])


def test_duplicate_turns_identical_are_dropped_conflicting_are_an_error(
    bench: Bench, tmp_path: Path
) -> None:
    path = _copy(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    # the same line twice (a file concatenated or re-run): dropped with a warning, as upstream
    path.write_text("\n".join([*lines, lines[10]]) + "\n", encoding="utf-8")
    with pytest.warns(UserWarning, match="1 identical duplicate line"):
        board = build_leaderboard(bench, [path])
    assert board.models[0].judged == 720
    # the same turn with another score: which is right? an error naming both lines
    other = json.loads(lines[10])
    other["score"] = 10 - other["score"]
    path.write_text("\n".join([*lines, json.dumps(other)]) + "\n", encoding="utf-8")
    with pytest.raises(
        InputError, match=r":721: a second, different record .*\(first at line 11\)"
    ):
        build_leaderboard(bench, [path])
    # the same turn in two files
    twin = path.with_name("twin.jsonl")
    twin.write_text(lines[10] + "\n", encoding="utf-8")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(
        InputError, match=r"twin\.jsonl: gpt-4 question_id \d+ turn \d judged twice"
    ):
        build_leaderboard(bench, [path, twin])


def test_incomplete_rows_are_marked_and_ranked_last(bench: Bench, tmp_path: Path) -> None:
    """A model missing a whole category is not ranked among complete rows, in any format."""
    folder = tmp_path / "judgments"
    folder.mkdir()
    for name in ("gpt-4.jsonl", "claude-2.1.jsonl"):
        shutil.copy(PUBLISHED / name, folder / name)
    path = folder / "claude-2.1.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    # claude-2.1 without its math turns: its mean over the other categories rises
    math = {q.question_id for q in bench.questions if q.category == "math"}
    path.write_text(
        "\n".join(line for line in lines if json.loads(line)["question_id"] not in math) + "\n",
        encoding="utf-8",
    )
    board = build_leaderboard(bench, judgment_files([folder]))
    (partial,) = board.incomplete()
    gpt4 = next(m for m in board.models if m.model == "gpt-4")
    assert partial.model == "claude-2.1" and (partial.overall() or 0) > (gpt4.overall() or 0)
    assert [m.model for m in board.ranked()] == ["gpt-4", "claude-2.1"]
    rows = [r for r in render(board, "md", per_turn=False).splitlines() if r.startswith("| ")]
    assert rows[1].startswith("| gpt-4 |") and rows[2].startswith("| claude-2.1 (incomplete) |")
    text = render(board, "md", per_turn=False)
    assert "claude-2.1: incomplete, 660 of 720 turns judged" in text
    entries = json.loads(render(board, "json"))
    assert [(e["model"], e["complete"]) for e in entries] == [
        ("gpt-4", True), ("claude-2.1", False),
    ]  # fmt: skip
    csv_lines = render(board, "csv").splitlines()
    assert csv_lines[2].startswith("both,claude-2.1 (incomplete),")
    assert "# claude-2.1: incomplete, 660 of 720 turns judged" in csv_lines


def test_every_format_carries_the_signature_and_flags_rows_judged_otherwise(
    bench: Bench, tmp_path: Path
) -> None:
    folder = tmp_path / "judgments"
    folder.mkdir()
    for name in ("gpt-4.jsonl", "claude-2.1.jsonl", "gpt-35-turbo.jsonl"):
        shutil.copy(PUBLISHED / name, folder / name)
    # one model judged by another judge (the name in its lines)
    path = folder / "gpt-35-turbo.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line["judge"] = ["gpt-4o", line["judge"][1]]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    board = build_leaderboard(bench, judgment_files([folder]))
    assert board.signature is not None
    # a file without a manifest (FastChat's): what its lines say, a kind of its own
    assert board.signature.line.endswith("|kind:fastchat-single|bench:pfmt-fin|judge:gpt-4o-mini")
    md = render(board, "md", per_turn=False)
    assert f"signature: {board.signature.line}" in md
    assert "| gpt-35-turbo (differs) |" in md
    assert "gpt-35-turbo: differs: judge: gpt-4o vs gpt-4o-mini" in md
    entries = {e["model"]: e for e in json.loads(render(board, "json"))}
    assert entries["gpt-4"]["signature"]["fields"]["judge"] == "gpt-4o-mini"
    assert entries["gpt-4"]["signature_differs"] == []
    assert entries["gpt-35-turbo"]["signature_differs"] == ["judge: gpt-4o vs gpt-4o-mini"]
    interval = "|interval:two-level-bootstrap/0.95/resamples-2000/seed-0"  # how the CIs were drawn
    signed = f"# signature: {board.signature.line}{interval}|headline:category-mean"
    assert signed in render(board, "csv").splitlines()


def test_cli_formats_radar_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    needs("matplotlib")
    needs("plotly")
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    runner = CliRunner()
    png, html = tmp_path / "radar.png", tmp_path / "radar.html"
    args = ["mtbench", "leaderboard", "--format", "json", "--radar", str(png), "--radar", str(html)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[7]["model"] == "nvidia/nemotron-4-340b-instruct"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    page = html.read_text(encoding="utf-8")
    assert "plotly" in page and "claude-3-5-sonnet-20240620" in page and "ESGs" in page
    bad = runner.invoke(app, ["mtbench", "leaderboard", "--format", "xml"])
    assert bad.exit_code == 2 and "'xml' is not one of" in bad.stderr
    path = _copy(tmp_path)
    path.write_text(path.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    broken = runner.invoke(app, ["mtbench", "leaderboard", "--judgments", str(path.parent)])
    assert broken.exit_code == 1
    assert f"{path}:721: not valid JSON" in broken.stderr


def test_radar_refuses_other_suffixes(bench: Bench, tmp_path: Path) -> None:
    board = build_leaderboard(bench, judgment_files([PUBLISHED]))
    with pytest.raises(InputError, match=r"must end in \.png or \.html"):
        write_radar(board, tmp_path / "radar.svg")


def _board_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        app, ["mtbench", "leaderboard", "--no-per-turn", "--resamples", "20", *args],
        env={"HYOKA_DATA_DIR": str(SHARED_DATA), "COLUMNS": "200"},
    )  # fmt: skip
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("folder_name", ["gpt-4o-mini_single", "mine"])
def test_a_model_whose_judgment_file_is_empty_is_listed_with_none_of_its_turns(
    tmp_path: Path, folder_name: str
) -> None:
    """Issue 29: an empty ``claude-2.1.jsonl`` beside gpt-4's judgments (the per-model
    layout: a ``<judge>_single`` folder, or every other file judging the model its name
    names) is claude-2.1's row with 0 of 720 turns, never a model left out."""
    folder = tmp_path / folder_name
    folder.mkdir()
    shutil.copy(PUBLISHED / "gpt-4.jsonl", folder / "gpt-4.jsonl")
    (folder / "claude-2.1.jsonl").write_bytes(b"")
    code, md, err = _board_cli("--judgments", str(folder))
    assert code == 0, err
    rows = [row for row in md.splitlines() if row.startswith("| ")]
    assert rows[1].startswith("| gpt-4 | 8.37 |")
    assert rows[2].startswith("| claude-2.1 (incomplete) |  |")
    assert "claude-2.1: incomplete, 0 of 720 turns judged" in md
    assert "warning: claude-2.1: 0 of 720 turns judged" in err
    code, text, _ = _board_cli("--judgments", str(folder), "--format", "json")
    assert [(e["model"], e["judged_turns"], e["complete"]) for e in json.loads(text)] == [
        ("gpt-4", 720, True), ("claude-2.1", 0, False),
    ]  # fmt: skip


def test_an_empty_file_nothing_names_the_model_of_is_an_error(tmp_path: Path) -> None:
    """Beside a file of FastChat's one-file layout (its name names no model), nothing says
    whose an empty file is: one line naming it, exit 1."""
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(PUBLISHED / "gpt-4.jsonl", folder / "gpt-4o-mini_all.jsonl")
    (folder / "claude-2.1.jsonl").write_bytes(b"")
    code, out, err = _board_cli("--judgments", str(folder))
    assert code == 1 and out == ""
    assert err.startswith(f"error: {folder / 'claude-2.1.jsonl'}: empty, no judgment in it, ")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_judgments_with_nothing_to_rank_are_an_error_not_an_empty_table(
    tmp_path: Path, fmt: str
) -> None:
    folder = tmp_path / "gpt-4o-mini_single"
    folder.mkdir()
    (folder / "claude-2.1.jsonl").write_bytes(b"")
    code, out, err = _board_cli("--judgments", str(folder), "--format", fmt)
    assert (code, out) == (1, "")
    assert err == f"error: nothing to rank: no judgment in {folder / 'claude-2.1.jsonl'}\n"
    # the report says which file was empty (it was "not a pfgen run or judgment file")
    report = CliRunner().invoke(app, ["report", str(folder), "-o", str(tmp_path / "site"),
                                      "--no-public"])  # fmt: skip
    assert report.exit_code == 1
    assert f"{folder / 'claude-2.1.jsonl'}: empty, no judgment or answer in it" in report.stderr


def test_a_judge_run_stopped_before_its_first_line_lists_its_model(tmp_path: Path) -> None:
    """An empty file whose hyoka manifest names its model (the run stopped before its first
    judgment) is that model's row, 0 of 720 turns, beside a model judged on 2 turns."""
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"reply": "評価: [[9]]"}) + "\n", encoding="utf-8")
    out = tmp_path / "o"
    answers = [a for m in ("gpt-4", "claude-2.1") for a in ("-a", str(ANSWERS / f"{m}.jsonl"))]
    judged = CliRunner().invoke(
        app, ["mtbench", "judge", *answers, "-j", f"scripted/{script}", "--output-dir",
              str(out), "--limit", "1", "--lang-check", "script"],
        env={"HYOKA_DATA_DIR": str(SHARED_DATA), "HYOKA_CACHE_DIR": str(tmp_path / "cache")},
    )  # fmt: skip
    assert judged.exit_code == 0, judged.output
    (out / "claude-2.1.jsonl").write_bytes(b"")  # its manifest kept
    code, text, err = _board_cli("--judgments", str(out), "--format", "json")
    assert code == 0, err
    rows = [(e["model"], e["judged_turns"], e["complete"], e["dry_run"]) for e in json.loads(text)]
    assert rows == [("gpt-4", 2, False, True), ("claude-2.1", 0, False, True)]
    assert "warning: claude-2.1: 0 of 720 turns judged" in err


def test_names_alike_but_for_unicode_form_are_named_in_one_warning(tmp_path: Path) -> None:
    """One model's published jmt-bench judgments, half under "モデルガ" in NFC and half in
    NFD: two rows that look the same, each incomplete. Before, nothing said why; now one
    warning names both forms (the judgments are not merged behind the user's back)."""
    import unicodedata

    composed = "モデルガ"
    decomposed = unicodedata.normalize("NFD", composed)
    published = SHARED_DATA / "jmt-bench" / "model_judgment" / "gpt-4_single.jsonl"
    lines = [json.loads(line) for line in published.read_text(encoding="utf-8").splitlines()]
    kept = [line for line in lines if line["model"] == lines[0]["model"]]
    for line in kept:
        line["model"] = composed if int(line["question_id"]) % 2 else decomposed
    path = tmp_path / "gpt-4_single.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in kept), encoding="utf-8")
    code, md, err = _board_cli("--bench", "jmt-bench", "--variant", "stability@aed16da",
                               "--mix-variants", "--judgments", str(path))  # fmt: skip
    assert code == 0, err
    assert md.count(f"| {composed} (incomplete) |") == 1
    assert md.count(f"| {decomposed} (incomplete) |") == 1
    warning = (
        f"warning: '{composed}' (NFC) and '{decomposed}' (NFD) are the same name in different "
        "Unicode forms; their judgments are ranked as two models"
    )
    assert err.count("same name in different Unicode forms") == 1
    assert warning in " ".join(err.split())
