"""The models and judges of a sweep as its cells connect to them (``providers.lending``).

Each cell runs the single commands' entry points, and each of those connects to its model
afresh. For a model on a server that costs nothing; for one computed in this process
(llama.cpp, transformers, vLLM) it cost a load per cell. So while a sweep runs, every
endpoint of its plan whose replies are computed here is built once and lent to every cell
(kept open between them, closed at the end); on a Ray executor it is the executor's
workers, which each load it once (``ModelHost``). An endpoint with several servers is
lent as one ``PooledProvider`` of them, each request to the least busy.

An endpoint is matched by what its cells hand ``connect``: its ``provider/model`` string
and its settings (backend options and its first server), as ``Endpoint.settings`` says.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from hyoka.errors import InputError
from hyoka.providers import PooledProvider, Provider, kept_open
from hyoka.sweep.spec import Endpoint, SweepPlan


@runtime_checkable
class ModelHost(Protocol):
    """An executor that holds models computed locally elsewhere (Ray workers): the provider
    a sweep's cells send such a model's requests to."""

    def reach(self) -> None:
        """Make sure the models can be placed at all (Ray: the cluster answers), once,
        before any cell; a ``HyokaError`` stops the sweep."""

    def hosted(self, spec: str, options: Mapping[str, Any]) -> Provider: ...


def _key(spec: str, settings: Mapping[str, Any]) -> str:
    return json.dumps([spec, dict(settings)], sort_keys=True, default=str)


def computed_here(spec: str) -> bool:
    """Whether ``spec``'s replies are computed by local packages (a model loaded into the
    process: ``providers.backend_packages``), not by a server."""
    from hyoka.providers import backend_packages

    return bool(backend_packages(spec))


class SweepModels:
    """Lends each cell the plan's endpoints: models computed here built once (or hosted by
    ``host``), several servers pooled; ``close`` closes what it built."""

    def __init__(self, plan: SweepPlan, host: ModelHost | None = None) -> None:
        self.host = host
        self.endpoints: dict[str, Endpoint] = {}
        for endpoint in (*plan.models, *plan.judges):
            key = _key(endpoint.spec, endpoint.settings())
            other = self.endpoints.get(key)
            if other is not None and other.identity() != endpoint.identity():
                raise InputError(
                    f"{plan.path}: {endpoint.name} and {other.name} name the same model and "
                    "first server with other servers after it: give them one list"
                )
            self.endpoints[key] = endpoint
        self.shared: dict[str, Provider] = {}
        self.lock = threading.Lock()  # cells side by side ask at once: one build a model
        if host is not None and any(computed_here(e.spec) for e in self.endpoints.values()):
            host.reach()  # a host that cannot take them fails the sweep once, up front

    def lend(self, spec: str, settings: Mapping[str, Any]) -> Provider | None:
        key = _key(spec, settings)
        endpoint = self.endpoints.get(key)
        if endpoint is None:
            return None
        if computed_here(spec):
            with self.lock:
                if key not in self.shared:
                    self.shared[key] = self._build(endpoint)
                return kept_open(self.shared[key])
        if len(endpoint.base_urls) > 1:  # clients are bound to a cell's loop: new each time
            from hyoka.providers import load_provider

            return PooledProvider(
                [load_provider(spec, **endpoint.settings(url)) for url in endpoint.base_urls]
            )
        return None

    def servers(self, spec: str, base_url: str) -> tuple[str, ...]:
        """Every server of the plan's endpoint ``spec`` whose first is ``base_url`` (two
        endpoints of one model and first server with other lists are refused above)."""
        for endpoint in self.endpoints.values():
            if endpoint.spec == spec and endpoint.base_url == base_url:
                return endpoint.base_urls
        return (base_url,)

    def _build(self, endpoint: Endpoint) -> Provider:
        from hyoka.providers import load_provider

        if self.host is not None:
            return self.host.hosted(endpoint.spec, endpoint.settings())
        return load_provider(endpoint.spec, **endpoint.settings())

    def close(self) -> None:
        """Close every provider built here (a model's memory, a host's workers)."""
        shared, self.shared = list(self.shared.values()), {}
        for provider in shared:
            asyncio.run(provider.aclose())
