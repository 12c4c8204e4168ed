"""Claude through Anthropic's Messages API, with the official ``anthropic`` SDK.

The API key is read from ``ANTHROPIC_API_KEY`` only (never an option, so it cannot reach a
cache key or a config); ``base_url`` points the SDK at another host, and ``timeout``
(seconds, default 600; connecting gets at most 10) bounds one call, connect to last byte.
The SDK's own retries are off: ``ModelClient`` retries ``TransientError`` with backoff, for
every backend alike.

Request mapping:

- chat only: a raw prompt is refused, since the API always applies Claude's chat format;
- system messages, wherever they stand, are joined (blank line between) into ``system``;
  user and assistant turns go to ``messages`` in order (a final assistant turn is a prefill
  that the reply continues);
- ``max_tokens`` is required by the API: ``DEFAULT_MAX_TOKENS`` (1024) when unset;
- ``stop`` -> ``stop_sequences``; ``temperature``/``top_p``/``top_k`` are sent only when set,
  in the request body (SDK 1.0 dropped them from the typed signature; the API still takes
  them, though some newer models refuse non-default values with a 400);
- ``seed`` is ignored: the API has no seed, so repeated runs are not reproducible;
- logprobs are refused (the API returns none), and so is a ``repetition_penalty`` other
  than 1.0 (no such setting);
- ``n > 1`` makes ``n`` sequential calls; their usage is summed.

Finish reasons use the OpenAI words where one fits: ``end_turn``/``stop_sequence`` ->
``"stop"``, ``max_tokens``/``model_context_window_exceeded`` -> ``"length"``, ``refusal`` ->
``"content_filter"``; anything else passes through.

Errors: 429 -> ``RateLimitError`` (``retry_after`` from ``retry-after-ms``/``retry-after``);
408, 5xx and 529 (overloaded), timeouts, refused or dropped connections and garbled bodies ->
``TransientError``; any other status -> ``ProviderError`` with the API's own error message.
Messages are built from status codes and server text, with the key masked if a server ever
echoes it.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Mapping
from typing import Any, ClassVar

import anthropic
import httpx2
from anthropic.types import AssistantMessageParam, MessageParam, TextBlock, UserMessageParam
from anthropic.types import Message as AnthropicMessage

from hyoka.providers._hosted import (
    api_key,
    check_chat_request,
    check_options,
    status_error,
    timeout_option,
)
from hyoka.providers._http import bounded, retry_after, server_text, split_query
from hyoka.providers.base import Provider
from hyoka.providers.errors import ProviderError, TransientError
from hyoka.providers.types import Choice, GenerationRequest, GenerationResponse, Usage
from hyoka.redact import KnownSecrets, url_secret_values

API_KEY_ENV = "ANTHROPIC_API_KEY"
#: ``max_tokens`` when the request leaves it unset (the API requires a value).
DEFAULT_MAX_TOKENS = 1024
DEFAULT_TIMEOUT_S = 600.0

_OPTIONS = frozenset({"timeout"})
_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}


class AnthropicProvider(Provider):
    name: ClassVar[str] = "anthropic"
    backend_options = _OPTIONS
    key_envs = (API_KEY_ENV,)
    supports_chat: ClassVar[bool] = True
    supports_completion: ClassVar[bool] = False
    supports_logprobs: ClassVar[bool] = False

    def __init__(self, model: str, *, base_url: str | None = None, **options: Any) -> None:
        check_options("anthropic", options, _OPTIONS, [API_KEY_ENV])
        self.check_option_values(options)
        super().__init__(model, base_url=base_url)
        self._api_key = api_key("anthropic", [API_KEY_ENV])
        self._secrets = KnownSecrets.from_environment(self._api_key, *url_secret_values(base_url))
        self._timeout = timeout_option("anthropic", options.get("timeout", DEFAULT_TIMEOUT_S))
        self._client: anthropic.AsyncAnthropic | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._ssl_context: ssl.SSLContext | None = None

    @classmethod
    def check_option_values(cls, options: Mapping[str, Any]) -> None:
        """``timeout``: seconds above 0."""
        if "timeout" in options:
            timeout_option("anthropic", options["timeout"])

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.shown_url!r})"

    def check_request(self, request: GenerationRequest) -> None:
        super().check_request(request)
        check_chat_request(self._where(), request, "system prompt")

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        self.check_request(request)
        choices: list[Choice] = []
        usage = Usage()
        model = self.model
        for _ in range(request.n):
            message = await self._create(request)
            choice, call_usage = self._parse(message)
            choices.append(choice)
            usage = usage + call_usage
            model = message.model or model
        return GenerationResponse(choices=tuple(choices), usage=usage, model=model)

    async def aclose(self) -> None:
        client, loop = self._client, self._client_loop
        self._client, self._client_loop = None, None
        if client is not None and loop is asyncio.get_running_loop():
            await client.close()

    # --- internals ------------------------------------------------------------------------

    def _sdk(self) -> anthropic.AsyncAnthropic:
        """The SDK client for the running event loop (its connections belong to one loop)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            # an explicit timeout also stops the SDK from refusing a large max_tokens
            # without streaming (its guess of a call's length): the API decides that
            timeout = anthropic.Timeout(self._timeout, connect=min(self._timeout, 10.0))
            if self._ssl_context is None:  # loading the CA store is slow: once per provider
                self._ssl_context = httpx2.create_ssl_context()
            url, query = split_query(self.base_url) if self.base_url else (None, {})
            self._client = anthropic.AsyncAnthropic(
                api_key=self._api_key,
                base_url=url,
                default_query=query or None,
                max_retries=0,
                timeout=timeout,
                # the SDK's own HTTP client schedules its close on whatever loop is running
                # when it is dropped, which fails for one made on an earlier, closed loop
                http_client=anthropic.DefaultAsyncHttpxClient(
                    timeout=timeout, verify=self._ssl_context
                ),
            )
            self._client_loop = loop
        return self._client

    def message_params(self, request: GenerationRequest) -> dict[str, Any]:
        """The Messages API's parameters for ``request`` (one call): what ``_create`` sends
        and what a Message Batches request carries (``providers.batch``)."""
        params = request.params
        system = "\n\n".join(m.content for m in request.messages or () if m.role == "system")
        turns: list[MessageParam] = [
            UserMessageParam(role="user", content=m.content)
            if m.role == "user"
            else AssistantMessageParam(role="assistant", content=m.content)
            for m in request.messages or ()
            if m.role != "system"
        ]
        args: dict[str, Any] = {
            "model": self.model,
            "max_tokens": params.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": turns,
        }
        if system:
            args["system"] = system
        if params.stop:
            args["stop_sequences"] = list(params.stop)
        for name, value in (
            ("temperature", params.temperature),
            ("top_p", params.top_p),
            ("top_k", params.top_k),
        ):
            if value is not None:
                args[name] = value
        return args

    async def _create(self, request: GenerationRequest) -> AnthropicMessage:
        args = self.message_params(request)
        sampling = {
            name: args.pop(name) for name in ("temperature", "top_p", "top_k") if name in args
        }
        try:
            async with bounded(self._timeout, self._where()):
                message = await self._sdk().messages.create(**args, extra_body=sampling or None)
        except anthropic.APIStatusError as exc:
            raise self._status_error(exc) from None
        except anthropic.APITimeoutError:
            raise TransientError(
                f"{self._where()}: no answer within {self._timeout:g} s (timeout)"
            ) from None
        except anthropic.APIConnectionError as exc:
            cause = exc.__cause__
            detail = f"{type(cause).__name__}: {cause}" if cause is not None else exc.message
            raise TransientError(
                f"{self._where()}: connection failed ({self._redact(detail)})"
            ) from None
        except UnicodeError as exc:  # our side: a header or URL that cannot be encoded
            raise ProviderError(
                f"{self._where()}: the request cannot be encoded ({self._redact(str(exc))})"
            ) from None
        except anthropic.APIResponseValidationError:
            raise TransientError(f"{self._where()}: the response body is not a message") from None
        except json.JSONDecodeError:
            raise TransientError(f"{self._where()}: the response body is not JSON") from None
        except RecursionError:  # nested deeper than Python's JSON decoder goes
            raise TransientError(
                f"{self._where()}: the response body is not JSON (nested too deeply to read)"
            ) from None
        if not isinstance(message, AnthropicMessage):
            raise TransientError(f"{self._where()}: the response body is not a message")
        return message

    def _parse(self, message: AnthropicMessage) -> tuple[Choice, Usage]:
        try:
            text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
            usage = message.usage
            prompt_tokens = (
                usage.input_tokens
                + (usage.cache_creation_input_tokens or 0)
                + (usage.cache_read_input_tokens or 0)
            )
            call_usage = Usage(prompt_tokens=prompt_tokens, completion_tokens=usage.output_tokens)
        except (AttributeError, TypeError, ValueError):
            raise TransientError(
                f"{self._where()}: the response lacks content or usage (garbled body)"
            ) from None
        reason = message.stop_reason
        finish = _FINISH_REASONS.get(reason, reason) if reason is not None else None
        return Choice(text=text, finish_reason=finish), call_usage

    def _status_error(self, exc: anthropic.APIStatusError) -> ProviderError:
        status = exc.status_code
        detail = exc.api_message
        if not detail:
            body = exc.body
            if body is None:
                detail = ""
            else:
                detail = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
            detail = detail.strip() or exc.response.reason_phrase
        # each part is the server's text: one line, printable, bounded (``server_text``)
        detail = server_text(detail, self._redact)
        kind = f" {server_text(exc.type, self._redact)}" if exc.type else ""
        request_id = (
            f" (request id {server_text(exc.request_id, self._redact)})" if exc.request_id else ""
        )
        message = self._redact(f"{self._where()}: HTTP {status}{kind}: {detail}{request_id}")
        return status_error(status, message, retry_after(exc.response.headers))

    def _where(self) -> str:
        return f"anthropic/{self.model}"

    def _redact(self, text: str) -> str:
        return self._secrets.scrub(text)
