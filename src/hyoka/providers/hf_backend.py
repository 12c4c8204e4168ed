"""Hugging Face ``transformers`` in this process: any causal LM on CPU or GPU, batched.

``hf/MODEL`` is a hub id or a local folder, read from local files only (the hub cache or
the folder) unless the option ``allow_download=True`` lets ``transformers`` fetch it.
Chat requests use the tokenizer's chat template; a tokenizer without one cannot do chat.

Requests are batched: all requests waiting when the model is free (the concurrent
``generate`` calls of a client, queued by ``BatchingWorker``) are padded on the left, and
those with the same sampling settings share ``model.generate`` calls, ``batch_size``
sequences at a time. A sampling request with a seed runs on its
own, right after ``torch.manual_seed(seed)``, so the same seed gives the same text
whatever else is in the batch (its ``n`` samples are ``num_return_sequences``: one
call; a greedy request's ``n`` choices are its one answer, repeated). Stop strings stop
generation (``stop_strings``) and the text is cut before the first one. Log
probabilities are the ``log_softmax`` of the model's raw logits (before temperature,
top-k/top-p and repetition penalty), one entry per generated token up to the end of
sequence, a stop string's tokens included. A reply cut by ``max_tokens`` inside a
character ends before it, as with llama.cpp, rather than in a replacement character that
would read as more tokens than were generated.

The model is loaded on first use, and all work runs on one worker thread, one batch at
a time (the torch random state the seeds set is global).
"""

from __future__ import annotations

import copy
import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer

from hyoka.providers._batching import BatchedProvider, BatchingWorker, Outcome
from hyoka.providers._text import cut_at_stop, drop_cut_character
from hyoka.providers.errors import ProviderError
from hyoka.providers.types import (
    Choice,
    GenerationRequest,
    GenerationResponse,
    SamplingParams,
    TokenLogprob,
    TopLogprob,
    Usage,
)

#: part of the cache identity, raised when a fix changes the reply to the same request, so
#: that replies cached before it are not served again (2: no half character at a cut)
REPLIES_VERSION = 2


def _transformers_version() -> tuple[int, int]:
    major, minor = [*transformers.__version__.split("."), "0"][:2]
    digits = "".join(itertools.takewhile(str.isdigit, minor))
    return int(major), int(digits or 0)


def generate_options(params: SamplingParams, sampling: bool, max_new_tokens: int) -> dict[str, Any]:
    """``GenerationConfig`` fields for one request's parameters (``sampling``: whether it
    samples; the caller decides, since an unset temperature means the model's default)."""
    if params.frequency_penalty is not None:
        # transformers' generate has no such setting: refused, never silently dropped
        raise ProviderError(
            f"the hf provider has no frequency_penalty (got {params.frequency_penalty}); "
            "serve the model with vLLM (vllm/ or an OpenAI-compatible server) to send it"
        )
    options: dict[str, Any] = {"max_new_tokens": max_new_tokens, "do_sample": sampling}
    if sampling:
        options.update(params.given("temperature", "top_p", "top_k"))
    else:  # greedy: sampling settings from the model's defaults would only warn
        options.update(temperature=None, top_p=None, top_k=None)
    if params.repetition_penalty is not None:
        options["repetition_penalty"] = params.repetition_penalty
    if params.stop:
        options["stop_strings"] = list(params.stop)
    return options


@dataclass
class _Item:
    index: int
    request: GenerationRequest
    prompt_ids: list[int]
    max_new_tokens: int


class HFProvider(BatchedProvider):
    """``hf/MODEL``: a hub id (from the local cache) or a local folder.

    Options: ``allow_download`` (default False), ``device`` (default ``cuda`` when there
    is one, else ``cpu``), ``dtype`` (``"auto"``, ``"bfloat16"``, ``"float32"`` ...;
    default: transformers' own), ``batch_size`` (sequences per ``generate`` call,
    default 8), ``max_new_tokens`` (for requests without ``max_tokens``, default 1024),
    ``revision``, ``trust_remote_code`` (default False).
    """

    name: ClassVar[str] = "hf"
    supports_logprobs: ClassVar[bool] = True
    in_process: ClassVar[bool] = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        allow_download: bool = False,
        device: str | None = None,
        dtype: str | None = None,
        batch_size: int = 8,
        max_new_tokens: int = 1024,
        revision: str | None = None,
        trust_remote_code: bool = False,
    ) -> None:
        if base_url is not None:
            raise ProviderError("hf runs in this process; for a server use openai/MODEL")
        if batch_size < 1 or max_new_tokens < 1:
            raise ProviderError("hf: batch_size and max_new_tokens must be at least 1")
        super().__init__(model)
        self.allow_download = allow_download
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.dtype = dtype
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        self.revision = revision
        self.trust_remote_code = trust_remote_code
        self._model: Any = None
        self._tokenizer: Any = None
        self._worker = BatchingWorker(self._generate_all, name="hf")

    def identity(self) -> dict[str, Any]:
        identity = super().identity()
        identity.update(dtype=self.dtype, revision=self.revision, replies=REPLIES_VERSION)
        return identity

    # -- loading ----------------------------------------------------------------------

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            common: dict[str, Any] = {
                "local_files_only": not self.allow_download,
                "revision": self.revision,
                "trust_remote_code": self.trust_remote_code,
            }
            model_options = dict(common)
            if self.dtype is not None:
                dtype: Any = self.dtype if self.dtype == "auto" else getattr(torch, self.dtype)
                key = "dtype" if _transformers_version() >= (4, 56) else "torch_dtype"
                model_options[key] = dtype
            try:
                tokenizer = AutoTokenizer.from_pretrained(self.model, **common)
                # transformers' own annotations are loose; the model is used dynamically
                model: Any = AutoModelForCausalLM.from_pretrained(self.model, **model_options)
            except (OSError, ValueError) as exc:
                hint = (
                    ""
                    if self.allow_download
                    else "; only local files are read: the option allow_download=True "
                    "fetches a hub model"
                )
                raise ProviderError(f"hf: could not load {self.model!r}: {exc}{hint}") from exc
            except AttributeError as exc:  # getattr(torch, dtype)
                raise ProviderError(f"hf: unknown dtype {self.dtype!r}") from exc
            model.to(self.device)
            model.eval()
            tokenizer.padding_side = "left"
            if tokenizer.pad_token_id is None:
                if tokenizer.eos_token is None:
                    raise ProviderError(f"hf/{self.model}: the tokenizer has no pad or eos token")
                tokenizer.pad_token = tokenizer.eos_token
            self._model, self._tokenizer = model, tokenizer
        return self._model, self._tokenizer

    def _end_ids(self, model: Any, tokenizer: Any) -> set[int]:
        """Tokens that end a sequence: the model's and tokenizer's EOS, and the padding
        ``generate`` writes after a sequence stopped."""
        ends: set[int] = set()
        for source in (model.generation_config.eos_token_id, tokenizer.eos_token_id):
            if isinstance(source, int):
                ends.add(source)
            elif source is not None:
                ends.update(int(token) for token in source)
        ends.add(int(tokenizer.pad_token_id))
        return ends

    # -- preparing ----------------------------------------------------------------------

    def _prompt_ids(self, model: Any, tokenizer: Any, request: GenerationRequest) -> list[int]:
        if request.messages is not None:
            if not getattr(tokenizer, "chat_template", None):
                raise ProviderError(
                    f"hf/{self.model} cannot do chat: its tokenizer has no chat template "
                    "(send raw prompts instead)"
                )
            text = tokenizer.apply_chat_template(
                [message.model_dump() for message in request.messages],
                tokenize=False,
                add_generation_prompt=True,
            )
            # the template writes the special tokens it wants (BOS ...) itself
            ids = tokenizer(str(text), add_special_tokens=False)["input_ids"]
        else:
            ids = tokenizer(request.prompt, add_special_tokens=True)["input_ids"]
        prompt_ids = [int(token) for token in ids]
        if not prompt_ids:
            bos = tokenizer.bos_token_id
            if bos is None:
                raise ProviderError(f"hf/{self.model}: the prompt is empty")
            prompt_ids = [int(bos)]
        return prompt_ids

    def _max_new_tokens(self, model: Any, request: GenerationRequest, prompt_length: int) -> int:
        wanted = request.params.max_tokens or self.max_new_tokens
        limit = getattr(model.config, "max_position_embeddings", None)
        if isinstance(limit, int):
            room = limit - prompt_length
            if room < 1:
                raise ProviderError(
                    f"hf/{self.model}: the prompt has {prompt_length} tokens, "
                    f"the model's context is {limit}"
                )
            return min(wanted, room)
        return wanted

    def _samples(self, model: Any, params: SamplingParams) -> bool:
        if params.temperature is None:
            return bool(model.generation_config.do_sample)
        return params.temperature > 0

    def _groups(self, model: Any, items: list[_Item]) -> list[list[_Item]]:
        """Requests that can share ``generate`` calls, each group cut to ``batch_size``."""
        groups: dict[Any, list[_Item]] = {}
        for item in items:
            params = item.request.params
            sampling = self._samples(model, params)
            if sampling and params.seed is not None:
                key: Any = ("alone", item.index)  # its seed must set the state it starts from
            else:
                key = (sampling, params.model_copy(update={"seed": None}), item.request.n)
            groups.setdefault((key, item.max_new_tokens), []).append(item)
        chunks: list[list[_Item]] = []
        for group in groups.values():
            group.sort(key=lambda item: len(item.prompt_ids))  # less padding
            first = group[0].request
            rows = first.n if self._samples(model, first.params) else 1  # sequences each
            per_call = max(1, self.batch_size // rows)
            chunks.extend(group[i : i + per_call] for i in range(0, len(group), per_call))
        return chunks

    # -- generating ---------------------------------------------------------------------

    def _generate_chunk(
        self, model: Any, tokenizer: Any, chunk: list[_Item]
    ) -> dict[int, GenerationResponse]:
        first = chunk[0].request
        params, n = first.params, first.n
        sampling = self._samples(model, params)
        # greedy decoding gives one answer (and generate refuses more): compute it once
        per_prompt = n if sampling else 1
        pad_id = int(tokenizer.pad_token_id)
        width = max(len(item.prompt_ids) for item in chunk)
        input_ids = torch.full((len(chunk), width), pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for row, item in enumerate(chunk):
            length = len(item.prompt_ids)
            input_ids[row, width - length :] = torch.tensor(item.prompt_ids, dtype=torch.long)
            attention_mask[row, width - length :] = 1
        config = copy.deepcopy(model.generation_config)
        config.update(
            **generate_options(params, sampling, chunk[0].max_new_tokens),
            num_return_sequences=per_prompt,
            return_dict_in_generate=True,
            output_logits=params.logprobs,
            pad_token_id=pad_id,
        )
        if sampling and params.seed is not None:
            torch.manual_seed(params.seed)
        with torch.inference_mode():
            output = model.generate(
                input_ids=input_ids.to(self.device),
                attention_mask=attention_mask.to(self.device),
                generation_config=config,
                tokenizer=tokenizer if params.stop else None,
            )
        generated = output.sequences[:, width:].tolist()
        step_logits: Sequence[torch.Tensor] = output.logits if params.logprobs else ()
        ends = self._end_ids(model, tokenizer)
        lengths = [next((j for j, t in enumerate(row) if t in ends), len(row)) for row in generated]
        logprobs = (
            self._logprobs(tokenizer, step_logits, generated, lengths, params.top_logprobs or 0)
            if params.logprobs
            else None
        )
        responses: dict[int, GenerationResponse] = {}
        for position, item in enumerate(chunk):
            choices: list[Choice] = []
            completion_tokens = 0
            for sample in range(n):
                row = position * per_prompt + (sample if sampling else 0)
                length = lengths[row]
                text = tokenizer.decode(generated[row][:length], skip_special_tokens=True)
                text, stopped = cut_at_stop(str(text), params.stop)
                ended = stopped or length < len(generated[row])
                if not ended:  # cut by max_tokens, maybe inside a character
                    text = drop_cut_character(text)
                choices.append(
                    Choice(
                        text=text,
                        finish_reason="stop" if ended else "length",
                        logprobs=None if logprobs is None else logprobs[row],
                    )
                )
                completion_tokens += length
            responses[item.index] = GenerationResponse(
                choices=tuple(choices),
                usage=Usage(
                    prompt_tokens=len(item.prompt_ids), completion_tokens=completion_tokens
                ),
                model=self.model,
            )
        return responses

    def _logprobs(
        self,
        tokenizer: Any,
        step_logits: Sequence[torch.Tensor],
        generated: list[list[int]],
        lengths: list[int],
        top_n: int,
    ) -> list[tuple[TokenLogprob, ...]]:
        rows: list[list[TokenLogprob]] = [[] for _ in generated]

        @functools.cache
        def text_of(token: int) -> str:
            return str(tokenizer.decode([token], skip_special_tokens=False))

        for step, logits in enumerate(step_logits):
            active = [row for row, length in enumerate(lengths) if step < length]
            if not active:
                break
            logprobs = torch.log_softmax(logits[active].float(), dim=-1)
            chosen = torch.tensor([generated[row][step] for row in active])
            chosen_logprobs = logprobs.gather(1, chosen.to(logprobs.device)[:, None])[:, 0]
            top_values, top_ids = logprobs.topk(min(top_n, logprobs.shape[-1]), dim=-1)
            for k, row in enumerate(active):
                top = tuple(
                    TopLogprob(token=text_of(int(token)), logprob=float(value))
                    for value, token in zip(
                        top_values[k].tolist(), top_ids[k].tolist(), strict=True
                    )
                )
                token = generated[row][step]
                rows[row].append(
                    TokenLogprob(token=text_of(token), logprob=float(chosen_logprobs[k]), top=top)
                )
        return [tuple(row) for row in rows]

    def _generate_all(self, requests: list[GenerationRequest]) -> list[Outcome]:
        model, tokenizer = self._load()
        outcomes: list[Outcome | None] = [None] * len(requests)
        items: list[_Item] = []
        for index, request in enumerate(requests):
            try:
                prompt_ids = self._prompt_ids(model, tokenizer, request)
                maximum = self._max_new_tokens(model, request, len(prompt_ids))
            except ProviderError as exc:  # this request alone cannot run
                outcomes[index] = exc
                continue
            items.append(_Item(index, request, prompt_ids, maximum))
        for chunk in self._groups(model, items):
            try:
                responses = self._generate_chunk(model, tokenizer, chunk)
            except Exception as exc:  # the requests of this chunk fail, the others go on
                failure = (
                    ProviderError(f"hf/{self.model}: {exc}") if isinstance(exc, ValueError) else exc
                )
                for item in chunk:
                    outcomes[item.index] = failure
                continue
            for index, response in responses.items():
                outcomes[index] = response
        return [cast(Outcome, outcome) for outcome in outcomes]

    # -- the async interface --------------------------------------------------------------

    def _unload(self) -> None:
        self._model = self._tokenizer = None
