"""Promise: every setting that changes a judgment's numbers is in the run's identity (what a
resumed file must share) and in its signature, because both are derived from one settings
record whose fields each declare where they count.

Before, what a judgment depended on was listed by hand in three places, and
``--max-attempts`` reached the grading but neither list: runs with 1 and 5 attempts
continued each other's files and signed alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import pytest
from typer.testing import CliRunner, Result

import hyoka.judge
from hyoka.cli.main import app
from hyoka.judge import JudgeRun, JudgeSettings, SingleItem, load_template
from hyoka.judge.single import render_item
from hyoka.settings_record import SettingsRecord, counts
from replay_judge_server import ReplayJudge

#: for every field of every settings record: another value, so each field's effect on the
#: identity and the signature is checked; a new field fails here until it is given one
VARIANTS: dict[type[SettingsRecord], dict[str, Any]] = {
    JudgeSettings: {
        "judge": "openai/other", "script": "0123456789abcdef", "base_url": "http://other:1/v1",
        "base_url_secret": "0123456789abcdef", "temperature": 0.5, "max_tokens": 99,
        "top_logprobs": 20, "repeats": 3, "aggregate": "median", "max_attempts": 5,
        "thinking": "keep",
    },
    JudgeRun: {
        "kind": "judge-other", "benchmark": "other", "data": "other-data",
        "settings": JudgeSettings(judge="openai/other"), "template": "t@2", "models": ("m",),
        "judge_name": "other-name", "rating": "fastchat", "rules": ("no-answer",),
        "lang_check": "script", "methods": ("bs1",), "variant": "stability.v1/turns-1",
        "trials": 5, "verdict": "fastchat-tokens", "draw": "pairwise-n:9:seed=1",
        "served": ("gpt-4o-2024-08-06",), "batch": "openai",
    },
}  # fmt: skip
BASES: dict[type[SettingsRecord], SettingsRecord] = {
    JudgeSettings: JudgeSettings(judge="openai/j", max_attempts=3),
    JudgeRun: JudgeRun(
        kind="judge-single",
        benchmark="answers",
        data="d",
        settings=JudgeSettings(judge="openai/j", max_attempts=3),
        template="t@1",
    ),
}
#: every field left out of the identity or the signature, reviewed: the field's class
#: says why (``counts(why=...)``); adding one to this list is a decision seen in review
LEFT_OUT = {
    ("JudgeSettings", "base_url_secret", "signature"),
    ("JudgeSettings", "top_logprobs", "identity"),
    ("JudgeSettings", "top_logprobs", "signature"),
    ("JudgeRun", "kind", "identity"),
    ("JudgeRun", "kind", "signature"),
    ("JudgeRun", "data", "identity"),
    ("JudgeRun", "models", "signature"),
    ("JudgeRun", "judge_name", "signature"),
    ("JudgeRun", "methods", "identity"),
    ("JudgeRun", "served", "identity"),
    ("JudgeRun", "batch", "identity"),
}


def _records() -> set[type[SettingsRecord]]:
    found, todo = set(), [SettingsRecord]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("hyoka."):
                found.add(sub)
    return found


def test_every_settings_record_is_checked_here() -> None:
    assert hyoka.judge  # imported: its records are made
    assert _records() == set(VARIANTS)
    for record, variants in VARIANTS.items():
        assert set(variants) == set(record.model_fields), record.__name__


@pytest.mark.parametrize(
    ("record", "field"), [(r, f) for r, variants in VARIANTS.items() for f in variants]
)
def test_a_field_changes_identity_and_signature_exactly_as_declared(
    record: type[SettingsRecord], field: str
) -> None:
    base = BASES[record]
    other = base.model_copy(update={field: VARIANTS[record][field]})
    assert getattr(other, field) != getattr(base, field)
    declared = record.counted[field]
    name = record.__name__
    in_identity = other.identity() != base.identity()
    in_signature = other.signature_fields() != base.signature_fields()
    assert in_identity == ((name, field, "identity") not in LEFT_OUT)
    assert in_signature == ((name, field, "signature") not in LEFT_OUT)
    assert (declared.identity is None) == (not in_identity)
    assert (declared.signature is None) == (not in_signature)
    if not (in_identity and in_signature):
        assert declared.why
    if isinstance(other, JudgeRun) and isinstance(base, JudgeRun):
        for run in (base, other):  # the manifest and the signature come from the record alone
            manifest = run.manifest()
            assert manifest.kind == f"judgments/{run.kind}"
            assert manifest.identity == json.loads(json.dumps(run.identity()))
            assert manifest.signature == run.signature().to_json()
        if field == "kind":
            assert other.manifest().kind != base.manifest().kind
            assert other.signature().get("kind") == "judge-other"


#: for every field of every settings record that has a default: that default as a caller
#: writes it out. ``None`` only where "none" is what it means (no server, not a script, no
#: token limit, no rating rule); where it stood for a value (the thinking rule
#: ``strip-think``, one trial), written out it was another run: the defect this checks
SPELLED_DEFAULTS: dict[type[SettingsRecord], dict[str, Any]] = {
    JudgeSettings: {
        "script": None, "base_url": None, "base_url_secret": None, "temperature": 0.0,
        "max_tokens": None, "top_logprobs": None, "repeats": 1, "aggregate": "mean",
        "max_attempts": None, "thinking": "strip-think",
    },
    JudgeRun: {
        "models": (), "judge_name": None, "rating": None, "verdict": None, "draw": None,
        "rules": (), "lang_check": None, "variant": None, "trials": 1, "methods": (),
        "served": (), "batch": None,
    },
}  # fmt: skip
#: what each record needs given (no default)
REQUIRED: dict[type[SettingsRecord], dict[str, Any]] = {
    JudgeSettings: {"judge": "openai/j"},
    JudgeRun: {
        "kind": "judge-single", "benchmark": "answers", "data": "d",
        "settings": JudgeSettings(judge="openai/j"), "template": "t@1",
    },
}  # fmt: skip


def _as_run(record: SettingsRecord) -> JudgeRun:
    """``record`` as the run whose manifest and signature a file keeps."""
    if isinstance(record, JudgeRun):
        return record
    assert isinstance(record, JudgeSettings)
    return JudgeRun.model_validate({**REQUIRED[JudgeRun], "settings": record})


def test_every_default_of_every_settings_record_is_listed_written_out() -> None:
    assert set(SPELLED_DEFAULTS) == set(VARIANTS) == set(REQUIRED)
    for record, spelled in SPELLED_DEFAULTS.items():
        fields = record.model_fields
        assert set(spelled) == {n for n, info in fields.items() if not info.is_required()}
        assert set(REQUIRED[record]) == {n for n, info in fields.items() if info.is_required()}


@pytest.mark.parametrize(
    ("record", "field"), [(r, f) for r, spelled in SPELLED_DEFAULTS.items() for f in spelled]
)
def test_a_default_written_out_is_the_same_run(record: type[SettingsRecord], field: str) -> None:
    """Settings hold values, not their signature's spelling: a default written out has the
    default's identity, manifest, signature and written line, and continues its file."""
    default = record.model_validate(REQUIRED[record])
    spelled = record.model_validate({**REQUIRED[record], field: SPELLED_DEFAULTS[record][field]})
    assert spelled == default
    assert spelled.identity() == default.identity()
    assert spelled.signature_fields() == default.signature_fields()
    assert spelled.model_dump_json() == default.model_dump_json()
    mine, theirs = _as_run(spelled).manifest(), _as_run(default).manifest()
    assert (mine.identity, mine.signature) == (theirs.identity, theirs.signature)
    assert not mine.differences(theirs)


def test_a_default_left_unsaid_reads_back_as_the_default() -> None:
    """A file from before a setting (no key in its lines) or an identity that keeps it as
    ``None`` reads back as the default, and the default is written as it always was."""
    plain = JudgeSettings(judge="openai/j")
    assert plain.thinking == "strip-think"
    assert JudgeSettings.model_validate({"judge": "openai/j", "thinking": None}) == plain
    assert "thinking" not in json.loads(plain.model_dump_json())
    assert plain.identity()["thinking"] is None  # as a file from before the rule holds it
    assert "thinking" not in plain.signature_fields()
    run = JudgeRun.model_validate({**REQUIRED[JudgeRun], "trials": None})
    assert run.trials == 1 and run.identity()["trials"] is None
    assert "trials" not in run.signature_fields()


def test_a_field_that_does_not_say_where_it_counts_is_refused() -> None:
    with pytest.raises(TypeError, match=r"Undeclared\.attempts: declare once"):

        class Undeclared(SettingsRecord):
            attempts: int = 1

    with pytest.raises(TypeError, match=r"Unexplained\.attempts: say why"):

        class Unexplained(SettingsRecord):
            attempts: Annotated[int, counts(signature=False)] = 1


# --- the defect: 1 and 5 attempts ---------------------------------------------------------

ITEMS = [
    SingleItem(id="q1", question="日本の首都は？", answer="東京です。", reference="東京"),
    SingleItem(id="q2", question="富士山の高さは？", answer="3776 m", reference="3776 m"),
]


def _judge(base_url: str, answers: Path, out: Path, attempts: int) -> Result:
    args = ["judge", "single", str(answers), "-j", "openai/judge", "--base-url", base_url,
            "--no-cache", "--output", str(out), "--max-attempts", str(attempts)]  # fmt: skip
    return CliRunner().invoke(app, args)


def _signature(result: Result) -> str:
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("signature: ")]
    return line


def test_runs_with_1_and_5_attempts_neither_continue_nor_sign_alike(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(i.model_dump_json() + "\n" for i in ITEMS), encoding="utf-8")
    template = load_template("single-ref")
    prompts = [str(render_item(template, item)[-1].content) for item in ITEMS]
    # q1 is rated at once; q2 only when asked again: 1 attempt leaves it unrated
    replies = {prompts[0]: "評価: [[8]]", prompts[1]: ["よくわかりません。", "評価: [[6]]"]}
    one, five = tmp_path / "one.jsonl", tmp_path / "five.jsonl"
    with ReplayJudge(replies) as judge:
        first = _judge(judge.base_url, answers, one, 1)
        assert first.exit_code == 0, first.output
        before = one.read_bytes()
        resumed = _judge(judge.base_url, answers, one, 5)
        assert len(judge.received) == 2  # the refused run asked nothing
    assert resumed.exit_code == 1, resumed.output
    (line,) = [line for line in resumed.stderr.splitlines() if line.startswith("error:")]
    assert "holds another run's records (judge.max_attempts: 1 vs 5" in line
    assert one.read_bytes() == before
    with ReplayJudge(replies) as judge:
        separate = _judge(judge.base_url, answers, five, 5)
        assert len(judge.received) == 3
    assert separate.exit_code == 0, separate.output
    assert "|attempts:1|" in _signature(first) and "|attempts:5|" in _signature(separate)
    scores = {
        path.name: {r["id"]: r["score"] for r in map(json.loads, path.read_text().splitlines())}
        for path in (one, five)
    }
    assert scores == {"one.jsonl": {"q1": 8, "q2": -1}, "five.jsonl": {"q1": 8, "q2": 6}}
