"""``hyoka mtbench verify``: every published judgment file reproduces from its own replies,
and a file with one score or winner changed is caught at that line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.mtbench.bench import JA_VICUNA_QA, MT_BENCH, PFMT_FIN
from hyoka.mtbench.verify import judgment_spec, verify_judgments

PFMT = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_single"
VICUNA = SHARED_DATA / "ja-vicuna-qa" / "model_judgment" / "pairwise" / "gpt-4"
JMT_SINGLE = SHARED_DATA / "jmt-bench" / "model_judgment" / "gpt-4_single.jsonl"


def _verify(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["mtbench", "verify", *args])
    return result.exit_code, result.output


def test_every_published_pfmt_and_vicuna_file_reproduces_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """9 pfmt-bench-fin-ja files (6,480 lines, pfmt's rating rules) and 6 ja-vicuna-qa files
    (480 pairs, FastChat's verdict tokens), each found by the data folder that holds it."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    files = sorted(PFMT.glob("*.jsonl")) + sorted(VICUNA.glob("pairwise:*.jsonl"))
    assert len(files) == 15
    code, output = _verify(*map(str, files))
    assert code == 0, output
    assert output.count("reproduced exactly (720 lines; pfmt-fin: rating pfmt-upstream") == 9
    assert output.count("reproduced exactly (80 lines; ja-vicuna-qa: rating ja-vicuna-qa, ") == 6


def test_published_jmt_bench_single_file_reproduces_by_fastchat_rules() -> None:
    """Stability's 564 GPT-4 turn-1 judgments follow FastChat's rating rules (the rules of
    ``--bench mt-bench``) line for line."""
    check = verify_judgments(JMT_SINGLE, MT_BENCH)
    assert check.reproduced and check.lines == 564


def _tampered(source: Path, target: Path, number: int, field: str, value: object) -> Path:
    lines = source.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[number - 1])
    assert json.dumps(record[field]) != json.dumps(value)
    record[field] = value
    lines[number - 1] = json.dumps(record, ensure_ascii=False)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def test_one_changed_score_fails_naming_its_line(tmp_path: Path) -> None:
    source = PFMT / "gpt-4.jsonl"
    score = json.loads(source.read_text(encoding="utf-8").splitlines()[99])["score"]
    copy = _tampered(source, tmp_path / "gpt-4.jsonl", 100, "score", score % 10 + 1)
    code, output = _verify("--bench", "pfmt-fin", str(copy))
    assert code == 1
    assert f"{copy}:100: score is {score % 10 + 1}, the rules give {score} (NOT reproduced" in (
        output
    )
    # a float where upstream wrote an integer is a difference too
    copy = _tampered(source, tmp_path / "float.jsonl", 7, "score", float(_score(source, 7)))
    assert not verify_judgments(copy, PFMT_FIN).reproduced


def _score(path: Path, number: int) -> int:
    return int(json.loads(path.read_text(encoding="utf-8").splitlines()[number - 1])["score"])


def test_one_changed_winner_fails_naming_its_line(tmp_path: Path) -> None:
    source = next(VICUNA.glob("pairwise:cyberagent*"))
    winner = json.loads(source.read_text(encoding="utf-8").splitlines()[41])["g2_winner"]
    other = "tie" if winner != "tie" else "model_1"
    copy = _tampered(source, tmp_path / "pairs.jsonl", 42, "g2_winner", other)
    code, output = _verify("--bench", "ja-vicuna-qa", str(copy))
    assert code == 1
    assert f"{copy}:42: g2_winner is {other!r}, the rules give {winner!r}" in output


def test_the_rules_come_from_the_flag_the_data_folder_or_nowhere(tmp_path: Path) -> None:
    published = next(VICUNA.glob("*.jsonl"))
    assert judgment_spec(published, None, SHARED_DATA) is JA_VICUNA_QA
    assert judgment_spec(published, "mt-bench", SHARED_DATA) is MT_BENCH
    stray = tmp_path / "x.jsonl"
    stray.write_text('{"score": 1, "judgment": "[[1]]"}\n')
    code, output = _verify("--data-dir", str(SHARED_DATA), str(stray))
    assert code == 1
    assert "name the rules with --bench" in output and output.count("\n") == 1


def test_a_file_in_a_linked_benchmark_folder_is_told_by_that_folder(tmp_path: Path) -> None:
    """A data directory whose benchmark folder is a link (as tests and shared checkouts
    lay it out): its files are still that benchmark's (they were "in no benchmark's data
    folder", the resolved file compared with the unresolved folder)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "ja-vicuna-qa").symlink_to(SHARED_DATA / "ja-vicuna-qa")
    linked = data / "ja-vicuna-qa" / VICUNA.relative_to(SHARED_DATA / "ja-vicuna-qa")
    published = next(linked.glob("pairwise:*.jsonl"))
    assert judgment_spec(published, None, data) is JA_VICUNA_QA
