"""A judgment is counted once however the files holding it are given (issue 29, third
adversarial pass): Rakuda's ranking and ``mtbench verify`` refuse a match, a pair's turn
or a graded turn that an earlier file (or the same file given twice) already holds; the
pair's other order is the same pair. Also: Rakuda prints no rating where only the home
advantage runs off, upstream's rating forms read no full-width digit, and a template
edited under its packaged name is named as the cause when a file is continued."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app

PFMT = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_single" / "gpt-4.jsonl"
VICUNA = SHARED_DATA / "ja-vicuna-qa"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "--data-dir", str(SHARED_DATA)])
    return result.exit_code, result.output


def _rakuda_lines(models: tuple[str, ...] = ("a", "b", "c"), winner: int = 1) -> list[str]:
    questions = (SHARED_DATA / "rakuda" / "questions.jsonl").read_text("utf-8").splitlines()
    pairs = [(x, y) for x in models for y in models if x != y]
    lines = []
    for number, question in enumerate(questions[:30]):
        first, second = pairs[number % len(pairs)]
        lines.append(json.dumps({
            "question_id": json.loads(question)["question_id"], "model1_id": first,
            "model2_id": second, "winner": winner if number % 7 else 2,
            "judge": ["j", "pair-ja"],
        }))  # fmt: skip
    return lines


def test_rakuda_counts_a_match_once_across_files(tmp_path: Path) -> None:
    needs("scipy")
    whole, part = tmp_path / "a_pair.jsonl", tmp_path / "b_pair.jsonl"
    lines = _rakuda_lines()
    whole.write_text("\n".join(lines) + "\n", "utf-8")
    part.write_text("\n".join(lines[:15]) + "\n", "utf-8")
    board = ("mtbench", "leaderboard", "--bench", "rakuda", "--rounds", "2")
    code, out = _run(*board, "--judgments", str(whole), "--judgments", str(whole))
    assert code == 1 and "a_pair.jsonl:1: a against b question_id" in out
    assert "judged twice (also in" in out and "given twice" in out
    code, out = _run(*board, "--judgments", str(tmp_path))
    assert code == 1 and "b_pair.jsonl:1: a against b" in out and "a_pair.jsonl)" in out
    # the other order is another match (upstream draws ordered pairs): both ranked
    swapped = tmp_path / "c" / "s_pair.jsonl"
    swapped.parent.mkdir()
    swapped.write_text("".join(
        json.dumps({**json.loads(line), "model1_id": json.loads(line)["model2_id"],
                    "model2_id": json.loads(line)["model1_id"]}) + "\n"
        for line in lines[:15]
    ), "utf-8")  # fmt: skip
    code, out = _run(*board, "--judgments", str(whole), "--judgments", str(swapped))
    assert code == 0, out
    code, out = _run("mtbench", "verify", "--bench", "rakuda", str(tmp_path))
    assert code == 1 and "b_pair.jsonl:1: a against b" in out and "judged twice" in out


def test_verify_refuses_a_graded_turn_in_two_files(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(PFMT.read_bytes())
    head = PFMT.read_text("utf-8").splitlines(keepends=True)[:15]
    (tmp_path / "b.jsonl").write_text("".join(head), "utf-8")
    code, out = _run("mtbench", "verify", "--bench", "pfmt-fin", str(tmp_path))
    assert code == 1 and "a.jsonl: reproduced exactly" in out
    assert "b.jsonl:1: gpt-4 question_id 0 turn 1 judged twice (also in" in out


def test_verify_refuses_a_pair_judged_in_two_files_in_either_order(tmp_path: Path) -> None:
    pair = next((VICUNA / "model_judgment").rglob("*pair*.jsonl"), None) or next(
        (VICUNA / "model_judgment").rglob("*.jsonl")
    )
    lines = [json.loads(x) for x in pair.read_text("utf-8").splitlines()[:40]]
    lines = [x for x in lines if "g1_winner" in x]
    assert lines, pair
    swap = {"model_1": "model_2", "model_2": "model_1", "g1_winner": "g2_winner",
            "g2_winner": "g1_winner", "g1_judgment": "g2_judgment",
            "g2_judgment": "g1_judgment", "answer_1": "answer_2",
            "answer_2": "answer_1"}  # fmt: skip
    mirrored = [{swap.get(k, k): v for k, v in x.items()} for x in lines]
    for winner in ("g1_winner", "g2_winner"):
        for x in mirrored:
            x[winner] = {"model_1": "model_2", "model_2": "model_1"}.get(x[winner], x[winner])
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(x) + "\n" for x in mirrored), "utf-8")
    code, out = _run("mtbench", "verify", "--bench", "ja-vicuna-qa", str(tmp_path))
    assert code == 1 and "b.jsonl:1: " in out and "judged twice (also in" in out, out


def test_rakuda_gives_no_rating_where_only_the_home_advantage_runs_off(tmp_path: Path) -> None:
    needs("scipy")
    path = tmp_path / "s_pair.jsonl"
    questions = (SHARED_DATA / "rakuda" / "questions.jsonl").read_text("utf-8").splitlines()
    pairs = [(x, y) for x in "abc" for y in "abc" if x != y]
    path.write_text("".join(json.dumps({
        "question_id": json.loads(question)["question_id"], "model1_id": pairs[n % 6][0],
        "model2_id": pairs[n % 6][1], "winner": 1, "judge": ["j", "pair-ja"],
    }) + "\n" for n, question in enumerate(questions[:30])), "utf-8")  # fmt: skip
    code, out = _run("mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(path),
                     "--rounds", "5", "--format", "json")  # fmt: skip
    assert code == 0, out
    ranking = json.loads(out)
    for row in ranking["ranking"]:
        assert row["mle"] is None and row["median"] is None, row
        assert row["no_maximum"].startswith("no finite maximum"), row
    assert ranking["separation"][0].startswith("ratings n/a: no finite maximum")


def test_upstream_reads_no_full_width_rating(tmp_path: Path) -> None:
    line = next(x for x in PFMT.read_text("utf-8").splitlines() if "[[8]]" in x)
    (tmp_path / "a.jsonl").write_text(line.replace("[[8]]", "[[８]]") + "\n", "utf-8")
    code, out = _run("mtbench", "verify", "--bench", "pfmt-fin", str(tmp_path / "a.jsonl"))
    assert code == 1 and "a.jsonl:1: score is 8, the rules give -1 (NOT reproduced" in out


def test_continuing_with_an_edited_template_names_the_template(
    tmp_path: Path, hyoka_env: None
) -> None:
    answers, script = tmp_path / "a.jsonl", tmp_path / "s.jsonl"
    answers.write_text('{"id": "q1", "question": "1+1?", "answer": "2", "reference": "2"}\n')
    script.write_text('{"reply": ["Rating: [[7]]"]}\n', "utf-8")
    packaged = Path(__file__).parents[2] / "src" / "hyoka" / "judge" / "templates"
    text = (packaged / "single-ref.toml").read_text("utf-8").splitlines(keepends=True)
    edited = tmp_path / "t.toml"
    edited.write_text("".join(
        'system = "You are an edited grader."\n' if x.startswith("system = ") else x
        for x in text
    ), "utf-8")  # fmt: skip
    judge = ("judge", "single", str(answers), "-j", f"scripted/{script}", "--max-attempts", "1")
    first = CliRunner().invoke(app, [*judge, "-t", "single-ref"])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(app, [*judge, "-t", str(edited)])
    assert again.exit_code == 1
    assert "item 'q1' was graded with another judge prompt" in again.output
    assert "another question, answer or reference" not in again.output
