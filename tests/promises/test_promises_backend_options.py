"""Promise: a backend option (``-o KEY=VALUE``) a provider does not take is one line naming
the option and the flag, never a traceback.

Before: the registry passed every ``-o`` option to the backend's constructor, so a backend
whose constructor names its options (scripted, llama.cpp, transformers) raised Python's
``TypeError: ScriptedProvider.__init__() got an unexpected keyword argument 'temperature'``
out of ``hyoka judge single``, ``hyoka mtbench judge`` and ``hyoka mtbench generate``.

Now the registry checks the options against what each backend takes (its declared options,
else its constructor's keyword parameters) before building it: the library's error names
the option, the command line's names ``-o`` too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.providers import load_provider

FIN_ANSWERS = SHARED_DATA / "pfmt-bench-fin-ja" / "model_answer" / "gpt-4.jsonl"


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"reply": "評価: [[9]]"}, ensure_ascii=False) + "\n", "utf-8")
    return path


def _commands(tmp_path: Path, judge: str) -> dict[str, list[str]]:
    one = tmp_path / "one.jsonl"
    item = {"id": "q1", "question": "a?", "answer": "b", "reference": "c"}
    one.write_text(json.dumps(item) + "\n", "utf-8")
    out = str(tmp_path / "out")
    return {
        "judge single": ["judge", "single", str(one), "-j", judge],
        "mtbench judge": ["mtbench", "judge", "-a", str(FIN_ANSWERS), "-j", judge,
                          "--limit", "1", "--output-dir", out],
        "mtbench generate": ["mtbench", "generate", "-m", judge, "--limit", "1",
                             "--output", str(tmp_path / "answers.jsonl")],
    }  # fmt: skip


@pytest.mark.parametrize("command", ["judge single", "mtbench judge", "mtbench generate"])
def test_an_option_a_scripted_model_does_not_take_is_one_line(
    script: Path, tmp_path: Path, command: str
) -> None:
    spec = f"scripted/{script}"
    args = [*_commands(tmp_path, spec)[command], "-o", "temperature=0.7"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output.splitlines() == [f"error: -o temperature: {spec} takes no backend options"]
    assert not (tmp_path / "out").exists() and not (tmp_path / "answers.jsonl").exists()


def _spec(provider: str, tmp_path: Path) -> str:
    model = {"scripted": str(tmp_path / "s.jsonl"), "llamacpp": str(tmp_path / "m.gguf")}
    return f"{provider}/{model.get(provider, 'some-model')}"


#: each backend's module, for the ones whose SDK may be missing here
_SDK = {"openai": "openai", "anthropic": "anthropic", "google": "google.genai",
        "hf": "transformers", "vllm": "vllm", "llamacpp": "llama_cpp"}  # fmt: skip


#: one backend of each way of taking options (named parameters: scripted, llamacpp, as hf;
#: declared: openai, google, as anthropic), whose modules load fast
_EACH_WAY = ("scripted", "llamacpp", "openai", "google")


@pytest.mark.parametrize("provider", _EACH_WAY)
def test_every_backend_names_an_option_it_does_not_take(
    script: Path, tmp_path: Path, provider: str
) -> None:
    """Checked before the backend is built: no key, server or model file is needed to be
    told, and the error names the option and what the backend takes."""
    from hyoka.providers.errors import UnknownOptionError

    if provider in _SDK:
        needs(_SDK[provider])
    spec = _spec(provider, tmp_path)
    with pytest.raises(UnknownOptionError) as caught:
        load_provider(spec, temperature=0.7, n_ctx=512, timeout=5)
    message = str(caught.value)
    assert "temperature" in caught.value.options
    assert "option temperature" in message and f": {spec} takes no " in message
    if provider == "scripted":
        assert caught.value.options == ("n_ctx", "temperature", "timeout")
        assert message == (
            f"option n_ctx, option temperature, option timeout: {spec} takes no backend options"
        )
    if provider == "llamacpp":  # its own options pass, the unknown one is named with them
        assert caught.value.options == ("temperature", "timeout")
        assert "(it takes: chat_template, flash_attn, n_ctx, n_gpu_layers," in message


def test_a_key_given_as_an_option_is_told_where_keys_come_from(tmp_path: Path) -> None:
    from hyoka.providers.errors import UnknownOptionError

    needs("openai")
    with pytest.raises(UnknownOptionError) as caught:
        load_provider("openai/gpt-4o-mini", api_key="sk-never-shown")
    message = str(caught.value)
    assert message == (
        "option api_key: openai/gpt-4o-mini takes no such backend option (it takes: "
        "api_version, azure_endpoint, timeout; API keys are read from OPENAI_API_KEY or "
        "AZURE_OPENAI_API_KEY)"
    )
    assert "sk-never" not in message


def test_an_option_vllm_passes_on_is_not_refused_here() -> None:
    """vLLM's options go to ``vllm.LLM`` unchanged (its engine checks them)."""
    provider = load_provider("vllm/some-model", dtype="float16")  # vllm loads on first use
    assert provider.name == "vllm"
