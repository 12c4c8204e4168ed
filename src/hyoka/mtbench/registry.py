"""The benchmark registry: every definition hyoka knows, found, never listed by hand.

A definition is a module with a ``DEFINITION`` (a ``BenchSpec``): each module of the
``hyoka.mtbench.definitions`` package, and each module (or ``BenchSpec``) another installed
package offers under the ``hyoka.benchmarks`` entry point group, as lm-eval's task index
finds its YAML files. Every listing reads from here: the ``--bench`` and ``--variant``
choices and their help, the error for a name that is none of them, the data folder a
results or data folder name stands for, the published judgments and scales. The registry is
read once per process; ``refresh`` forgets it (for a caller that installed a definition
since).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from functools import cache
from importlib.metadata import entry_points
from types import MappingProxyType, ModuleType

from hyoka.errors import DataError, InputError
from hyoka.mtbench.spec import FASTCHAT_JUDGING, BenchSpec

#: the package whose modules are the built-in definitions
PACKAGE = "hyoka.mtbench.definitions"
#: the entry point group other packages register definitions under
ENTRY_POINTS = "hyoka.benchmarks"


def _of_module(module: ModuleType) -> BenchSpec:
    spec = getattr(module, "DEFINITION", None)
    if not isinstance(spec, BenchSpec):
        raise DataError(
            f"{module.__name__}: a benchmark definition module holds DEFINITION, a BenchSpec"
        )
    return spec


def _found() -> Iterator[tuple[str, BenchSpec]]:
    """(where, definition) for every definition module and entry point."""
    package = importlib.import_module(PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        name = f"{PACKAGE}.{info.name}"
        yield name, _of_module(importlib.import_module(name))
    for point in entry_points(group=ENTRY_POINTS):
        loaded = point.load()
        where = f"entry point {point.name} ({point.value})"
        if isinstance(loaded, ModuleType):
            yield where, _of_module(loaded)
        elif isinstance(loaded, BenchSpec):
            yield where, loaded
        else:
            raise DataError(f"{where}: names neither a definition module nor a BenchSpec")


#: set while the definitions are being read: a definition module that asks the registry
#: then (rather than importing the module it builds on) is told so, not sent round again
_reading: list[bool] = []


@cache
def definitions() -> Mapping[str, BenchSpec]:
    """Every definition by name, in listing order (``BenchSpec.listing_order``, then name);
    two definitions of one name are a ``DataError`` naming both."""
    if _reading:
        raise DataError(
            "a benchmark definition asked the registry while it was being read: import the "
            "definition module it builds on (hyoka.mtbench.definitions.<module>) instead"
        )
    found: dict[str, tuple[str, BenchSpec]] = {}
    _reading.append(True)
    try:
        for where, spec in _found():
            if spec.name in found:
                raise DataError(
                    f"benchmark {spec.name!r} is defined twice: in {found[spec.name][0]} "
                    f"and {where}"
                )
            found[spec.name] = (where, spec)
    finally:
        _reading.clear()
    ordered = sorted(found.values(), key=lambda f: (f[1].listing_order, f[1].name))
    return MappingProxyType({spec.name: spec for _, spec in ordered})


def refresh() -> None:
    """Forget the definitions found, so that the next call looks again."""
    definitions.cache_clear()


def names() -> tuple[str, ...]:
    """Every benchmark's name, in listing order."""
    return tuple(definitions())


def definition(name: str, *, flag: str = "`bench`") -> BenchSpec:
    """The definition called ``name``; otherwise one ``InputError`` line naming ``flag``
    and every definition there is."""
    found = definitions().get(name)
    if found is None:
        raise InputError(f"{flag}: unknown benchmark {name!r}; choose one of: {', '.join(names())}")
    return found


def fastchat_benches() -> Mapping[str, BenchSpec]:
    """The definitions judged by FastChat's protocol (``Bench.load`` reads them; single
    grades and pairwise games per turn)."""
    return MappingProxyType(
        {n: s for n, s in definitions().items() if s.judging is FASTCHAT_JUDGING}
    )


def fastchat_bench(name: str, *, flag: str = "`bench`") -> BenchSpec:
    """The FastChat-judged definition called ``name``: an unknown name is ``definition``'s
    error, another protocol's benchmark one ``InputError`` line listing those there are."""
    found = definition(name, flag=flag)
    if found.judging is not FASTCHAT_JUDGING:
        known = ", ".join(fastchat_benches())
        raise InputError(
            f"{flag}: {found.title} is judged by its own protocol ({found.judging.name}), "
            f"not here; choose one of: {known}"
        )
    return found


def spec_named(name: str) -> BenchSpec | None:
    """The benchmark a results or data folder called ``name`` holds: hyoka's name for it,
    upstream's (``BenchSpec.upstream_name``) or its data folder's; ``None`` for none (and
    for a benchmark of another protocol than FastChat's)."""
    for spec in fastchat_benches().values():
        if name in (spec.name, spec.upstream_name, spec.folder):
            return spec
    return None


def variant_names() -> Mapping[str, tuple[str, ...]]:
    """Each benchmark with variants, and its variants' names (the default first)."""
    return MappingProxyType(
        {n: tuple(v.name for v in s.variants) for n, s in definitions().items() if s.variants}
    )
