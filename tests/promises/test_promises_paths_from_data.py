"""Names read from data never choose where a file goes (issue 17, items 2 and 14).

A catalogue: each test is one promise, checked on real files in a temporary folder with
attacker-shaped names, and each failed before the fix it guards.

- #2  a reference-set name or question id inside a ``Qxx.json`` (``../../../../x``) is
      refused by ``refset import`` with one line, and nothing outside the work folder is
      created, changed or removed (an existing shard there was unlinked before);
- #2  question ids read from a ``--benchmark`` folder are refused the same way, before any
      model runs, file is read through them or file is written;
- #2  ``refset generate --set-name ..`` (and ``.``) is refused: it made every question share
      one shard folder, so Q02 silently got nothing;
- #14 a bad ``--set-name`` is one ``error:`` line naming the flag, not a validation dump;
- #14 ``pfgen generate`` with a 300-character model name writes its run (the name cut and
      given a hash), where it ended in ``OSError: File name too long``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from replay_judge_server import ReplayJudge

ATTACK = "../../../../x"
QUESTION_DIR = SHARED_DATA / "pfgen-bench" / "data"


def _tree(root: Path) -> dict[str, tuple[str, bytes | None]]:
    """Every entry under ``root``: its kind and, for files, its bytes."""
    found: dict[str, tuple[str, bytes | None]] = {}
    for top, dirs, files in os.walk(root):
        for name in dirs:
            found[str((Path(top) / name).relative_to(root))] = ("dir", None)
        for name in files:
            path = Path(top) / name
            found[str(path.relative_to(root))] = ("file", path.read_bytes())
    return found


def _outside(root: Path, work: Path) -> dict[str, tuple[str, bytes | None]]:
    """The tree of ``root`` without the work folder (which a command may write)."""
    inside = str(work.relative_to(root))
    return {k: v for k, v in _tree(root).items() if k != inside and not k.startswith(inside + "/")}


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


def _question(qid: str, answers: dict[str, list[str]]) -> dict[str, Any]:
    return {"question_id": qid, "question": "時計の針は何回重なる？", "category": "", "note": "",
            "keywords": [], "answers": answers}  # fmt: skip


@pytest.fixture
def box(tmp_path: Path) -> Path:
    """``tmp_path/box/{work,data}``; ``../../../../x`` from a set folder of the work folder
    is ``tmp_path/x``, where a victim's shard already lies."""
    box = tmp_path / "box"
    (box / "data").mkdir(parents=True)
    victim = tmp_path / "x"
    victim.mkdir()
    (victim / "shard-00000.hrs").write_bytes(b"the victim's own file")
    (victim / "generation.json").write_text("{}\n")
    return box


@pytest.mark.parametrize(
    ("qid", "sets"),
    [
        ("Q01", {ATTACK: ["答え"]}),
        ("Q01", {"..": ["答え"], "R": ["答え"]}),
        ("../../../x", {"R": ["答え"]}),
    ],
    ids=["set-name", "dot-dot-set", "question-id"],
)
def test_refset_import_never_writes_or_deletes_outside_the_work_folder(
    box: Path, qid: str, sets: dict[str, list[str]]
) -> None:
    root = box.parent
    work = box / "work"
    data = box / "data"
    (data / "Q01.json").write_text(json.dumps(_question(qid, sets)), encoding="utf-8")
    before = _outside(root, work)
    result = CliRunner().invoke(app, ["refset", "import", str(data), str(work)])
    assert result.exit_code == 1, result.output
    (line,) = _errors(result.output)
    assert str(data / "Q01.json") in line and "cannot be used as a file name" in line
    assert _outside(root, work) == before  # the victim's shard is still there, byte-identical
    assert not work.exists()  # checked before anything was written


def test_a_benchmark_question_id_is_refused_before_anything_runs(box: Path) -> None:
    """The question id of a ``--benchmark`` line names its files (``Qxx.json`` read as its
    metadata, its pool, its published file): ``../../x`` was read and written through."""
    root = box.parent
    work = box / "work"
    bench = box / "data"
    secret = root / "secret.json"  # what ``<bench>/../../secret.json`` reached
    secret.write_text(json.dumps({"keywords": [], "note": "from outside"}), encoding="utf-8")
    line = {"question_id": "../../secret", "question": "問い", "answer": "答え"}
    (bench / "questions.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    before = _outside(root, work)
    commands = [
        ["refset", "generate", str(work), "-m", "openai/x", "--set-name", "P"],
        ["refset", "publish", str(work), str(box / "out")],
    ]
    for command in commands:
        result = CliRunner().invoke(app, [*command, "--benchmark", str(bench)])
        assert result.exit_code == 1, result.output
        (error,) = _errors(result.output)
        assert f"{bench / 'questions.jsonl'}:1" in error and "'../../secret'" in error
        assert _outside(root, work) == before
        assert not work.exists()


@pytest.mark.parametrize("name", ["..", ".", "../P", ".hidden", "a/b", "x" * 101])
def test_refset_generate_refuses_a_set_name_that_is_not_one_folder(
    tmp_path: Path, name: str
) -> None:
    """``--set-name ..`` put Q01's and Q02's shards in one folder (Q02 got nothing); a bad
    name is now one line naming the flag (it was a 4-line pydantic dump)."""
    work = tmp_path / "work"
    command = ["refset", "generate", str(work), "-m", "openai/x", "--set-name", name]
    result = CliRunner().invoke(app, [*command, "--data-dir", str(SHARED_DATA)])
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1, result.output
    (line,) = _errors(result.output)
    assert line.startswith(f"error: invalid generation setting: --set-name {name!r}: ")
    assert list(tmp_path.iterdir()) == []  # not even the work folder


def test_a_good_set_name_gives_each_question_its_own_folder(tmp_path: Path) -> None:
    from hyoka.refset.generate import question_folder

    work = tmp_path / "work"
    folders = {question_folder(work, q, "P.v2-1") for q in ("Q01", "Q02")}
    assert folders == {work / "01-generated" / q / "P.v2-1" for q in ("Q01", "Q02")}


def test_pfgen_generate_with_a_300_character_model_name_writes_its_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-checked")
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    name = "org/" + "m" * 300
    results = tmp_path / "results"
    with ReplayJudge({}, missing_reply="時計の長針と短針は1日に22回重なります。") as server:
        command = ["pfgen", "generate", "-m", "openai/x", "--base-url", server.base_url]
        command += ["--name", name, "--limit", "1", "--trials", "1", "--num-examples", "0"]
        command += ["--results-dir", str(results), "--data-dir", str(SHARED_DATA)]
        result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    (config,) = results.rglob("config.json")
    assert json.loads(config.read_text(encoding="utf-8"))["model"] == name  # the name, whole
    model_folder = config.parent.parent
    assert model_folder.parent == results / "org"
    assert model_folder.name.startswith("m" * 100) and len(model_folder.name.encode()) <= 160
    assert list(config.parent.glob("trial_*.jsonl"))


def test_a_bad_set_name_in_a_generation_file_is_one_line_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "generate.toml"
    config.write_text('work = "work"\nmodel = "openai/x"\nset_name = ".."\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["refset", "generate", "--config", str(config)])
    assert result.exit_code == 1, result.output
    assert _errors(result.output) == [
        f"error: {config}: set_name: a set name is letters, digits, '_', '-' and '.' "
        "(not first), at most 100 characters"
    ]
    assert not (tmp_path / "work").exists()


def test_a_hidden_folder_in_the_work_folder_is_no_question(tmp_path: Path) -> None:
    """Question ids found on disk are plain names too: a tool's hidden folder is skipped,
    not refused as a question id (nor run as one)."""
    data, work = tmp_path / "data", tmp_path / "work"
    data.mkdir()
    (data / "Q01.json").write_text(json.dumps(_question("Q01", {"R": ["答え"]})), "utf-8")
    assert CliRunner().invoke(app, ["refset", "import", str(data), str(work)]).exit_code == 0
    (work / "01-generated" / ".ipynb_checkpoints").mkdir()
    result = CliRunner().invoke(app, ["refset", "normalise", str(work)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (work / "02-normalised").iterdir()) == [
        "Q01.done.json",
        "Q01.jsonl.gz",
        "audit.jsonl",
    ]
