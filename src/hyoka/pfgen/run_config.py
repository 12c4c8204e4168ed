"""A run's generation settings as upstream's ``config.json``, and the folder they name.

The folder of a run is ``<results>/<model name>/<first 7 hex of SHA-1(config text)>``, where
the config text is the settings as one JSON object with sorted keys (pfgen-spec.md §2). The
same settings therefore always land in the same folder, which is what makes runs resumable
and comparable with the public leaderboard's folders. Secrets never enter the config.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaError
from hyoka.pfgen.prompts import Mode, stops_for
from hyoka.pfgen.protocol import PROTOCOL
from hyoka.store import path_under

#: What upstream calls each of our providers in ``config.json``'s ``engine`` field
#: (``run-openai.py`` writes ``openai-api``, ``run-hf.py`` ``hf``, ``run-vllm.py`` ``vllm``).
ENGINE_NAMES = {
    "openai": "openai-api",
    "vllm": "vllm",
    "anthropic": "anthropic-api",
    "google": "gemini",
    "hf": "hf",
    "llamacpp": "llama-cpp",
}

#: The settings upstream's current run script for an engine records beyond the common ones,
#: as they are when hyoka generates: ``run-openai.py`` writes ``enable_thinking``, true
#: unless ``--disable-thinking`` puts ``/no_think`` before each prompt (hyoka never does).
#: Without them the same settings would hash to another run folder than upstream's.
ENGINE_SETTINGS: dict[str, dict[str, Any]] = {"openai-api": {"enable_thinking": True}}

#: Config keys that could hold credentials; refused outright.
_SECRET_WORDS = ("key", "token", "secret", "password", "authorization")


def make_config(
    *,
    engine: str,
    model: str,
    mode: Mode,
    num_examples: int = PROTOCOL.num_examples,
    max_tokens: int = PROTOCOL.max_tokens,
    temperature: float | None = PROTOCOL.temperature,
    top_p: float | None = PROTOCOL.top_p,
    top_k: int | None = PROTOCOL.top_k,
    seed: str = "",
    prefix: str | None = None,
    stop: list[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The config object; optional settings appear only when set, as upstream writes them."""
    config: dict[str, Any] = {
        "engine": engine,
        "model": model,
        "mode": mode.value,
        "num_examples": num_examples,
        "max_tokens": max_tokens,
        "stop": stops_for(mode) if stop is None else list(stop),
    }
    optional = {"temperature": temperature, "top_p": top_p, "top_k": top_k, "prefix": prefix}
    config.update({k: v for k, v in optional.items() if v is not None})
    if seed:
        config["seed"] = seed
    for key, value in (extra or {}).items():
        if any(word in key.lower() for word in _SECRET_WORDS):
            raise HyokaError(f"config key {key!r} looks like a secret; pass secrets by env var")
        config[key] = value
    return dict(sorted(config.items()))


def config_text(config: dict[str, Any]) -> str:
    return json.dumps(dict(sorted(config.items())), ensure_ascii=False)


def config_hash(config: dict[str, Any]) -> str:
    return hashlib.sha1(config_text(config).encode("utf-8")).hexdigest()[:7]


def run_folder(results_dir: Path, model_name: str, config: dict[str, Any]) -> Path:
    """``results_dir/<model name>/<hash>``, refusing names that would escape ``results_dir``."""
    parts = model_name.split("/")
    bad = (
        not model_name
        or "\\" in model_name
        or "\x00" in model_name
        or model_name.startswith("/")
        or any(p in ("", ".", "..") for p in parts)
    )
    if bad:
        raise HyokaError(f"model name {model_name!r} cannot be used as a results folder name")
    # each part as a file name (``safe_name``: a part too long for the file system is cut
    # and given a hash of the whole), the result checked to stay inside ``results_dir``
    return path_under(results_dir, *parts, config_hash(config), what="model name")
