"""The transformers backend on a tiny randomly initialised Llama built here, never downloaded.

The tokenizer is a byte-level BPE trained in the test on a few sentences; the model has two
layers of width 32. Its text is gibberish, but every path of the backend runs for real:
loading from a folder, chat templates, left-padded batches, seeds, stop strings, logprobs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

from _shared import needs
from hyoka.providers import (
    GenerationRequest,
    Message,
    Provider,
    ProviderError,
    SamplingParams,
    load_provider,
)
from hyoka.providers._text import cut_at_stop
from hyoka.providers.hf_backend import HFProvider, generate_options

needs("torch")
needs("transformers")
import torch  # noqa: E402
import transformers  # noqa: E402
from tokenizers import (  # noqa: E402
    Tokenizer,
    decoders,
    models,
    pre_tokenizers,
    processors,
    trainers,
)

T = TypeVar("T")

CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>{{ message['content'] }}</s>"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
SENTENCES = [
    "吾輩は猫である。名前はまだ無い。",
    "どこで生れたかとんと見当がつかぬ。",
    "The quick brown fox jumps over the lazy dog.",
    "Hello, how are you today? I am fine, thank you.",
    "日本の首都は東京です。富士山は日本一高い山です。",
]


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


async def in_one_batch(provider: Provider, requests: Sequence[GenerationRequest]) -> list[Any]:
    """The requests as concurrent ``generate`` calls, as a client sends them: one batch."""
    return list(await asyncio.gather(*(provider.generate(request) for request in requests)))


def _tokenizer(chat_template: str | None) -> Any:
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<s>", "</s>", "<pad>", "<|user|>", "<|assistant|>", "<|system|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(SENTENCES, trainer=trainer)
    # like Llama's tokenizer: a raw prompt starts with BOS, a chat template writes its own
    bpe.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", bpe.token_to_id("<s>"))]
    )
    tokenizer = transformers.PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=bpe, bos_token="<s>", eos_token="</s>"
    )
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    return tokenizer


def _save_model(folder: Path, chat_template: str | None, hidden_size: int = 32) -> Path:
    """A random two-layer Llama and its tokenizer, saved as a model folder."""
    tokenizer = _tokenizer(chat_template)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_model(tmp_path_factory.mktemp("tiny-llama"), CHAT_TEMPLATE)


@pytest.fixture(scope="module")
def provider(model_dir: Path) -> HFProvider:
    loaded = load_provider(f"hf/{model_dir}", batch_size=4)
    assert isinstance(loaded, HFProvider)
    return loaded


def _prompt(text: str, **params: Any) -> GenerationRequest:
    return GenerationRequest(prompt=text, params=SamplingParams(**params))


def test_batch_of_three_keeps_order_and_matches_single_runs(provider: HFProvider) -> None:
    prompts = ["吾輩は", "The quick brown fox jumps over", "日本"]
    requests = [_prompt(text, temperature=0, max_tokens=8) for text in prompts]
    batch = run(in_one_batch(provider, requests))
    assert len(batch) == 3
    for request, response in zip(requests, batch, strict=True):
        assert response.usage.prompt_tokens > 0
        assert 0 < response.usage.completion_tokens <= 8
        assert response.choices[0].finish_reason in {"stop", "length"}
        single = run(provider.generate(request))
        # left padding keeps a greedy continuation the same as the unbatched one
        assert single.text == response.text


def test_concurrent_generate_calls_share_batches(
    provider: HFProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompts = ["吾輩は", "The quick", "日本の", "Hello,", "どこで"]
    requests = [_prompt(text, temperature=0, max_tokens=6) for text in prompts]
    alone = [run(provider.generate(request)).text for request in requests]
    chunk_sizes: list[int] = []
    original = provider._generate_chunk

    def counting(model: Any, tokenizer: Any, chunk: Any) -> Any:
        chunk_sizes.append(len(chunk))
        return original(model, tokenizer, chunk)

    monkeypatch.setattr(provider, "_generate_chunk", counting)

    async def together() -> list[str]:
        responses = await asyncio.gather(*(provider.generate(request) for request in requests))
        return [response.text for response in responses]

    assert run(together()) == alone
    assert sum(chunk_sizes) == 5
    assert len(chunk_sizes) < 5  # batch_size is 4: at least some requests went together


def test_one_bad_request_fails_alone(tmp_path: Path) -> None:
    plain = load_provider(f"hf/{_save_model(tmp_path / 'plain', chat_template=None)}")

    async def together() -> list[Any]:
        return await asyncio.gather(  # type: ignore[return-value]
            plain.generate(_prompt("hi", temperature=0, max_tokens=2)),
            plain.generate(GenerationRequest(messages=(Message(role="user", content="hi"),))),
            return_exceptions=True,
        )

    raw, chat = run(together())
    assert raw.usage.completion_tokens > 0
    assert isinstance(chat, ProviderError)


def test_seed_reproduces_and_different_seeds_differ(provider: HFProvider) -> None:
    def sample(seed: int) -> str:
        return run(
            provider.generate(_prompt("吾輩は猫", temperature=1.0, max_tokens=16, seed=seed))
        ).text

    assert sample(7) == sample(7)
    assert len({sample(seed) for seed in range(1, 5)}) > 1
    # a seeded request gives the same text inside a batch as alone
    batch = run(
        in_one_batch(
            provider,
            [
                _prompt("日本", temperature=1.0, max_tokens=16),
                _prompt("吾輩は猫", temperature=1.0, max_tokens=16, seed=7),
            ],
        )
    )
    assert batch[1].text == sample(7)


def test_n_samples_are_returned(provider: HFProvider) -> None:
    request = GenerationRequest(
        prompt="The", n=3, params=SamplingParams(temperature=1.0, max_tokens=6, seed=3)
    )
    response = run(provider.generate(request))
    assert len(response.choices) == 3
    assert response.choices == run(provider.generate(request)).choices
    # greedy: one answer, n times (transformers refuses num_return_sequences without sampling)
    greedy = GenerationRequest(
        prompt="The", n=2, params=SamplingParams(temperature=0, max_tokens=4)
    )
    twice = run(provider.generate(greedy))
    assert len(twice.choices) == 2
    assert twice.choices[0] == twice.choices[1]


def test_stop_strings_cut_the_text(provider: HFProvider) -> None:
    free = run(provider.generate(_prompt("Hello,", temperature=0, max_tokens=24))).text
    assert len(free) >= 4, free
    stop = free[2:4]
    first = free.index(stop)
    stopped = run(provider.generate(_prompt("Hello,", temperature=0, max_tokens=24, stop=(stop,))))
    assert stopped.text == free[:first]
    assert stopped.choices[0].finish_reason == "stop"


def test_logprobs_have_the_asked_alternatives(provider: HFProvider) -> None:
    response = run(
        provider.generate(
            _prompt("富士山", temperature=0, max_tokens=5, logprobs=True, top_logprobs=5)
        )
    )
    logprobs = response.choices[0].logprobs
    assert logprobs is not None
    assert len(logprobs) == response.usage.completion_tokens
    for entry in logprobs:
        assert entry.logprob <= 0
        assert len(entry.top) == 5
        values = [top.logprob for top in entry.top]
        assert values == sorted(values, reverse=True)
        # greedy: the chosen token is the most likely one
        assert entry.logprob == pytest.approx(values[0])
    without = run(provider.generate(_prompt("富士山", temperature=0, max_tokens=5)))
    assert without.choices[0].logprobs is None


def test_chat_uses_the_template(provider: HFProvider) -> None:
    request = GenerationRequest(
        messages=(Message(role="user", content="こんにちは"),),
        params=SamplingParams(temperature=0, max_tokens=4),
    )
    response = run(provider.generate(request))
    tokenizer = transformers.AutoTokenizer.from_pretrained(provider.model, local_files_only=True)
    rendered = tokenizer.apply_chat_template(
        [{"role": "user", "content": "こんにちは"}], tokenize=False, add_generation_prompt=True
    )
    assert rendered == "<|user|>こんにちは</s><|assistant|>"
    expected = len(tokenizer(rendered, add_special_tokens=False)["input_ids"])
    assert response.usage.prompt_tokens == expected
    raw = run(provider.generate(_prompt(rendered, temperature=0, max_tokens=4)))
    assert raw.usage.prompt_tokens == expected + 1  # a raw prompt gets the BOS token


def test_no_chat_template_means_no_chat(tmp_path: Path) -> None:
    folder = _save_model(tmp_path / "plain", chat_template=None)
    plain = load_provider(f"hf/{folder}")
    chat = GenerationRequest(messages=(Message(role="user", content="hi"),))
    with pytest.raises(ProviderError, match="cannot do chat"):
        run(plain.generate(chat))
    assert run(plain.generate(_prompt("hi", temperature=0, max_tokens=2))).text is not None


def test_missing_model_is_a_provider_error(tmp_path: Path) -> None:
    with pytest.raises(ProviderError, match="allow_download=True"):
        run(load_provider(f"hf/{tmp_path / 'nowhere'}").generate(_prompt("x")))


def test_generate_options_mapping() -> None:
    greedy = generate_options(SamplingParams(temperature=0, top_k=5, stop=("。",)), False, 9)
    assert greedy == {
        "max_new_tokens": 9,
        "do_sample": False,
        "temperature": None,
        "top_p": None,
        "top_k": None,
        "stop_strings": ["。"],
    }
    sampled = generate_options(
        SamplingParams(temperature=0.7, top_p=0.9, top_k=40, repetition_penalty=1.1), True, 5
    )
    assert sampled == {
        "max_new_tokens": 5,
        "do_sample": True,
        "temperature": 0.7,
        "top_p": 0.9,
        "top_k": 40,
        "repetition_penalty": 1.1,
    }
    # transformers has no frequency penalty: refused, never dropped
    with pytest.raises(ProviderError, match="no frequency_penalty"):
        generate_options(SamplingParams(frequency_penalty=1.0), True, 5)
    assert cut_at_stop("abc。def\n", ["\n", "。"]) == ("abc", True)
    assert cut_at_stop("abc", ["x", ""]) == ("abc", False)
