"""Package faces that load their names on first use (PEP 562).

A face lists what its package gives (name -> module, attribute) and imports nothing until
a name is asked for, so importing the package, or one of its modules, as a command's flag
types do, does not pull in numpy, pydantic or the rest. The pfgen, providers and data faces
share this one mechanism, as do the store's log names (pydantic, which scoring never needs).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any


def lazy_face(
    package: str, exports: Mapping[str, tuple[str, str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``'s face: a name is imported from
    its module when first asked for and kept in the package's namespace after that."""
    face = sys.modules[package]
    namespace = face.__dict__
    # any exported name may also be a submodule's (``hyoka.mtbench`` gives the function
    # ``definitions`` of its ``registry`` beside its package ``definitions``)
    face.__class__ = _keeping(frozenset(exports))

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


def _keeping(names: frozenset[str]) -> type[ModuleType]:
    """A module type for a face that exports a name its own submodule also has (``hyoka.data``
    gives the function ``manifest`` of ``hyoka.data.manifest``, ``hyoka.mtbench`` the
    function ``definitions`` beside the package of that name): importing that submodule
    binds it on the package, and the face's name must win, as an eager ``__init__``
    makes it win by importing the name after the submodule."""

    class Face(ModuleType):
        def __setattr__(self, name: str, value: Any) -> None:
            if name in names and value is sys.modules.get(f"{self.__name__}.{name}"):
                return  # the import system binding the submodule: the face keeps its name
            super().__setattr__(name, value)

    return Face
