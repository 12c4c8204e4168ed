"""M-IFEval-Ja as one benchmark definition: found by the registry, answered as upstream's
``get_responses.py`` asks (the prompt as the only user message, temperature 0, 2048 new
tokens), and its answers scored by rules through the definition's protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.mtbench import RULE_CHECKED, definition
from hyoka.mtbench.registry import names
from hyoka.providers.embedded import EMBEDDED_MODEL
from wire_servers import OpenAIServer

PROMPTS = SHARED_DATA / "m-ifeval-ja" / "data" / "ja_input_data.jsonl"


def test_the_definition_is_found_and_rule_checked() -> None:
    spec = definition("m-ifeval-ja")
    assert "m-ifeval-ja" in names()
    assert spec.judging is RULE_CHECKED and spec.turns == 1
    assert (spec.generation.other_temperature, spec.generation.max_tokens) == (0.0, 2048)
    assert spec.dialogue.system_message is None


def test_generation_sends_what_upstreams_script_sends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two prompts against a recording server: each request is the prompt alone as the one
    user message, greedy, 2048 tokens (upstream's vLLM ``SamplingParams(temperature=0.0,
    max_tokens=2048)`` and ``[{"role": "user", "content": prompt}]``); the answers file then
    scores by rules with ``hyoka ifeval score``."""
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    prompts = [json.loads(line) for line in PROMPTS.read_text("utf-8").splitlines()[:2]]
    answers = tmp_path / "m.jsonl"
    with OpenAIServer() as server:
        made = CliRunner().invoke(app, [
            "mtbench", "generate", "--bench", "m-ifeval-ja", "-m", "openai/m", "--limit", "2",
            "--base-url", server.base_url, "--no-cache", "--output", str(answers),
            "--template", "chat", "--data-dir", str(SHARED_DATA),
        ])  # fmt: skip
        assert made.exit_code == 0, made.output
        bodies = sorted((r.body for r in server.received), key=lambda b: str(b["messages"]))
    assert len(bodies) == 2
    expected = sorted(([{"role": "user", "content": p["prompt"]}] for p in prompts), key=str)
    assert [b["messages"] for b in bodies] == expected
    assert {(b["temperature"], b["max_tokens"]) for b in bodies} == {(0.0, 2048)}
    assert not any("repetition_penalty" in b or "repeat_penalty" in b for b in bodies)
    lines = [json.loads(line) for line in answers.read_text("utf-8").splitlines()]
    assert [line["question_id"] for line in lines] == [p["key"] for p in prompts]
    # a partial run is not scored as if the other prompts were failed
    refused = CliRunner().invoke(
        app, ["ifeval", "score", str(answers), "--data-dir", str(SHARED_DATA)]
    )
    assert refused.exit_code != 0 and "no response to 170 of the 172 prompts" in refused.output
    scored = CliRunner().invoke(app, [
        "ifeval", "score", str(answers), "--limit", "2", "--json", "--data-dir", str(SHARED_DATA),
    ])  # fmt: skip
    assert scored.exit_code == 0, scored.output
    done = json.loads(scored.output)
    assert "|prompts:2|" in done["signature"]["line"] + "|"
    strict = done["results"][0]["strict"]
    assert (strict["prompts"], strict["instruction_level"]["total"]) == (2, 2)


def test_judge_refuses_a_rule_checked_bench(tmp_path: Path) -> None:
    answers = tmp_path / "a.jsonl"
    answers.write_text("", "utf-8")
    result = CliRunner().invoke(app, [
        "mtbench", "judge", "-j", "openai/j", "--bench", "m-ifeval-ja", "-a", str(answers),
        "--data-dir", str(SHARED_DATA),
    ])  # fmt: skip
    assert result.exit_code != 0
    assert "has no judge" in result.output


@pytest.mark.slow  # about 12 s on two shared cores: the model loads and answers three prompts
def test_end_to_end_on_the_embedded_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``hyoka mtbench generate --bench m-ifeval-ja --limit 3`` on the embedded SmolLM2
    (greedy, a short budget), then ``hyoka ifeval score --limit 3`` of the answer file:
    three prompts scored by rules, strict never above loose."""
    needs("llama_cpp")
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    answers = tmp_path / "smollm2.jsonl"
    made = CliRunner().invoke(app, [
        "mtbench", "generate", "--bench", "m-ifeval-ja", "-m", EMBEDDED_MODEL, "--limit", "3",
        "--max-tokens", "16", "--output", str(answers),
    ])  # fmt: skip
    assert made.exit_code == 0, made.output
    assert "3 dialogue(s) answered" in made.stdout and "system:none (m-ifeval)" in made.stdout
    scored = CliRunner().invoke(app, ["ifeval", "score", str(answers), "--limit", "3", "--json"])
    assert scored.exit_code == 0, scored.output
    done = json.loads(scored.output)["results"][0]
    strict, loose = done["strict"], done["loose"]
    assert strict["prompts"] == loose["prompts"] == 3
    assert strict["instruction_level"]["total"] == 3  # prompts 1-3: one instruction each
    assert strict["prompt_level"]["followed"] <= loose["prompt_level"]["followed"]


@pytest.mark.slow  # about 5 s: each language verdict is drawn again under ten seeds
def test_verify_rescores_upstreams_evaluation_by_the_definitions_rules() -> None:
    """``hyoka mtbench verify --bench m-ifeval-ja`` on upstream's published strict
    evaluation of Claude 3.5 Sonnet: every verdict decided again through the protocol; the
    one prompt whose language verdict upstream drew unseeded is said, not failed."""
    path = SHARED_DATA / "m-ifeval-ja" / "evaluations"
    path = path / "ja_input_response_data_claude-3-5-sonnet-20240620" / "eval_results_strict.jsonl"
    result = CliRunner().invoke(app, [
        "mtbench", "verify", "--bench", "m-ifeval-ja", "--json", "--data-dir", str(SHARED_DATA),
        str(path),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    (check,) = json.loads(result.output)
    assert check["reproduced"] and check["lines"] == 172
    assert (
        "225/226 instruction verdicts agree, 2 differ by langdetect's seed alone" in check["rules"]
    )
