"""Every input is opened as a regular file and read within a bound, by construction (issue 29).

Before, only pfgen's run folders were read this way: a FIFO named like a judgment file, a
questions or answers file, a ``--table`` or a judge template made the command wait for a
writer forever, saying nothing, and a link to ``/dev/zero`` named like a judgment file was
read until memory ran out. Now every reader of ``hyoka.store`` opens its file through
``hyoka.store.regular`` (the structure test below holds it so), and each of these is one
line naming the file, at once:

``error: <file>: a FIFO, not a regular file; not read``
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hyoka
from _shared import SHARED_DATA, hyoka_unblocked
from hyoka.cli.main import app
from hyoka.store import read_objects
from hyoka.store.regular import LOG_MAX_BYTES, NotReadError, read_regular

STORE = Path(hyoka.__file__).resolve().parent / "store"

#: Calls that open a file, whatever for.
OPENERS = {"open", "io.open", "io.FileIO", "os.open", "os.fdopen", "mmap.mmap"}
#: Path methods that open a file.
PATH_OPENERS = {"open", "read_bytes", "read_text"}

#: (module, function) -> why it opens files itself, not through ``regular.py``.
ALLOWED: dict[tuple[str, str], str] = {
    ("files.py", "atomic_write_bytes"): "a writer: the new temporary file, created exclusively",
    ("files.py", "append_bytes"): "a writer: appends, never reads",
    ("files.py", "sync_appended"): "a writer: flushes (or cuts back) its own appends",
    ("locks.py", "try_take"): "the lock file, opened to be locked (its note is read through "
    "read_regular)",
    ("cache_folder.py", "read_file"): "the cache folder's own rule: names opened in the open "
    "folder, no link followed, a FIFO never waited on, trusted only by owner and mode",
    ("cache_folder.py", "write_file"): "the cache folder's writer (its own rule)",
    ("cache_folder.py", "_claim_in"): "the cache folder's claim file (its own rule)",
    ("cache_folder.py", "_open"): "opens folders, not files (its own rule)",
    ("cache_folder.py", "_open_below"): "opens folders, not files (its own rule)",
    ("mapped.py", "map_readonly"): "maps the cache folder's files (its rule: O_NONBLOCK, "
    "fstat a regular file, no link followed), read only where used",
}


#: (module outside the store, function) -> why it opens files itself.
ALLOWED_OUTSIDE: dict[tuple[str, str], str] = {
    ("data/fetch.py", "_download_once"): "a writer: the download's temporary file, renamed "
    "once its SHA-256 is verified",
    ("data/manifest.py", "manifest"): "a resource packaged with hyoka, not user input",
    ("data/pins.py", "_raw"): "a resource packaged with hyoka (a manifest), not user input",
    ("judge/templates.py", "packaged_templates"): "the templates packaged with hyoka",
    ("judge/templates.py", "load_template"): "a template packaged with hyoka (a user's "
    ".toml file is read by store.read_toml)",
}


def _called(node: ast.Call, *, any_open: bool) -> str:
    """What ``node`` calls when it opens a file, else "". ``any_open``: every ``x.open(...)``
    (in the store); else only one with no argument or a constant mode, as ``Path.open``
    is called (outside it, ``JsonlLog.open(path, ...)`` opens a log through the store)."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and f"{func.value.id}.{func.attr}" in OPENERS:
            return f"{func.value.id}.{func.attr}"
        if func.attr == "open" and not any_open:
            first = node.args[0] if node.args else None
            moded = any(keyword.arg == "mode" for keyword in node.keywords)
            if not (first is None or moded or isinstance(first, ast.Constant)):
                return ""
        if func.attr in PATH_OPENERS:
            return f".{func.attr}"
    return ""


def _opens(source: str, filename: str, *, any_open: bool = True) -> Iterator[tuple[str, int, str]]:
    """``(enclosing function, line, call)`` for each call in ``source`` that opens a file."""
    functions: list[str] = []

    class Visitor(ast.NodeVisitor):
        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
            functions.append(node.name)
            self.generic_visit(node)
            functions.pop()

        def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
            self.visit_FunctionDef(node)

        def visit_Call(self, node: ast.Call) -> None:
            called = _called(node, any_open=any_open)
            if called in OPENERS or called in {f".{name}" for name in PATH_OPENERS}:
                found.append((functions[-1] if functions else "<module>", node.lineno, called))
            self.generic_visit(node)

    found: list[tuple[str, int, str]] = []
    Visitor().visit(ast.parse(source, filename=filename))
    yield from found


def test_only_the_regular_opener_opens_files_in_the_store() -> None:
    found: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in sorted(STORE.glob("*.py")):
        if path.name == "regular.py":
            continue
        for function, line, called in _opens(path.read_text(encoding="utf-8"), str(path)):
            if (path.name, function) in ALLOWED:
                used.add((path.name, function))
                continue
            found.append(f"src/hyoka/store/{path.name}:{line}: {called} in {function}")
    assert found == [], (
        "open inputs through hyoka.store.regular (open_regular, read_regular), which opens "
        "only a regular file, without waiting, and reads it within a bound:\n" + "\n".join(found)
    )
    assert used == set(ALLOWED), f"allow-list entries no longer needed: {set(ALLOWED) - used}"


def test_outside_the_store_no_module_opens_a_file_itself() -> None:
    """Commands and benchmarks read through the store's readers (``read_bytes``,
    ``read_objects``, ``read_toml``, ``sha1_files``, ``open_regular``...), which the rule
    above holds to the one opener."""
    found: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in sorted(STORE.parent.rglob("*.py")):
        if path.is_relative_to(STORE):
            continue
        module = path.relative_to(STORE.parent).as_posix()
        source = path.read_text(encoding="utf-8")
        for function, line, called in _opens(source, str(path), any_open=False):
            if (module, function) in ALLOWED_OUTSIDE:
                used.add((module, function))
                continue
            found.append(f"src/hyoka/{module}:{line}: {called} in {function}")
    assert found == [], "read files through hyoka.store:\n" + "\n".join(found)
    assert used == set(ALLOWED_OUTSIDE), f"no longer needed: {set(ALLOWED_OUTSIDE) - used}"


def test_the_rule_sees_each_way_of_opening_a_file() -> None:
    sample = (
        "import io, os\n"
        "from pathlib import Path\n"
        "def reader(path):\n"
        "    open(path)\n"
        "    Path(path).open('rb')\n"
        "    path.read_bytes()\n"
        "    path.read_text()\n"
        "    os.open(path, os.O_RDONLY)\n"
        "    os.fdopen(3)\n"
        "    io.open(path)\n"
        "    read_bytes(path)\n"  # the store's own reader: fine
        "    JsonlLog.open(path, manifest)\n"  # a log opened through the store: fine outside
    )
    assert [called for _, _, called in _opens(sample, "sample.py")] == [
        "open",
        ".open",
        ".read_bytes",
        ".read_text",
        "os.open",
        "os.fdopen",
        "io.open",
        ".open",
    ]
    assert [called for _, _, called in _opens(sample, "sample.py", any_open=False)] == [
        "open",
        ".open",
        ".read_bytes",
        ".read_text",
        "os.open",
        "os.fdopen",
        "io.open",
    ]


# --- each input a command reads: a FIFO is named at once, never waited on ------------------

FIFO = "a FIFO, not a regular file; not read"


def _hyoka(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    return result.exit_code, result.output


def _unblocked(fifos: list[Path], *args: str | Path) -> tuple[int, list[str]]:
    """``hyoka ARGS`` (``hyoka_unblocked``), its exit code and ``error:`` lines."""
    code, output = hyoka_unblocked(fifos, *args)
    return code, [line for line in output.splitlines() if line.startswith("error:")]


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def test_a_fifo_given_as_judgments_is_named(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path / "gpt-4_single.jsonl")
    for given in (fifo, tmp_path):  # the file itself, and a folder holding it
        code, errors = _unblocked(
            [fifo], "mtbench", "leaderboard", "--judgments", given, "--data-dir", SHARED_DATA
        )
        assert (code, errors) == (1, [f"error: {fifo}: {FIFO}"])


def test_dev_zero_linked_as_judgments_is_named_not_read(tmp_path: Path) -> None:
    zero = tmp_path / "gpt-4_single.jsonl"
    zero.symlink_to("/dev/zero")
    code, errors = _unblocked(
        [], "mtbench", "leaderboard", "--judgments", zero, "--data-dir", SHARED_DATA
    )
    assert (code, errors) == (1, [f"error: {zero}: a device, not a regular file; not read"])


def test_a_judgment_file_past_its_bound_is_refused_unread(tmp_path: Path) -> None:
    sparse = tmp_path / "gpt-4_single.jsonl"
    with sparse.open("wb") as handle:
        handle.truncate(LOG_MAX_BYTES + 1)  # sparse: no disk used
    code, errors = _unblocked(
        [], "mtbench", "leaderboard", "--judgments", sparse, "--data-dir", SHARED_DATA
    )
    assert code == 1
    assert errors == [
        f"error: {sparse}: 4,294,967,297 bytes, more than a log or table holds "
        "(4,294,967,296 bytes); not read"
    ]


def test_a_fifo_given_as_answers_references_or_template_is_named(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"id": "1", "question": "q", "answer": "a"}\n', encoding="utf-8")
    fifo = _fifo(tmp_path / "fifo.jsonl")
    template = _fifo(tmp_path / "template.toml")
    for args in (
        [fifo],
        [answers, "--references", fifo],
        [answers, "--template", template],
    ):
        code, errors = _unblocked([fifo, template], "judge", "single", *args, "-j", "openai/x")
        shown = template if "--template" in args else fifo
        assert (code, errors) == (1, [f"error: {shown}: {FIFO}"]), args


def test_a_fifo_given_as_a_table_is_named(tmp_path: Path) -> None:
    table = _fifo(tmp_path / "scores.csv")
    code, errors = _unblocked([table], "pfgen", "correlate", "--table", table)
    assert (code, errors) == (1, [f"error: {table}: {FIFO}"])


def test_a_fifo_in_the_data_folder_is_named_by_data_verify(tmp_path: Path) -> None:
    source = SHARED_DATA / "rakuda"
    for path in source.rglob("*"):
        if path.is_file():
            copy = tmp_path / "rakuda" / path.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.symlink_to(path)
    victim = tmp_path / "rakuda" / "answers" / "claude-2.jsonl"
    victim.unlink()
    _fifo(victim)
    result = CliRunner().invoke(app, ["data", "verify", "rakuda", "--data-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert f"corrupt: rakuda/answers/claude-2.jsonl ({FIFO})" in result.output


# --- the bound is counted as the bytes arrive, not taken from the size alone ----------------


def test_a_file_whose_size_says_nothing_is_read_within_its_bound() -> None:
    status = Path("/proc/self/status")  # a regular file of st_size 0, holding a kilobyte
    assert b"Umask:" in read_regular(status, limit=1 << 20, what="a status")
    with pytest.raises(NotReadError) as refused:
        read_regular(status, limit=100, what="a status")
    assert (
        str(refused.value)
        == f"{status}: more bytes, more than a status holds (100 bytes); not read"
    )
    with pytest.raises(NotReadError) as streamed:
        list(read_objects(Path("/proc/self/status"), limit=100))
    assert streamed.value.reason == (
        "more bytes, more than a log or table holds (100 bytes); not read"
    )
