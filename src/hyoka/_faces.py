"""Package faces that load their names on first use (PEP 562).

A face lists what its package gives (name -> module, attribute) and imports nothing until
a name is asked for, so importing the package, or one of its modules, as a command's flag
types do, does not pull in numpy, pydantic or the rest. The pfgen and providers faces share
this one mechanism.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_face(
    package: str, exports: Mapping[str, tuple[str, str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``'s face: a name is imported from
    its module when first asked for and kept in the package's namespace after that."""
    namespace = sys.modules[package].__dict__

    def get(name: str) -> Any:
        try:
            module, attribute = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module), attribute)
        namespace[name] = value
        return value

    def listed() -> list[str]:
        return sorted([*namespace, *exports])

    return get, listed
