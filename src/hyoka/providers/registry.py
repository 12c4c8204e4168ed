"""``provider/model`` strings to backends, importing each backend only when it is used.

A backend's module imports its SDK at the top; importing it lazily keeps ``hyoka`` fast to
start and lets a user without, say, ``anthropic`` installed use every other backend. A
missing SDK is a one-line hint naming the extra to install.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterable
from typing import Any

from hyoka.errors import InputError
from hyoka.providers.base import Provider
from hyoka.providers.errors import MissingDependencyError, UnknownOptionError

#: provider name -> (module, class, pip extra)
BACKENDS: dict[str, tuple[str, str, str]] = {
    "openai": ("hyoka.providers.openai_backend", "OpenAIProvider", "openai"),
    "anthropic": ("hyoka.providers.anthropic_backend", "AnthropicProvider", "anthropic"),
    "google": ("hyoka.providers.google_backend", "GoogleProvider", "google"),
    "hf": ("hyoka.providers.hf_backend", "HFProvider", "hf"),
    "vllm": ("hyoka.providers.vllm_backend", "VLLMProvider", "vllm"),
    "llamacpp": ("hyoka.providers.llamacpp_backend", "LlamaCppProvider", "llamacpp"),
    # replies from a script file: dry runs and exact tests (needs no package)
    "scripted": ("hyoka.providers.scripted_backend", "ScriptedProvider", ""),
}


#: provider name -> the distributions that compute its replies in this process, whose
#: versions change the replies (kernels, sampling, chat templates); a hosted model's server
#: computes them, so its SDK changes none and it has none here
COMPUTED_BY: dict[str, tuple[str, ...]] = {
    "hf": ("transformers", "torch"),
    "vllm": ("vllm", "torch"),
    "llamacpp": ("llama-cpp-python",),
}


def backend_packages(spec: str) -> tuple[str, ...]:
    """The distributions that compute the replies of ``spec`` (``provider/model``, or a
    provider's name) here, as ``COMPUTED_BY`` lists them; none for a hosted model."""
    return COMPUTED_BY.get(spec.partition("/")[0], ())


def parse_model_string(spec: str, *, flag: str = "`spec`") -> tuple[str, str]:
    """``"openai/gpt-4o-mini"`` -> ``("openai", "gpt-4o-mini")``; the model may hold slashes.

    ``flag`` is how the error names the string: the parameter it was given as (`spec`,
    `judge`, in backticks: ``errors.PARAMETER``), or the flag a command's user typed it into
    (``-j``), so a user told to fix ``--model`` is not sent to the wrong flag.
    """
    provider, sep, model = spec.partition("/")
    known = ", ".join(sorted(BACKENDS))
    if not sep or not provider or not model:
        raise InputError(f"{flag} must look like PROVIDER/MODEL (providers: {known}), got {spec!r}")
    if provider not in BACKENDS:
        raise InputError(f"{flag}: unknown provider {provider!r} in {spec!r} (known: {known})")
    return provider, model


def taken_options(backend: type[Provider]) -> frozenset[str] | None:
    """The backend options ``backend`` takes besides ``base_url``: those it declares
    (``Provider.backend_options``), else its constructor's keyword parameters; ``None``
    where it takes any (``**options`` passed on to an engine that checks them: vLLM)."""
    if backend.backend_options is not None:
        return backend.backend_options
    parameters = inspect.signature(backend).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    named = {p.name for p in parameters if p.kind is not inspect.Parameter.VAR_POSITIONAL}
    return frozenset(named - {"model", "base_url"})


def check_options(
    backend: type[Provider], spec: str, options: Iterable[str], flag: str = "option"
) -> None:
    """An ``UnknownOptionError`` naming each of ``options`` that ``backend`` does not take
    (``taken_options``), before it is built: a constructor's ``TypeError`` is no message."""
    known = taken_options(backend)
    if known is None:
        return
    unknown = tuple(sorted(set(options) - known - {"base_url"}))
    if unknown:
        raise UnknownOptionError(spec, unknown, known, flag, backend.key_envs)


def load_provider(
    spec: str, *, flag: str = "`spec`", options_flag: str = "option", **options: Any
) -> Provider:
    """Build the backend for ``spec`` with backend options (``base_url``, ``n_ctx`` ...).

    ``flag`` names the option ``spec`` came from, for the error when it is malformed;
    ``options_flag`` how ``options`` were given, for the error naming one the backend does
    not take (``check_options``).
    """
    provider, model = parse_model_string(spec, flag=flag)
    module_name, class_name, extra = BACKENDS[provider]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and not exc.name.startswith("hyoka"):
            raise MissingDependencyError(
                f"the {provider} provider needs the package {exc.name!r}: "
                f"pip install 'hyoka[{extra}]'"
            ) from None
        raise
    backend: type[Provider] = getattr(module, class_name)
    check_options(backend, spec, options, options_flag)
    return backend(model, **options)
