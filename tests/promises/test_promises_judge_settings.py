"""Promise: a judgment is signed by the judge that answered it, from Python as from the
command line, and settings that say the same run are the same run.

Before: the judge's settings (its name, script digest and server, which the records, the
file's identity and the signature keep) and the client that answers were built apart, and
the engine compared only the script digests. A Python caller judging with a scripted client
under settings that named ``openai/gpt-4o`` (with the script's digest) had every record and
the signature say ``gpt-4o``: a judge that never answered. ``JudgeSettings(thinking=
"strip-think")``, the default written out, could not continue the file ``JudgeSettings()``
wrote (the settings stored the default as ``None``, its signature's spelling).

Now the settings can be read off the provider that answers (``JudgeSettings.of``), and the
engine refuses, before any call or file, settings naming another judge than the one asked;
a default spelled out is the default (``tests/promises/test_promises_settings.py`` checks
every field of every settings record).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hyoka.errors import InputError
from hyoka.judge import (
    Judged,
    JudgeSettings,
    JudgmentRecord,
    SingleItem,
    judge_plan,
    load_template,
    plan_single,
)
from hyoka.providers import ModelClient, load_provider

ITEMS = [
    SingleItem(id="q1", question="日本の首都は？", answer="東京です。", reference="東京"),
    SingleItem(id="q2", question="富士山の高さは？", answer="3776 m", reference="3776 m"),
]


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "judge.jsonl"
    path.write_text(json.dumps({"reply": "評価: [[7]]"}) + "\n", encoding="utf-8")
    return path


def _judge(client: ModelClient, settings: JudgeSettings, output: Path) -> Judged[JudgmentRecord]:
    plan = plan_single(ITEMS, load_template("single-ref"), settings, output, max_attempts=2)
    return asyncio.run(judge_plan(client, plan))


def _client(spec: str, base_url: str | None = None) -> ModelClient:
    options = {} if base_url is None else {"base_url": base_url}
    return ModelClient(load_provider(spec, **options), concurrency=1)


def test_settings_naming_another_judge_than_the_one_answering_are_refused(
    script: Path, tmp_path: Path
) -> None:
    scripted = _client(f"scripted/{script}")
    pin = scripted.provider.replies_pin
    output = tmp_path / "graded.jsonl"
    # the script's digest copied into settings that name another judge: the records and
    # the signature would say gpt-4o, which never answered
    other = JudgeSettings(judge="openai/gpt-4o", script=pin)
    with pytest.raises(InputError) as refused:
        _judge(scripted, other, output)
    message = str(refused.value)
    assert message.startswith(f"scripted/{script}: not the judge the run's settings name")
    assert f"judge: openai/gpt-4o vs scripted/{script}" in message
    assert not output.exists()  # refused before the file was made
    # a hosted judge asked at another server than its settings name
    served = _client("openai/gpt-4o", base_url="http://127.0.0.1:9/v1")
    elsewhere = JudgeSettings(judge="openai/gpt-4o")
    with pytest.raises(InputError, match=r"base_url: \(none\) vs http://127\.0\.0\.1:9/v1"):
        _judge(served, elsewhere, output)
    assert not output.exists()


def test_settings_read_off_the_judge_sign_the_judge_that_answered(
    script: Path, tmp_path: Path
) -> None:
    client = _client(f"scripted/{script}")
    settings = JudgeSettings.of(client.provider, temperature=0.0)
    assert (settings.judge, settings.script) == (f"scripted/{script}", client.provider.replies_pin)
    judged = _judge(client, settings, tmp_path / "graded.jsonl")
    assert [line.score for line in judged.lines] == [7, 7]
    assert {line.judge.judge for line in judged.lines} == {f"scripted/{script}"}
    signature = judged.run.signature()
    assert signature.get("judge") == f"scripted/{script}"
    assert signature.get("judge-script") == settings.script
    served = _client("openai/gpt-4o", base_url="http://user:pw@127.0.0.1:9/v1?key=s")
    hosted = JudgeSettings.of(served.provider)
    assert hosted.base_url == "http://REDACTED@127.0.0.1:9/v1?key=REDACTED"
    assert hosted == JudgeSettings.for_judge(
        "openai/gpt-4o", base_url="http://user:pw@127.0.0.1:9/v1?key=s"
    )


def test_the_default_spelled_out_continues_the_file_the_default_wrote(
    script: Path, tmp_path: Path
) -> None:
    client = _client(f"scripted/{script}")
    output = tmp_path / "graded.jsonl"
    first = _judge(client, JudgeSettings.of(client.provider), output)
    assert first.report.judged == 2
    written = output.read_bytes()
    spelled = JudgeSettings.of(client.provider, thinking="strip-think", repeats=1)
    again = _judge(client, spelled, output)
    assert (again.report.judged, again.report.done_before) == (0, 2)
    assert output.read_bytes() == written
    assert again.run.signature() == first.run.signature()
