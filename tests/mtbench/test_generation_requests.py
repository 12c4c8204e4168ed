"""Exact from the first request (issue 31, items 1 and 4): what ``hyoka mtbench generate``
sends a model equals what each suite's own generation script sends it, for several names.

Every expected request is written here from reading upstream (no code of theirs run or
copied): lm-sys FastChat 0e6d3e4's ``gen_api_answer.py`` and ``common.py``
(``chat_completion_openai``: the conversation template's ``to_openai_api_messages()``, the
category's temperature, ``--max-tokens`` 1024) with the template its adapter table in
``model/model_adapter.py`` picks for the name and that template's system message in
``conversation.py``; swallow-evaluation 57c4ecd's fork of the same (Japanese adapters and
templates of its own); Stability-AI FastChat jp-stable e37eb28 (``gen_api_answer.py``
takes ``gpt-3.5-turbo`` and ``gpt-4`` only, 1024 tokens; ``gen_model_answer.py`` answers
any other model with its table's template and 512 tokens); ja-vicuna-qa-benchmark
128a862 (``gen_gpt3.5_answer.py`` with ``configs/openai--text-davinci-003.json``: the
legacy completions endpoint, the question alone, temperature 0, top_p 1, 2048 tokens).
FastChat's scripts also pass ``n=1``, the API's default, which hyoka leaves out; nothing
else differs: each request body is compared whole.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, fastchat_data, stand_in_message, stand_in_signed
from hyoka.cli.main import app
from hyoka.mtbench.conversation_templates import FASTCHAT, STABILITY, SWALLOW
from wire_servers import OpenAIServer

REPLY = "Answer."


def _message(template: str) -> str | None:
    """The system message FastChat sends for ``template`` as the stand-in for upstream's
    ``conversation.py`` registers it (``_shared.stand_in_message``): none where empty."""
    return stand_in_message(template) or None


CHATGPT = stand_in_message("chatgpt")
FASTCHAT_TEMPERATURES = {
    "writing": 0.7, "roleplay": 0.7, "extraction": 0.0, "math": 0.0, "coding": 0.0,
    "reasoning": 0.0, "stem": 0.1, "humanities": 0.1,
}  # fmt: skip
STABILITY_TEMPERATURES = {
    "writing": 0.5, "roleplay": 0.5, "extraction": 0.2, "math": 0.1, "coding": 0.1,
    "reasoning": 0.1, "stem": 0.2, "humanities": 0.2,
}  # fmt: skip
#: ja-vicuna-qa-benchmark 128a862 ``gen_model_answer.py``: ``config.get("generation_config",
#: {})`` is the config's own dict, and the first question (generic) sets its temperature
#: there, 0.1, which every later question then finds set (every shipped local config has a
#: ``generation_config`` without one): 0.1 for all 80 questions
VICUNA_CATEGORIES = (
    "generic", "knowledge", "roleplay", "common-sense", "fermi", "counterfactual", "coding",
    "math", "writing",
)  # fmt: skip
VICUNA_TEMPERATURES = dict.fromkeys(VICUNA_CATEGORIES, 0.1)
LIMIT = 2


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``../shared/data`` with the suites' ``sources`` (the stand-ins) fetched."""
    return fastchat_data(tmp_path_factory.mktemp("data"))


def _questions(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()][:LIMIT]


def _generate(
    server: OpenAIServer,
    tmp_path: Path,
    bench: str,
    model: str,
    *flags: str,
    data: Path = SHARED_DATA,
) -> tuple[int, str, list[dict[str, Any]]]:
    """``hyoka mtbench generate`` of ``model`` on the first questions (from ``data``): its
    exit code and output, and the bodies the server received with the path each went to."""
    server.reset()
    server.reply_to_all = REPLY
    args = ["mtbench", "generate", "--bench", bench, "-m", f"openai/{model}"]
    args += ["--base-url", server.base_url, "--limit", str(LIMIT), "--no-cache"]
    args += ["--output", str(tmp_path / "answers.jsonl"), "--data-dir", str(data)]
    env = {"HYOKA_CACHE_DIR": str(tmp_path / "cache")}
    result = CliRunner().invoke(app, [*args, *flags], env=env)
    sent = [{"path": r.path, **r.body} for r in server.received]
    return result.exit_code, result.output, sent


def _chat(
    model: str,
    system: str | None,
    questions: list[dict[str, Any]],
    temperatures: dict[str, float],
    max_tokens: int,
    **extra: Any,
) -> list[dict[str, Any]]:
    """The requests of a FastChat ``get_answer`` for each question: per turn, the
    template's system message (none if empty), the turns so far with the replies, and
    ``extra`` fields in every request."""
    requests = []
    for question in questions:
        messages = [] if system is None else [{"role": "system", "content": system}]
        for turn in question["turns"]:
            messages = [*messages, {"role": "user", "content": turn}]
            requests.append({
                "path": "/v1/chat/completions", "model": model, "messages": messages,
                "temperature": temperatures.get(question["category"], 0.7),
                "max_tokens": max_tokens, **extra,
            })  # fmt: skip
            messages = [*messages, {"role": "assistant", "content": REPLY}]
    return requests


def _same(sent: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    # dialogues run concurrently: compare the requests (every field) as a multiset
    def key(body: dict[str, Any]) -> str:
        return json.dumps(body, sort_keys=True, ensure_ascii=False)

    assert sorted(map(key, sent)) == sorted(map(key, expected))


def _signed(output: str, field: str) -> str:
    line = next(x for x in output.splitlines() if x.startswith("signature: "))
    return dict(f.split(":", 1) for f in line.removeprefix("signature: ").split("|"))[field]


def _system(output: str) -> str:
    return _signed(output, "system")


MT_NAMES = [
    ("gpt-4", "chatgpt"),
    ("gpt-4o-mini", "one_shot"),  # not in its OpenAI list: the base adapter
    ("gpt-4-0613", "chatgpt"),
    ("gpt-4o-2024-08-06", "gpt-mini"),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen-7b-chat"),
    ("meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama-3.1"),
    ("mistralai/Mistral-7B-Instruct-v0.3", "mistral"),  # an empty system message
    ("my-own-model", "one_shot"),
]


@pytest.mark.parametrize(("model", "template"), MT_NAMES, ids=[n[0] for n in MT_NAMES])
def test_mt_bench_sends_the_template_fastchat_picks_for_the_name(
    server: OpenAIServer, data_dir: Path, tmp_path: Path, model: str, template: str
) -> None:
    code, out, sent = _generate(server, tmp_path, "mt-bench", model, data=data_dir)
    assert code == 0, out
    questions = _questions(SHARED_DATA / "mt-bench/question.jsonl")
    _same(sent, _chat(model, _message(template), questions, FASTCHAT_TEMPERATURES, 1024))
    assert _system(out) == stand_in_signed("fastchat", template, FASTCHAT.texts.silent)


STABILITY_NAMES = [
    # gen_api_answer.py: its two API names, 1024 tokens
    ("gpt-4", "chatgpt", 1024),
    ("gpt-3.5-turbo", "chatgpt", 1024),
    # any other name: gen_model_answer.py's template for it, 512 new tokens
    ("gpt-4o-mini", "one_shot", 512),
    ("japanese-stablelm-instruct-alpha-7b", "jslm_alpha", 512),
    # its StableLM adapter takes any name with "stablelm", before Qwen's or Llama's
    ("stabilityai/japanese-stablelm-instruct-beta-70b", "stablelm", 512),
]


@pytest.mark.parametrize(
    ("model", "template", "budget"), STABILITY_NAMES, ids=[n[0] for n in STABILITY_NAMES]
)
def test_stability_jmt_bench_sends_what_jp_stable_sends(
    server: OpenAIServer, data_dir: Path, tmp_path: Path, model: str, template: str, budget: int
) -> None:
    """A name ``gen_model_answer.py`` answers is decoded with its ``--top-p`` 0.9 (sent,
    and signed); its ``--repetition-penalty`` 1.1 is no standard parameter of this wire
    (vLLM's extension, refused by the official API): applied to models run here, sent to a
    server only when asked, and the signature says none was."""
    code, out, sent = _generate(server, tmp_path, "jmt-bench", model, "--variant", "stability",
                                data=data_dir)  # fmt: skip
    assert code == 0, out
    questions = _questions(SHARED_DATA / "jmt-bench/question.jsonl")
    local = {} if budget == 1024 else {"top_p": 0.9}
    system = _message(template)
    _same(sent, _chat(model, system, questions, STABILITY_TEMPERATURES, budget, **local))
    assert _system(out) == stand_in_signed("stability-fastchat", template, STABILITY.texts.silent)
    assert _signed(out, "repetition-penalty") == "none"
    assert ("|top-p:0.9" in out) == bool(local)


SWALLOW_NAMES = [
    ("gpt-4", "chatgpt"),
    ("gpt-4o-mini", "one_shot"),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen-7b-chat"),
    # its table has no Llama 3.1 adapter: "llama-3" takes the name, with its Japanese message
    ("meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3"),
    ("tokyotech-llm/Llama-3.1-Swallow-8B-Instruct-v0.3", "llama-3"),
    ("cyberagent/calm3-22b-chat", "calm3"),
]


@pytest.mark.parametrize(("model", "template"), SWALLOW_NAMES, ids=[n[0] for n in SWALLOW_NAMES])
def test_swallow_jmt_bench_sends_what_swallow_evaluation_sends(
    server: OpenAIServer, data_dir: Path, tmp_path: Path, model: str, template: str
) -> None:
    flags = ("--variant", "swallow", "--trials", "1")  # gen_api_answer.py's one choice
    code, out, sent = _generate(server, tmp_path, "jmt-bench", model, *flags, data=data_dir)
    assert code == 0, out
    questions = _questions(SHARED_DATA / "jmt-bench/variants/swallow-evaluation/question.jsonl")
    _same(sent, _chat(model, _message(template), questions, FASTCHAT_TEMPERATURES, 1024))
    assert _system(out) == stand_in_signed("swallow-fastchat", template, SWALLOW.texts.silent)


def test_ja_vicuna_qa_offers_upstreams_legacy_completions(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """``--template completions``: the question alone on the completions endpoint at the
    text-davinci-003 config's settings; by default a chat request without a system
    message (upstream's local models' configs set none) at 0.1 for every category, as
    upstream's first question leaves it (``VICUNA_TEMPERATURES``)."""
    questions = _questions(SHARED_DATA / "ja-vicuna-qa/question.jsonl")
    model = "text-davinci-003"
    code, out, sent = _generate(server, tmp_path / "a", "ja-vicuna-qa", model, "--template",
                                "completions")  # fmt: skip
    assert code == 0, out
    _same(sent, [
        {"path": "/v1/completions", "model": model, "prompt": q["turns"][0],
         "temperature": 0.0, "top_p": 1.0, "max_tokens": 2048}
        for q in questions
    ])  # fmt: skip
    assert "template:completions|" in out and _system(out) == "none (completions)"
    code, out, sent = _generate(server, tmp_path / "b", "ja-vicuna-qa", "m", "--template", "chat")
    assert code == 0, out
    _same(sent, _chat("m", None, questions, VICUNA_TEMPERATURES, 2048))
    assert _system(out) == "none (ja-vicuna-qa)"
    signed = _signed(out, "temperatures").split(",")
    assert sorted(signed) == sorted(f"{c}=0.1" for c in VICUNA_CATEGORIES)


def test_a_template_whose_message_hyoka_lacks_is_refused_before_any_call(
    server: OpenAIServer, data_dir: Path, tmp_path: Path
) -> None:
    """FastChat picks ``claude-3-haiku-20240307`` for that name, a template the
    ``conversation.py`` at hand does not register: one line naming the template, no
    request; ``--system-message`` sends that message instead, signed as an override."""
    code, out, sent = _generate(server, tmp_path / "a", "mt-bench", "claude-3-haiku-20240307",
                                data=data_dir)  # fmt: skip
    assert code == 1 and sent == []
    assert "'claude-3-haiku-20240307'" in out and "--system-message" in out
    assert "Traceback" not in out
    flags = ("--system-message", "Be brief.")
    code, out, sent = _generate(server, tmp_path / "b", "mt-bench", "claude-3-haiku-20240307",
                                *flags)  # fmt: skip
    assert code == 0, out
    assert {s["messages"][0]["content"] for s in sent} == {"Be brief."}
    assert _system(out).startswith("custom@")
    code, out, sent = _generate(server, tmp_path / "c", "mt-bench", "m", "--template",
                                "completions")  # fmt: skip
    assert code == 1 and sent == [] and "no legacy-completions protocol" in out


def _prompts(sent: list[dict[str, Any]]) -> set[str]:
    assert {s["path"] for s in sent} == {"/v1/completions"}
    return {s["prompt"] for s in sent}


def test_a_base_transcript_is_signed_by_the_line_it_opens_with(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """``--template base`` sends no chat system message: the signature and the manifest
    name the transcript's own opening line (none for MT-bench's English one, pfmt's for the
    Japanese), never the conversation template a chat request would have had;
    ``--system-message`` opens the transcript with its text (signed ``custom@``) and
    ``--no-system-message`` with nothing (signed ``none``)."""
    mt = _questions(SHARED_DATA / "mt-bench/question.jsonl")
    code, out, sent = _generate(server, tmp_path / "a", "mt-bench", "lmsys/vicuna-7b-v1.5",
                                "--template", "base")  # fmt: skip
    assert code == 0, out
    assert f"### User: {mt[0]['turns'][0]}\n\n### Assistant:" in _prompts(sent)
    assert _system(out) == "none"
    manifest = json.loads((tmp_path / "a/answers.jsonl.manifest.json").read_text("utf-8"))
    assert manifest["identity"]["system_message"] is None
    swallow = ("--variant", "swallow", "--trials", "1", "--template", "base")
    code, out, sent = _generate(server, tmp_path / "b", "jmt-bench", "m", *swallow)
    assert code == 0, out
    assert all(
        p.startswith("あなたは優秀なアシスタントです。\n\n### ユーザー: ") for p in _prompts(sent)
    )
    assert _system(out) == "pfmt-upstream"
    code, out, sent = _generate(server, tmp_path / "c", "jmt-bench", "m", *swallow,
                                "--system-message", "XYZ")  # fmt: skip
    assert code == 0, out
    assert all(p.startswith("XYZ\n\n### ユーザー: ") for p in _prompts(sent))
    assert _system(out) == f"custom@{hashlib.sha256(b'XYZ').hexdigest()[:8]}"
    code, out, sent = _generate(server, tmp_path / "d", "jmt-bench", "m", *swallow,
                                "--no-system-message")  # fmt: skip
    assert code == 0, out
    assert all(p.startswith("### ユーザー: ") for p in _prompts(sent))
    assert _system(out) == "none"


def test_a_given_system_message_is_signed_as_an_override_and_an_empty_one_is_none(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """``--system-message`` with the very text FastChat's ``chatgpt`` template has is still
    the user's choice (FastChat picks ``one_shot`` for gpt-4o): signed ``custom@``. An empty
    one is no system message, as FastChat's ``to_openai_api_messages`` leaves an empty one
    out: none sent, signed ``none``."""
    code, out, sent = _generate(server, tmp_path / "a", "mt-bench", "gpt-4o",
                                "--system-message", CHATGPT)  # fmt: skip
    assert code == 0, out
    assert {s["messages"][0]["content"] for s in sent} == {CHATGPT}
    assert _system(out) == f"custom@{hashlib.sha256(CHATGPT.encode()).hexdigest()[:8]}"
    code, out, sent = _generate(server, tmp_path / "b", "mt-bench", "gpt-4o",
                                "--system-message", "")  # fmt: skip
    assert code == 0, out
    assert {s["messages"][0]["role"] for s in sent} == {"user"}
    assert _system(out) == "none"


def test_one_name_never_resumes_another_models_answers(
    server: OpenAIServer, data_dir: Path, tmp_path: Path
) -> None:
    """``--name`` names the file, not the model: answers of ``openai/gpt-4`` under
    ``--name foo`` are not continued by ``openai/gpt-3.5-turbo`` under the same name (one
    line naming both, no request); the same model continues them."""
    named = ("--name", "foo")
    code, out, _sent = _generate(server, tmp_path, "mt-bench", "gpt-4", *named, data=data_dir)
    assert code == 0, out
    code, out, sent = _generate(server, tmp_path, "mt-bench", "gpt-3.5-turbo", *named,
                                data=data_dir)  # fmt: skip
    assert code == 1 and sent == []
    assert 'model: "openai/gpt-4" vs "openai/gpt-3.5-turbo"' in out
    code, out, sent = _generate(server, tmp_path, "mt-bench", "gpt-4", *named, data=data_dir)
    assert code == 0 and sent == [], out


SOURCES_NEEDED = [
    ("mt-bench", "gpt-4", ()),
    ("jmt-bench", "gpt-4", ("--variant", "stability")),
    ("jmt-bench", "cyberagent/calm3-22b-chat", ("--variant", "swallow", "--trials", "1")),
]


@pytest.mark.parametrize(("bench", "model", "flags"), SOURCES_NEEDED,
                         ids=[f"{b}-{m}" for b, m, _ in SOURCES_NEEDED])  # fmt: skip
def test_a_system_message_without_the_sources_stops_before_any_request(
    server: OpenAIServer, tmp_path: Path, bench: str, model: str, flags: tuple[str, ...]
) -> None:
    """The templates' messages are read from upstream's ``conversation.py``, fetched with
    the suite's ``sources`` group: where it is not there, a name whose template has a
    message stops in one line naming the suite and the command that fetches it, before any
    request; a name whose template has none (``mistral``) needs no file."""
    code, out, sent = _generate(server, tmp_path / "a", bench, model, *flags)
    assert code != 0 and sent == [], out
    (line,) = out.strip().splitlines()
    assert line.startswith(f"error: {bench}: ")
    assert f"`hyoka data fetch {bench} --with-sources --data-dir {SHARED_DATA}`" in line
    if bench == "mt-bench":
        code, out, sent = _generate(server, tmp_path / "b", bench, "mistralai/Mistral-7B-v0.3")
        assert code == 0 and sent, out
        assert _system(out) == "fastchat-mistral"


def _with_conversation(tmp_path: Path, text: str) -> tuple[Path, Path]:
    """A data folder whose mt-bench ``conversation.py`` is ``text``, and that file."""
    data = fastchat_data(tmp_path / "data")
    path = data / "mt-bench/sources/fastchat/conversation.py"
    path.unlink()
    path.write_text(text, encoding="utf-8")
    return data, path


def _registers(message: str, *extra: str) -> str:
    fields = ", ".join(['name="vicuna_v1.1"', f"system_message={message}", *extra])
    return f"register_conv_template(Conversation({fields}))\n"


def test_a_conversation_file_not_pinned_is_said_and_signed_by_the_message_sent(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """Two files, neither upstream's pinned bytes, giving one template two messages: each
    run says so in a warning naming its file, and signs what it sent by its own hash (a
    message written as a sum of 1,500 strings read as well as one)."""
    signed = set()
    for number, message in enumerate(["You are helpful.", "Praise Acme Corp."]):
        written = " + ".join(json.dumps(part) for part in message.partition(" "))
        data, path = _with_conversation(tmp_path / str(number), _registers(written))
        code, out, sent = _generate(server, tmp_path / str(number), "mt-bench",
                                    "vicuna-7b-v1.5", data=data)  # fmt: skip
        assert code == 0 and {s["messages"][0]["content"] for s in sent} == {message}, out
        assert f"warning: {path} is not the pinned upstream file" in out
        digest = hashlib.sha256(message.encode()).hexdigest()[:8]
        assert _system(out) == f"fastchat-vicuna_v1.1+custom@{digest}"
        signed.add(_system(out))
    assert len(signed) == 2
    data, _path = _with_conversation(tmp_path / "sum", _registers(" + ".join(['"a"'] * 1500)))
    code, out, sent = _generate(server, tmp_path / "sum", "mt-bench", "vicuna-7b-v1.5", data=data)
    assert code == 0 and {s["messages"][0]["content"] for s in sent} == {"a" * 1500}, out


REFUSED_SOURCES = [
    # upstream's register_conv_template asserts a name is new unless override=True
    (_registers('"one"') + _registers('"two"'), 2,
     "template 'vicuna_v1.1' registered again without override=True (upstream's "
     "register_conv_template refuses it)"),
    (_registers('"one"', 'name="other"'), 1, "keyword argument name repeated"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "line", "fault"), REFUSED_SOURCES, ids=["twice", "keyword"])
def test_a_conversation_file_upstream_would_not_import_is_refused_in_one_line(
    server: OpenAIServer, tmp_path: Path, text: str, line: int, fault: str
) -> None:
    data, path = _with_conversation(tmp_path, text)
    code, out, sent = _generate(server, tmp_path, "mt-bench", "vicuna-7b-v1.5", data=data)
    assert code == 1 and sent == []
    assert out.strip().splitlines() == [f"error: {path}:{line}: {fault}"]


#: ``get_answer``'s system message (shaberi f8cd7a0 ``llm_functions.py``)
SHABERI_SYSTEM = "あなたは公平で、検閲されていない、役立つアシスタントです。"
SHABERI_NAMES = [
    # llm_functions.py's OpenAI-prefixed names: the API directly, no frequency penalty
    ("gpt-4o", 0.2, 6000, None),
    ("gpt-5-mini", 1, 6000, None),  # "GPT-5 models only support temperature=1"
    ("claude-sonnet-4", 0.2, 6000, None),
    ("gemini-2.0-flash", 0.2, 6000, None),  # its Gemini branch
    # any other name: the vLLM/custom branch, generate_answers.py's -fp default 1.0
    ("Qwen/Qwen3-8B", 0.2, 6000, 1.0),
    ("deepseek-ai/DeepSeek-R1", 0.2, 30000, 1.0),  # in its thinking_models list
]


@pytest.mark.parametrize(
    ("model", "temperature", "budget", "penalty"), SHABERI_NAMES, ids=[n[0] for n in SHABERI_NAMES]
)
def test_shaberi_2025_sends_what_llm_functions_sends_the_name(
    server: OpenAIServer,
    tmp_path: Path,
    model: str,
    temperature: float,
    budget: int,
    penalty: float | None,
) -> None:
    """shisa-ai/shaberi f8cd7a0's ``get_answer``: its system message and the task, then by
    the model's name its temperature (0.2; 1 for ``gpt-5``), budget (6000; 30000 for its
    thinking models) and, for a name not routed to a hosted API, ``frequency_penalty`` 1.0
    (``generate_answers.py``'s ``-fp`` default): sent and signed."""
    code, out, sent = _generate(server, tmp_path, "elyza-tasks-100", model, "--variant",
                                "shaberi-2025")  # fmt: skip
    assert code == 0, out
    assert len(sent) == LIMIT
    extra = {} if penalty is None else {"frequency_penalty": penalty}
    for body in sent:
        assert body["messages"][0] == {"role": "system", "content": SHABERI_SYSTEM}
        fields = {k: v for k, v in body.items() if k not in ("messages", "path")}
        assert fields == {"model": model, "temperature": temperature, "max_tokens": budget,
                          **extra}  # fmt: skip
    assert _signed(out, "max-tokens") == str(budget)
    assert ("|frequency-penalty:1.0" in out) == (penalty is not None)


# -- pfgen-bench: run-openai.py sends no seed -------------------------------------------------


def _pfgen(server: OpenAIServer, results: Path, *flags: str) -> tuple[list[Any], dict[str, Any]]:
    """``hyoka pfgen generate`` of one trial of two questions: the bodies the server
    received and the run's ``config.json``."""
    server.reset()
    server.reply_to_all = "答え。"
    args = ["pfgen", "generate", "-m", "openai/gpt-4o", "--base-url", server.base_url]
    args += ["--trials", "1", "--limit", "2", "--num-examples", "2", "--no-cache"]
    args += ["--results-dir", str(results), "--data-dir", str(SHARED_DATA)]
    done = CliRunner().invoke(app, [*args, *flags], env={"HYOKA_CACHE_DIR": str(results / "c")})
    assert done.exit_code == 0, done.output
    (config,) = results.rglob("config.json")
    return [r.body for r in server.received], json.loads(config.read_text(encoding="utf-8"))


def test_pfgen_asks_a_hosted_model_without_a_seed_unless_told(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """pfgen-bench 03db7c4's ``run-openai.py`` passes model, messages, max_tokens,
    temperature, top_p and stop, no seed (its ``run-vllm.py`` and ``run-hf.py`` use the
    trial's): hyoka sends none to a hosted model; ``--send-seed`` sends the trial's seed,
    ``int(sha1("::1")) % 2**31`` for trial 1, and records it in ``config.json``."""
    sent, config = _pfgen(server, tmp_path / "a")
    assert len(sent) == 2
    assert all(set(body) == {"model", "messages", "max_tokens", "temperature", "top_p", "stop"}
               for body in sent)  # fmt: skip
    assert "send_seed" not in config
    sent, config = _pfgen(server, tmp_path / "b", "--send-seed")
    seed = int(hashlib.sha1(b"::1").hexdigest(), 16) % 2**31
    assert [body["seed"] for body in sent] == [seed, seed]
    assert config["send_seed"] is True
