"""The scripted provider: replies from a script file, so a judge's numbers are exact.

Judge tests that assert a value (a median, a retry, a replayed published score) run on
``scripted/PATH``; the real SmolLM2 judge keeps one test per protocol for the wiring.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.judge import plan_single, read_judgments, run_judging
from hyoka.judge.records import JudgeSettings
from hyoka.judge.single import SingleItem
from hyoka.judge.templates import load_template
from hyoka.providers import (
    GenerationRequest,
    Message,
    ModelClient,
    ProviderError,
    SamplingParams,
    load_provider,
    script_pin,
)

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
PUBLISHED = FIN / "model_judgment" / "gpt-4o-mini_single"


def _script(path: Path, *rules: dict[str, Any]) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules), "utf-8")
    return f"scripted/{path}"


def _ask(spec: str, text: str, *, n: int = 1, logprobs: bool = False) -> list[str]:
    provider = load_provider(spec)
    request = GenerationRequest(
        messages=(Message(role="system", content="s"), Message(role="user", content=text)),
        params=SamplingParams(logprobs=logprobs),
        n=n,
    )
    return [c.text for c in asyncio.run(provider.generate(request)).choices]


def test_exact_rules_then_contains_then_default_each_in_sequence(tmp_path: Path) -> None:
    spec = _script(
        tmp_path / "s.jsonl",
        {"contains": "犬", "reply": "contains"},
        {"prompt": "犬が好き", "reply": ["first", "second"]},
        {"reply": "default"},
        {"reply": "a second default is never used"},
    )
    provider = load_provider(spec)

    def ask(text: str, n: int = 1) -> list[str]:
        request = GenerationRequest(messages=(Message(role="user", content=text),), n=n)
        return [c.text for c in asyncio.run(provider.generate(request)).choices]

    assert ask("犬が好き") == ["first"]
    assert ask("犬が好き", n=2) == ["second", "second"]  # the last reply again after that
    assert ask("私は犬が好き") == ["contains"]
    assert ask("猫") == ["default"]
    assert (
        provider.identity()["script_sha256"]
        == __import__("hashlib").sha256((tmp_path / "s.jsonl").read_bytes()).hexdigest()
    )


def test_a_request_no_rule_answers_is_one_error_naming_the_script(tmp_path: Path) -> None:
    spec = _script(tmp_path / "s.jsonl", {"prompt": "x", "reply": "y"})
    with pytest.raises(ProviderError, match=r"scripted/.*s\.jsonl: no rule answers .*'猫'"):
        _ask(spec, "猫")
    with pytest.raises(ProviderError, match="no script file"):
        load_provider(f"scripted/{tmp_path / 'missing.jsonl'}")
    with pytest.raises(ProviderError, match="takes no `base_url`"):
        load_provider(spec, base_url="http://127.0.0.1:1/v1")


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ({"reply": 7}, "'reply' must be a text"),
        ({"reply": []}, "'reply' must be a text"),
        ({"prompt": "a", "contains": "b", "reply": "c"}, "not both"),
        ({"reply": "x", "alternatives": {"A": 0.5}}, "log probabilities <= 0"),
        ({"prompt": 3, "reply": "c"}, "'prompt' must be a text"),
    ],
)
def test_a_bad_rule_names_its_file_and_line(
    tmp_path: Path, rule: dict[str, Any], problem: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"reply": "ok"}\n' + json.dumps(rule) + "\n", "utf-8")
    with pytest.raises(InputError, match=rf"bad\.jsonl:2: .*{problem}"):
        load_provider(f"scripted/{path}")


def test_log_probabilities_carry_the_scripted_alternatives(tmp_path: Path) -> None:
    spec = _script(
        tmp_path / "s.jsonl", {"reply": "[[A]]", "alternatives": {"A": -0.25, "B": -1.5}}
    )
    provider = load_provider(spec)
    request = GenerationRequest(prompt="q", params=SamplingParams(logprobs=True, top_logprobs=5))
    (choice,) = asyncio.run(provider.generate(request)).choices
    assert choice.logprobs is not None
    assert [t.token for t in choice.logprobs] == list("[[A]]")
    verdict = choice.logprobs[2]
    assert verdict.logprob == -0.25
    assert [(t.token, t.logprob) for t in verdict.top] == [("A", -0.25), ("B", -1.5)]
    assert all(t.logprob == 0.0 for i, t in enumerate(choice.logprobs) if i != 2)


def test_the_median_of_two_repeats_is_exact(tmp_path: Path) -> None:
    """Replies ``[[7]]`` then ``[[9]]``: the median is 8, whatever any model would write."""
    spec = _script(tmp_path / "judge.jsonl", {"reply": ["評価: [[7]]", "評価: [[9]]"]})
    item = SingleItem(id="q1", question="富士山の高さは?", answer="3776 m", reference="3776 m")
    settings = JudgeSettings(
        judge=spec, script=script_pin(spec), temperature=1.0, repeats=2, aggregate="median"
    )
    output = tmp_path / "judgments.jsonl"
    client = ModelClient(load_provider(spec), cache=None)
    plan = plan_single([item], load_template("pfgen-single"), settings, output)
    report = asyncio.run(run_judging(client, plan))
    (record,) = read_judgments(output)
    assert (report.judge_calls, record.scores, record.score) == (2, (7.0, 9.0), 8.0)
    assert tuple(record.replies) == ("評価: [[7]]", "評価: [[9]]")


def test_published_judgments_replay_as_a_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A published FastChat judgment file is a script as it stands: re-judging the published
    answers of one pfmt-bench-fin-ja model gives its published score on every turn the
    judge was asked."""
    model = "claude-3-haiku-20240307"
    published = [
        json.loads(line) for line in (PUBLISHED / f"{model}.jsonl").read_text("utf-8").splitlines()
    ]
    # the published judge replies (not the turns upstream decided without a call), plus a
    # default for a turn hyoka's language check sends and upstream's did not
    replies = [r for r in published if r["judgment"] not in ("No answer", "Incorrect language")]
    spec = _script(tmp_path / "script.jsonl", *replies, {"reply": "unrecorded"})
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    output = tmp_path / "judgments"
    args = ["mtbench", "judge", "--bench", "pfmt-fin", "-j", spec, "--no-cache"]
    args += ["--output-dir", str(output), "--lang-check", "upstream"]
    args += ["-a", str(FIN / "model_answer" / f"{model}.jsonl")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (written,) = [p for p in output.rglob("*.jsonl") if not p.name.endswith(".manifest.json")]
    ours = {
        (r["question_id"], r["turn"]): r
        for r in map(json.loads, written.read_text("utf-8").splitlines())
    }
    rules = ("No answer", "Incorrect language")
    same = disagreed = 0
    for theirs in published:
        mine = ours[(theirs["question_id"], theirs["turn"])]
        if mine["judgment"] in rules or theirs["judgment"] in rules:
            # a turn only one side's language check ruled out (fastText models differ on a
            # few first lines): no published reply to compare with
            disagreed += mine["judgment"] != theirs["judgment"]
            continue
        assert (mine["judgment"], mine["score"]) == (theirs["judgment"], theirs["score"])
        assert type(mine["score"]) is type(theirs["score"])  # FastChat writes integers
        same += 1
    assert same > 600 and disagreed <= 0.02 * len(published), (same, disagreed)
