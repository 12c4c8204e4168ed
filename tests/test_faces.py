"""Curated faces: users and sibling packages import from a package's ``__init__``, never
from another package's modules; ``hyoka`` itself re-exports the public API lazily."""

from __future__ import annotations

import ast
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
