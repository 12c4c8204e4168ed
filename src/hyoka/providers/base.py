"""The one interface every backend implements, kept small on purpose.

A backend turns a ``GenerationRequest`` into a ``GenerationResponse`` and raises
``TransientError`` for what may succeed later. Everything shared (retries, the concurrency
limit, the response cache, token accounting) lives once in ``client.ModelClient``, not in
the backends. Local backends that batch (transformers, vLLM) batch the ``generate`` calls
in flight together, so callers need no batching API.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from hyoka import redact
from hyoka.providers.types import GenerationRequest, GenerationResponse


class Provider(ABC):
    """A model behind some API or in this process.

    ``name`` is the part before the slash in ``provider/model`` strings. ``in_process``
    backends compute answers here, queueing calls behind one another inside the backend:
    a slow call is work, not a hung connection, so the client's deadline does not cut one
    short (its ``attempt_timeout`` still does, when set).
    """

    name: ClassVar[str]
    supports_chat: ClassVar[bool] = True
    supports_completion: ClassVar[bool] = True
    supports_logprobs: ClassVar[bool] = False
    in_process: ClassVar[bool] = False
    #: the backend options it takes (``-o KEY=VALUE``) where its constructor takes them as
    #: ``**options``; ``None``: its constructor's keyword parameters say (``base_url``
    #: aside), or, with ``**options`` too, any (passed on to an engine that checks them)
    backend_options: ClassVar[frozenset[str] | None] = None
    #: the environment variables its API key is read from (never an option), said to
    #: whoever gives a key as one
    key_envs: ClassVar[tuple[str, ...]] = ()

    def __init__(self, model: str, *, base_url: str | None = None) -> None:
        self.model = model
        self.base_url = base_url

    @classmethod
    def check_option_values(cls, options: Mapping[str, Any]) -> None:
        """Refuse an option value this backend cannot take (a ``ProviderError`` naming the
        option), before it is built: a sweep's plan check asks it, and the constructor of a
        backend that declares its options' values here calls it too, so both refuse alike.
        The default takes any."""
        del options  # any value: the backend checks its own, or declares none here

    @property
    def servers(self) -> tuple[str, ...]:
        """The servers it asks (``base_url``; a pool's: each of them)."""
        return () if self.base_url is None else (self.base_url,)

    @property
    def shown_url(self) -> str | None:
        """``base_url`` as it may be shown in a message (credentials redacted)."""
        return None if self.base_url is None else redact.shown_url(self.base_url)

    @abstractmethod
    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        """One request, ``request.n`` samples."""

    def identity(self) -> dict[str, Any]:
        """What, besides the request, decides the output: part of every cache key.

        Never secrets: API keys are read from the environment by the backend and are not
        options, so they cannot leak into caches or configs from here; a URL's own
        credentials are kept only as ``redact.url_identity`` keeps them.
        """
        url = None if self.base_url is None else redact.url_identity(self.base_url)
        return {"provider": self.name, "model": self.model, "base_url": url}

    @property
    def replies_pin(self) -> str | None:
        """What decides this model's replies beyond its name, where the name does not say
        (a scripted model's script: ``scripted_backend.script_pin``), as a judge's settings
        keep it; ``None`` where the name (and the snapshot the provider says served a
        call) is what decides."""
        return None

    def check_request(self, request: GenerationRequest) -> None:
        """Refuse, before any work, what this backend cannot do (e.g. chat without a template)."""
        from hyoka.providers.errors import ProviderError

        if request.is_chat and not self.supports_chat:
            raise ProviderError(f"{self.name}/{self.model} cannot do chat requests")
        if not request.is_chat and not self.supports_completion:
            raise ProviderError(f"{self.name}/{self.model} cannot do raw-prompt requests")
        if request.params.logprobs and not self.supports_logprobs:
            raise ProviderError(f"{self.name}/{self.model} returns no logprobs")

    async def preflight(self) -> None:  # noqa: B027 - optional hook, most backends need none
        """Fail fast, before any work, where the model cannot be reached at all.

        ``ModelClient`` calls it once, before its first call to the backend (never for
        answers from the cache, so a cached re-run needs no server). A ``ProviderError``
        from here is final: retrying a refused connection only hides a wrong URL.
        """

    async def listed_models(self) -> tuple[str, ...] | None:
        """The model names the server lists (an OpenAI-compatible ``GET /models``), for a
        pool to check that its servers serve one model; ``None``: it cannot tell (no such
        list, or no answer)."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing
        """Release connections or memory; the client calls it once at the end."""
