"""The layers of ``hyoka``: a package imports only packages of its own layer or below, and
no packages import each other round in a circle.

The table is declared here, once; docs/ARCHITECTURE.md's Layers section says the same in
words. A package is a subpackage of ``hyoka`` (``hyoka.pfgen``) or a top-level module
(``hyoka.errors``); the root ``hyoka`` holds the version, and the public names it loads
lazily count as imports of the faces that define them. Imports are counted as
``test_faces`` counts them: every one, inside functions and under ``TYPE_CHECKING`` too,
a name taken from a face counted where the face takes it from.
"""

from __future__ import annotations

import pytest

from test_faces import _import_circles, _import_graph

#: layer -> its packages (``hyoka.`` left out; ``""`` is the root ``hyoka``)
LAYERS: dict[int, tuple[str, ...]] = {
    0: (
        "",
        "errors",
        "arguments",
        "redact",
        "signature",
        "settings_record",
        "printable",
        "_aio",
        "_faces",
        "_gc_pause",
        "_lazy_numpy",
    ),
    1: ("store", "data"),
    2: ("providers", "stats"),
    3: ("judge",),
    4: ("pfgen", "mtbench", "refset", "ifeval", "jfbench"),
    5: ("metaeval", "sweep"),
    6: ("report",),
    7: ("cli", "__main__"),
}
LAYER_OF = {
    ("hyoka." + name).rstrip("."): layer for layer, names in LAYERS.items() for name in names
}


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return _import_graph()


def _package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = {_package(module): set() for module in graph}
    for module, targets in graph.items():
        packages[_package(module)].update(_package(t) for t in targets)
    for package, targets in packages.items():
        targets.discard(package)
    return packages


def test_every_package_has_its_layer(graph: dict[str, set[str]]) -> None:
    """A new package is placed in the table (and the docs) before it is used."""
    assert sorted({_package(module) for module in graph} - set(LAYER_OF)) == []


def test_no_import_climbs_the_layers(graph: dict[str, set[str]]) -> None:
    climbing = [
        f"{module} (layer {LAYER_OF[_package(module)]}) imports {target} "
        f"(layer {LAYER_OF[_package(target)]})"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if LAYER_OF.get(_package(target), 0) > LAYER_OF.get(_package(module), 0)
    ]
    assert climbing == []


def test_no_import_circles_between_packages(graph: dict[str, set[str]]) -> None:
    """Packages of one layer may use each other one way only."""
    assert _import_circles(_package_graph(graph)) == []
