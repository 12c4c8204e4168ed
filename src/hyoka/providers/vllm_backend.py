"""vLLM in this process: one engine on local GPUs, whole batches per call.

``vllm/MODEL`` builds ``vllm.LLM(MODEL, tensor_parallel_size=..., **options)`` on first
use. Requests are batched (``BatchingWorker``): all requests waiting when the engine is
free (the concurrent ``generate`` calls of a client) go to vLLM together, the raw prompts
in one ``LLM.generate`` call and the chat requests in one ``LLM.chat`` call (the
tokenizer's chat template), so vLLM schedules them all. A request vLLM refuses (a prompt
longer than the context, say) fails alone. vLLM is imported only when the engine is
built: this module imports on a machine without it, and the mapping (``sampling_kwargs``,
``choice_from_output``) is plain code over plain values, testable anywhere.

The engine is not thread-safe: calls run one at a time on one worker thread. A request
without ``max_tokens`` generates up to the model's context length (vLLM's own default
of 16 tokens would cut every answer short). Models load from the hub as vLLM does (its
download cache, ``HF_HUB_OFFLINE=1`` to forbid downloads).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol, cast

from hyoka.providers._batching import BatchedProvider, BatchingWorker, Outcome
from hyoka.providers.errors import MissingDependencyError, ProviderError
from hyoka.providers.types import (
    Choice,
    GenerationRequest,
    GenerationResponse,
    SamplingParams,
    TokenLogprob,
    TopLogprob,
    Usage,
)

# The few parts of vLLM's output objects read here (vllm.outputs / vllm.sequence).


class VLLMLogprob(Protocol):
    @property
    def logprob(self) -> float: ...

    @property
    def decoded_token(self) -> str | None: ...


class VLLMCompletionOutput(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def token_ids(self) -> Sequence[int]: ...

    @property
    def logprobs(self) -> Sequence[Mapping[int, VLLMLogprob]] | None: ...

    @property
    def finish_reason(self) -> str | None: ...


class VLLMRequestOutput(Protocol):
    @property
    def prompt_token_ids(self) -> Sequence[int] | None: ...

    @property
    def outputs(self) -> Sequence[VLLMCompletionOutput]: ...


class _Engine(Protocol):
    def generate(
        self, prompts: list[str], sampling_params: list[Any], *, use_tqdm: bool
    ) -> list[Any]: ...

    def chat(
        self, messages: list[list[dict[str, str]]], sampling_params: list[Any], *, use_tqdm: bool
    ) -> list[Any]: ...

    def get_tokenizer(self) -> Any: ...


#: options that change what the engine computes, so they belong in the cache identity
_IDENTITY_OPTIONS = ("dtype", "quantization", "revision", "tokenizer", "max_model_len")


def sampling_kwargs(params: SamplingParams, n: int = 1) -> dict[str, Any]:
    """Keyword arguments for ``vllm.SamplingParams`` from one request's parameters.

    Unset parameters are left out (vLLM's defaults apply) except ``max_tokens``, always
    passed: ``None`` there means "up to the context length" rather than vLLM's 16.
    ``logprobs`` is vLLM's count of alternatives: 0 still returns the sampled token's own.
    """
    kwargs: dict[str, Any] = {"n": n, "max_tokens": params.max_tokens}
    kwargs.update(
        params.given(
            "temperature", "top_p", "top_k", "stop", "seed", "repetition_penalty",
            "frequency_penalty",
        )
    )  # fmt: skip
    if params.logprobs:
        kwargs["logprobs"] = params.top_logprobs or 0
    return kwargs


def _token_logprobs(
    token_ids: Sequence[int], positions: Sequence[Mapping[int, VLLMLogprob]], top_n: int
) -> tuple[TokenLogprob, ...]:
    tokens: list[TokenLogprob] = []
    for token_id, entries in zip(token_ids, positions, strict=False):
        chosen = entries.get(token_id)
        if chosen is None:  # vLLM always includes the sampled token; be safe anyway
            continue
        ranked = sorted(entries.values(), key=lambda entry: entry.logprob, reverse=True)
        top = tuple(
            TopLogprob(token=entry.decoded_token or "", logprob=entry.logprob)
            for entry in ranked[:top_n]
        )
        tokens.append(
            TokenLogprob(token=chosen.decoded_token or "", logprob=chosen.logprob, top=top)
        )
    return tuple(tokens)


def choice_from_output(output: VLLMCompletionOutput, params: SamplingParams) -> Choice:
    """One vLLM ``CompletionOutput`` as a ``Choice``; ``top`` holds the ``top_logprobs``
    most likely tokens at each position (vLLM adds the sampled one when it is not among
    them; it stays out of ``top`` here, as in the OpenAI API)."""
    logprobs: tuple[TokenLogprob, ...] | None = None
    if params.logprobs and output.logprobs is not None:
        logprobs = _token_logprobs(output.token_ids, output.logprobs, params.top_logprobs or 0)
    return Choice(text=output.text, finish_reason=output.finish_reason, logprobs=logprobs)


def response_from_output(
    output: VLLMRequestOutput, params: SamplingParams, model: str, n: int = 1
) -> GenerationResponse:
    """``n`` choices: vLLM's own, or its one greedy answer repeated (see ``_engine_n``)."""
    completions = list(output.outputs)
    if len(completions) == 1 and n > 1:
        completions *= n
    usage = Usage(
        prompt_tokens=len(output.prompt_token_ids or ()),
        completion_tokens=sum(len(completion.token_ids) for completion in completions),
    )
    choices = tuple(choice_from_output(completion, params) for completion in completions)
    return GenerationResponse(choices=choices, usage=usage, model=model)


def _engine_n(request: GenerationRequest) -> int:
    """Samples to ask vLLM for: one when greedy (all ``n`` would be the same, and some
    vLLM versions refuse ``n > 1`` without sampling)."""
    return 1 if request.params.temperature == 0 else request.n


def _import_vllm() -> Any:
    try:
        return importlib.import_module("vllm")
    except ModuleNotFoundError as exc:
        raise MissingDependencyError(
            f"the vllm provider needs the package {exc.name or 'vllm'!r} "
            "(Linux with a GPU): pip install 'hyoka[vllm]'"
        ) from None


class VLLMProvider(BatchedProvider):
    """``vllm/MODEL``: a hub id or a local folder; options go to ``vllm.LLM``.

    ``tensor_parallel_size`` (default 1) spreads the model over that many GPUs;
    ``max_batch`` (default 1,024) caps the requests sent to vLLM in one call; every
    other option (``dtype``, ``max_model_len``, ``gpu_memory_utilization``,
    ``quantization``, ``trust_remote_code`` ...) is passed to ``vllm.LLM`` unchanged.
    """

    name: ClassVar[str] = "vllm"
    supports_logprobs: ClassVar[bool] = True
    in_process: ClassVar[bool] = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        tensor_parallel_size: int = 1,
        max_batch: int = 1024,
        **options: Any,
    ) -> None:
        if base_url is not None:
            raise ProviderError("vllm runs in this process; for a vLLM server use openai/MODEL")
        super().__init__(model)
        self.tensor_parallel_size = tensor_parallel_size
        self._engine_options = dict(options)
        self._engine: _Engine | None = None
        self._sampling_params_class: Any = None
        self._worker = BatchingWorker(self._run, name="vllm", max_batch=max_batch)

    def identity(self) -> dict[str, Any]:
        identity = super().identity()
        for key in _IDENTITY_OPTIONS:
            if key in self._engine_options:
                identity[key] = self._engine_options[key]
        return identity

    def _load(self) -> _Engine:
        if self._engine is None:
            vllm = _import_vllm()
            try:
                engine = vllm.LLM(
                    model=self.model,
                    tensor_parallel_size=self.tensor_parallel_size,
                    **self._engine_options,
                )
            except (OSError, ValueError) as exc:
                raise ProviderError(f"vllm could not load {self.model!r}: {exc}") from exc
            self._sampling_params_class = vllm.SamplingParams
            self._engine = cast(_Engine, engine)
        return self._engine

    def _check_chat_template(self, engine: _Engine) -> None:
        tokenizer = engine.get_tokenizer()
        # Hugging Face tokenizers have the attribute (None without a template); others
        # (Mistral's) apply their own format and are left to vLLM.
        if hasattr(tokenizer, "chat_template") and not tokenizer.chat_template:
            raise ProviderError(
                f"vllm/{self.model} cannot do chat: its tokenizer has no chat template "
                "(send raw prompts instead)"
            )

    def _engine_call(
        self, engine: _Engine, requests: list[GenerationRequest]
    ) -> list[VLLMRequestOutput]:
        """One ``LLM.chat`` (all chat requests) or ``LLM.generate`` (all raw prompts)."""
        sampling = [
            self._sampling_params_class(**sampling_kwargs(request.params, _engine_n(request)))
            for request in requests
        ]
        if requests[0].is_chat:
            conversations = [
                [message.model_dump() for message in request.messages or ()] for request in requests
            ]
            done = engine.chat(conversations, sampling, use_tqdm=False)
        else:
            prompts = [cast(str, request.prompt) for request in requests]
            done = engine.generate(prompts, sampling, use_tqdm=False)
        return cast(list[VLLMRequestOutput], done)

    def _answer(
        self,
        engine: _Engine,
        requests: Sequence[GenerationRequest],
        indices: list[int],
        outcomes: list[Outcome | None],
    ) -> None:
        try:
            outputs = self._engine_call(engine, [requests[i] for i in indices])
        except ValueError as exc:  # vLLM's word for a bad request (prompt too long ...)
            if len(indices) == 1:
                outcomes[indices[0]] = ProviderError(f"vllm/{self.model}: {exc}")
                return
            for i in indices:  # one at a time: only the requests at fault fail
                self._answer(engine, requests, [i], outcomes)
            return
        for i, output in zip(indices, outputs, strict=True):
            request = requests[i]
            outcomes[i] = response_from_output(output, request.params, self.model, request.n)

    def _run(self, requests: list[GenerationRequest]) -> list[Outcome]:
        engine = self._load()
        outcomes: list[Outcome | None] = [None] * len(requests)
        raw = [i for i, request in enumerate(requests) if not request.is_chat]
        chat = [i for i, request in enumerate(requests) if request.is_chat]
        if chat:
            try:
                self._check_chat_template(engine)
            except ProviderError as exc:
                for i in chat:
                    outcomes[i] = exc
                chat = []
        for indices in (raw, chat):
            if indices:
                self._answer(engine, requests, indices, outcomes)
        return [cast(Outcome, outcome) for outcome in outcomes]

    def _unload(self) -> None:
        self._engine = None
