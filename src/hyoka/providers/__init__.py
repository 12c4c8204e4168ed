"""Model providers: one small async interface, many backends, shared reliability layer.

``load_provider("openai/gpt-4o-mini")`` builds a backend; ``ModelClient`` wraps it with
retries, an adaptive concurrency limit, a persistent response cache and token accounting.
"""

from hyoka.providers.base import Provider
from hyoka.providers.errors import (
    MissingDependencyError,
    ProviderError,
    RateLimitError,
    TransientError,
)
from hyoka.providers.registry import load_provider, parse_model_string
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
    "Choice",
    "GenerationRequest",
    "GenerationResponse",
    "Message",
    "MissingDependencyError",
    "Provider",
    "ProviderError",
    "RateLimitError",
    "SamplingParams",
    "TokenLogprob",
    "TopLogprob",
    "TransientError",
    "Usage",
    "load_provider",
    "parse_model_string",
]
