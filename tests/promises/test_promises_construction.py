"""One reader, one writer, by construction: only ``hyoka.store`` touches files directly.

The store keeps its promises (atomic replaces, whole appends, one writer per log, bounded
decompression, every bad line one ``error:`` naming file and line) only for the files that
go through it. So this test reads hyoka's source and fails when a module outside
``src/hyoka/store/`` opens a file for writing, writes one, parses JSON itself or inflates
compressed data itself. A new surface that needs a reader or writer gets it from the store.

The allow-list is short, and each entry says why the rule does not apply there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import hyoka

SRC = Path(hyoka.__file__).resolve().parent
STORE = SRC / "store"

#: (module, what) -> why the rule does not apply.
ALLOWED: dict[tuple[str, str], str] = {
    ("cli/_common.py", "json.loads"): "parses a --option flag's value, not a file",
    ("data/manifest.py", "json.loads"): "reads a manifest packaged with hyoka, not user input",
    ("refset/executor.py", "json.loads"): "decodes job rows handed through Ray in memory",
    ("ifeval/rules.py", "json.loads"): "decides whether a model's reply is JSON as upstream's "
    "check does (json.loads), not reading a file",
    ("jfbench/rules/formats.py", "json.loads"): "decides whether a model's reply is JSON as "
    "upstream's constraint does (json.loads), not reading a file",
    ("data/fetch.py", "os.open"): "streams a download to a temporary file, renamed once its "
    "SHA-256 is verified (the data fetcher's own atomic write)",
    ("data/fetch.py", "os.fdopen"): "the same download's temporary file",
}

#: Calls that parse JSON or inflate compressed data.
PARSERS = {
    "json.loads",
    "json.load",
    "lzma.decompress",
    "lzma.open",
    "gzip.decompress",
    "gzip.open",
    "bz2.decompress",
    "bz2.open",
    "zlib.decompress",
}
#: Calls that write a file whatever their arguments.
WRITERS = {
    "json.dump",
    "os.open",
    "os.fdopen",
    "os.truncate",
    "os.ftruncate",
    "shutil.copyfile",
}
#: Path methods that write.
PATH_WRITERS = {"write_text", "write_bytes", "touch"}
_WRITE_MODES = set("wax+")


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return ""


def _mode(call: ast.Call, position: int) -> str | None:
    """The constant mode of an ``open`` call (``None``: read-only or not a constant)."""
    for keyword in call.keywords:
        if keyword.arg == "mode" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    if len(call.args) > position and isinstance(call.args[position], ast.Constant):
        return str(call.args[position].value)  # type: ignore[attr-defined]
    return None


def _violations(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        if name in PARSERS or name in WRITERS:
            yield node.lineno, name
        elif isinstance(node.func, ast.Attribute) and node.func.attr in PATH_WRITERS:
            yield node.lineno, f".{node.func.attr}"
        elif name == "open" or (isinstance(node.func, ast.Attribute) and node.func.attr == "open"):
            mode = _mode(node, 1 if name == "open" else 0)
            if mode is not None and _WRITE_MODES & set(mode):
                yield node.lineno, f"open({mode!r})"


def test_only_the_store_reads_and_writes_files_itself() -> None:
    found: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in sorted(SRC.rglob("*.py")):
        if path.is_relative_to(STORE):
            continue
        module = path.relative_to(SRC).as_posix()
        for line, what in _violations(path):
            if (module, what) in ALLOWED:
                used.add((module, what))
                continue
            found.append(f"src/hyoka/{module}:{line}: {what}")
    assert found == [], (
        "read and write files through hyoka.store (read_json, read_objects, parse_lines, "
        "read_decompressed, write_json, write_jsonl, atomic_write_*, append_line, JsonlLog):\n"
        + "\n".join(found)
    )
    assert used == set(ALLOWED), f"allow-list entries no longer needed: {set(ALLOWED) - used}"


def test_the_rule_sees_what_it_forbids(tmp_path: Path) -> None:
    """The checker itself: each way of writing or parsing a file by hand is caught."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import json, lzma, os\n"
        "from pathlib import Path\n"
        "json.loads('1')\n"
        "lzma.decompress(b'')\n"
        "open('x', 'w')\n"
        "Path('x').open(mode='a')\n"
        "Path('x').write_text('')\n"
        "os.open('x', os.O_WRONLY)\n"
        "open('x')\n"
        "Path('x').open('rb')\n",
        encoding="utf-8",
    )
    assert [what for _, what in _violations(sample)] == [
        "json.loads",
        "lzma.decompress",
        "open('w')",
        "open('a')",
        ".write_text",
        "os.open",
    ]
