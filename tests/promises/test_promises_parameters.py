"""Promise: the library's errors name the parameters of the call that was given a bad value;
only the command line names flags.

Before, 39 errors raised outside ``hyoka.cli`` named command-line flags: a Python caller of
``bootstrap(..., resamples=0)`` read "--resamples must be at least 1", of
``plan_rakuda(matches=0)`` "--matches must be at least 1", of ``connect("gpt-4o")``
"--model must look like PROVIDER/MODEL". Now a library message names a parameter as Python
spells it, in backticks (`resamples`), and the command line shows its own flag there when
it prints the error (``cli._common.flagged``, the one mapping place), so the lines the
commands print are the lines they always were.

The structure test reads hyoka's source and fails where a module outside ``cli/`` puts a
``--flag`` into an error: a string in a ``raise``, in an error's constructor, in a ``flag``
or ``what`` argument or parameter default (the name an error shows), or in a module constant
a ``raise`` uses. A command line a message recommends (```hyoka data fetch X
--with-published```, in backticks, starting with ``hyoka``) is a command, not a parameter.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hyoka
from _shared import SHARED_DATA
from hyoka.cli._common import flagged
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.providers import connect
from hyoka.stats import bootstrap

SRC = Path(hyoka.__file__).resolve().parent
CLI = SRC / "cli"
#: a command-line flag (not a Markdown rule ``---|``, not a CSS variable's use ``var(--x)``)
FLAG = re.compile(r"(?<![-\w(])--[a-z][a-z0-9-]*")
#: a whole command a message recommends, in backticks
COMMAND = re.compile(r"`hyoka [^`]*`")
#: the arguments and parameters that carry the name an error shows for a value
NAMING = {"flag", "what", "options_flag"}


def _flags(text: str) -> list[str]:
    return FLAG.findall(COMMAND.sub("", text))


def _strings(node: ast.AST) -> Iterator[tuple[ast.expr, str]]:
    """Every string in ``node``: an f-string whole (``{}`` where it formats a value, so a
    command in backticks is read whole), every other constant as it is."""
    parts: set[int] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.JoinedStr):
            parts.update(id(value) for value in inner.values)
            text = "".join(
                str(value.value) if isinstance(value, ast.Constant) else "{}"
                for value in inner.values
            )
            yield inner, text
        elif (
            isinstance(inner, ast.Constant)
            and isinstance(inner.value, str)
            and id(inner) not in parts
        ):
            yield inner, inner.value


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _violations(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    constants = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    seen: set[int] = set()

    def strings(node: ast.AST) -> Iterator[tuple[int, str]]:
        for string, text in _strings(node):
            if id(string) not in seen and _flags(text):
                seen.add(id(string))
                yield string.lineno, text

    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            yield from strings(node.exc)
            for name in ast.walk(node.exc):
                if isinstance(name, ast.Name) and name.id in constants:
                    yield from strings(constants[name.id])
        elif isinstance(node, ast.Call):
            if _called(node).endswith(("Error", "Exception")):
                for given in [*node.args, *(k.value for k in node.keywords)]:
                    yield from strings(given)
            for keyword in node.keywords:
                if keyword.arg in NAMING:
                    yield from strings(keyword.value)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            positional = [*arguments.posonlyargs, *arguments.args]
            pairs: list[tuple[ast.arg, ast.expr | None]] = [
                *zip(
                    positional[len(positional) - len(arguments.defaults) :],
                    arguments.defaults,
                    strict=True,
                ),
                *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
            ]
            for argument, default in pairs:
                if argument.arg in NAMING and default is not None:
                    yield from strings(default)


def test_no_library_error_names_a_flag() -> None:
    found = [
        f"src/hyoka/{path.relative_to(SRC).as_posix()}:{line}: {text!r}"
        for path in sorted(SRC.rglob("*.py"))
        if not path.is_relative_to(CLI)
        for line, text in _violations(path)
    ]
    assert found == [], (
        "name the parameter (`name`, in backticks) in a library error; the command line "
        "shows its flag (cli._common.flagged):\n" + "\n".join(found)
    )


def test_the_rule_sees_what_it_forbids(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "HINT = '--mix-variants to rank them'\n"
        "def f(x, *, flag='--model'):\n"
        "    if x:\n"
        "        raise ValueError(f'--resamples must be at least 1, got {x}')\n"
        "    if x is None:\n"
        "        raise ValueError('mixed: ' + HINT)\n"
        "    problem = InputError('--judge: unknown')\n"
        "    path_under(x, what='--bench')\n"
        "    raise ValueError('run `hyoka data fetch x --with-published`; `resamples` >= 1')\n"
        "CSS = 'a { color: var(--fg) } |---|'\n",
        encoding="utf-8",
    )
    assert sorted(text for _, text in _violations(sample)) == [
        "--bench",
        "--judge: unknown",
        "--mix-variants to rank them",
        "--model",
        "--resamples must be at least 1, got {}",
    ]


def test_a_python_caller_reads_the_parameter_the_command_line_its_flag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(InputError, match=r"^`resamples` must be at least 2 for a 95% interval"):
        bootstrap(lambda picks: picks.sum(axis=1), 2, resamples=0)
    with pytest.raises(InputError, match=r"^`spec` must look like PROVIDER/MODEL"):
        connect("gpt-4o", no_cache=True)
    assert flagged("`resamples` must be at least 1") == "--resamples must be at least 1"
    assert flagged("`spec` must look like PROVIDER/MODEL") == (
        "--model must look like PROVIDER/MODEL"
    )
    assert flagged("`data_dir` not found; run `hyoka data fetch x --with-published`") == (
        "--data-dir not found; run `hyoka data fetch x --with-published`"
    )
    # the command line prints the flag where the library names the parameter
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    result = CliRunner().invoke(app, ["pfgen", "generate", "-m", "gpt-4o", "--limit", "1"])
    assert result.exit_code != 0
    assert "error: --model must look like PROVIDER/MODEL" in result.stderr
