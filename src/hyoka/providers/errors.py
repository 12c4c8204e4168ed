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


class UnknownOptionError(ProviderError):
    """Backend options (``options``, sorted) the provider of ``spec`` does not take, said
    before it is built; ``known`` what it takes. ``flag`` is how the options were given
    (``-o`` on the command line, ``option`` for a library caller), named beside each; an
    option named like a key is told the variables ``key_envs`` its API key is read from."""

    def __init__(
        self,
        spec: str,
        options: tuple[str, ...],
        known: frozenset[str],
        flag: str = "option",
        key_envs: tuple[str, ...] = (),
    ) -> None:
        self.spec, self.options, self.known, self.flag = spec, options, known, flag
        named = ", ".join(f"{flag} {option}" for option in options)
        if not known:
            super().__init__(f"{named}: {spec} takes no backend options")
            return
        keys = (
            f"; API keys are read from {' or '.join(key_envs) or 'the environment'}"
            if any("key" in option.lower() for option in options)
            else ""
        )
        super().__init__(
            f"{named}: {spec} takes no such backend option (it takes: "
            f"{', '.join(sorted(known))}{keys})"
        )


class MissingDependencyError(ProviderError):
    """A backend's optional package is not installed; the message says which extra to add."""
