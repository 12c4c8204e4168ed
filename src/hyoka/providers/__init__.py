"""Model providers: one small async interface, many backends, shared reliability layer.

This is the package's face: sibling packages and users import from here, never from its
modules. ``connect("openai/gpt-4o-mini", concurrency=8)`` gives a ready ``ModelClient``
(retries, an adaptive concurrency limit, the persistent response cache, token accounting);
``load_provider`` builds a bare backend. Names load on first use (PEP 562), so a command
that only needs a flag's type (``ThinkingChoice``) loads neither pydantic nor the client;
and no SDK loads with the package: each backend's module (and its openai, anthropic,
torch ... import) loads when a model of it is first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyoka._faces import lazy_face

if TYPE_CHECKING:
    from hyoka.providers.aliases import MOVING_ALIASES, alias_note, moving_alias
    from hyoka.providers.base import Provider
    from hyoka.providers.batch import (
        BATCH_PROVIDERS,
        BatchClient,
        Deferred,
        batch_ids_noted,
        batch_round,
        gather_deferring,
        signed_as,
        signed_batch,
    )
    from hyoka.providers.batch_progress import BatchProgress
    from hyoka.providers.batch_status import NotedBatch, batch_status, release_batches
    from hyoka.providers.client import (
        CacheError,
        ClientStats,
        GaveUpError,
        ModelClient,
        ResponseCache,
        RetryEvent,
        RetryPolicy,
        cache_key,
        served_models,
    )
    from hyoka.providers.defaults import CONCURRENCY
    from hyoka.providers.embedded import EMBEDDED_MODEL, smollm2_path
    from hyoka.providers.errors import (
        MissingDependencyError,
        ProviderError,
        RateLimitError,
        TransientError,
        UnknownOptionError,
    )
    from hyoka.providers.factory import connect
    from hyoka.providers.pooled import (
        PooledProvider,
        kept_open,
        lending,
        pool_servers,
        signed_servers,
    )
    from hyoka.providers.registry import (
        BACKENDS,
        backend_packages,
        check_options,
        load_provider,
        parse_model_string,
    )
    from hyoka.providers.scripted_backend import is_scripted, script_pin
    from hyoka.providers.thinking import (
        DEFAULT_THINKING,
        KEEP,
        STRIP_THINK,
        THINKING_RULES,
        Reply,
        ThinkingChoice,
        ThinkingRule,
        reply_of,
        signed_rule,
        split_thinking,
    )
    from hyoka.providers.types import (
        Choice,
        GenerationRequest,
        GenerationResponse,
        MaxTokens,
        Message,
        SamplingParams,
        Temperature,
        TokenLogprob,
        TopK,
        TopLogprob,
        TopP,
        Usage,
    )
    from hyoka.redact import URL_REDACTED, redact_url

#: public name -> (module, attribute): what the face gives, loaded on first use
_EXPORTS: dict[str, tuple[str, str]] = {
    "PooledProvider": ("hyoka.providers.pooled", "PooledProvider"),
    "kept_open": ("hyoka.providers.pooled", "kept_open"),
    "lending": ("hyoka.providers.pooled", "lending"),
    "pool_servers": ("hyoka.providers.pooled", "pool_servers"),
    "signed_servers": ("hyoka.providers.pooled", "signed_servers"),
    "UnknownOptionError": ("hyoka.providers.errors", "UnknownOptionError"),
    "check_options": ("hyoka.providers.registry", "check_options"),
    "BACKENDS": ("hyoka.providers.registry", "BACKENDS"),
    "BATCH_PROVIDERS": ("hyoka.providers.batch", "BATCH_PROVIDERS"),
    "BatchClient": ("hyoka.providers.batch", "BatchClient"),
    "BatchProgress": ("hyoka.providers.batch_progress", "BatchProgress"),
    "CacheError": ("hyoka.providers.client", "CacheError"),
    "Choice": ("hyoka.providers.types", "Choice"),
    "ClientStats": ("hyoka.providers.client", "ClientStats"),
    "CONCURRENCY": ("hyoka.providers.defaults", "CONCURRENCY"),
    "DEFAULT_THINKING": ("hyoka.providers.thinking", "DEFAULT_THINKING"),
    "EMBEDDED_MODEL": ("hyoka.providers.embedded", "EMBEDDED_MODEL"),
    "Deferred": ("hyoka.providers.batch", "Deferred"),
    "GaveUpError": ("hyoka.providers.client", "GaveUpError"),
    "GenerationRequest": ("hyoka.providers.types", "GenerationRequest"),
    "MaxTokens": ("hyoka.providers.types", "MaxTokens"),
    "Temperature": ("hyoka.providers.types", "Temperature"),
    "TopK": ("hyoka.providers.types", "TopK"),
    "TopP": ("hyoka.providers.types", "TopP"),
    "GenerationResponse": ("hyoka.providers.types", "GenerationResponse"),
    "KEEP": ("hyoka.providers.thinking", "KEEP"),
    "MOVING_ALIASES": ("hyoka.providers.aliases", "MOVING_ALIASES"),
    "Message": ("hyoka.providers.types", "Message"),
    "MissingDependencyError": ("hyoka.providers.errors", "MissingDependencyError"),
    "NotedBatch": ("hyoka.providers.batch_status", "NotedBatch"),
    "ModelClient": ("hyoka.providers.client", "ModelClient"),
    "Provider": ("hyoka.providers.base", "Provider"),
    "ProviderError": ("hyoka.providers.errors", "ProviderError"),
    "RateLimitError": ("hyoka.providers.errors", "RateLimitError"),
    "Reply": ("hyoka.providers.thinking", "Reply"),
    "ResponseCache": ("hyoka.providers.client", "ResponseCache"),
    "RetryEvent": ("hyoka.providers.client", "RetryEvent"),
    "RetryPolicy": ("hyoka.providers.client", "RetryPolicy"),
    "STRIP_THINK": ("hyoka.providers.thinking", "STRIP_THINK"),
    "SamplingParams": ("hyoka.providers.types", "SamplingParams"),
    "THINKING_RULES": ("hyoka.providers.thinking", "THINKING_RULES"),
    "ThinkingChoice": ("hyoka.providers.thinking", "ThinkingChoice"),
    "ThinkingRule": ("hyoka.providers.thinking", "ThinkingRule"),
    "TokenLogprob": ("hyoka.providers.types", "TokenLogprob"),
    "TopLogprob": ("hyoka.providers.types", "TopLogprob"),
    "TransientError": ("hyoka.providers.errors", "TransientError"),
    "URL_REDACTED": ("hyoka.redact", "URL_REDACTED"),
    "Usage": ("hyoka.providers.types", "Usage"),
    "alias_note": ("hyoka.providers.aliases", "alias_note"),
    "backend_packages": ("hyoka.providers.registry", "backend_packages"),
    "batch_ids_noted": ("hyoka.providers.batch", "batch_ids_noted"),
    "batch_round": ("hyoka.providers.batch", "batch_round"),
    "batch_status": ("hyoka.providers.batch_status", "batch_status"),
    "release_batches": ("hyoka.providers.batch_status", "release_batches"),
    "gather_deferring": ("hyoka.providers.batch", "gather_deferring"),
    "signed_as": ("hyoka.providers.batch", "signed_as"),
    "signed_batch": ("hyoka.providers.batch", "signed_batch"),
    "cache_key": ("hyoka.providers.client", "cache_key"),
    "connect": ("hyoka.providers.factory", "connect"),
    "is_scripted": ("hyoka.providers.scripted_backend", "is_scripted"),
    "load_provider": ("hyoka.providers.registry", "load_provider"),
    "moving_alias": ("hyoka.providers.aliases", "moving_alias"),
    "parse_model_string": ("hyoka.providers.registry", "parse_model_string"),
    "redact_url": ("hyoka.redact", "redact_url"),
    "reply_of": ("hyoka.providers.thinking", "reply_of"),
    "script_pin": ("hyoka.providers.scripted_backend", "script_pin"),
    "served_models": ("hyoka.providers.client", "served_models"),
    "signed_rule": ("hyoka.providers.thinking", "signed_rule"),
    "smollm2_path": ("hyoka.providers.embedded", "smollm2_path"),
    "split_thinking": ("hyoka.providers.thinking", "split_thinking"),
}

__all__ = [
    "BACKENDS",
    "BATCH_PROVIDERS",
    "CONCURRENCY",
    "DEFAULT_THINKING",
    "EMBEDDED_MODEL",
    "KEEP",
    "MOVING_ALIASES",
    "STRIP_THINK",
    "THINKING_RULES",
    "URL_REDACTED",
    "BatchClient",
    "BatchProgress",
    "CacheError",
    "Choice",
    "ClientStats",
    "Deferred",
    "GaveUpError",
    "GenerationRequest",
    "GenerationResponse",
    "MaxTokens",
    "Message",
    "MissingDependencyError",
    "ModelClient",
    "NotedBatch",
    "PooledProvider",
    "Provider",
    "ProviderError",
    "RateLimitError",
    "Reply",
    "ResponseCache",
    "RetryEvent",
    "RetryPolicy",
    "SamplingParams",
    "Temperature",
    "ThinkingChoice",
    "ThinkingRule",
    "TokenLogprob",
    "TopK",
    "TopLogprob",
    "TopP",
    "TransientError",
    "UnknownOptionError",
    "Usage",
    "alias_note",
    "backend_packages",
    "batch_ids_noted",
    "batch_round",
    "batch_status",
    "cache_key",
    "check_options",
    "connect",
    "gather_deferring",
    "is_scripted",
    "kept_open",
    "lending",
    "load_provider",
    "moving_alias",
    "parse_model_string",
    "pool_servers",
    "redact_url",
    "release_batches",
    "reply_of",
    "script_pin",
    "served_models",
    "signed_as",
    "signed_batch",
    "signed_rule",
    "signed_servers",
    "smollm2_path",
    "split_thinking",
]


__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
