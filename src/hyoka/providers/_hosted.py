"""What the chat APIs reached through their own SDKs (OpenAI, Anthropic, Gemini) share: the
options check, the API key from the environment, the timeout option, the checks of a
request they cannot serve, and the error kind of an HTTP status. One home, so that all
refuse, time out and retry alike."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from hyoka.providers._http import read_api_key
from hyoka.providers.errors import ProviderError, RateLimitError, TransientError
from hyoka.providers.types import GenerationRequest
from hyoka.redact import shown_value

#: Statuses worth retrying besides 429 and 5xx, for every API alike (408: request timeout
#: and 409: a conflict such as a lock timeout, both of which the OpenAI and Anthropic SDKs
#: retry too; 425: too early, a request the server asks to be sent again)
TRANSIENT_STATUS = frozenset({408, 409, 425})


def check_options(
    provider: str, options: Iterable[str], known: frozenset[str], key_envs: Sequence[str]
) -> None:
    """Refuse options the provider does not know, naming the ones it does."""
    unknown = sorted(set(options) - known)
    if unknown:
        raise ProviderError(
            f"unknown option(s) for the {provider} provider: {', '.join(unknown)} "
            f"(known: base_url, {', '.join(sorted(known))}; the API key is read "
            f"from {' or '.join(key_envs)})"
        )


def api_key(provider: str, key_envs: Sequence[str]) -> str:
    """The API key from the first of ``key_envs`` that is set."""
    found = read_api_key(key_envs)
    if found is None:
        raise ProviderError(
            f"the {provider} provider needs an API key: set the environment variable "
            f"{' or '.join(key_envs)}"
        )
    return found[1]


def timeout_option(provider: str, value: Any) -> float:
    """The ``timeout`` option: seconds above 0."""
    try:
        seconds = float(value) if not isinstance(value, bool) else float("nan")
    except (TypeError, ValueError):
        seconds = float("nan")
    if not seconds > 0:
        raise ProviderError(
            f"the {provider} provider's timeout is seconds above 0, got {shown_value(value)}"
        )
    return seconds


def text_option(provider: str, name: str, value: Any) -> str:
    """An option that is text (``api_version``, ``azure_endpoint``)."""
    if not isinstance(value, str) or not value:
        raise ProviderError(
            f"the {provider} provider's {name} is a non-empty string, got {shown_value(value)}"
        )
    return value


def check_chat_request(where: str, request: GenerationRequest, system_name: str) -> None:
    """Refuse what these APIs cannot serve: no turn besides the system's (``system_name``:
    what the API calls it), and a ``repetition_penalty`` or ``frequency_penalty`` (hyoka
    sends neither to these APIs)."""
    messages = request.messages or ()
    if not any(m.role != "system" for m in messages):
        raise ProviderError(
            f"{where} needs at least one user or assistant message besides the {system_name}"
        )
    penalty = request.params.repetition_penalty
    if penalty is not None and penalty != 1.0:
        raise ProviderError(f"{where} has no repetition_penalty (got {penalty}); leave it unset")
    frequency = request.params.frequency_penalty
    if frequency is not None and frequency != 0.0:
        raise ProviderError(f"{where} takes no frequency_penalty (got {frequency}); leave it unset")


def status_error(status: int, message: str, retry_after: float | None) -> ProviderError:
    """The error kind of an HTTP status: 429 is a rate limit, ``TRANSIENT_STATUS`` and 5xx
    are transient (retried), anything else is final."""
    if status == 429:
        return RateLimitError(message, retry_after=retry_after)
    if status >= 500 or status in TRANSIENT_STATUS:
        return TransientError(message, retry_after=retry_after)
    return ProviderError(message)
