"""Model providers: one small async interface, many backends, shared reliability layer.

This is the package's face: sibling packages and users import from here, never from its
modules. ``connect("openai/gpt-4o-mini", concurrency=8)`` gives a ready ``ModelClient``
(retries, an adaptive concurrency limit, the persistent response cache, token accounting);
``load_provider`` builds a bare backend. Importing this package loads no SDK: each backend's
module (and its openai, anthropic, torch ... import) loads when a model of it is first built.
"""

from hyoka.providers._secrets import URL_REDACTED, RedactedUrl, redact_url, shown_url
from hyoka.providers.base import Provider
from hyoka.providers.client import (
    CacheError,
    ClientStats,
    GaveUpError,
    ModelClient,
    ResponseCache,
    RetryEvent,
    RetryPolicy,
    cache_key,
)
from hyoka.providers.embedded import EMBEDDED_MODEL, smollm2_path
from hyoka.providers.errors import (
    MissingDependencyError,
    ProviderError,
    RateLimitError,
    TransientError,
)
from hyoka.providers.factory import connect
from hyoka.providers.registry import BACKENDS, backend_packages, load_provider, parse_model_string
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
    Message,
    SamplingParams,
    TokenLogprob,
    TopLogprob,
    Usage,
)

__all__ = [
    "BACKENDS",
    "DEFAULT_THINKING",
    "EMBEDDED_MODEL",
    "KEEP",
    "STRIP_THINK",
    "THINKING_RULES",
    "URL_REDACTED",
    "CacheError",
    "Choice",
    "ClientStats",
    "GaveUpError",
    "GenerationRequest",
    "GenerationResponse",
    "Message",
    "MissingDependencyError",
    "ModelClient",
    "Provider",
    "ProviderError",
    "RateLimitError",
    "RedactedUrl",
    "Reply",
    "ResponseCache",
    "RetryEvent",
    "RetryPolicy",
    "SamplingParams",
    "ThinkingChoice",
    "ThinkingRule",
    "TokenLogprob",
    "TopLogprob",
    "TransientError",
    "Usage",
    "backend_packages",
    "cache_key",
    "connect",
    "load_provider",
    "parse_model_string",
    "redact_url",
    "reply_of",
    "shown_url",
    "signed_rule",
    "smollm2_path",
    "split_thinking",
]
