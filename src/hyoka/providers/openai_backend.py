"""OpenAI and every server that speaks its API (vLLM, llama.cpp, LM Studio, Azure OpenAI).

``openai/MODEL`` talks to api.openai.com; with ``base_url`` to any compatible server (a local
one needs no key); with the options ``azure_endpoint`` and ``api_version`` to Azure OpenAI,
where MODEL is the deployment name. Chat requests go to ``chat.completions``, raw prompts to
the legacy ``completions`` endpoint.

The API key is read from ``OPENAI_API_KEY`` (``AZURE_OPENAI_API_KEY`` for Azure) and nowhere
else: it is never an option, so it cannot reach a config file, a cache key or a log. The SDK's
own retries are off; ``ModelClient`` retries, so every backend behaves alike. ``timeout``
(seconds, default 600) bounds a whole call, connect to last byte. SDK errors become
``RateLimitError`` (429, with the ``Retry-After`` hint), ``TransientError`` (5xx, timeouts,
dropped connections, garbled bodies) or ``ProviderError`` (any other 4xx, with the server's
message).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from hyoka.errors import InputError
from hyoka.providers._hosted import status_error, text_option, timeout_option
from hyoka.providers._http import (
    bounded,
    read_api_key,
    retry_after,
    server_text,
    split_query,
)
from hyoka.providers.base import Provider
from hyoka.providers.errors import ProviderError, TransientError
from hyoka.providers.types import (
    Choice,
    GenerationRequest,
    GenerationResponse,
    TokenLogprob,
    TopLogprob,
    Usage,
    token_count,
)
from hyoka.redact import REDACTED, KnownSecrets, url_secret_values

if TYPE_CHECKING:  # imported at the first request (``OpenAIProvider._client``)
    import openai

OPENAI_KEY_ENV = "OPENAI_API_KEY"
AZURE_KEY_ENV = "AZURE_OPENAI_API_KEY"
#: What a keyless local server is sent as the key (the SDK insists on one).
PLACEHOLDER_KEY = "not-needed"
DEFAULT_TIMEOUT = 600.0
PREFLIGHT_TIMEOUT = 10.0
#: the most of a ``GET /models`` answer read: a longer one is no list of what is served
LISTING_BYTES = 256 * 1024
_OPTIONS = frozenset({"timeout", "azure_endpoint", "api_version"})
_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-*.]{3,})")


class OpenAIProvider(Provider):
    name = "openai"
    backend_options = _OPTIONS
    key_envs = (OPENAI_KEY_ENV, AZURE_KEY_ENV)
    supports_logprobs = True

    def __init__(self, model: str, *, base_url: str | None = None, **options: Any) -> None:
        unknown = sorted(set(options) - _OPTIONS)
        if unknown:
            hint = (
                f" (API keys are read from {OPENAI_KEY_ENV} / {AZURE_KEY_ENV} only)"
                if any("key" in name.lower() for name in unknown)
                else ""
            )
            raise ProviderError(
                f"openai/{model}: unknown option(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(_OPTIONS))}{hint}"
            )
        super().__init__(model, base_url=base_url)
        try:
            self.check_option_values(options)
        except ProviderError as exc:
            raise ProviderError(f"openai/{model}: {exc}") from None
        self.timeout = timeout_option("openai", options.get("timeout", DEFAULT_TIMEOUT))
        self.azure_endpoint: str | None = options.get("azure_endpoint")
        self.api_version: str | None = options.get("api_version")
        self.azure = self.azure_endpoint is not None or self.api_version is not None
        self._key = self._api_key()
        # the placeholder sent to keyless local servers is no secret
        own = () if self._key == PLACEHOLDER_KEY else (self._key,)
        self._secrets = KnownSecrets.from_environment(*own, *url_secret_values(base_url))
        if self.azure and (not self.azure_endpoint or not self.api_version):
            raise ProviderError(
                f"openai/{model}: Azure OpenAI needs both the azure_endpoint and the "
                "api_version options"
            )
        self._sdk: openai.AsyncOpenAI | None = None

    @property
    def _client(self) -> openai.AsyncOpenAI:
        """The SDK's client, made at the first request: importing the SDK takes about half
        a second, which a run with nothing left to ask (an identical rerun) need not pay."""
        if self._sdk is None:
            import openai

            if self.azure and self.azure_endpoint:  # both options: checked when made
                self._sdk = openai.AsyncAzureOpenAI(
                    api_key=self._key, azure_endpoint=self.azure_endpoint,
                    api_version=self.api_version, max_retries=0, timeout=self.timeout,
                )  # fmt: skip
            else:
                # a query in --base-url is sent with every request, after the endpoint's path
                url, query = split_query(self.base_url) if self.base_url else (None, {})
                self._sdk = openai.AsyncOpenAI(
                    api_key=self._key, base_url=url, default_query=query or None,
                    max_retries=0, timeout=self.timeout,
                )  # fmt: skip
        return self._sdk

    @classmethod
    def check_option_values(cls, options: Mapping[str, Any]) -> None:
        """``timeout``: seconds above 0; ``azure_endpoint``, ``api_version``: text."""
        if "timeout" in options:
            timeout_option("openai", options["timeout"])
        for name in ("azure_endpoint", "api_version"):
            if name in options:
                text_option("openai", name, options[name])

    def _api_key(self) -> str:
        env = AZURE_KEY_ENV if self.azure else OPENAI_KEY_ENV
        found = read_api_key([env])
        if found is not None:
            return found[1]
        if self.base_url is not None and not self.azure:
            return PLACEHOLDER_KEY  # a local or self-hosted server; it answers 401 if not
        where = "Azure OpenAI" if self.azure else "the OpenAI API"
        raise ProviderError(
            f"openai/{self.model}: {where} needs an API key in the environment variable {env} "
            "(or pass base_url for a local server that needs none)"
        )

    def identity(self) -> dict[str, Any]:
        identity = super().identity()
        if self.azure:
            identity["azure_endpoint"] = self.azure_endpoint
            identity["api_version"] = self.api_version
        return identity

    @property
    def _spec(self) -> str:
        return f"{self.name}/{self.model}"

    async def preflight(self) -> None:
        """A server of the user's own (``base_url``) must accept a connection at all."""
        if self.base_url is None or self.azure:
            return
        address = urlsplit(self.base_url)
        if address.hostname is None:
            raise ProviderError(f"{self._spec}: base URL {self.shown_url!r} names no host")
        default_port = 443 if address.scheme == "https" else 80
        try:
            port = address.port or default_port
            _, writer = await asyncio.wait_for(
                asyncio.open_connection(address.hostname, port), PREFLIGHT_TIMEOUT
            )
        except (OSError, TimeoutError, ValueError) as exc:
            reason = str(exc) or type(exc).__name__
            raise ProviderError(
                f"{self._spec}: cannot connect to {self.shown_url} ({reason}); "
                "is the server running, and is `base_url` right?"
            ) from None
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()

    async def listed_models(self) -> tuple[str, ...] | None:
        """The ids of the user's own server's ``GET /models`` (vLLM, llama.cpp and SGLang
        list what they serve); ``None`` for the OpenAI API and Azure, or a server that
        gives no list within ``PREFLIGHT_TIMEOUT`` and ``LISTING_BYTES``."""
        if self.base_url is None or self.azure:
            return None
        import openai

        from hyoka.store import parse_json

        try:
            body = await asyncio.wait_for(self._listing(), PREFLIGHT_TIMEOUT)
            if body is None:
                return None
            listed = parse_json(body, "GET /models", strict=False)["data"]
            return tuple(str(model["id"]) for model in listed)
        except (openai.APIError, TimeoutError, InputError, ValueError, KeyError, TypeError):
            return None

    async def _listing(self) -> bytes | None:
        """``GET /models``'s body, ``None`` past ``LISTING_BYTES`` (read no further)."""
        async with self._client.models.with_streaming_response.list() as response:
            chunks: list[bytes] = []
            async for chunk in response.iter_bytes():
                chunks.append(chunk)
                if sum(map(len, chunks)) > LISTING_BYTES:
                    return None
        return b"".join(chunks)

    # ------------------------------------------------------------------ requests

    def _common_args(self, request: GenerationRequest) -> dict[str, Any]:
        params = request.params
        args: dict[str, Any] = {"model": self.model}
        if request.n != 1:
            args["n"] = request.n
        args.update(params.given("temperature", "top_p", "stop", "seed", "frequency_penalty"))
        extra = params.given("top_k")
        if params.repetition_penalty is not None:
            # vLLM's name, and llama.cpp's; each server ignores the one it does not know
            extra["repetition_penalty"] = params.repetition_penalty
            extra["repeat_penalty"] = params.repetition_penalty
        if extra:
            args["extra_body"] = extra
        return args

    def _chat_args(self, request: GenerationRequest) -> dict[str, Any]:
        params = request.params
        args = self._common_args(request)
        args["messages"] = [
            {"role": message.role, "content": message.content} for message in request.messages or ()
        ]
        if params.max_tokens is not None:
            # api.openai.com wants max_completion_tokens (its reasoning models refuse
            # max_tokens); compatible servers and older Azure API versions know max_tokens
            official = self.base_url is None and not self.azure
            args["max_completion_tokens" if official else "max_tokens"] = params.max_tokens
        if params.logprobs:
            args["logprobs"] = True
            if params.top_logprobs is not None:
                args["top_logprobs"] = params.top_logprobs
        return args

    def _completion_args(self, request: GenerationRequest) -> dict[str, Any]:
        params = request.params
        args = self._common_args(request)
        args["prompt"] = request.prompt
        if params.max_tokens is not None:
            args["max_tokens"] = params.max_tokens
        if params.logprobs:
            args["logprobs"] = params.top_logprobs or 0
        return args

    def request_body(self, request: GenerationRequest) -> dict[str, Any]:
        """The JSON body sent for ``request``, online or in a batch: the arguments of the
        SDK's ``create`` with ``extra_body`` merged over them, as ``create`` merges it.

        ``generate`` posts it through the SDK's client (``post``: the same request, headers,
        auth, errors and parsed answer as ``create``) without ``create``'s parameter
        transform, which renames aliased keys and encodes dates and files: none is in what
        hyoka sends (text, numbers and lists of them), and it cost about 0.3 ms of CPU a
        call, as much as all of hyoka's own work on a judge call at 128 in flight."""
        args = self._chat_args(request) if request.is_chat else self._completion_args(request)
        extra = args.pop("extra_body", None) or {}
        return {**args, **extra}

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        import openai  # loaded once, by the first request (``_client``)
        from openai.types import Completion
        from openai.types.chat import ChatCompletion

        try:
            async with bounded(self.timeout, self._spec):
                raw: Any = await self._client.post(
                    "/chat/completions" if request.is_chat else "/completions",
                    body=self.request_body(request),
                    cast_to=ChatCompletion if request.is_chat else Completion,
                    options={"security": {"bearer_auth": True}},  # as ``create`` sends it
                )
        except openai.APIError as exc:
            raise self._map_error(exc) from None
        except UnicodeError as exc:  # our side: a header or URL that cannot be encoded
            raise ProviderError(
                f"{self._spec}: the request cannot be encoded ({self._scrub(str(exc))})"
            ) from None
        except ValueError as exc:  # json.JSONDecodeError from a garbled body
            raise TransientError(f"{self._spec}: the server sent malformed JSON ({exc})") from None
        except RecursionError:  # a body nested deeper than Python's JSON decoder goes
            raise TransientError(
                f"{self._spec}: the server sent malformed JSON (nested too deeply to read)"
            ) from None
        try:
            if request.is_chat:
                choices = tuple(_chat_choice(choice) for choice in raw.choices)
            else:
                choices = tuple(_completion_choice(choice) for choice in raw.choices)
            usage = _usage(raw.usage)
            model = str(raw.model or self.model)
        except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
            raise TransientError(
                f"{self._spec}: the server's answer is not a {'chat ' if request.is_chat else ''}"
                f"completion ({type(exc).__name__}: {server_text(str(exc), self._scrub)})"
            ) from None
        if not choices:
            raise TransientError(f"{self._spec}: the server's answer holds no choices")
        return GenerationResponse(choices=choices, usage=usage, model=model)

    # ------------------------------------------------------------------ errors

    def _scrub(self, text: str) -> str:
        scrubbed = self._secrets.scrub(text)
        return _KEY_PATTERN.sub(f"sk-{REDACTED}", scrubbed)

    def _server_message(self, exc: openai.APIError) -> str:
        body = exc.body
        message: Any = None
        if isinstance(body, Mapping):
            message = body.get("message") or body.get("detail") or body.get("error")
        elif isinstance(body, str):
            message = body
        if message is None:
            message = exc.message
        if not isinstance(message, str):
            message = json.dumps(message, ensure_ascii=False, default=str)
        return server_text(message, self._scrub)

    def _map_error(self, exc: openai.APIError) -> ProviderError:
        import openai  # loaded: ``exc`` is one of its errors

        spec = self._spec
        if isinstance(exc, openai.APITimeoutError):
            return TransientError(f"{spec}: no answer within {self.timeout:g} s (timeout)")
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = f": {type(cause).__name__}: {cause}" if cause else ""
            return TransientError(f"{spec}: connection failed{self._scrub(detail)}")
        if isinstance(exc, openai.APIResponseValidationError):
            return TransientError(f"{spec}: malformed answer from the server ({exc.message})")
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            message = f"{spec}: HTTP {status}: {self._server_message(exc)}"
            return status_error(status, message, retry_after(exc.response.headers))
        return ProviderError(f"{spec}: {server_text(exc.message, self._scrub)}")

    async def aclose(self) -> None:
        if self._sdk is not None:  # never made: no request was sent
            await self._sdk.close()


def _usage(raw: Any) -> Usage:
    """The reply's token counts (a missing one is 0); one that is no count (``1e400``,
    ``NaN``, ``-1``, ``2.5``) makes the reply malformed: ``token_count``'s ValueError."""
    if raw is None:
        return Usage()
    return Usage(
        prompt_tokens=token_count(raw.prompt_tokens or 0, "usage.prompt_tokens"),
        completion_tokens=token_count(raw.completion_tokens or 0, "usage.completion_tokens"),
    )


def _logprob(value: Any) -> float:
    return float("nan") if value is None else float(value)


def _chat_choice(raw: Any) -> Choice:
    logprobs = None
    if raw.logprobs is not None and raw.logprobs.content is not None:
        logprobs = tuple(
            TokenLogprob(
                token=item.token,
                logprob=_logprob(item.logprob),
                top=tuple(
                    TopLogprob(token=alt.token, logprob=_logprob(alt.logprob))
                    for alt in item.top_logprobs or ()
                ),
            )
            for item in raw.logprobs.content
        )
    return Choice(
        text=raw.message.content or "", finish_reason=raw.finish_reason, logprobs=logprobs,
        reasoning=_reasoning(raw.message),
    )  # fmt: skip


#: where compatible servers put a reasoning model's thinking, apart from ``content``:
#: vLLM, SGLang and llama.cpp server ``reasoning_content``, some newer servers ``reasoning``
_REASONING_FIELDS = ("reasoning_content", "reasoning")


def _reasoning(message: Any) -> str | None:
    """The thinking a server parsed out of the reply (the SDK keeps unknown fields), or
    ``None``."""
    for name in _REASONING_FIELDS:
        value = getattr(message, name, None)
        if isinstance(value, str) and value:
            return value
    return None


def _completion_choice(raw: Any) -> Choice:
    logprobs = None
    if raw.logprobs is not None and raw.logprobs.tokens is not None:
        tokens: Sequence[str] = raw.logprobs.tokens
        values: Sequence[float | None] = raw.logprobs.token_logprobs or [None] * len(tokens)
        tops: Sequence[Mapping[str, float] | None] = raw.logprobs.top_logprobs or [None] * len(
            tokens
        )
        logprobs = tuple(
            TokenLogprob(
                token=token,
                logprob=_logprob(value),
                top=tuple(
                    TopLogprob(token=alt, logprob=_logprob(alt_value))
                    for alt, alt_value in sorted(
                        (top or {}).items(), key=lambda item: -_logprob(item[1])
                    )
                ),
            )
            for token, value, top in zip(tokens, values, tops, strict=True)
        )
    return Choice(text=raw.text or "", finish_reason=raw.finish_reason, logprobs=logprobs)
