"""One model behind several providers, and providers lent to ``connect`` by a longer run.

``PooledProvider`` is one model served by several providers of one backend (the same
model on several OpenAI-compatible servers): each request goes to the member with the
fewest requests in flight, ties taken in turn, so a slow server gets less. Its replies are
cached under the first member's identity with every server's URL in it, so the same
servers in another order, or one server dropped, read each other's replies.

A run of many steps (a sweep's cells) may hold providers across its steps: a model that
loads into this process (llama.cpp, transformers, vLLM) loads once, not once a step, and a
model on a Ray cluster keeps its workers. ``lending(lender)`` makes ``connect`` ask the
lender first (``lent``); what it lends is wrapped ``kept_open``, so the step's client
closing it leaves it open for the next, and the lender closes it at the end.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Protocol, cast

from hyoka.providers.base import Provider
from hyoka.providers.errors import ProviderError
from hyoka.providers.types import GenerationRequest, GenerationResponse


class Lender(Protocol):
    """Lends a provider for a ``provider/model`` string and its backend options
    (``base_url`` among them), or ``None``: ``connect`` then builds its own."""

    def lend(self, spec: str, settings: Mapping[str, Any]) -> Provider | None: ...


_LENDER: ContextVar[Lender | None] = ContextVar("hyoka_provider_lender", default=None)


@contextlib.contextmanager
def lending(lender: Lender) -> Iterator[None]:
    """While active, ``connect`` takes what ``lender`` lends before building a provider."""
    token = _LENDER.set(lender)
    try:
        yield
    finally:
        _LENDER.reset(token)


def lent(spec: str, settings: Mapping[str, Any]) -> Provider | None:
    """What the active lender lends for ``spec`` and ``settings``; ``None``: no lender, or
    one that lends nothing for them."""
    lender = _LENDER.get()
    return None if lender is None else lender.lend(spec, settings)


class _Delegating(Provider):
    """A provider that answers through ``members`` (one backend's providers): the class
    variables are the backend's (``_class_of``), the identity the first member's."""

    name = "pooled"

    def __init__(self, members: Sequence[Provider], *, keep_open: bool = False) -> None:
        if not members:
            raise ProviderError("a pool needs at least one provider")
        first = members[0]
        super().__init__(first.model, base_url=first.base_url)
        self.members = tuple(members)
        self.keep_open = keep_open
        self.in_flight = [0] * len(members)
        self._turn = 0

    def identity(self) -> dict[str, Any]:
        identity = self.members[0].identity()
        urls = [member.base_url for member in self.members]
        if len(set(urls)) > 1:
            identity["base_url"] = sorted(url or "" for url in set(urls))
        return identity

    @property
    def replies_pin(self) -> str | None:
        return self.members[0].replies_pin

    def check_request(self, request: GenerationRequest) -> None:
        self.members[0].check_request(request)

    def _pick(self) -> int:
        """The member with the fewest requests in flight; among equals, the next in turn."""
        count = len(self.members)
        order = [(self._turn + step) % count for step in range(count)]
        chosen = min(order, key=lambda index: self.in_flight[index])
        self._turn = (chosen + 1) % count
        return chosen

    async def preflight(self) -> None:
        for member in self.members:
            await member.preflight()

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        index = self._pick()
        self.in_flight[index] += 1
        try:
            return await self.members[index].generate(request)
        finally:
            self.in_flight[index] -= 1

    async def aclose(self) -> None:
        if not self.keep_open:
            await self.close_members()

    async def close_members(self) -> None:
        """Close every member (what ``aclose`` does unless the pool is kept open)."""
        for member in self.members:
            await member.aclose()


@functools.cache
def _class_of(backend: type[Provider]) -> type[_Delegating]:
    """A ``_Delegating`` that reads as ``backend`` (name, abilities, in process or not)."""
    fields = ("name", "supports_chat", "supports_completion", "supports_logprobs", "in_process")
    made = type(
        f"Pooled{backend.__name__}",
        (_Delegating,),
        {field: getattr(backend, field) for field in fields},
    )
    return cast("type[_Delegating]", made)


def PooledProvider(members: Sequence[Provider], *, keep_open: bool = False) -> _Delegating:  # noqa: N802 - builds a class's instance
    """``members`` (providers of one backend, for one model) used together, each request
    sent to the member with the fewest in flight; ``keep_open``: ``aclose`` leaves them
    open (a lender closes them with ``close_members``)."""
    backends = {type(member) for member in members}
    if len(backends) != 1:
        raise ProviderError("a pool's providers must be of one backend")
    (backend,) = backends
    return _class_of(backend)(members, keep_open=keep_open)


def kept_open(provider: Provider) -> _Delegating:
    """``provider`` as a step borrows it: its client's ``aclose`` leaves it open."""
    if isinstance(provider, _Delegating):
        return _class_of(type(provider.members[0]))(provider.members, keep_open=True)
    return PooledProvider([provider], keep_open=True)
