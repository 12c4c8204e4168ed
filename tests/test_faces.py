"""Curated faces: users and sibling packages import from a package's ``__init__``, never
from another package's modules; ``hyoka`` itself re-exports the public API lazily."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

import hyoka

SRC = Path(__file__).resolve().parents[1] / "src" / "hyoka"
#: top-level modules anyone may import directly (they are faces of one concept each)
SHARED_MODULES = {
    "hyoka",
    "hyoka.errors",
    "hyoka.signature",
    "hyoka._aio",
    # the pfgen run-folder layout: a public module of the store, named as such
    "hyoka.store.pfgen_runs",
    # the console script's target (``python -m hyoka`` runs it too)
    "hyoka.cli.main",
}


def _package_of(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:2]) if len(parts) > 2 else ".".join(parts)


def _cross_package_imports() -> list[str]:
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        own = _package_of(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            module = node.module
            if not module.startswith("hyoka") or module in SHARED_MODULES:
                continue
            parts = module.split(".")
            target_package = ".".join(parts[:2])
            if target_package == own:
                continue
            if len(parts) > 2:
                where = f"{path.relative_to(SRC.parent)}:{node.lineno}"
                found.append(f"{where}: from {module} import ...")
    return found


def test_no_package_reaches_into_another_packages_modules() -> None:
    assert _cross_package_imports() == []


@pytest.mark.parametrize("name", [n for n in hyoka.__all__ if n != "__version__"])
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(hyoka, name) is not None


def test_import_hyoka_loads_nothing_heavy() -> None:
    code = (
        "import sys, hyoka\n"
        "heavy = [m for m in ('numpy', 'pydantic', 'rich', 'hyoka.pfgen', 'hyoka.providers')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_judging_faces_load_only_what_a_name_needs() -> None:
    """``hyoka.stats``, ``hyoka.judge`` and ``hyoka.mtbench`` load a name's module when it
    is first asked for: importing them loads no numpy or pydantic, a flag's type
    (``FormatChoice``) none of the other modules, and a face's name wins over its
    package's submodule of the same name (``definitions``), as an eager face's did."""
    code = (
        "import sys, hyoka.stats, hyoka.judge, hyoka.mtbench\n"
        "heavy = [m for m in ('numpy', 'pydantic') if m in sys.modules]\n"
        "from hyoka.mtbench import FormatChoice\n"
        "mods = sorted(m for m in sys.modules if m.startswith('hyoka.mtbench.'))\n"
        "import hyoka.mtbench.definitions\n"
        "print(','.join(heavy), ','.join(mods), callable(hyoka.mtbench.definitions))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["hyoka.mtbench.choices", "True"]


def _module_files() -> dict[str, Path]:
    """Every module of ``hyoka`` by dotted name (a package by its own name)."""
    modules: dict[str, Path] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _imported_from(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``from ... import`` statement names."""
    if not node.level:
        return node.module or ""
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _lazy_table(node: ast.stmt, modules: dict[str, Path]) -> dict[str, str]:
    """A lazy face's table (``name: "module"`` or ``name: ("module", "attribute")``, as
    ``hyoka._faces.lazy_face`` and the root ``hyoka`` take it): name -> the module it loads."""
    value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
    if not isinstance(value, ast.Dict):
        return {}
    table: dict[str, str] = {}
    for key, item in zip(value.keys, value.values, strict=True):
        if isinstance(item, ast.Tuple) and item.elts:
            item = item.elts[0]
        if not (isinstance(key, ast.Constant) and isinstance(item, ast.Constant)):
            return {}
        if not (isinstance(key.value, str) and item.value in modules):
            return {}
        table[key.value] = item.value
    return table


def _face_sources(modules: dict[str, Path]) -> dict[str, dict[str, str]]:
    """For each package face, the module each re-exported name is imported from: by an
    import in the face, or from a lazy face's table of names (loaded on first use)."""
    sources: dict[str, dict[str, str]] = {}
    for name, path in modules.items():
        if path.name != "__init__.py":
            continue
        table: dict[str, str] = {}
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for statement in tree.body:
            table.update(_lazy_table(statement, modules))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _imported_from(name, path, node)
                for alias in node.names:
                    if source in modules:
                        table[alias.asname or alias.name] = source
        sources[name] = table
    return sources


def _loads_module(node: ast.Call) -> str:
    """The module an ``importlib.import_module("...")`` call names ("" for any other call,
    or a name the code only knows when it runs)."""
    function = node.func
    called = function.attr if isinstance(function, ast.Attribute) else None
    if called != "import_module" or not node.args:
        return ""
    first = node.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""


@functools.cache  # test_layers reads the same graph
def _import_graph() -> dict[str, set[str]]:
    """Which modules of ``hyoka`` each module imports: every import anywhere in it
    (inside functions and under ``TYPE_CHECKING`` too, and ``importlib.import_module`` of a
    module named in the code); a name taken from a package's face counts as an import of
    the module the face takes it from, since the face only re-exports it."""
    modules = _module_files()
    faces = _face_sources(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                source = _imported_from(name, path, node)
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:  # a submodule
                        targets.add(f"{source}.{alias.name}")
                    elif source in faces:
                        targets.add(faces[source].get(alias.name, source))
                    elif source in modules:
                        targets.add(source)
            elif isinstance(node, ast.Call) and _loads_module(node) in modules:
                targets.add(_loads_module(node))
        targets.discard(name)
        graph[name] = targets
    return graph


def _import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_no_import_circles_between_modules() -> None:
    """No module depends on itself through others, not even for typing or in a function:
    a circle means a responsibility sits in the wrong module."""
    assert _import_circles(_import_graph()) == []
