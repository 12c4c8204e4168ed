"""``hyoka ifeval score`` and ``hyoka ifeval verify`` on upstream's real files.

Small files cut from the shared data keep the tests fast: the four language prompts (the
only seed-dependent checks) and a few prompts whose checks read no Janome tokens. The
expected figures are upstream's own verdicts for those lines.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs

needs("langdetect")
needs("janome")
needs("ja_sentence_segmenter")

from hyoka.cli.main import app  # noqa: E402
from hyoka.errors import HyokaWarning  # noqa: E402
from hyoka.ifeval import PROMPTS_IN_DATA, read_prompts, score_responses  # noqa: E402

DATA = SHARED_DATA / "m-ifeval-ja"
PROMPTS = DATA / "data" / "ja_input_data.jsonl"
CLAUDE = "claude-3-5-sonnet-20240620"
RESPONSES = DATA / "data" / f"ja_input_response_data_{CLAUDE}.jsonl"
EVALUATIONS = DATA / "evaluations" / f"ja_input_response_data_{CLAUDE}"
#: prompt keys: the four language prompts, and three whose checks read no tokens
KEYS = (1, 2, 3, 4)
RULE_KEYS = (5, 6, 7)


def _hyoka(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _cut(source: Path, target: Path, keys: tuple[int, ...]) -> Path:
    """The lines of ``source`` (in the prompts' order) whose prompt has one of ``keys``."""
    wanted = {
        json.loads(line)["prompt"] for line in _lines(PROMPTS) if json.loads(line)["key"] in keys
    }
    kept = [line for line in _lines(source) if json.loads(line)["prompt"] in wanted]
    assert len(kept) == len(keys)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return target


def test_rule_keys_read_no_tokens() -> None:
    rows = [json.loads(line) for line in _lines(PROMPTS)]
    for row in rows:
        if row["key"] in RULE_KEYS:
            assert not {"ja:keywords:existence", "ja:detectable_format:nominal_ending"} & set(
                row["instruction_id_list"]
            )


def test_verify_names_the_difference_langdetects_seed_decides(tmp_path: Path) -> None:
    strict = _cut(EVALUATIONS / "eval_results_strict.jsonl",
                  tmp_path / "eval_results_strict.jsonl", KEYS)  # fmt: skip
    code, out = _hyoka("ifeval", "verify", str(strict), "--prompts", str(PROMPTS), "--seeds", "2")
    assert code == 0, out
    assert (
        f"{strict} (strict): 3/4 instruction and 3/4 prompt verdicts agree; 2 differ, 2 of "
        "them by langdetect's seed alone" in out
    )
    assert (
        f"{strict}:2: ja:language:response_language: published false, hyoka true (depends on "
        "langdetect's seed)" in out
    )
    assert f"{strict}:2 ja:language:response_language: this language verdict changes" in out
    assert "1/1 files agree, or differ only where langdetect's seed decides (seed 0; 2 seeds" in out
    shown = CliRunner().invoke(app, ["ifeval", "verify", str(strict), "--prompts", str(PROMPTS),
                                     "--seeds", "2", "--json"])  # fmt: skip
    assert shown.exit_code == 0, shown.output
    (row,) = json.loads(shown.stdout)
    assert (row["file"], row["mode"], row["ok"], row["instructions_agreed"]) == (
        str(strict), "strict", True, 3,
    )  # fmt: skip
    assert [d["seed_dependent"] for d in row["differences"]] == [True, True]
    # seed 1 draws as upstream's run drew: every verdict agrees
    code, out = _hyoka("ifeval", "verify", str(strict), "--prompts", str(PROMPTS),
                       "--langdetect-seed", "1", "--seeds", "2")  # fmt: skip
    assert code == 0, out
    assert "4/4 instruction and 4/4 prompt verdicts agree" in out


def test_verify_fails_on_a_verdict_the_rules_do_not_give(tmp_path: Path) -> None:
    loose = _cut(EVALUATIONS / "eval_results_loose.jsonl",
                 tmp_path / "claude" / "eval_results_loose.jsonl", RULE_KEYS)  # fmt: skip
    rows = [json.loads(line) for line in _lines(loose)]
    assert rows[0]["follow_instruction_list"][0] is True
    rows[0]["follow_instruction_list"][0] = False
    rows[0]["follow_all_instructions"] = False
    loose.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    code, out = _hyoka("ifeval", "verify", str(tmp_path), "--prompts", str(PROMPTS))
    assert code == 1
    iid = rows[0]["instruction_id_list"][0]
    assert f"{loose}:1: {iid}: published false, hyoka true\n" in out
    assert f"{loose}:1: follow_all_instructions: published false, hyoka true\n" in out
    assert "0/1 files agree" in out


def test_score_prints_both_modes_and_the_signature(tmp_path: Path) -> None:
    prompts = _cut(PROMPTS, tmp_path / "prompts.jsonl", (*KEYS, *RULE_KEYS))
    published = {
        mode: [
            json.loads(line)
            for line in _lines(
                _cut(
                    EVALUATIONS / f"eval_results_{mode}.jsonl", tmp_path / mode, (*KEYS, *RULE_KEYS)
                )
            )
        ]
        for mode in ("strict", "loose")
    }
    code, out = _hyoka("ifeval", "score", str(RESPONSES), "--prompts", str(prompts),
                       "--resamples", "200", "--langdetect-seed", "1")  # fmt: skip
    assert code == 0, out
    for mode, rows in published.items():
        prompts_followed = sum(r["follow_all_instructions"] for r in rows)
        followed = sum(sum(r["follow_instruction_list"]) for r in rows)
        total = sum(len(r["follow_instruction_list"]) for r in rows)
        shown = re.search(
            rf"{mode}\s+prompt-level \d\.\d+ \((\d+)/7\) \[[\d.]+, [\d.]+\]  instruction-level "
            rf"\d\.\d+ \((\d+)/(\d+)\)",
            out,
        )
        assert shown is not None, out
        assert tuple(map(int, shown.groups())) == (prompts_followed, followed, total)
    signature = out.splitlines()[-1]
    assert signature.startswith("signature: hyoka:")
    assert "|kind:m-ifeval|data:m-ifeval-ja@" in signature
    assert "|rules:m-ifeval@0bc3143|langdetect-seed:1|resamples:200|" in signature
    assert "packages:langdetect=1.0.9,janome=0.5.0,ja-sentence-segmenter=0.0.2" in signature


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"kwargs": [{"num_bullets": None}]}, "argument num_bullets is missing"),
        ({"instruction_id_list": ["ja:nope"], "kwargs": [{}]}, "unknown instruction 'ja:nope'"),
        ({"kwargs": []}, "1 instructions but 0 objects of kwargs"),
        ({"prompt": "箇条書きで"}, "the same prompt as "),
    ],
)
def test_a_bad_prompts_line_is_one_error_naming_it(
    tmp_path: Path, row: dict[str, object], message: str
) -> None:
    good = {"key": 1, "prompt": "箇条書きで", "kwargs": [{"num_bullets": 2}],
            "instruction_id_list": ["ja:detectable_format:number_bullet_lists"]}  # fmt: skip
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(
        json.dumps(good) + "\n" + json.dumps(good | {"prompt": "二つ目"} | row) + "\n", "utf-8"
    )
    code, out = _hyoka("ifeval", "score", str(RESPONSES), "--prompts", str(prompts))
    assert code == 1
    lines = out.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: {prompts}:2: ")
    assert message in lines[0]
    assert "Traceback" not in out


def test_missing_data_names_the_fetch_command(tmp_path: Path) -> None:
    code, out = _hyoka("ifeval", "score", str(RESPONSES), "--data-dir", str(tmp_path))
    assert code == 1
    # the one message of ``hyoka.data.data_file``: what is missing, where, how to fetch it
    assert " ".join(out.split()).startswith(
        f"error: M-IFEval-Ja prompts not found: {tmp_path / PROMPTS_IN_DATA}: run `hyoka data "
        f"fetch m-ifeval-ja --data-dir {tmp_path}` to download it, or name the file with --prompts"
    )


def test_a_folder_without_the_files_is_one_error_naming_it(tmp_path: Path) -> None:
    """``ifeval verify`` and the rule-checked leaderboard read folders by one rule
    (``hyoka.ifeval.files_given``): a folder holding none of the files is one line naming
    it and what it should hold."""
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out = _hyoka("ifeval", "verify", str(empty), "--prompts", str(PROMPTS))
    assert code == 1
    assert f"error: {empty}: no eval_results_strict.jsonl or _loose.jsonl in it" in out
    code, out = _hyoka(
        "mtbench", "leaderboard", "--bench", "m-ifeval-ja", "--judgments", str(empty),
        "--data-dir", str(SHARED_DATA),
    )  # fmt: skip
    assert code == 1
    assert f"error: --judgments {empty}: no .jsonl answer file in it" in out
    assert "Traceback" not in out


def test_a_prompt_without_a_response_is_one_error(tmp_path: Path) -> None:
    responses = tmp_path / "answers.jsonl"
    responses.write_text("".join(line + "\n" for line in _lines(RESPONSES)[1:]), "utf-8")
    code, out = _hyoka("ifeval", "score", str(responses), "--prompts", str(PROMPTS))
    assert code == 1
    assert out.strip() == (
        f"error: {responses}: no response to 1 of the 172 prompts (the first: {PROMPTS}:1)"
    )


def test_score_unseeded_signs_it_and_json_carries_the_same(tmp_path: Path) -> None:
    prompts = _cut(PROMPTS, tmp_path / "prompts.jsonl", RULE_KEYS)
    responses = _cut(RESPONSES, tmp_path / "responses.jsonl", RULE_KEYS)
    result = CliRunner().invoke(app, ["ifeval", "score", str(responses), "--prompts",
        str(prompts), "--langdetect-seed", "none", "--resamples", "50", "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["signature"]["fields"]["langdetect-seed"] == "none"
    (result,) = shown["results"]
    assert result["strict"]["prompts"] == 3
    assert result["strict"]["prompt_level"]["resamples"] == 50
    with pytest.warns(HyokaWarning, match="not the pinned M-IFEval-Ja prompts file"):
        done = score_responses(
            [responses], read_prompts(prompts), langdetect_seed=None, resamples=50
        )
    assert done.to_json() == shown  # the library call is the command
    # a usage error (exit 2), before any file is read (this one is absent)
    code, out = _hyoka("ifeval", "score", str(tmp_path / "absent.jsonl"), "--prompts",
                       str(prompts), "--langdetect-seed", "zero")  # fmt: skip
    assert code == 2, out
    assert "'zero': a whole number, or none" in out and "absent" not in out


def _answer_line(key: int, turn: object) -> str:
    choice = {"index": 0, "turns": [turn]}
    return json.dumps({"question_id": key, "model_id": "m", "choices": [choice]}) + "\n"


def test_another_benchmarks_answers_are_refused_naming_the_field(tmp_path: Path) -> None:
    """A hyoka answer file's manifest names its benchmark: ja-vicuna-qa's question ids are
    not M-IFEval's prompt keys, so scoring them would be a number about nothing."""
    prompts = PROMPTS
    answers = tmp_path / "vicuna.jsonl"
    answers.write_text("".join(_answer_line(key, "はい") for key in RULE_KEYS), "utf-8")
    manifest = tmp_path / "vicuna.jsonl.manifest.json"
    identity = {"benchmark": "ja-vicuna-qa", "model_id": "m"}
    manifest.write_text(json.dumps({"kind": "answers/ja-vicuna-qa", "identity": identity}))
    code, out = _hyoka("ifeval", "score", str(answers), "--prompts", str(prompts))
    assert code == 1
    assert out.strip() == (
        f"error: {manifest}: benchmark is 'ja-vicuna-qa', not 'm-ifeval-ja': "
        "another benchmark's answers"
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"prompt": PROMPT, "response": 123}', "response is not text"),
        ('{"prompt": PROMPT, "response": null}', "response is not text"),
        ('{"prompt": PROMPT, "response": "a", "response": "b"}', "key 'response' appears twice"),
        ("TURN_NULL", "the first choice's turn is not text"),
    ],
)
def test_a_response_that_is_not_one_text_is_one_error_naming_the_line(
    tmp_path: Path, line: str, message: str
) -> None:
    """Before, such a line was scored as a failed response, exit 0."""
    prompts = PROMPTS
    first = json.loads(_lines(prompts)[0])
    text = (
        _answer_line(first["key"], None).strip()
        if line == "TURN_NULL"
        else line.replace("PROMPT", json.dumps(first["prompt"], ensure_ascii=False))
    )
    answers = tmp_path / "answers.jsonl"
    answers.write_text(text + "\n", "utf-8")
    code, out = _hyoka("ifeval", "score", str(answers), "--prompts", str(prompts))
    assert code == 1
    (shown,) = out.strip().splitlines()
    assert shown.startswith(f"error: {answers}:1: ")
    assert message in shown


def test_repeats_and_extra_responses_by_the_one_rule(tmp_path: Path) -> None:
    """A line repeated identically counts once with a warning; a second, different response
    to one prompt names both lines; responses to prompts outside the set are counted in a
    warning (a cut prompts file scores part of a full answer file)."""
    prompts = _cut(PROMPTS, tmp_path / "prompts.jsonl", RULE_KEYS)
    kept = _lines(_cut(RESPONSES, tmp_path / "cut.jsonl", RULE_KEYS))
    other = _lines(RESPONSES)[0]  # the response to prompt 1, not in the cut set
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(f"{x}\n" for x in (*kept, kept[1], other)), "utf-8")
    code, out = _hyoka("ifeval", "score", str(answers), "--prompts", str(prompts),
                       "--resamples", "20")  # fmt: skip
    assert code == 0, out
    assert f"warning: {answers}: 1 identical duplicate line(s) dropped\n" in out
    assert f"warning: {answers}: 1 response(s) to prompts not in the prompts file left out\n" in out
    assert f"{answers} (3 prompts)" in out
    # a cut prompts file is not the pinned one: said once, and signed so
    sha = hashlib.sha256(prompts.read_bytes()).hexdigest()[:8]
    assert out.count("warning: ") == 3
    assert (
        f"warning: {prompts} is not the pinned M-IFEval-Ja prompts file: its scores are signed "
        f"data:m-ifeval-ja@{sha}+custom\n" in out
    )
    assert f"|data:m-ifeval-ja@{sha}+custom|" in out.splitlines()[-1]
    changed = json.loads(kept[1]) | {"response": "別の答え"}
    answers.write_text("".join(f"{x}\n" for x in (*kept, json.dumps(changed))), "utf-8")
    code, out = _hyoka("ifeval", "score", str(answers), "--prompts", str(prompts))
    assert code == 1
    (shown,) = [line for line in out.strip().splitlines() if not line.startswith("warning: ")]
    assert shown.startswith(f"error: {answers}:4: a second, different record for the prompt ")
    assert shown.endswith("(first at line 2); remove one of them")


def test_verify_reads_a_repeated_line_once_and_names_both_lines_of_two(tmp_path: Path) -> None:
    """Before, an identical repeat was counted twice ("8/8 agree" of 7 prompts) and a second,
    different line for one prompt was a difference at the later line."""
    strict = _cut(EVALUATIONS / "eval_results_strict.jsonl", tmp_path / "strict", RULE_KEYS)
    kept = _lines(strict)
    target = tmp_path / "eval_results_strict.jsonl"
    target.write_text("".join(f"{x}\n" for x in (*kept, kept[0])), "utf-8")
    code, out = _hyoka("ifeval", "verify", str(target), "--prompts", str(PROMPTS))
    assert code == 0, out
    assert f"warning: {target}: 1 identical duplicate line(s) dropped\n" in out
    assert "and 3/3 prompt verdicts agree" in out
    flipped = json.loads(kept[0]) | {"response": "別の答え"}
    target.write_text("".join(f"{x}\n" for x in (*kept, json.dumps(flipped))), "utf-8")
    for command in (("ifeval", "verify"), ("mtbench", "verify", "--bench", "m-ifeval-ja")):
        code, out = _hyoka(*command, str(target), "--prompts", str(PROMPTS))
        if command[0] == "mtbench":
            code, out = _hyoka(*command, str(target), "--data-dir", str(SHARED_DATA))
        assert code == 1, out
        (shown,) = out.strip().splitlines()
        assert shown.startswith(f"error: {target}:4: a second, different record for the prompt ")


def test_the_leaderboard_refuses_a_file_of_no_known_model_and_one_model_twice(
    tmp_path: Path,
) -> None:
    """Before, an evaluation file was ranked as a model named ``eval_results_strict`` and
    one model's file in two folders gave two rows of one name."""
    board = ("mtbench", "leaderboard", "--bench", "m-ifeval-ja", "--data-dir", str(SHARED_DATA))
    evaluation = EVALUATIONS / "eval_results_strict.jsonl"
    code, out = _hyoka(*board, "--judgments", str(evaluation))
    assert code == 1
    assert out.strip() == (
        f"error: {evaluation}: neither upstream's ja_input_response_data_<model>.jsonl nor a "
        "hyoka answer file (its manifest naming model_id): whose answers these are is not known"
    )
    copy = tmp_path / RESPONSES.name
    copy.write_bytes(RESPONSES.read_bytes())
    code, out = _hyoka(*board, "--judgments", str(RESPONSES), "--judgments", str(copy))
    assert code == 1
    assert out.strip() == (
        f"error: {copy}: answers of {CLAUDE!r} again (also {RESPONSES}); give one file a model"
    )


def test_mtbench_verify_says_absent_prompts_and_drawn_verdicts_not_exactly(tmp_path: Path) -> None:
    """Before: "reproduced exactly (4 lines; ... 2 differ by langdetect's seed alone)" for a
    file of 4 of the 172 prompts whose two verdicts langdetect's unseeded draw decides."""
    strict = _cut(EVALUATIONS / "eval_results_strict.jsonl",
                  tmp_path / "eval_results_strict.jsonl", KEYS)  # fmt: skip
    code, out = _hyoka("mtbench", "verify", "--bench", "m-ifeval-ja", str(strict),
                       "--data-dir", str(SHARED_DATA))  # fmt: skip
    assert code == 0, out
    assert f"{strict}: reproduced except 2 verdict(s) langdetect's unseeded draw decides (4 " in out
    assert "reproduced exactly" not in out
    first_absent = SHARED_DATA / PROMPTS_IN_DATA
    assert f"; 168 of the 172 prompts absent (the first: {first_absent}:5))" in out
    code, out = _hyoka("ifeval", "verify", str(strict), "--prompts", str(PROMPTS), "--seeds", "2")
    assert code == 0, out
    assert (
        f"by langdetect's seed alone; 168 of the 172 prompts absent (the first: {PROMPTS}:5)\n"
        in out
    )
