"""Gemini through the Gemini API (Google AI Studio), with the official ``google-genai`` SDK.

The API key is read from the environment only: ``GOOGLE_API_KEY``, else ``GEMINI_API_KEY``
(the SDK's own order). Options: ``base_url`` (another host, e.g. a test server),
``api_version`` (default ``"v1beta"``, the version Google's REST reference documents) and
``timeout`` (seconds per call, connect to last byte, default 600). The SDK's retries are
off (one attempt, no implicit reconnect): ``ModelClient`` retries ``TransientError`` for
every backend alike.
Calls use the async API, ``client.aio.models.generate_content``.

Request mapping:

- chat only: a raw prompt is refused (the API always applies Gemini's chat format);
- system messages, wherever they stand, are joined (blank line between) into
  ``system_instruction``; user turns go to ``contents`` as role ``user``, assistant turns as
  role ``model``;
- ``temperature``, ``top_p``, ``top_k``, ``max_tokens`` -> ``max_output_tokens``, ``stop`` ->
  ``stop_sequences``, ``seed``, and ``n`` -> ``candidate_count`` (sent when above 1), each
  only when set;
- ``logprobs`` -> ``response_logprobs``, ``top_logprobs`` -> ``logprobs`` (alternatives per
  token); each candidate's ``logprobs_result`` becomes ``TokenLogprob`` records (a missing
  log probability is proto3's omitted 0.0). Not every model offers logprobs: the API says so
  with a 400, reported as ``ProviderError``;
- a ``repetition_penalty`` other than 1.0 is refused (no such setting).

Response: candidates in ``index`` order, the text of their non-thought parts; usage is
``prompt_token_count`` and ``candidates_token_count`` plus ``thoughts_token_count`` (thinking
is billed as output); should a reply hold fewer than ``n`` candidates, the rest are empty
choices with no finish reason. Finish reasons use the OpenAI words where one fits: ``STOP`` ->
``"stop"``, ``MAX_TOKENS`` -> ``"length"``, the blocking reasons -> ``"content_filter"``,
others lower-cased. A prompt the API blocks outright (no candidates, a ``block_reason``)
gives ``n`` empty choices with ``"content_filter"``, so one blocked item does not end a run.

Errors (``google.genai.errors.APIError`` codes): 429 -> ``RateLimitError`` (``retry_after``
from a ``Retry-After`` header or the body's ``RetryInfo.retryDelay``); 408 and 5xx,
timeouts, refused or dropped connections and garbled bodies -> ``TransientError``; any other
code -> ``ProviderError`` with the API's own message. Messages are built from codes and
server text, with the key masked if a server ever echoes it.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import pydantic
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from hyoka.providers._hosted import (
    api_key,
    check_chat_request,
    check_options,
    status_error,
    text_option,
    timeout_option,
)
from hyoka.providers._http import bounded, retry_after, server_text
from hyoka.providers.base import Provider
from hyoka.providers.errors import ProviderError, TransientError
from hyoka.providers.types import (
    Choice,
    GenerationRequest,
    GenerationResponse,
    TokenLogprob,
    TopLogprob,
    Usage,
)
from hyoka.redact import KnownSecrets, url_secret_values

#: Environment variables holding the key, in the order they are read.
API_KEY_ENVS = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
DEFAULT_API_VERSION = "v1beta"
DEFAULT_TIMEOUT_S = 600.0

_OPTIONS = frozenset({"api_version", "timeout"})
_CONTENT_FILTER = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
    }
)
_FINISH_REASONS = {"STOP": "stop", "MAX_TOKENS": "length"}
_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)s\s*$")


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Connection and timeout errors of whichever HTTP stack the SDK picked.

    google-genai talks through httpx2 by default, httpx when told to, and aiohttp when that
    is installed; all three are looked up here rather than imported, since only httpx2 is
    a dependency of the SDK.
    """
    found: list[type[BaseException]] = [TimeoutError]
    for module_name, class_name in (
        ("httpx2", "TransportError"),
        ("httpx", "TransportError"),
        ("aiohttp", "ClientError"),
    ):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        cls = getattr(module, class_name, None)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            found.append(cls)
    return tuple(found)


_TRANSPORT_ERRORS = _transport_errors()


class GoogleProvider(Provider):
    name: ClassVar[str] = "google"
    backend_options = _OPTIONS
    key_envs = API_KEY_ENVS
    supports_chat: ClassVar[bool] = True
    supports_completion: ClassVar[bool] = False
    supports_logprobs: ClassVar[bool] = True

    def __init__(self, model: str, *, base_url: str | None = None, **options: Any) -> None:
        check_options("google", options, _OPTIONS, API_KEY_ENVS)
        self.check_option_values(options)
        super().__init__(model, base_url=base_url)
        self._api_key = api_key("google", API_KEY_ENVS)
        self._secrets = KnownSecrets.from_environment(self._api_key, *url_secret_values(base_url))
        self._api_version = str(options.get("api_version", DEFAULT_API_VERSION))
        self._timeout = timeout_option("google", options.get("timeout", DEFAULT_TIMEOUT_S))
        self._client: genai.Client | None = None

    @classmethod
    def check_option_values(cls, options: Mapping[str, Any]) -> None:
        """``timeout``: seconds above 0; ``api_version``: text."""
        if "timeout" in options:
            timeout_option("google", options["timeout"])
        if "api_version" in options:
            text_option("google", "api_version", options["api_version"])

    def __repr__(self) -> str:
        return f"GoogleProvider(model={self.model!r}, base_url={self.shown_url!r})"

    def check_request(self, request: GenerationRequest) -> None:
        super().check_request(request)
        check_chat_request(self._where(), request, "system instruction")

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        self.check_request(request)
        contents, config = self._build(request)
        try:
            async with bounded(self._timeout, self._where()):
                response = await self._sdk().aio.models.generate_content(
                    model=self.model, contents=contents, config=config
                )
        except TransientError:
            raise
        except UnicodeError as exc:  # our side: a header or URL that cannot be encoded
            raise ProviderError(
                f"{self._where()}: the request cannot be encoded ({self._redact(str(exc))})"
            ) from None
        except Exception as exc:
            mapped = self._error(exc)
            if mapped is None:
                raise
            raise mapped from _cause(exc)
        return self._parse(response, request)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aio.aclose()
            client.close()

    # --- internals ------------------------------------------------------------------------

    def _sdk(self) -> genai.Client:
        """The SDK client, made on first use; it keeps one connection pool per event loop."""
        if self._client is None:
            self._client = genai.Client(
                vertexai=False,
                api_key=self._api_key,
                http_options=genai_types.HttpOptions(
                    base_url=self.base_url,
                    api_version=self._api_version,
                    timeout=max(1, round(self._timeout * 1000)),
                    retry_options=genai_types.HttpRetryOptions(attempts=1),
                ),
            )
        return self._client

    def _build(
        self, request: GenerationRequest
    ) -> tuple[list[genai_types.Content], genai_types.GenerateContentConfig]:
        params = request.params
        messages = request.messages or ()
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        contents = [
            genai_types.Content(
                role="user" if m.role == "user" else "model",
                parts=[genai_types.Part(text=m.content)],
            )
            for m in messages
            if m.role != "system"
        ]
        config = genai_types.GenerateContentConfig(
            system_instruction=system or None,
            temperature=params.temperature,
            top_p=params.top_p,
            top_k=float(params.top_k) if params.top_k is not None else None,
            max_output_tokens=params.max_tokens,
            stop_sequences=list(params.stop) or None,
            seed=params.seed,
            candidate_count=request.n if request.n > 1 else None,
            response_logprobs=True if params.logprobs else None,
            logprobs=params.top_logprobs if params.logprobs and params.top_logprobs else None,
        )
        return contents, config

    def _parse(
        self, response: genai_types.GenerateContentResponse, request: GenerationRequest
    ) -> GenerationResponse:
        try:
            candidates = list(response.candidates or [])
            usage = self._usage(response.usage_metadata)
            model = response.model_version or self.model
            if not candidates:
                feedback = response.prompt_feedback
                if feedback is None or feedback.block_reason is None:
                    raise TransientError(
                        f"{self._where()}: the response has no candidates (garbled body)"
                    )
                blocked = Choice(text="", finish_reason="content_filter")
                return GenerationResponse(choices=(blocked,) * request.n, usage=usage, model=model)
            if any(c.content is None and c.finish_reason is None for c in candidates):
                raise TransientError(
                    f"{self._where()}: a candidate has neither content nor a finish reason "
                    "(garbled body)"
                )
            ordered = sorted(
                enumerate(candidates),
                key=lambda pair: pair[1].index if pair[1].index is not None else pair[0],
            )
            choices = [self._choice(c, request.params.logprobs) for _, c in ordered]
        except (AttributeError, TypeError, ValueError):
            raise TransientError(
                f"{self._where()}: the response lacks candidates or usage (garbled body)"
            ) from None
        choices += [Choice(text="")] * (request.n - len(choices))
        return GenerationResponse(choices=tuple(choices[: request.n]), usage=usage, model=model)

    @staticmethod
    def _usage(meta: genai_types.GenerateContentResponseUsageMetadata | None) -> Usage:
        if meta is None:
            return Usage()
        return Usage(
            prompt_tokens=meta.prompt_token_count or 0,
            completion_tokens=(meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
        )

    @staticmethod
    def _choice(candidate: genai_types.Candidate, want_logprobs: bool) -> Choice:
        parts = candidate.content.parts if candidate.content is not None else None
        text = "".join(p.text for p in parts or [] if p.text and not p.thought)
        reason = candidate.finish_reason
        finish: str | None = None
        if reason is not None:
            name = str(getattr(reason, "value", reason))
            if name in _CONTENT_FILTER:
                finish = "content_filter"
            else:
                finish = _FINISH_REASONS.get(name, name.lower())
        logprobs: tuple[TokenLogprob, ...] | None = None
        result = candidate.logprobs_result
        if want_logprobs and result is not None:
            chosen = result.chosen_candidates or []
            tops = result.top_candidates or []
            logprobs = tuple(
                TokenLogprob(
                    token=token.token or "",
                    logprob=token.log_probability or 0.0,
                    top=tuple(
                        TopLogprob(token=alt.token or "", logprob=alt.log_probability or 0.0)
                        for alt in (tops[i].candidates or [] if i < len(tops) else [])
                    ),
                )
                for i, token in enumerate(chosen)
            )
        return Choice(text=text, finish_reason=finish, logprobs=logprobs)

    def _error(self, exc: Exception) -> ProviderError | None:
        """The hyoka error for an SDK or transport failure; ``None`` for anything else."""
        if isinstance(exc, genai_errors.ContinuationInterruptedError):
            cause = exc.__cause__
            return self._error(cause) if isinstance(cause, Exception) else None
        if isinstance(exc, genai_errors.APIError):
            return self._status_error(exc)
        if isinstance(exc, _TRANSPORT_ERRORS):
            what = "timeout" if "timeout" in type(exc).__name__.lower() else "connection failed"
            detail = self._redact(f"{type(exc).__name__}: {exc}".rstrip(": "))
            return TransientError(f"{self._where()}: {what} ({detail})")
        if isinstance(exc, json.JSONDecodeError):
            return TransientError(f"{self._where()}: the response body is not JSON")
        if isinstance(exc, RecursionError):  # nested deeper than Python's JSON decoder goes
            return TransientError(
                f"{self._where()}: the response body is not JSON (nested too deeply to read)"
            )
        if isinstance(exc, pydantic.ValidationError):  # the SDK's reading of the response
            return TransientError(
                f"{self._where()}: the response is not a generateContent response "
                f"({server_text(_first_problem(exc), self._redact)})"
            )
        return None

    def _status_error(self, exc: genai_errors.APIError) -> ProviderError:
        code = int(exc.code or 0)
        detail = exc.message or ""
        if not detail:
            detail = json.dumps(exc.details, ensure_ascii=False)
        # each part is the server's text: one line, printable, bounded (``server_text``)
        detail = server_text(detail, self._redact)
        status = f" {server_text(str(exc.status), self._redact)}" if exc.status else ""
        message = self._redact(f"{self._where()}: HTTP {code}{status}: {detail}")
        return status_error(code, message, _retry_hint(exc))

    def _where(self) -> str:
        return f"google/{self.model}"

    def _redact(self, text: str) -> str:
        return self._secrets.scrub(text)


def _first_problem(exc: pydantic.ValidationError) -> str:
    """Where the SDK found the response wrong and why (``usageMetadata.promptTokenCount:
    Input should be a finite number``), without the value, which is the server's."""
    problems = exc.errors(include_url=False, include_input=False)
    if not problems:
        return "invalid"
    where = ".".join(str(part) for part in problems[0]["loc"])
    return f"{where}: {problems[0]['msg']}"


def _cause(exc: Exception) -> BaseException | None:
    """Chain transport errors; not API errors, whose server text is already in the message
    (and would reach a traceback unmasked)."""
    return exc if isinstance(exc, _TRANSPORT_ERRORS) else None


def _retry_hint(exc: genai_errors.APIError) -> float | None:
    """The server's hint: a ``Retry-After`` header, else ``RetryInfo.retryDelay`` ("7s")."""
    headers = getattr(exc.response, "headers", None)
    if isinstance(headers, Mapping):
        hint = retry_after(headers)
        if hint is not None:
            return hint
    details = exc.details
    error = details.get("error", details) if isinstance(details, dict) else None
    items = error.get("details") if isinstance(error, dict) else None
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DURATION.match(str(item.get("retryDelay", "")))
            if match:
                return retry_after({"retry-after": match.group(1)})
    return None
