"""llama.cpp in this process through ``llama-cpp-python``: any GGUF file, CPU or GPU.

``llamacpp/PATH.gguf`` loads that file; ``llamacpp/smollm2`` loads the embedded
SmolLM2-135M-Instruct (see ``embedded``). The model is loaded on first use, with
llama.cpp's own logging silenced. Chat requests are rendered with the chat template
stored in the GGUF (by llama-cpp-python's ``Jinja2ChatFormatter``, as its
``create_chat_completion`` does) or the ``chat_template`` option; a file without one
cannot do chat (llama-cpp-python would quietly fall back to Llama 2's format). Every
request is then tokenized here and run by ``create_completion``, which is held to
``max_tokens`` here (see ``_TokenLimit``): on its own it ran past the budget to finish a
multi-byte character.

A ``Llama`` object is not thread-safe, so every call runs on one dedicated worker
thread, one at a time, whatever the number of concurrent requests. ``n`` samples are
``n`` calls in a row, sample ``i`` seeded with ``seed + i`` when the request has a seed:
the samples differ and the same request gives the same samples again. For that, the
evaluated prefix a request shares with the one before is reused only in whole
``n_batch`` blocks (see ``_reuse_aligned_prefix``): llama.cpp's logits depend on how
tokens were batched, and with llama-cpp-python's plain prefix reuse the same seeded
request gave a different text the second time. A prompt asked again whole (another seed,
sample or trial of it) is not evaluated again: the state saved right after its evaluation
is loaded, and the reply is bit for bit that of a fresh start (see ``_PromptStates``).

Log probabilities are computed here rather than taken from llama-cpp-python's own
``logprobs`` output, which needs ``logits_all=True`` (a vocabulary-sized logit row kept
for every position of the context, 1.6 GB at 8,192 tokens), sorts the whole vocabulary in
Python at every token (about ten times slower here), and keys the alternatives by their
text decoded with ``errors="ignore"``, which merges every partial UTF-8 byte token (most
Japanese characters, in small vocabularies) into one empty string. Here a logits
processor reads each step's raw logits (before penalties and temperature) and the
sampler's pick is recorded, so every request can have logprobs, at no cost to requests
that do not ask. A token that is not whole UTF-8 reads as ``\\xNN`` escapes, as in the
OpenAI API; logprobs cover every generated token, a stop string's included.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar, TypeVar, cast

#: llama.cpp's CPU threads are OpenMP's, and OpenMP's idle threads spin by default: between
#: two tokens, while this process samples in Python, they burn the cores it needs. On a busy
#: machine (2 cores, other work beside) SmolLM2 made 20 tokens of a 512-token prompt in
#: 36.6 s where it made them in 1.6 s with idle threads asleep, and hyoka's example sweep
#: took 12 minutes. Read once, when llama.cpp's OpenMP runtime loads (the import below);
#: a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import llama_cpp
import numpy as np
import numpy.typing as npt
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from hyoka.providers._text import cut_at_stop
from hyoka.providers.base import Provider
from hyoka.providers.embedded import smollm2_path
from hyoka.providers.errors import ProviderError
from hyoka.providers.types import (
    Choice,
    GenerationRequest,
    GenerationResponse,
    TokenLogprob,
    TopLogprob,
    Usage,
)
from hyoka.store import NotReadError, open_regular

#: the model name that means the embedded SmolLM2 (``EMBEDDED_MODEL`` without the provider)
EMBEDDED_NAME = "smollm2"
GGUF_MAGIC = b"GGUF"
#: a model file is only sniffed (its first bytes); the bound is no real model's: 1 TiB
_GGUF_MAX_BYTES = 1 << 40
_SEED_SPACE = 2**32  # llama.cpp seeds are unsigned 32-bit
#: part of the cache identity, raised when a fix changes the reply to the same request, so
#: that replies cached before it are not served again (2: never past ``max_tokens``)
REPLIES_VERSION = 2

_T = TypeVar("_T")


def resolve_model_path(model: str) -> Path:
    """The GGUF file for a model string, or a ``ProviderError`` naming what is wrong."""
    if model == EMBEDDED_NAME:
        return smollm2_path()
    path = Path(model).expanduser()
    if not path.is_file():
        reason = "is a folder, not a GGUF file" if path.is_dir() else "does not exist"
        raise ProviderError(
            f"llamacpp: model file {str(path)!r} {reason} "
            f"(give the path of a .gguf file, or {EMBEDDED_NAME!r} for the embedded model)"
        )
    try:  # a regular file only (a FIFO is not waited on); its first bytes
        with open_regular(path, limit=_GGUF_MAX_BYTES, what="a GGUF model") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except NotReadError as exc:
        raise ProviderError(f"llamacpp: {exc}") from None
    if magic != GGUF_MAGIC:
        raise ProviderError(f"llamacpp: {str(path)!r} is not a GGUF file")
    return path


class _LogprobRecorder:
    """Pairs each sampling step's raw logits (seen by a logits processor) with the token
    the sampler then picks (seen by wrapping ``Llama.sample``)."""

    def __init__(self, top_n: int, token_text: Callable[[int], str]) -> None:
        self.top_n = top_n
        self.token_text = token_text
        self.steps: list[TokenLogprob] = []
        self._current: npt.NDArray[np.float64] | None = None
        self._top: tuple[TopLogprob, ...] = ()

    def process(
        self, input_ids: npt.NDArray[np.intc], logits: npt.NDArray[np.single]
    ) -> npt.NDArray[np.single]:
        values = np.asarray(logits, dtype=np.float64)
        shifted = values - values.max()
        logprobs = shifted - np.log(np.exp(shifted).sum())
        top: tuple[TopLogprob, ...] = ()
        if self.top_n:
            count = min(self.top_n, logprobs.size)
            best = np.argpartition(-logprobs, count - 1)[:count]
            best = best[np.argsort(-logprobs[best], kind="stable")]
            top = tuple(
                TopLogprob(token=self.token_text(int(i)), logprob=float(logprobs[i])) for i in best
            )
        self._current, self._top = logprobs, top
        return logits

    def record(self, token: int) -> None:
        if self._current is None:  # a pick without a processor call: nothing to pair
            return
        self.steps.append(
            TokenLogprob(
                token=self.token_text(token),
                logprob=float(self._current[token]),
                top=self._top,
            )
        )
        self._current = None


class _TokenLimit:
    """A stopping criterion that ends generation once ``limit`` tokens were generated.

    ``create_completion`` checks ``max_tokens`` only after a token that completes a UTF-8
    character: a reply cut inside a multi-byte character (most Japanese ones, in small
    vocabularies) ran one or two tokens past ``max_tokens`` to finish it. ``Llama.generate``
    asks this criterion before it hands out each new token, with the tokens evaluated so
    far (the prompt and the tokens already handed out), so no token past the limit is
    handed out; the bytes of a character left incomplete are dropped from the text (as
    ``create_completion`` drops them).
    """

    def __init__(self, prompt_length: int, limit: int) -> None:
        self.prompt_length = prompt_length
        self.limit = limit
        self.reached = False

    def __call__(self, input_ids: npt.NDArray[np.intc], logits: npt.NDArray[np.single]) -> bool:
        if len(input_ids) - self.prompt_length >= self.limit:
            self.reached = True
        return self.reached


class LlamaCppProvider(Provider):
    """``llamacpp/PATH.gguf`` or ``llamacpp/smollm2``.

    Options: ``n_ctx`` (context length, default 8,192: the 20-shot pfgen prompt needs
    about 4,300), ``n_threads`` (default: llama.cpp's choice), ``n_threads_batch`` (for
    prompt evaluation; default ``n_threads``, where llama-cpp-python would take every core
    of the machine, so that two workers of one thread each on two cores spun four threads
    and made fewer answers a second than one), ``n_gpu_layers`` (default 0, CPU only; -1
    offloads all), ``flash_attn``, and ``chat_template`` (a Jinja chat template, for a GGUF
    file without one or to replace its own).
    """

    name: ClassVar[str] = "llamacpp"
    supports_logprobs: ClassVar[bool] = True
    in_process: ClassVar[bool] = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        n_gpu_layers: int = 0,
        flash_attn: bool = False,
        chat_template: str | None = None,
    ) -> None:
        if base_url is not None:
            raise ProviderError(
                "llamacpp runs in this process; for a llama.cpp server use openai/MODEL "
                "with base_url"
            )
        super().__init__(model)
        self.path = resolve_model_path(model)
        self.n_ctx = n_ctx
        self.chat_template = chat_template
        self._load_options: dict[str, Any] = {
            "n_ctx": n_ctx,
            "n_threads": n_threads,
            "n_threads_batch": n_threads_batch or n_threads,
            "n_gpu_layers": n_gpu_layers,
            "flash_attn": flash_attn,
        }
        self._llm: llama_cpp.Llama | None = None
        self._formatter: Jinja2ChatFormatter | None = None
        #: the prompt of the last call, whose evaluated state the next call may reuse
        self._evaluated_prompt: list[int] = []
        #: the evaluated state of the last few prompts, to answer them again without
        #: evaluating them (see ``_PromptStates``)
        self._prompt_states = _PromptStates()
        self._executor: ThreadPoolExecutor | None = None

    def identity(self) -> dict[str, Any]:
        identity = super().identity()
        identity["replies"] = REPLIES_VERSION
        if self.chat_template is not None:
            identity["chat_template"] = self.chat_template
        return identity

    # -- the worker thread ------------------------------------------------------------

    async def _call(self, function: Callable[[], _T]) -> _T:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llamacpp")
        return await asyncio.get_running_loop().run_in_executor(self._executor, function)

    def _load(self) -> llama_cpp.Llama:
        if self._llm is None:
            try:
                llm = llama_cpp.Llama(
                    model_path=str(self.path), verbose=False, **self._load_options
                )
            except (ValueError, RuntimeError, OSError) as exc:
                raise ProviderError(f"llamacpp: could not load {str(self.path)!r}: {exc}") from exc
            metadata: dict[str, str] = llm.metadata
            template = self.chat_template or metadata.get("tokenizer.chat_template")
            if template:
                self._formatter = Jinja2ChatFormatter(
                    template=template,
                    eos_token=self._special_text(llm, llm.token_eos()),
                    bos_token=self._special_text(llm, llm.token_bos()),
                    add_generation_prompt=True,
                )
            self._llm = llm
        return self._llm

    @staticmethod
    def _special_text(llm: llama_cpp.Llama, token: int) -> str:
        if token < 0:
            return ""
        piece: bytes = llm.detokenize([token], special=True)
        return piece.decode("utf-8", errors="replace")

    def _token_text(self, llm: llama_cpp.Llama, token: int) -> str:
        piece: bytes = llm.detokenize([token], special=True)
        return piece.decode("utf-8", errors="backslashreplace")

    def _prompt_tokens(
        self, llm: llama_cpp.Llama, request: GenerationRequest
    ) -> tuple[list[int], list[str]]:
        """The prompt's tokens, and the stop strings its chat template adds."""
        if request.messages is None:
            tokens = llm.tokenize(
                cast(str, request.prompt).encode("utf-8"), add_bos=True, special=True
            )
            extra_stops: list[str] = []
        else:
            if self._formatter is None:
                raise ProviderError(
                    f"llamacpp/{self.model} cannot do chat: the GGUF file has no chat template "
                    "(send raw prompts, or give a chat_template option)"
                )
            messages: list[Any] = [message.model_dump() for message in request.messages]
            try:
                rendered = self._formatter(messages=messages)
            except Exception as exc:  # jinja2 errors, raise_exception() in templates
                raise ProviderError(
                    f"llamacpp/{self.model}: the chat template failed: {exc}"
                ) from exc
            # like create_chat_completion: the template writes BOS itself
            tokens = llm.tokenize(rendered.prompt.encode("utf-8"), add_bos=False, special=True)
            stop = rendered.stop
            extra_stops = [stop] if isinstance(stop, str) else list(stop or [])
        if not tokens:
            raise ProviderError(f"llamacpp/{self.model}: the prompt is empty")
        return tokens, [stop for stop in extra_stops if stop]

    def _reuse_aligned_prefix(self, llm: llama_cpp.Llama, tokens: list[int]) -> None:
        """Keep only the part of the last prompt's evaluated state that a fresh evaluation
        of ``tokens`` would compute in exactly the same batches.

        llama-cpp-python reuses the longest common prefix of the evaluated tokens and the
        new prompt, and evaluates the rest. But llama.cpp's arithmetic depends on how many
        tokens are evaluated together (a lone last token differs from the same token in a
        batch by up to 0.4 in its logits for SmolLM2 on a CPU), so a sampled answer would
        depend on the requests before it. Cut back to a multiple of ``n_batch``, and the rest
        is evaluated in the very batches a fresh start would use: same prompt and seed, same
        text, while a long shared few-shot prefix is still evaluated only once.
        """
        common = 0
        for old, new in zip(self._evaluated_prompt, tokens, strict=False):
            if old != new:
                break
            common += 1
        batch = max(1, llm.n_batch)
        keep = min(common // batch * batch, (len(tokens) - 1) // batch * batch)
        if keep < llm.n_tokens:
            llm.n_tokens = keep  # the next evaluation drops the cache beyond this point

    def _sample_once(
        self,
        llm: llama_cpp.Llama,
        tokens: list[int],
        stops: list[str],
        request: GenerationRequest,
        seed: int | None,
    ) -> tuple[Choice, Usage]:
        params = request.params
        # llama-cpp-python's own bound (it shortens a budget the context cannot hold)
        room = self.n_ctx - len(tokens)
        limit = _TokenLimit(len(tokens), min(params.max_tokens or room, room))
        kwargs: dict[str, Any] = {
            "max_tokens": params.max_tokens,
            "stop": stops,
            "stopping_criteria": llama_cpp.StoppingCriteriaList([limit]),
        }
        kwargs.update(params.given("temperature", "top_p", "top_k", "frequency_penalty"))
        if params.repetition_penalty is not None:
            kwargs["repeat_penalty"] = params.repetition_penalty
        if seed is not None:
            kwargs["seed"] = seed
        recorder: _LogprobRecorder | None = None
        if params.logprobs:
            recorder = _LogprobRecorder(
                params.top_logprobs or 0, functools.partial(self._token_text, llm)
            )
            kwargs["logits_processor"] = llama_cpp.LogitsProcessorList([recorder.process])
        key = tuple(tokens)
        state = self._prompt_states.get(key)
        if state is None:
            self._reuse_aligned_prefix(llm, tokens)
        self._evaluated_prompt = []  # until this call ends well
        if state is not None:
            state.load(llm)  # the prompt's cache and last logits, as first computed
        try:
            with (
                _from_saved_prompt(llm, resumed=state is not None),
                _keeping_prompt_state(llm, self._prompt_states, key, resumed=state is not None),
                _recording_samples(llm, recorder),
            ):
                completion = cast(dict[str, Any], llm.create_completion(tokens, **kwargs))
        except ValueError as exc:  # llama-cpp-python's word for a bad request
            message = str(exc)
            if "context window" in message:
                message += f" (n_ctx={self.n_ctx}; load with a larger n_ctx option)"
            raise ProviderError(f"llamacpp/{self.model}: {message}") from exc
        self._evaluated_prompt = tokens
        choice = completion["choices"][0]
        text, finish_reason = str(choice["text"]), choice.get("finish_reason")
        if limit.reached:  # cut by the limit: llama-cpp-python calls that a "stop"
            text, stopped = cut_at_stop(text, stops)
            finish_reason = "stop" if stopped else "length"
        usage = completion["usage"]
        completion_tokens = int(usage["completion_tokens"])
        logprobs = None
        if recorder is not None:
            # the sampler's last pick may be the end-of-generation token, not part of it
            logprobs = tuple(recorder.steps[:completion_tokens])
        return (
            Choice(text=text, finish_reason=finish_reason, logprobs=logprobs),
            Usage(prompt_tokens=int(usage["prompt_tokens"]), completion_tokens=completion_tokens),
        )

    def _generate(self, request: GenerationRequest) -> GenerationResponse:
        llm = self._load()
        tokens, template_stops = self._prompt_tokens(llm, request)
        stops = [*request.params.stop, *template_stops]
        seed = request.params.seed
        choices: list[Choice] = []
        completion_tokens = 0
        # greedy decoding gives one answer: compute it once for all n
        runs = 1 if request.params.temperature == 0 else request.n
        for i in range(runs):
            sample_seed = None if seed is None else (seed + i) % _SEED_SPACE
            choice, usage = self._sample_once(llm, tokens, stops, request, sample_seed)
            choices.append(choice)
            completion_tokens += usage.completion_tokens
        if runs < request.n:
            choices *= request.n
            completion_tokens *= request.n
        return GenerationResponse(
            choices=tuple(choices),
            usage=Usage(prompt_tokens=len(tokens), completion_tokens=completion_tokens),
            model=self.model,
        )

    # -- the async interface --------------------------------------------------------------

    async def preflight(self) -> None:
        """Load the model now, on the thread that will run it: a file that does not load
        fails before any work, and a worker that loads first (a Ray generation worker)
        is ready when it says so, its load timed apart from its answers."""
        await self._call(self._load)

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        self.check_request(request)
        return await self._call(functools.partial(self._generate, request))

    async def aclose(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.get_running_loop().run_in_executor(None, executor.shutdown)
        self._llm = None
        self._evaluated_prompt = []
        self._prompt_states.clear()


class _PromptState:
    """llama.cpp's state right after a prompt was evaluated: its cache and the logits of
    its last token (llama-cpp-python's ``save_state`` would also copy a logit row for
    every prompt token, 40 MB at 200 tokens for SmolLM2, which nothing reads here)."""

    def __init__(self, llm: llama_cpp.Llama, size: int) -> None:
        self.n_tokens = llm.n_tokens
        self.tokens = llm.input_ids[: self.n_tokens].copy()
        self.data = (ctypes.c_uint8 * size)()
        self.size = int(llama_cpp.llama_state_get_data(llm.ctx, self.data, size))

    def load(self, llm: llama_cpp.Llama) -> None:
        if llama_cpp.llama_state_set_data(llm.ctx, self.data, self.size) != self.size:
            raise ProviderError("llamacpp: could not restore a saved prompt state")
        llm.n_tokens = self.n_tokens
        llm.input_ids[: self.n_tokens] = self.tokens  # what logits processors are shown


class _PromptStates:
    """The evaluated state of the last few prompts, keyed by their tokens: at most ``count``
    of them and ``max_bytes`` in all, the least recently used dropped first. A state holds
    the cache of the prompt's tokens only, whatever ``n_ctx``: 24 kB a token for SmolLM2
    (5.1 MB at 211 tokens, 65 MB at 2,801, saved in 3.5 and 45 ms), 128 kB for an 8B model
    with grouped-query attention.

    Block reuse (``_reuse_aligned_prefix``) cannot help a prompt shorter than ``n_batch``,
    and every seed, sample or trial of the same prompt evaluated it again in full. A state
    saved right after a fresh evaluation holds that evaluation's very numbers, so a request
    resumed from it gives bit for bit the reply of a fresh start.
    """

    def __init__(self, count: int = 4, max_bytes: int = 256 << 20) -> None:
        self.count = count
        self.max_bytes = max_bytes
        self._states: dict[tuple[int, ...], _PromptState] = {}

    def get(self, key: tuple[int, ...]) -> _PromptState | None:
        state = self._states.pop(key, None)
        if state is not None:
            self._states[key] = state  # now the most recent
        return state

    def keep(self, key: tuple[int, ...], llm: llama_cpp.Llama) -> None:
        """Keep ``llm``'s state under ``key``, unless it alone is over ``max_bytes``."""
        self._states.pop(key, None)
        size = int(llama_cpp.llama_state_get_size(llm.ctx))
        if size > self.max_bytes:
            return
        self._states[key] = _PromptState(llm, size)
        total = sum(kept.size for kept in self._states.values())
        while len(self._states) > self.count or total > self.max_bytes:
            oldest = next(iter(self._states))
            total -= self._states.pop(oldest).size

    def clear(self) -> None:
        self._states.clear()


@contextlib.contextmanager
def _shadowing(llm: llama_cpp.Llama, name: str, make: Callable[[Any], Any]) -> Iterator[None]:
    """While active, ``llm.NAME`` is ``make(the current llm.NAME)`` (an instance attribute
    over the method); what was there before comes back after, so shadows can nest."""
    target: Any = llm
    before = vars(target).get(name)
    setattr(target, name, make(getattr(target, name)))
    try:
        yield
    finally:
        if before is None:
            delattr(target, name)
        else:
            setattr(target, name, before)


def _from_saved_prompt(
    llm: llama_cpp.Llama, *, resumed: bool
) -> contextlib.AbstractContextManager[None]:
    """While active, ``llm.generate`` evaluates nothing of the prompt when ``resumed``: the
    state loaded holds all of it, its last token's logits included.

    llama-cpp-python's own prefix reuse always evaluates the prompt's last token again,
    alone, which gives other logits than a fresh evaluation of the prompt in one batch.
    """
    if not resumed:
        return contextlib.nullcontext()

    def make(original: Any) -> Any:
        def generate(tokens: Any, *args: Any, **kwargs: Any) -> Any:
            kwargs["reset"] = False  # keep the loaded state; sample from its last logits
            return original([], *args, **kwargs)

        return generate

    return _shadowing(llm, "generate", make)


def _keeping_prompt_state(
    llm: llama_cpp.Llama, states: _PromptStates, key: tuple[int, ...], *, resumed: bool
) -> contextlib.AbstractContextManager[None]:
    """While active, the state right after the prompt's evaluation (before its first token
    is sampled, and so before any generated token is evaluated) is kept under ``key``."""
    if resumed:
        return contextlib.nullcontext()

    def make(original: Any) -> Any:
        def sample(*args: Any, **kwargs: Any) -> int:
            if llm.n_tokens == len(key):  # once: the prompt evaluated, nothing generated
                states.keep(key, llm)
            return int(original(*args, **kwargs))

        return sample

    return _shadowing(llm, "sample", make)


def _recording_samples(
    llm: llama_cpp.Llama, recorder: _LogprobRecorder | None
) -> contextlib.AbstractContextManager[None]:
    """While active, every token ``llm.sample`` returns is handed to the recorder."""
    if recorder is None:
        return contextlib.nullcontext()

    def make(original: Any) -> Any:
        def sample(*args: Any, **kwargs: Any) -> int:
            token = int(original(*args, **kwargs))
            recorder.record(token)
            return token

        return sample

    return _shadowing(llm, "sample", make)
