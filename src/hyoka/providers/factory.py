"""One call from a ``provider/model`` string to a ready ``ModelClient``.

Every command that talks to a model builds the same three things: the backend (with
``--base-url`` and ``--option`` values), the shared response cache (unless ``--no-cache``)
and the client with the user's ``--concurrency``. ``connect`` does it once, so each command
says only what it wants, and the cache it opened is closed with the client.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hyoka.providers.client import ModelClient, ResponseCache, RetryEvent, RetryPolicy
from hyoka.providers.defaults import CONCURRENCY
from hyoka.providers.errors import ProviderError
from hyoka.providers.pooled import lent
from hyoka.providers.registry import load_provider


def connect(
    spec: str,
    *,
    base_url: str | None = None,
    options: Mapping[str, Any] | None = None,
    no_cache: bool = False,
    cache_dir: Path | str | None = None,
    concurrency: int = CONCURRENCY,
    retry: RetryPolicy | None = None,
    on_retry: Callable[[RetryEvent], None] | None = None,
    flag: str = "`spec`",
    options_flag: str = "-o",
    batch: bool = False,
) -> ModelClient:
    """A client for ``spec`` (``"openai/gpt-4o-mini"``), ready for ``async with``.

    ``options`` are the backend's own (``timeout``, ``n_ctx`` ...); ``base_url`` is kept
    apart because every backend that talks HTTP takes it. Responses are cached in
    ``cache_dir`` (default: ``HYOKA_CACHE_DIR`` or the user cache folder) unless
    ``no_cache``; the client closes that cache when it is closed. ``flag`` is how the
    error names ``spec`` when it is malformed (the parameter, `spec`, which a command shows
    as ``--model``, or the flag a command's user typed it into); ``options_flag`` how it
    names ``options``, beside an option the backend does not take.
    """
    settings = dict(options or {})
    if base_url:
        settings["base_url"] = base_url
    # a longer run's provider, held across its steps (``pooled.lending``), else a new one
    provider = lent(spec, settings) or load_provider(
        spec, flag=flag, options_flag=options_flag, **settings
    )
    if batch:
        from hyoka.providers.batch import batch_api

        batch_api(provider)  # one line where the provider has none
        if no_cache:
            raise ProviderError(
                "`batch` keeps the replies between runs in the response cache: "
                "`no_cache` does not go with it"
            )
    cache = None if no_cache else ResponseCache(cache_dir)
    try:
        if batch and cache is not None:
            from hyoka.providers.batch import BatchClient

            return BatchClient(
                provider, cache=cache, concurrency=concurrency, retry=retry,
                on_retry=on_retry, owns_cache=True,
            )  # fmt: skip
        return ModelClient(
            provider,
            cache=cache,
            concurrency=concurrency,
            retry=retry,
            on_retry=on_retry,
            owns_cache=True,
        )
    except BaseException:
        if cache is not None:
            cache.close()
        raise
