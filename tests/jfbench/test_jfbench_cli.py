"""``hyoka jfbench build`` and ``hyoka jfbench score`` as a user meets them.

The build's identity digests are upstream's: the SHA-256 of the canonical lines of the
first three entries of upstream's seed-42 test build and the first five of its train
build. The score's rows are those upstream's ``analyze.py`` printed
for the fixture (see test_jfbench_scores).
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app

RESULTS = Path(__file__).parents[1] / "fixtures" / "jfbench" / "results.jsonl"
PROMPTS = SHARED_DATA / "jfbench" / "data" / "ifbench_ja_translated.jsonl"
FIRST_THREE = "0895a01004b11fcc73021ab54bd0b5a03c37a4544697789f28f872bd216adaed"
TRAIN_FIRST_FIVE = "00d6a3f71cecf7b021ec2abb8f1e92765d1105c38d808936e593093f09fbb3a5"


def _hyoka(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_build_json_names_upstreams_first_entries() -> None:
    code, out, _ = _hyoka(
        "jfbench", "build", "--prompts", str(PROMPTS), "--n-benchmark-data", "3", "--json"
    )
    assert code == 0
    shown = json.loads(out)
    assert shown["first"] == [
        "106-KeywordIncludedContentConstraint",
        "282-ReplacementProcessingConstraint",
        "7-RomajiCharacterConstraint",
    ]
    assert shown["sha256"] == FIRST_THREE
    assert shown["prompts_sha256"].startswith("10828c6a")


def test_build_writes_the_entries_it_names(tmp_path: Path) -> None:
    out_file = tmp_path / "train.jsonl"
    code, out, _ = _hyoka(
        "jfbench", "build", "--prompts", str(PROMPTS), "--constraint-set", "train",
        "--n-benchmark-data", "5", "--output", str(out_file),
    )  # fmt: skip
    assert code == 0
    assert "5 entries (constraint set train, seed 42" in out
    assert TRAIN_FIRST_FIVE in out
    lines = out_file.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == [
        "62-NoSelfAttestationConstraint",
        "10-GreetingOutputConstraint",
        "207-FullWidthCharacterConstraint",
        "220-SadEmotionalStyleConstraint",
        "238-ReplacementProcessingConstraint",
    ]


def test_build_refuses_an_unknown_set_in_one_line() -> None:
    code, _, err = _hyoka("jfbench", "build", "--prompts", str(PROMPTS), "--constraint-set", "dev")
    assert code != 0
    assert err.strip() == "error: --constraint-set 'dev': train or test"


def test_build_draws_upstreams_multi_constraint_entries(tmp_path: Path) -> None:
    """``--n-constraints 3 --n-benchmark-data 100``: upstream's seed-42 draws (the digest of
    the entries its own build made, as test_jfbench_build)."""
    out_file = tmp_path / "multi.jsonl"
    code, out, _ = _hyoka(
        "jfbench", "build", "--prompts", str(PROMPTS), "--n-constraints", "3",
        "--n-benchmark-data", "100", "--output", str(out_file), "--json",
    )  # fmt: skip
    assert code == 0
    shown = json.loads(out)
    assert (shown["n_constraints"], shown["entries"]) == (3, 100)
    assert shown["sha256"] == "45af423821a65feb497d7a0d95da9ba67027639e25e97ba34cbdfa91e158aa0a"
    assert shown["first"][0] == (
        "multi-QuotesFormatIfbenchConstraint-GreetingOutputConstraint-YamlFormatConstraint"
    )
    lines = out_file.read_text(encoding="utf-8").splitlines()
    assert len(json.loads(lines[99])["constraints"]) == 3


def test_build_needs_a_size_for_several_constraints() -> None:
    """A usage error (exit 2) before anything is read: upstream requires the size too."""
    code, _, err = _hyoka("jfbench", "build", "--prompts", "missing.jsonl", "--n-constraints", "2")
    assert code == 2
    assert "--n-benchmark-data is needed with --n-constraints 2 or more" in err


def test_score_prints_upstreams_rows_and_the_signature() -> None:
    code, out, _ = _hyoka("jfbench", "score", str(RESULTS), "--resamples", "100")
    assert code == 0
    assert (
        "ifbench      1 A                                    8         7       1       5    71.4%"
        in out
    )
    assert "TOTAL" in out and "57.1%" in out
    assert "A: Character 5/7, Format 2/3, Notation 1/3" in out
    assert "signature: hyoka:" in out and "kind:jfbench|rules:jfbench@c8fed01" in out


def test_score_json_carries_counts_and_signature() -> None:
    code, out, _ = _hyoka("jfbench", "score", str(RESULTS), "--resamples", "100", "--json")
    assert code == 0
    shown = json.loads(out)
    assert shown["signature"]["fields"]["kind"] == "jfbench"
    first = shown["groups"][0]
    assert (first["model"], first["evaluated"], first["success"]) == ("A", 7, 5)
    assert shown["total"]["success_rate"] == 800 / 14


def _record(data_id: int | str, verdict: object, **extra: object) -> str:
    row = {
        "model": "org/M", "model_short": "M", "prompt_source": "ifbench", "n_constraints": 1,
        "data_id": data_id, "response": "答え", "results": {"A": verdict}, **extra,
    }  # fmt: skip
    return json.dumps(row, ensure_ascii=False)


def _file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_score_counts_a_line_repeated_identically_once_with_a_warning(tmp_path: Path) -> None:
    lines = [_record(0, True), _record(1, False)]
    path = _file(tmp_path, *lines, *lines)
    code, out, err = _hyoka("jfbench", "score", str(path), "--resamples", "10", "--json")
    assert code == 0
    assert err.strip() == f"warning: {path}: 2 identical duplicate line(s) dropped"
    total = json.loads(out)["total"]
    assert (total["records"], total["evaluated"], total["success_rate"]) == (2, 2, 50.0)


def test_score_refuses_two_different_records_for_one_item(tmp_path: Path) -> None:
    path = _file(tmp_path, _record(0, True), _record(1, True), _record(0, False))
    code, out, err = _hyoka("jfbench", "score", str(path))
    assert (code, out) == (1, "")
    assert err.strip() == (
        f"error: {path}:3: a second, different record for model=M prompt_source=ifbench "
        "n_constraints=1 data_id=0 (first at line 1); remove one of them"
    )


def test_score_keys_records_by_prompt_index_as_upstream_does(tmp_path: Path) -> None:
    """Upstream's build gives one prompt two entries of one class (two
    DoubleNegationLogicConstraint entries wrapping different constraints): one data id, two
    places; its eval.py keeps a record per place (``prompt_index``), and so does hyoka."""
    twice = "256-DoubleNegationLogicConstraint"
    path = _file(tmp_path, _record(twice, True, prompt_index=183),
                 _record(twice, False, prompt_index=271))  # fmt: skip
    code, out, _ = _hyoka("jfbench", "score", str(path), "--resamples", "10", "--json")
    assert code == 0, out
    total = json.loads(out)["total"]
    assert (total["records"], total["evaluated"], total["success"]) == (2, 2, 1)
    again = _file(tmp_path, _record(0, True, prompt_index=5), _record(1, False, prompt_index=5))
    code, out, err = _hyoka("jfbench", "score", str(again))
    assert code == 1 and "n_constraints=1 prompt_index=5 (first at line 1)" in err


def test_score_refuses_a_verdict_that_is_not_true_or_false(tmp_path: Path) -> None:
    path = _file(tmp_path, _record(0, True), _record(1, "false"))
    code, out, err = _hyoka("jfbench", "score", str(path))
    assert (code, out) == (1, "")
    assert err.strip() == f"error: {path}:2: the verdict for 'A' is 'false', not true or false"


def test_score_refuses_a_verdict_given_twice_in_one_object(tmp_path: Path) -> None:
    path = _file(tmp_path, _record(0, True).replace('{"A": true}', '{"A": true, "A": false}'))
    code, out, err = _hyoka("jfbench", "score", str(path))
    assert (code, out) == (1, "")
    assert err.strip() == (
        f"error: {path}:1: key 'A' appears twice in one object; which value is meant cannot "
        "be guessed"
    )


def test_score_counts_a_null_verdict_as_not_satisfied_as_upstream_does(tmp_path: Path) -> None:
    path = _file(tmp_path, _record(0, True), _record(1, None))
    code, out, _ = _hyoka("jfbench", "score", str(path), "--resamples", "10", "--json")
    assert code == 0
    total = json.loads(out)["total"]
    assert (total["evaluated"], total["success"], total["success_rate"]) == (2, 1, 50.0)


def test_score_says_na_when_nothing_is_evaluated(tmp_path: Path) -> None:
    path = _file(tmp_path, _record(0, None).replace('"results": {"A": null}', '"results": null'))
    code, out, _ = _hyoka("jfbench", "score", str(path))
    assert code == 0
    total = next(line for line in out.splitlines() if line.startswith("TOTAL"))
    assert total.split()[1:] == ["1", "0", "1", "0", "n/a"]
    code, out, _ = _hyoka("jfbench", "score", str(path), "--json")
    assert code == 0
    shown = json.loads(out)["total"]
    assert (shown["pending"], shown["evaluated"], shown["success_rate"]) == (1, 0, None)


def test_score_refuses_a_file_that_holds_no_result_records(tmp_path: Path) -> None:
    path = _file(tmp_path, "{}", json.dumps({"key": 1, "prompt": "p", "response": "r"}))
    code, out, err = _hyoka("jfbench", "score", str(path))
    assert (code, out) == (1, "")
    assert err.strip() == (
        f"error: {path}: no line has a 'results' field: not a JFBench result file"
    )


def _folder(tmp_path: Path, flipped: bool) -> tuple[Path, Path, Path]:
    """``two/a.jsonl`` and ``two/c.jsonl``: the same three items, the last verdict flipped
    in ``c`` when ``flipped``."""
    folder = tmp_path / "two"
    folder.mkdir()
    rows = [_record(0, True, prompt_index=0), _record(1, True, prompt_index=1)]
    a, c = folder / "a.jsonl", folder / "c.jsonl"
    a.write_text("".join(r + "\n" for r in [*rows, _record(2, True, prompt_index=2)]), "utf-8")
    last = _record(2, not flipped, prompt_index=2)
    c.write_text("".join(r + "\n" for r in [*rows, last]), "utf-8")
    return folder, a, c


def test_score_refuses_two_files_with_different_records_for_one_item(tmp_path: Path) -> None:
    """One item is one record across files too: summed, two judges' (or an edited) file of
    the same answers would count each item twice."""
    folder, a, c = _folder(tmp_path, flipped=True)
    code, out, err = _hyoka("jfbench", "score", str(folder))
    assert (code, out) == (1, "")
    assert err.strip().startswith(
        f"error: {c}:3: a second, different record for model=M prompt_source=ifbench "
        f"n_constraints=1 prompt_index=2 (first at {a}:3)"
    )
    code, out, err = _hyoka("mtbench", "leaderboard", "--bench", "jfbench", "--judgments",
                            str(a), "--judgments", str(c))  # fmt: skip
    assert code == 1 and f"(first at {a}:3)" in err


def test_score_counts_a_record_repeated_in_another_file_once(tmp_path: Path) -> None:
    folder, a, c = _folder(tmp_path, flipped=False)
    code, out, err = _hyoka("jfbench", "score", str(folder), "--resamples", "10", "--json")
    assert code == 0
    assert err.strip() == (
        f"warning: {c}: 3 record(s) already read from another file, counted once: line "
        f"1 ({a}:1), 2 ({a}:2), 3 ({a}:3)"
    )
    assert json.loads(out)["total"]["evaluated"] == 3
