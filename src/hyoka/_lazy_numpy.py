"""numpy, imported on its first use: what the scoring path's modules import instead of it.

Scoring a run with the compiled kernel walks a memory-mapped table and never makes an
array, yet its modules (the n-gram index, the trie, the numpy engine beside the kernel)
used numpy at import, which cost each ``hyoka pfgen score`` process 55 ms and more CPU
than that. They now write ``np.full(...)`` against this object, which imports numpy the
first time any attribute is asked for and keeps each attribute once found, so the numpy
engine pays one attribute lookup more and the kernel's path nothing. Type checkers see
numpy itself (``if TYPE_CHECKING: import numpy as np``).
"""

from __future__ import annotations

import importlib
from typing import Any


class _LazyNumpy:
    """Stands for the numpy module until an attribute is wanted."""

    def __getattr__(self, name: str) -> Any:
        value = getattr(importlib.import_module("numpy"), name)
        setattr(self, name, value)  # found once: the next lookup skips this method
        return value


numpy = _LazyNumpy()
