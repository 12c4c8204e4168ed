"""A pfgen ``result.json`` is shown only as far as it still follows from its own files
(issue 29, "nothing silently wrong").

Every reader of ``result.json`` (``pfgen.summary``: the leaderboard, ``score``'s table,
correlate, the report) refuses, with one line naming the file, a result whose answers changed
since it was scored (its ``input_hash`` is no longer the answers' hash), a signature that
contradicts the file's own fields (its data against ``metadata_hash``, its mode against the
config), and a file stripped of a field upstream always writes (``questions``).
``pfgen verify`` compares the whole file, its config and its signature too; and
``pfgen score`` refuses keyword data whose ``importance`` lies outside [0, 1] up front rather
than writing a result its own readers refuse. The runs are published ones (copied); the
one-trial run is quick to rescore.
"""

from __future__ import annotations

import json
import lzma
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, writable_run_copy
from hyoka.cli.main import app
from hyoka.pfgen import Summation
from hyoka.pfgen.provenance import SumFrom, pinned_metadata_hash, run_signature
from hyoka.signature import Signature

SMALL = "openai/chatgpt-o1/9a61e92"  # one trial of 50 answers: quick to rescore
OTHER = "openai/chatgpt-4o-latest/c275a7b"
SUMMATION_MATTERS = "MiniMaxAI/MiniMax-Text-01/74d4af0"  # sequential sums do not reproduce it
DATA = SHARED_DATA / "pfgen-bench" / "data"
CUSTOM_HASH = "1c4f56decf43d41d2dec22e54e449b01bc77855f"


def _invoke(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def _result(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    return data


def _write_result(folder: Path, result: dict[str, Any]) -> None:
    text = json.dumps(result, indent=2, ensure_ascii=False)
    (folder / "result.json").write_text(text, encoding="utf-8")


def _signed(result: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """``result`` with the signature hyoka would write for it, fields changed by
    ``changes`` (a forgery)."""
    fields: dict[str, Any] = {
        "metadata_hash": result["metadata_hash"],
        "summation": Summation.COMPENSATED,
        "sum_from": SumFrom.DEFAULT,
        "config": result["config"],
        "questions": len(result["questions"]),
    }
    fields.update(changes)
    return {**result, "signature": run_signature(**fields).to_json()}


def _skipped_lines(stderr: str) -> list[str]:
    """The files a leaderboard skipped, one line each (rejoined where the console wrapped)."""
    parts = re.split(r"(?:warning|error): ", " ".join(stderr.split()))
    return [part.strip() for part in parts if ": skipped: " in part]


# --- answers changed since scoring ----------------------------------------------------------


@pytest.mark.usefixtures("hyoka_env")
def test_the_leaderboard_skips_a_run_whose_answers_changed_since_scoring(tmp_path: Path) -> None:
    mine = writable_run_copy(SMALL, tmp_path)
    writable_run_copy(OTHER, tmp_path)
    content = lzma.decompress((mine / "trials.jsonl.xz").read_bytes()).decode("utf-8")
    lines = [json.loads(line) for line in content.splitlines()]
    changed = "".join(json.dumps({**r, "answer": "x"}, ensure_ascii=False) + "\n" for r in lines)
    (mine / "trials.jsonl.xz").write_bytes(lzma.compress(changed.encode("utf-8")))

    shown = _invoke("pfgen", "leaderboard", str(tmp_path))
    assert shown.exit_code == 0, shown.output
    assert "chatgpt-o1 " not in shown.stdout and "chatgpt-4o-latest" in shown.stdout
    stderr = " ".join(shown.stderr.split())
    assert f"{mine / 'result.json'}: skipped: answers changed since scoring (" in stderr
    assert "trials.jsonl.xz's input hash is " in stderr
    assert f"not the {_result(mine)['input_hash']} it records" in stderr


@pytest.mark.usefixtures("hyoka_env")
def test_the_leaderboard_reads_runs_whose_answers_are_as_scored(tmp_path: Path) -> None:
    writable_run_copy(SMALL, tmp_path)
    shown = _invoke("pfgen", "leaderboard", str(tmp_path))
    assert shown.exit_code == 0, shown.output
    assert "openai/chatgpt-o1 (qa)" in shown.stdout and "skipped" not in shown.stderr


# --- signatures that contradict the file ----------------------------------------------------


@pytest.mark.usefixtures("hyoka_env")
def test_a_signature_claiming_other_data_than_metadata_hash_is_skipped(tmp_path: Path) -> None:
    mine = writable_run_copy(SMALL, tmp_path)
    writable_run_copy(OTHER, tmp_path)
    # scored with custom data (its metadata_hash), the signature edited to claim the pinned
    result = _signed(_result(mine), metadata_hash=pinned_metadata_hash())
    _write_result(mine, {**result, "metadata_hash": CUSTOM_HASH})

    shown = _invoke("pfgen", "leaderboard", str(tmp_path))
    assert shown.exit_code == 0, shown.output
    assert "chatgpt-o1 " not in shown.stdout
    assert _skipped_lines(shown.stderr) == [
        f"{mine / 'result.json'}: skipped: its signature contradicts the file: data "
        f"pfgen@13581cc9 is not the data its metadata_hash names (pfgen@1c4f56de+custom)"
    ]


@pytest.mark.usefixtures("hyoka_env")
def test_a_signature_claiming_another_mode_than_the_config_is_skipped(tmp_path: Path) -> None:
    mine = writable_run_copy(SMALL, tmp_path)
    result = _result(mine)
    _write_result(mine, _signed(result, config={**result["config"], "mode": "chat"}))
    shown = _invoke("pfgen", "leaderboard", str(tmp_path))
    assert shown.exit_code == 1
    assert _skipped_lines(shown.stderr) == [
        f"{mine / 'result.json'}: skipped: its signature contradicts the file: mode chat is "
        "not the mode its config records (qa)"
    ]


@pytest.mark.usefixtures("hyoka_env")
def test_score_does_not_keep_a_result_whose_signature_contradicts_it(tmp_path: Path) -> None:
    mine = writable_run_copy(SMALL, tmp_path)
    result = _result(mine)
    _write_result(mine, _signed(result, config={**result["config"], "mode": "chat"}))
    scored = _invoke("pfgen", "score", str(mine))
    assert scored.exit_code == 1
    assert (
        f"error: {mine / 'result.json'}: records this run's hashes but cannot be kept as its "
        "result: its signature contradicts the file: mode chat is not the mode its config "
        "records (qa); rescore with --force to replace it"
    ) in " ".join(scored.stderr.split())
    rescored = _invoke("pfgen", "score", str(mine), "--force")
    assert rescored.exit_code == 0, rescored.output
    assert _result(mine)["signature"]["fields"]["mode"] == "qa"


@pytest.mark.usefixtures("hyoka_env")
@pytest.mark.parametrize(
    ("field", "forged"),
    [("data", "pfgen@1c4f56de+custom"), ("sum", "nonsense"), ("questions", "49")],
)
def test_verify_compares_the_signature_with_what_it_recomputes(
    tmp_path: Path, field: str, forged: str
) -> None:
    mine = writable_run_copy(SMALL, tmp_path)
    signed = _signed(_result(mine))
    edited = Signature.from_json(signed["signature"])
    assert edited is not None
    _write_result(mine, {**signed, "signature": edited.with_field(field, forged).to_json()})
    verified = _invoke("pfgen", "verify", str(mine))
    assert verified.exit_code == 1, verified.output
    assert (
        f"{mine}: NOT reproduced (answers: trials.jsonl.xz): first differing field "
        f'signature.{field}: published "{forged}" vs recomputed'
    ) in " ".join(verified.stdout.split())


@pytest.mark.usefixtures("hyoka_env")
def test_verify_finds_a_summation_the_numbers_were_not_made_with(tmp_path: Path) -> None:
    """A run only compensated sums reproduce, signed sequential; where both summations
    make the same numbers (the one-trial run), either signature is true and reproduced."""
    mine = writable_run_copy(SUMMATION_MATTERS, tmp_path)
    _write_result(mine, _signed(_result(mine), summation=Summation.SEQUENTIAL))
    verified = _invoke("pfgen", "verify", str(mine))
    assert verified.exit_code == 1, verified.output
    assert (
        f"{mine}: NOT reproduced (answers: trials.jsonl.xz): first differing field "
        'signature.sum: published "sequential" vs recomputed "compensated"'
    ) in " ".join(verified.stdout.split())
    either = writable_run_copy(SMALL, tmp_path)
    _write_result(either, _signed(_result(either), summation=Summation.SEQUENTIAL))
    verified = _invoke("pfgen", "verify", str(either))
    assert verified.exit_code == 0, verified.output
    assert "reproduced exactly (summation: sequential" in verified.stdout


@pytest.mark.usefixtures("hyoka_env")
def test_verify_reproduces_an_honest_signed_run(tmp_path: Path) -> None:
    mine = writable_run_copy(SMALL, tmp_path)
    _write_result(mine, _signed(_result(mine)))
    verified = _invoke("pfgen", "verify", str(mine))
    assert verified.exit_code == 0, verified.output
    assert "reproduced exactly (summation: compensated" in verified.stdout


# --- stripped files -------------------------------------------------------------------------


@pytest.mark.usefixtures("hyoka_env")
@pytest.mark.parametrize("key", ["questions", "input_hash", "metadata_hash"])
def test_a_result_stripped_of_a_field_upstream_always_writes_is_skipped(
    tmp_path: Path, key: str
) -> None:
    mine = writable_run_copy(SMALL, tmp_path)
    writable_run_copy(OTHER, tmp_path)
    result = _result(mine)
    del result[key]
    _write_result(mine, result)
    shown = _invoke("pfgen", "leaderboard", str(tmp_path))
    assert shown.exit_code == 0, shown.output
    assert "chatgpt-o1 " not in shown.stdout
    assert _skipped_lines(shown.stderr) == [
        f"{mine / 'result.json'}: skipped: not a pfgen-bench result (no '{key}')"
    ]


@pytest.mark.usefixtures("hyoka_env")
def test_verify_finds_the_config_removed_from_the_result(tmp_path: Path) -> None:
    mine = writable_run_copy(SMALL, tmp_path)
    result = _result(mine)
    del result["config"]
    _write_result(mine, result)
    verified = _invoke("pfgen", "verify", str(mine))
    assert verified.exit_code == 1, verified.output
    assert (
        f"{mine}: NOT reproduced (answers: trials.jsonl.xz): first differing field config: "
        "published (missing) vs recomputed"
    ) in " ".join(verified.stdout.split())


# --- keyword importance outside [0, 1] ------------------------------------------------------


@pytest.fixture(scope="module")
def odd_importance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory whose Q07.json weighs a keyword 1.5 (upstream scores it: a negative
    factor); the other files are links to the shared, pinned ones."""
    root = tmp_path_factory.mktemp("importance")
    folder = root / "pfgen-bench" / "data"
    folder.mkdir(parents=True)
    for path in DATA.iterdir():
        (folder / path.name).symlink_to(path)
    q07 = json.loads((DATA / "Q07.json").read_text(encoding="utf-8"))
    q07["keywords"][0]["importance"] = 1.5
    (folder / "Q07.json").unlink()
    (folder / "Q07.json").write_text(json.dumps(q07, ensure_ascii=False), encoding="utf-8")
    return root


def test_score_refuses_a_keyword_importance_outside_0_to_1(
    tmp_path: Path, odd_importance: Path, index_cache_dir: Path
) -> None:
    mine = writable_run_copy(SMALL, tmp_path)
    before = (mine / "result.json").read_bytes()
    env = {"HYOKA_CACHE_DIR": str(index_cache_dir), "HYOKA_DATA_DIR": str(odd_importance)}
    scored = _invoke("pfgen", "score", str(mine), "--force", env=env)
    assert scored.exit_code == 1, scored.output
    q07 = odd_importance / "pfgen-bench" / "data" / "Q07.json"
    errors = [line for line in scored.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, scored.stderr
    assert (
        " ".join(scored.stderr.split()).count(
            f"error: {q07} (Q07): keyword 1: 'importance' 1.5 is outside [0, 1]"
        )
        == 1
    )
    assert (mine / "result.json").read_bytes() == before


# --- two runs of one model ------------------------------------------------------------------


@pytest.mark.usefixtures("hyoka_env")
def test_score_tells_two_runs_of_one_model_apart(tmp_path: Path) -> None:
    first = writable_run_copy(SMALL, tmp_path)
    second = first.parent / "1111111"
    second.mkdir()
    for path in first.iterdir():
        (second / path.name).write_bytes(path.read_bytes())
    scored = _invoke("pfgen", "score", str(tmp_path), env={"COLUMNS": "200"})
    assert scored.exit_code == 0, scored.output
    rows = [line for line in scored.stdout.splitlines() if "chatgpt-o1" in line]
    assert len(rows) == 2
    assert "[run 9a61e92]" in rows[0] + rows[1] and "[run 1111111]" in rows[0] + rows[1]
