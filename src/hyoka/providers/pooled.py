"""One model behind several providers, and providers lent to ``connect`` by a longer run.

``PooledProvider`` is one model served by several providers of one backend (the same
model on several OpenAI-compatible servers): each request goes to the member with the
fewest requests in flight, ties taken in turn, so a slow server gets less. Its replies are
cached under the first member's identity with every server's URL in it, so the same
servers in another order, or one server dropped, read each other's replies.

A pool goes on without a server it cannot reach: one whose preflight fails is taken out
(said once, in a ``HyokaWarning`` naming its URL), and so is one that fails a request and
then its preflight (it died mid-run), or that still accepts connections but fails
``STRIKES`` requests in a row (hung past its timeout, a proxy answering 503): the failed
request's ``TransientError`` goes on to the client, whose retry policy sends it again, to a
server still in the pool. Before a pool with no server left gives up, it tries the servers
it took out once more and takes back those that accept connections again (a rolling
restart); only then does it fail.

The servers must serve one model: where they list their models
(``Provider.listed_models``) the lists must agree, and every reply must name the model
the others' replies name; otherwise the pool refuses in one line naming both servers. No
reply is trusted (returned, so cached and written) before the pool knows its servers
agree: where they do not all list their models, the first reply is asked again of a
second server, and returned only when both name one model.

A run of many steps (a sweep's cells) may hold providers across its steps: a model that
loads into this process (llama.cpp, transformers, vLLM) loads once, not once a step, and a
model on a Ray cluster keeps its workers. ``lending(lender)`` makes ``connect`` ask the
lender first (``lent``); what it lends is wrapped ``kept_open``, so the step's client
closing it leaves it open for the next, and the lender closes it at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Protocol, cast

from hyoka.errors import HyokaWarning
from hyoka.printable import printable
from hyoka.providers.base import Provider
from hyoka.providers.errors import ProviderError, RateLimitError, TransientError
from hyoka.providers.types import GenerationRequest, GenerationResponse


class Lender(Protocol):
    """Lends a provider for a ``provider/model`` string and its backend options
    (``base_url`` among them), or ``None``: ``connect`` then builds its own."""

    def lend(self, spec: str, settings: Mapping[str, Any]) -> Provider | None: ...

    def servers(self, spec: str, base_url: str) -> tuple[str, ...]:
        """Every server of the pool it lends for ``spec`` whose first is ``base_url``
        (``(base_url,)``: no pool)."""
        ...


#: requests in a row a server may fail (timed out, a 5xx) while it accepts connections
#: before it is taken out of its pool (a rate limit is no failure: the server is up)
STRIKES = 3
#: model ids a message names of a server's list before "and N more"
SHOWN_IDS = 5

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


def pool_servers(spec: str, base_url: str) -> tuple[str, ...]:
    """The servers ``spec`` at ``base_url`` is asked through: every server of the pool the
    active lender lends for them, else ``base_url`` alone."""
    lender = _LENDER.get()
    return (base_url,) if lender is None else lender.servers(spec, base_url)


def signed_servers(urls: Sequence[str]) -> str:
    """Servers as one value (a judge's ``base_url`` in its settings and signature): each
    once, sorted, apart by a space (no URL a plan takes holds one)."""
    return " ".join(sorted(set(urls)))


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
        #: the members still in the pool (a server found unreachable is taken out)
        self.live = list(range(len(members)))
        #: the model each member's replies said served them (``_check_served``)
        self.answered_as: dict[int, str] = {}
        #: each member's requests failed in a row (``STRIKES`` take it out)
        self.strikes = [0] * len(members)
        #: whether every live server listed the one model (``_check_listed``): their
        #: replies are then trusted without asking a second server
        self.listed_alike = False

    def identity(self) -> dict[str, Any]:
        identity = self.members[0].identity()
        urls = {member.identity().get("base_url") for member in self.members}
        if len(urls) > 1:
            identity["base_url"] = sorted(url or "" for url in urls)
        return identity

    @property
    def servers(self) -> tuple[str, ...]:
        return tuple(member.base_url for member in self.members if member.base_url)

    @property
    def replies_pin(self) -> str | None:
        return self.members[0].replies_pin

    def check_request(self, request: GenerationRequest) -> None:
        self.members[0].check_request(request)

    @property
    def _spec(self) -> str:
        return f"{self.name}/{self.model}"

    def _pick(self) -> int:
        """The live member with the fewest requests in flight; among equals, the next in
        turn. None left: one line naming every server."""
        if not self.live:
            shown = ", ".join(str(member.shown_url) for member in self.members)
            raise ProviderError(f"{self._spec}: no server of the pool can be reached ({shown})")
        count = len(self.members)
        order = [(self._turn + step) % count for step in range(count)]
        chosen = min((i for i in order if i in self.live), key=lambda i: self.in_flight[i])
        self._turn = (chosen + 1) % count
        return chosen

    async def preflight(self) -> None:
        """Each member's preflight; one that fails is taken out of a pool of several (said
        once), and the pool fails only when none is left. Then the servers must agree on
        the model they serve (``_check_listed``)."""
        if len(self.members) == 1:
            await self.members[0].preflight()
            return
        found = await asyncio.gather(
            *(self.members[i].preflight() for i in self.live), return_exceptions=True
        )
        for index, outcome in zip(list(self.live), found, strict=True):
            if isinstance(outcome, ProviderError):
                self._take_out(index, outcome)
            elif isinstance(outcome, BaseException):
                raise outcome
        if not self.live:
            self._pick()  # raises: none left
        await self._check_listed()

    def _take_out(self, index: int, error: ProviderError) -> None:
        if index not in self.live:
            return  # another request of the same server said so already
        self.live.remove(index)
        if not self.live:
            return
        warnings.warn(
            f"{self._spec}: server {self.members[index].shown_url} taken out of the pool, "
            f"{len(self.live)} of {len(self.members)} go on ({error})",
            HyokaWarning,
            stacklevel=2,
        )

    async def _check_listed(self) -> None:
        """Refuse servers that list different models (where they list them): the model asked
        for listed by one and not by another, or, listed by neither, other lists."""
        listed = await asyncio.gather(*(self.members[i].listed_models() for i in self.live))
        served: list[tuple[int, tuple[str, ...]]] = []
        for index, ids in zip(self.live, listed, strict=True):
            if ids is not None:
                served.append((index, (self.model,) if self.model in ids else tuple(sorted(ids))))
        self.listed_alike = len(served) == len(self.live) and len({ids for _, ids in served}) == 1
        for index, ids in served[1:]:
            first, first_ids = served[0]
            if ids != first_ids:
                raise ProviderError(
                    f"{self._spec}: the pool's servers serve different models: "
                    f"{self.members[first].shown_url} lists {_shown(first_ids)}, "
                    f"{self.members[index].shown_url} lists {_shown(ids)}; give each model "
                    "its own entry"
                )

    def _check_served(self, index: int, model: str) -> None:
        """Refuse a reply that names another model than the other servers' replies name."""
        if not model:
            return
        for other, named in self.answered_as.items():
            if other != index and named != model:
                raise ProviderError(
                    f"{self._spec}: the pool's servers answer as different models: "
                    f"{self.members[other].shown_url} as {_shown((named,))}, "
                    f"{self.members[index].shown_url} as {_shown((model,))}; give each "
                    "model its own entry"
                )
        self.answered_as.setdefault(index, model)

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        if len(self.members) == 1:
            return await self.members[0].generate(request)
        if not self.live:
            await self._take_back()
        index = self._pick()
        response = await self._ask(index, request)
        if response.model and not self.listed_alike:
            others = [i for i in self.live if i != index]
            if others and not any(other != index for other in self.answered_as):
                # nothing yet says the servers agree: a second server answers it too, and
                # the reply is trusted only when both name one model (``_check_served``)
                second = min(others, key=lambda i: self.in_flight[i])
                await self._ask(second, request)
        return response

    async def _ask(self, index: int, request: GenerationRequest) -> GenerationResponse:
        """``request`` of member ``index``; a failure counts against it (``_strike``)."""
        self.in_flight[index] += 1
        try:
            response = await self.members[index].generate(request)
        except TransientError as exc:
            await self._strike(index, exc)
            raise  # the client's retry policy sends it again, to a server still in the pool
        finally:
            self.in_flight[index] -= 1
        self.strikes[index] = 0
        self._check_served(index, response.model)
        return response

    async def _strike(self, index: int, error: TransientError) -> None:
        """After a failed request: take the member out if it cannot be reached now, or if
        its requests failed ``STRIKES`` times in a row (a rate limit does not count)."""
        try:
            await self.members[index].preflight()
        except ProviderError as exc:
            self._take_out(index, exc)
            return
        if isinstance(error, RateLimitError):
            return
        self.strikes[index] += 1
        if self.strikes[index] >= STRIKES:
            said = printable(str(error), limit=200)
            failed = ProviderError(f"{STRIKES} requests in a row failed, the last: {said}")
            self._take_out(index, failed)

    async def _take_back(self) -> None:
        """Before the pool gives up: each server taken out that accepts connections again
        is taken back (said once each time)."""
        out = [i for i in range(len(self.members)) if i not in self.live]
        found = await asyncio.gather(
            *(self.members[i].preflight() for i in out), return_exceptions=True
        )
        for index, outcome in zip(out, found, strict=True):
            if isinstance(outcome, BaseException) and not isinstance(outcome, ProviderError):
                raise outcome
            if outcome is None and index not in self.live:
                self.live.append(index)
                self.strikes[index] = 0
                warnings.warn(
                    f"{self._spec}: server {self.members[index].shown_url} taken back into "
                    "the pool (it accepts connections again)",
                    HyokaWarning,
                    stacklevel=2,
                )
        self.live.sort()

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


def _shown(ids: Sequence[str]) -> str:
    """Model names a server gave, fit for one line: each made printable once and quoted,
    the first ``SHOWN_IDS`` of a long list and how many more."""
    shown = ", ".join(f"'{printable(name, limit=80)}'" for name in ids[:SHOWN_IDS])
    more = len(ids) - SHOWN_IDS
    return (f"{shown} and {more} more" if more > 0 else shown) or "no model"


def kept_open(provider: Provider) -> _Delegating:
    """``provider`` as a step borrows it: its client's ``aclose`` leaves it open."""
    if isinstance(provider, _Delegating):
        return _class_of(type(provider.members[0]))(provider.members, keep_open=True)
    return PooledProvider([provider], keep_open=True)
