"""Provider failures, split by what the caller should do about them.

``TransientError`` (rate limits, 5xx, timeouts, dropped connections, garbled bodies) is
retried by the client with backoff; anything else fails at once with its message. Messages
never include API keys: backends build them from status codes and server text only.
"""

from __future__ import annotations

from hyoka.errors import HyokaError


class ProviderError(HyokaError):
    """A request failed for good: bad request, unknown model, missing key, refused host."""


class TransientError(ProviderError):
    """Worth retrying; ``retry_after`` is the server's hint in seconds, if it gave one."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class RateLimitError(TransientError):
    """HTTP 429 or its equivalent: retry later, and send fewer requests at once."""


class MissingDependencyError(ProviderError):
    """A backend's optional package is not installed; the message says which extra to add."""
