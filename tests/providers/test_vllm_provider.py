"""The vLLM backend: its request and output mapping here, a real engine only on a GPU.

vLLM installs and runs only beside CUDA, so the mapping is plain code tested with stand-ins
for vLLM's objects, and the real run (a tiny random Llama built in the test, never
downloaded) is skipped unless ``vllm`` imports and a GPU is there.
"""

from __future__ import annotations

import asyncio
import importlib.util
import time
from collections.abc import Coroutine, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest

from hyoka.providers import (
    GenerationRequest,
    Message,
    MissingDependencyError,
    Provider,
    ProviderError,
    SamplingParams,
    load_provider,
    vllm_backend,
)
from hyoka.providers.vllm_backend import (
    choice_from_output,
    response_from_output,
    sampling_kwargs,
)

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


async def in_one_batch(provider: Provider, requests: Sequence[GenerationRequest]) -> list[Any]:
    """The requests as concurrent ``generate`` calls, as a client sends them: one batch."""
    return list(await asyncio.gather(*(provider.generate(request) for request in requests)))


def _logprob(value: float, text: str) -> SimpleNamespace:
    return SimpleNamespace(logprob=value, rank=None, decoded_token=text)


def _completion(text: str, token_ids: Sequence[int], **extra: Any) -> SimpleNamespace:
    fields: dict[str, Any] = {"logprobs": None, "finish_reason": "stop"}
    fields.update(extra)
    return SimpleNamespace(text=text, token_ids=list(token_ids), **fields)


# -- the mapping, no vLLM needed ------------------------------------------------------------


def test_sampling_kwargs_defaults_keep_vllm_defaults_but_max_tokens() -> None:
    assert sampling_kwargs(SamplingParams()) == {"n": 1, "max_tokens": None}


def test_sampling_kwargs_maps_every_parameter() -> None:
    params = SamplingParams(
        temperature=0.7,
        top_p=0.9,
        top_k=40,
        max_tokens=128,
        stop=("\n\n", "。"),
        seed=42,
        repetition_penalty=1.05,
        logprobs=True,
        top_logprobs=5,
    )
    assert sampling_kwargs(params, n=4) == {
        "n": 4,
        "temperature": 0.7,
        "top_p": 0.9,
        "top_k": 40,
        "max_tokens": 128,
        "stop": ["\n\n", "。"],
        "seed": 42,
        "repetition_penalty": 1.05,
        "logprobs": 5,
    }


def test_sampling_kwargs_logprobs_without_alternatives_and_greedy() -> None:
    kwargs = sampling_kwargs(SamplingParams(temperature=0, logprobs=True))
    assert kwargs["logprobs"] == 0  # the sampled token's own logprob only
    assert kwargs["temperature"] == 0  # vLLM: greedy
    assert "logprobs" not in sampling_kwargs(SamplingParams(temperature=0))


def test_choice_from_output_orders_and_trims_alternatives() -> None:
    # vLLM returns the top-k entries plus the sampled token when it is not among them
    positions = [
        {5: _logprob(-0.1, "東"), 6: _logprob(-2.5, "京"), 7: _logprob(-3.0, "大")},
        {9: _logprob(-4.0, "都"), 8: _logprob(-0.2, "京"), 6: _logprob(-1.9, "阪")},
    ]
    output = _completion("東都", [5, 9], logprobs=positions, finish_reason="length")
    params = SamplingParams(logprobs=True, top_logprobs=2)
    choice = choice_from_output(output, params)
    assert choice.text == "東都"
    assert choice.finish_reason == "length"
    assert choice.logprobs is not None
    first, second = choice.logprobs
    assert (first.token, first.logprob) == ("東", -0.1)
    assert [(top.token, top.logprob) for top in first.top] == [("東", -0.1), ("京", -2.5)]
    assert (second.token, second.logprob) == ("都", -4.0)
    assert [top.token for top in second.top] == ["京", "阪"]  # the sampled 都 is not top-2

    no_logprobs = choice_from_output(output, SamplingParams())
    assert no_logprobs.logprobs is None


def test_response_from_output_counts_tokens_of_every_sample() -> None:
    output = SimpleNamespace(
        prompt_token_ids=[1, 2, 3, 4],
        outputs=[_completion("a", [10, 11]), _completion("b", [12, 13, 14])],
    )
    response = response_from_output(output, SamplingParams(), "tiny")
    assert [choice.text for choice in response.choices] == ["a", "b"]
    assert response.usage.prompt_tokens == 4
    assert response.usage.completion_tokens == 5
    assert response.model == "tiny"


# -- the provider with a stand-in engine -------------------------------------------------------


class _FakeSamplingParams:
    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs


class _FakeEngine:
    chat_template: str | None = "{{ messages }}"

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.calls: list[tuple[str, list[Any], list[Any]]] = []

    def _outputs(self, inputs: list[Any], params: list[Any]) -> list[SimpleNamespace]:
        return [
            SimpleNamespace(
                prompt_token_ids=[0] * 3,
                outputs=[_completion(f"{item!r}#{i}", [1, 2]) for i in range(sampling.kwargs["n"])],
            )
            for item, sampling in zip(inputs, params, strict=True)
        ]

    def generate(self, prompts: list[str], params: list[Any], *, use_tqdm: bool) -> list[Any]:
        time.sleep(0.02)  # a busy engine, so that concurrent requests queue up
        if any(prompt == "too long" for prompt in prompts):
            raise ValueError("The decoder prompt (length 9999) is longer than the maximum")
        self.calls.append(("generate", prompts, params))
        return self._outputs(prompts, params)

    def chat(self, messages: list[Any], params: list[Any], *, use_tqdm: bool) -> list[Any]:
        self.calls.append(("chat", messages, params))
        return self._outputs([conversation[-1]["content"] for conversation in messages], params)

    def get_tokenizer(self) -> Any:
        return SimpleNamespace(chat_template=self.chat_template)


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    engines: list[_FakeEngine] = []

    def make_engine(**options: Any) -> _FakeEngine:
        engines.append(_FakeEngine(**options))
        return engines[-1]

    module = SimpleNamespace(LLM=make_engine, SamplingParams=_FakeSamplingParams, engines=engines)
    monkeypatch.setattr(vllm_backend, "_import_vllm", lambda: module)
    return module


def test_batch_splits_chat_and_raw_and_keeps_order(fake_vllm: SimpleNamespace) -> None:
    provider = load_provider("vllm/some/model", tensor_parallel_size=2, dtype="bfloat16")
    requests = [
        GenerationRequest(prompt="p1", params=SamplingParams(max_tokens=5)),
        GenerationRequest(messages=(Message(role="user", content="c1"),), n=2),
        GenerationRequest(prompt="p2", params=SamplingParams(seed=1)),
    ]
    responses = run(in_one_batch(provider, requests))
    assert [response.text for response in responses] == ["'p1'#0", "'c1'#0", "'p2'#0"]
    assert len(responses[1].choices) == 2
    assert responses[1].usage.completion_tokens == 4

    (engine,) = fake_vllm.engines
    assert engine.options == {
        "model": "some/model",
        "tensor_parallel_size": 2,
        "dtype": "bfloat16",
    }
    kinds = [kind for kind, _, _ in engine.calls]
    assert kinds == ["generate", "chat"]  # one call each, whatever the batch size
    _, prompts, params = engine.calls[0]
    assert prompts == ["p1", "p2"]
    assert [p.kwargs for p in params] == [
        {"n": 1, "max_tokens": 5},
        {"n": 1, "max_tokens": None, "seed": 1},
    ]
    _, conversations, _ = engine.calls[1]
    assert conversations == [[{"role": "user", "content": "c1"}]]
    assert provider.identity()["dtype"] == "bfloat16"


def test_greedy_n_asks_the_engine_for_one_sample(fake_vllm: SimpleNamespace) -> None:
    provider = load_provider("vllm/m")
    request = GenerationRequest(prompt="g", n=3, params=SamplingParams(temperature=0))
    response = run(provider.generate(request))
    assert [choice.text for choice in response.choices] == ["'g'#0"] * 3
    assert response.usage.completion_tokens == 6
    (engine,) = fake_vllm.engines
    assert engine.calls[0][2][0].kwargs["n"] == 1


def test_engine_is_built_once(fake_vllm: SimpleNamespace) -> None:
    provider = load_provider("vllm/m")
    run(provider.generate(GenerationRequest(prompt="a")))
    run(provider.generate(GenerationRequest(prompt="b")))
    assert len(fake_vllm.engines) == 1


def test_chat_without_template_is_refused(
    fake_vllm: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_FakeEngine, "chat_template", None)
    provider = load_provider("vllm/base-model")
    with pytest.raises(ProviderError, match="cannot do chat"):
        run(provider.generate(GenerationRequest(messages=(Message(role="user", content="x"),))))
    assert run(provider.generate(GenerationRequest(prompt="x"))).text == "'x'#0"


def test_vllm_value_errors_become_provider_errors(fake_vllm: SimpleNamespace) -> None:
    provider = load_provider("vllm/m")
    with pytest.raises(ProviderError, match="longer than the maximum"):
        run(provider.generate(GenerationRequest(prompt="too long")))


def test_concurrent_generate_calls_are_batched(fake_vllm: SimpleNamespace) -> None:
    provider = load_provider("vllm/m")
    prompts = [f"q{i}" for i in range(8)]

    async def together() -> list[str]:
        responses = await asyncio.gather(
            *(provider.generate(GenerationRequest(prompt=p)) for p in prompts)
        )
        return [response.text for response in responses]

    assert run(together()) == [f"'{p}'#0" for p in prompts]
    (engine,) = fake_vllm.engines
    sizes = [len(batch) for _, batch, _ in engine.calls]
    assert sum(sizes) == 8
    assert len(sizes) <= 2  # the first request alone at most, then all the others at once


def test_a_refused_request_fails_alone(fake_vllm: SimpleNamespace) -> None:
    provider = load_provider("vllm/m")

    async def together() -> list[Any]:
        return await asyncio.gather(
            *(
                provider.generate(GenerationRequest(prompt=p))
                for p in ("fine", "too long", "also fine")
            ),
            return_exceptions=True,
        )

    fine, refused, also_fine = run(together())
    assert fine.text == "'fine'#0"
    assert also_fine.text == "'also fine'#0"
    assert isinstance(refused, ProviderError)
    assert "longer than the maximum" in str(refused)


def test_a_cancelled_request_does_not_block_the_next(fake_vllm: SimpleNamespace) -> None:
    provider = load_provider("vllm/m")

    async def impatient() -> str:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(provider.generate(GenerationRequest(prompt="slow")), 0.001)
        return (await provider.generate(GenerationRequest(prompt="next"))).text

    assert run(impatient()) == "'next'#0"


def test_base_url_is_refused() -> None:
    with pytest.raises(ProviderError, match="openai/MODEL"):
        load_provider("vllm/m", base_url="http://localhost:8000/v1")


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vllm is installed")
def test_missing_vllm_is_a_missing_dependency() -> None:
    provider = load_provider("vllm/m")  # the module imports vLLM only when it runs
    with pytest.raises(MissingDependencyError, match=r"hyoka\[vllm\]"):
        run(provider.generate(GenerationRequest(prompt="x")))


# -- a real engine ---------------------------------------------------------------------------


def _gpu_with_vllm() -> bool:
    if importlib.util.find_spec("vllm") is None or importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


@pytest.mark.skipif(not _gpu_with_vllm(), reason="vLLM needs a GPU")
def test_real_engine_on_a_tiny_random_model(tmp_path: Path) -> None:
    from test_hf_provider import CHAT_TEMPLATE, _save_model

    folder = _save_model(tmp_path / "tiny", CHAT_TEMPLATE, hidden_size=128)
    provider = load_provider(
        f"vllm/{folder}",
        dtype="float16",
        max_model_len=256,
        gpu_memory_utilization=0.3,
        enforce_eager=True,
    )
    seeded = SamplingParams(temperature=1.0, max_tokens=8, seed=5, logprobs=True, top_logprobs=3)
    requests = [
        GenerationRequest(prompt="吾輩は", params=SamplingParams(temperature=0, max_tokens=8)),
        GenerationRequest(messages=(Message(role="user", content="こんにちは"),), params=seeded),
        GenerationRequest(prompt="日本", n=2, params=seeded),
    ]
    first = run(in_one_batch(provider, requests))
    again = run(in_one_batch(provider, requests))
    assert [r.choices for r in first] == [r.choices for r in again]
    assert len(first[2].choices) == 2
    for response in first:
        assert response.usage.prompt_tokens > 0
        assert response.usage.completion_tokens <= 8 * len(response.choices)
    logprobs = first[1].choices[0].logprobs
    assert logprobs is not None
    assert all(len(entry.top) == 3 and entry.logprob <= 0 for entry in logprobs)
    run(provider.aclose())
