"""The shape of the command line: thin, lazily loaded command modules (issue 10 §6).

``hyoka --help`` must list every group and command without importing a command module (nor
numpy, pydantic or any library package); a command imports its own module only; command
modules never import one another; and the one-line helps in ``hyoka.cli.main.COMMANDS``
say what the commands' own docstrings say.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import json
import os
import subprocess
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any

import pydantic
import pytest
import typer
import typer.main
from typer._click import Command, Context
from typer.core import TyperGroup
from typer.testing import CliRunner

from hyoka.cli._lazy import CommandSpec, GroupSpec
from hyoka.cli.main import COMMANDS, app

CLI = Path(__file__).resolve().parents[2] / "src" / "hyoka" / "cli"
COMMAND_MODULES = sorted(CLI.glob("*_cmd.py"))

#: Runs the app in a fresh interpreter with the given argument lists and prints, as JSON,
#: the output of each and the modules loaded at the end.
_PROBE = """
import contextlib, io, json, sys
from hyoka.cli.main import app
outputs = []
for args in json.loads(sys.argv[1]):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            app(args, prog_name="hyoka")
        except SystemExit as exit:
            assert exit.code in (0, None), (args, exit.code)
    outputs.append(buffer.getvalue())
print(json.dumps({"outputs": outputs, "modules": sorted(sys.modules)}))
"""


def _probe(*commands: list[str]) -> tuple[list[str], list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(list(commands))],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200", "PYTHONIOENCODING": "utf-8"},
    )
    found = json.loads(done.stdout)
    return found["outputs"], found["modules"]


def _commands(
    tree: dict[str, CommandSpec | GroupSpec], prefix: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], CommandSpec]]:
    found: list[tuple[tuple[str, ...], CommandSpec]] = []
    for name, entry in tree.items():
        if isinstance(entry, GroupSpec):
            found += _commands(dict(entry.commands), (*prefix, name))
        else:
            found.append(((*prefix, name), entry))
    return found


def _imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` statement anywhere in the file names (functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_there_are_command_modules_to_check() -> None:
    assert len(COMMAND_MODULES) >= 10


@pytest.mark.parametrize("path", COMMAND_MODULES, ids=lambda p: p.stem)
def test_command_modules_do_not_import_each_other(path: Path) -> None:
    others = {f"hyoka.cli.{p.stem}" for p in COMMAND_MODULES} - {f"hyoka.cli.{path.stem}"}
    assert _imported_modules(path) & others == set()


@pytest.mark.parametrize("path", sorted(CLI.glob("_*.py")), ids=lambda p: p.stem)
def test_shared_helpers_import_no_command_module(path: Path) -> None:
    """Else a command importing a helper would load another command's module through it."""
    commands = {f"hyoka.cli.{p.stem}" for p in COMMAND_MODULES}
    assert _imported_modules(path) & commands == set()


def test_top_level_help_lists_every_group_and_imports_no_command_module() -> None:
    (shown,), modules = _probe(["--help"])
    for name, entry in COMMANDS.items():
        assert name in shown
        assert entry.help in shown
    assert "numpy" not in modules
    assert "pydantic" not in modules
    ours = [m for m in modules if m == "hyoka" or m.startswith("hyoka.")]
    library = [
        m for m in ours if m not in ("hyoka", "hyoka.cli") and not m.startswith("hyoka.cli.")
    ]
    assert library == []
    assert [m for m in ours if m.endswith("_cmd")] == []


def test_group_help_lists_its_commands_without_importing_them() -> None:
    groups = {name: entry for name, entry in COMMANDS.items() if isinstance(entry, GroupSpec)}
    assert set(groups) == {
        "data",
        "pfgen",
        "refset",
        "judge",
        "mtbench",
        "ifeval",
        "jfbench",
        "batch",
    }
    shown, modules = _probe(*([name, "--help"] for name in groups))
    for (name, group), text in zip(groups.items(), shown, strict=True):
        assert f"Usage: hyoka {name} [OPTIONS] COMMAND" in text
        assert group.help in text
        for command, spec in group.commands.items():
            assert command in text
            assert spec.help in text
    assert [m for m in modules if m.endswith("_cmd")] == []
    assert "numpy" not in modules
    assert "pydantic" not in modules


def test_a_command_imports_its_own_module_only() -> None:
    (shown,), modules = _probe(["pfgen", "score", "--help"])
    assert "Usage: hyoka pfgen score" in shown
    assert [m for m in modules if m.endswith("_cmd")] == ["hyoka.cli.pfgen_cmd"]


@pytest.mark.parametrize(
    ("path", "spec"), _commands(COMMANDS), ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_each_command_loads_and_its_listed_help_is_its_docstring(
    path: tuple[str, ...], spec: CommandSpec
) -> None:
    module, _, function = spec.target.partition(":")
    target = getattr(__import__(module, fromlist=[function]), function)
    assert callable(target) and not isinstance(target, typer.Typer)
    first_paragraph = " ".join((inspect.getdoc(target) or "").split("\n\n")[0].split())
    assert spec.help == first_paragraph, f"update COMMANDS{list(path)} in hyoka/cli/main.py"
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"Usage: hyoka {' '.join(path)}" in result.output


def test_a_misspelt_command_suggests_one_not_loaded_yet() -> None:
    result = CliRunner().invoke(app, ["pfgen", "leaderbord"])
    assert result.exit_code == 2
    assert "Did you mean 'leaderboard'?" in result.output


def test_version_and_python_dash_m() -> None:
    from hyoka import __version__

    done = subprocess.run(
        [sys.executable, "-m", "hyoka", "--version"], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == f"hyoka {__version__}"


def test_hyoka_warnings_become_one_line_each_and_others_stay_python_warnings() -> None:
    import warnings

    from hyoka.cli._common import reports_errors
    from hyoka.errors import HyokaWarning, InputError

    @reports_errors
    def noisy(fail: bool = False) -> None:
        for line in (3, 7):
            warnings.warn(
                f"answers.jsonl:{line}: identical duplicate dropped", HyokaWarning, stacklevel=1
            )
        warnings.warn("not ours", DeprecationWarning, stacklevel=1)
        if fail:
            raise InputError("answers.jsonl:9: not JSON")

    single = typer.Typer()
    single.command()(noisy)
    with warnings.catch_warnings(record=True) as left:
        warnings.simplefilter("always")
        ok = CliRunner().invoke(single, [])
        failed = CliRunner().invoke(single, ["--fail"])
    assert ok.exit_code == 0
    assert ok.stderr.splitlines() == [
        "warning: answers.jsonl:3: identical duplicate dropped",
        "warning: answers.jsonl:7: identical duplicate dropped",
    ]
    assert failed.exit_code == 1
    assert failed.stderr.splitlines()[-1] == "error: answers.jsonl:9: not JSON"
    assert [str(w.message) for w in left] == ["not ours", "not ours"]


def test_every_command_function_is_on_the_map() -> None:
    """A ``*_command`` function that ``COMMANDS`` does not name is a command nobody can run."""
    mapped = {spec.target for _path, spec in _commands(COMMANDS)}
    defined = {
        f"hyoka.cli.{path.stem}:{node.name}"
        for path in COMMAND_MODULES
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef)
        and node.name.endswith("_command")
        and not node.name.startswith("_")
    }
    assert defined - mapped == set()
    assert mapped - defined == set()


_RUN_AND_REPORT_FREEZE = """
import atexit, gc, sys
atexit.register(lambda: print("frozen:", gc.get_freeze_count() > 0, file=sys.stderr))
from hyoka.cli.main import run
sys.argv = ["hyoka", *sys.argv[1:]]
run()
"""


@pytest.mark.parametrize(
    ("args", "code", "shown"),
    [(["--version"], 0, "hyoka "), (["no-such-command"], 2, "No such command")],
)
def test_the_console_script_exits_as_its_command_does(
    args: list[str], code: int, shown: str
) -> None:
    """``hyoka`` (and ``python -m hyoka``) is ``run``: the command's exit code and output
    come through, and the objects it made are frozen before the interpreter exits, so
    Python's last full collection does not walk them again."""
    from importlib.metadata import entry_points

    assert [e.value for e in entry_points(group="console_scripts", name="hyoka")] == [
        "hyoka.cli.main:run"
    ]
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_REPORT_FREEZE, *args], capture_output=True, text=True
    )
    assert done.returncode == code
    assert shown in done.stdout + done.stderr
    assert done.stderr.rstrip().endswith("frozen: True")


def _leaf_commands() -> list[tuple[str, Command]]:
    """Every leaf command of the real tree (``hyoka pfgen run`` ...), its groups resolved
    as ``hyoka`` resolves them."""
    found: list[tuple[str, Command]] = []

    def walk(command: Command, path: str) -> None:
        if isinstance(command, TyperGroup):
            context = Context(command, info_name=path)
            for name in command.list_commands(context):
                child = command.get_command(context, name)
                assert child is not None, f"{path} {name}"
                walk(child, f"{path} {name}")
        else:
            found.append((path, command))

    walk(typer.main.get_command(app), "hyoka")
    return found


def _names_a_model(kind: Any, depth: int = 2) -> bool:
    """Whether records of ``kind`` (a dataclass or a pydantic model) hold a ``model``, in
    themselves or in a record they hold (a settings file's generation settings)."""
    if isinstance(kind, type) and issubclass(kind, pydantic.BaseModel):
        fields = {name: info.annotation for name, info in kind.model_fields.items()}
    elif isinstance(kind, type) and dataclasses.is_dataclass(kind):
        fields = typing.get_type_hints(kind)
    else:
        return False
    return "model" in fields or (
        depth > 0 and any(_names_a_model(field, depth - 1) for field in fields.values())
    )


def _reads_a_model_from_a_file(callback: Any) -> bool:
    """Whether a command's function calls a function of hyoka's that returns records
    naming a model (``refset.load_generate_file``): it calls the model a file names."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(callback)))
    imported = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hyoka")
        for alias in node.names
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            found = imported.get(node.func.id)
            if found is None:
                continue
            function = getattr(importlib.import_module(found[0]), found[1])
            if not isinstance(function, type) and _names_a_model(_returned(function)):
                return True
    return False


def _returned(function: Any) -> Any:
    """What ``function`` is annotated to return, the type itself (its other annotations may
    name types imported for type checkers only); ``None`` for one its module cannot name."""
    annotation = inspect.signature(function).return_annotation
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, vars(inspect.getmodule(function)))
    except NameError:
        return None


def test_every_command_that_calls_a_model_takes_base_url() -> None:
    """A model or judge (``-m``/``-j``, or the model a settings file names) may be served
    by a local OpenAI-compatible server, which only ``--base-url`` names (``-o
    base_url=...`` is refused, since the URL is redacted where stored): a command calling
    one without that flag could not reach it."""
    calling, from_files = [], []
    for path, command in _leaf_commands():
        flags = {flag for param in command.params for flag in getattr(param, "opts", [])}
        if flags & {"-m", "-j"}:
            calling.append(path)
        elif command.callback is not None and _reads_a_model_from_a_file(command.callback):
            from_files.append(path)
        else:
            continue
        assert "--base-url" in flags, f"{path} calls a model but takes no --base-url"
    assert "hyoka refset generate" in calling and "hyoka judge single" in calling
    assert from_files == ["hyoka refset plan"]


def test_help_is_shown_as_written() -> None:
    """A command's help and its options' are rich markup to typer: a TOML table written
    ``[plan]`` in them was read as a style and vanished (``(default: )``). Every text
    reads the same rendered."""
    from rich.markup import render

    for path, command in _leaf_commands():
        texts = [command.help or "", *(getattr(param, "help", None) or "" for param in
                                        command.params)]  # fmt: skip
        for text in texts:
            assert render(text).plain == text, f"{path}: {text!r}"


def test_commands_print_lines_only_through_the_printable_printers() -> None:
    """A line a command prints goes through ``_common`` (``say``, ``echo``, the consoles,
    the error and warning lines), where every string is made printable and a line is one
    line: a ``typer.echo`` or ``print`` elsewhere would print a name from a file or a
    server as it is, its escape sequences acting and its line breaks forging lines."""
    found = []
    for path in sorted(CLI.glob("*.py")):
        if path.name == "_common.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            called = node.func
            if isinstance(called, ast.Name) and called.id == "print":
                found.append(f"{path.name}:{node.lineno} print")
            elif (
                isinstance(called, ast.Attribute)
                and called.attr in ("echo", "secho", "write")
                and isinstance(called.value, ast.Name)
                and called.value.id in ("typer", "click")
            ) or (
                isinstance(called, ast.Attribute)
                and called.attr == "write"
                and isinstance(called.value, ast.Attribute)
                and called.value.attr in ("stdout", "stderr")
            ):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(called)}")
    assert found == []


#: The most lines a command function's body may take (after its docstring): it parses the
#: flags, calls one library function and prints what comes back (issue 30). The signature,
#: one line or more per flag, and the docstring (its --help) are not counted.
COMMAND_BODY_LINES = 30

#: Commands not yet a library call each (issue 30 item 2): none are left; the test fails
#: when one is done and still listed, so a name put here for a while only shrinks the list.
NOT_YET_SHORT: set[str] = set()


def _body_lines(function: Any) -> int:
    """How many lines a function's body takes, its docstring left out."""
    node = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    assert isinstance(node, ast.FunctionDef)
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    end = body[-1].end_lineno
    assert end is not None
    return end - body[0].lineno + 1


def _command_functions() -> list[tuple[str, Any]]:
    found = []
    for path, spec in _commands(COMMANDS):
        module, _, name = spec.target.partition(":")
        found.append((" ".join(path), getattr(importlib.import_module(module), name)))
    return found


def test_every_command_only_parses_calls_and_prints() -> None:
    """Every command function is short: the work is a library call (issue 30)."""
    long = {
        name: lines
        for name, function in _command_functions()
        if (lines := _body_lines(function)) > COMMAND_BODY_LINES
    }
    assert {name: n for name, n in long.items() if name not in NOT_YET_SHORT} == {}
    assert sorted(NOT_YET_SHORT - set(long)) == []


def test_every_command_takes_json() -> None:
    """``--json`` on every command: what it printed, as JSON (issue 30)."""
    lacking = {
        path.removeprefix("hyoka ")
        for path, command in _leaf_commands()
        if "--json" not in {flag for param in command.params for flag in param.opts}
    }
    assert sorted(lacking) == []
