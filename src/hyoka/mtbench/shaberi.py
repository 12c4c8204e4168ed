"""Reading what Shaberi (Lightblue's ``japanese_llm_eval``) publishes: task rows, judge prompt.

ELYZA-tasks-100 has no repository of its own; Shaberi's judgment files carry its 100 tasks
unchanged, one JSON object a line (``Question``, ``output`` = the reference answer,
``eval_aspect`` = the task's own grading criteria; the row's place is the task). Its judge
prompt is not a data file but an f-string returned by a function of upstream's
``evaluation_datasets_config.py`` (``get_elyza_prompt``). That file is pinned like any data
file and read here with ``ast``, never imported or run: the f-string's text parts are the
prompt's bytes, and each ``{name}`` whose local was read from the row (``name =
row['Field']``) becomes the ``str.format`` field hyoka fills that row field into
(``SHABERI_FIELDS``), so the prompt sent is the one upstream built, byte for byte.

Since 2025-11 Shaberi (shisa-ai/shaberi) re-asks a judge whose reply held no score with a
second prompt, an f-string that ``_fallback_score_from_analysis`` assigns to a local and
fills with the question, the model's answer, the judge's reply and a scale description its
caller passes as a constant (``"between 1 and 5 (inclusive)"`` for ELYZA). ``ReaskSource``
names those places and ``reask_template`` reads them the same way: the constant becomes
text, the rest ``str.format`` fields (``judgment``: the judge's reply).

Its judgment files are also read as judgments (``shaberi_judgments``): the model is the
file's name, the judge its folder's, as upstream's results notebook
(``results_vizualization.ipynb``) names them, and each row is one graded task.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt

from hyoka.data import parsed_source
from hyoka.errors import DataError
from hyoka.store import read_records

#: Shaberi's row field -> the judge prompt field hyoka fills it into (FastChat's names,
#: so one ``Bench.fill_prompt`` serves every benchmark)
SHABERI_FIELDS: Mapping[str, str] = {
    "Question": "question",
    "output": "ref_answer_1",
    "eval_aspect": "eval_aspect",
    "ModelAnswer": "answer",
}


class ShaberiRow(BaseModel):
    """One task as Shaberi's files carry it (their other fields: one model's answer, score)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    Question: str
    output: str
    eval_aspect: str


def shaberi_rows(path: Path, data: bytes) -> Iterator[tuple[int, ShaberiRow]]:
    """The rows of a Shaberi file with their line numbers (1-based)."""
    yield from read_records(path, ShaberiRow, data)


class ShaberiJudgment(ShaberiRow):
    """A graded row: the model's answer and the judge's score, ``None`` where upstream's
    parser read no rating (v1: ``int(reply)`` failed)."""

    ModelAnswer: str
    #: a JSON number or ``null``, never ``true`` (Python's bool is an int)
    score: StrictInt | StrictFloat | None


#: the folder prefix upstream writes judgments under (``judge_<judge model>``)
_JUDGE_PREFIX = "judge_"


def shaberi_judgments(path: Path) -> Iterator[tuple[int, ShaberiJudgment]]:
    """The graded rows of a Shaberi judgment file with their line numbers (1-based)."""
    yield from read_records(path, ShaberiJudgment)


def shaberi_model(path: Path) -> str:
    """The model a Shaberi judgment file grades: its name, ``__`` back to ``/`` (upstream's
    ``judge_answers.py`` writes ``model_name.replace("/", "__")``)."""
    return path.stem.replace("__", "/")


def shaberi_judge(path: Path, dataset: str) -> str:
    """The judge of a Shaberi judgment file, from the folder it lies in as upstream's
    notebook reads it (``judge_<judge>/<dataset>/<model>.json``; hyoka's data directory
    keeps ``judgments/<judge>/<model>.json``)."""
    folder = path.parent
    if folder.name == dataset:
        folder = folder.parent
    return folder.name.removeprefix(_JUDGE_PREFIX)


@dataclass(frozen=True)
class ReaskSource:
    """Where upstream's file builds its re-ask prompt: the f-string ``function`` assigns
    to ``variable``; ``fields``: its locals that hold the task's text, by the field hyoka
    fills in (``question``, ``answer``, ``judgment``); its other names must be parameters
    of ``function`` that ``caller`` passes as string constants."""

    function: str
    variable: str
    caller: str
    fields: tuple[tuple[str, str], ...]


def _function(tree: ast.Module, path: Path, name: str, holding: str) -> ast.FunctionDef:
    defined = [
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name
    ]
    if len(defined) != 1:
        raise DataError(f"{path}: no single function {name}() holding {holding}")
    return defined[0]


def _format_template(
    path: Path,
    function: str,
    joined: ast.JoinedStr,
    names: Mapping[str, str],
    constants: Mapping[str, str],
    what: str,
) -> str:
    """``joined`` as a ``str.format`` template: its text parts (braces doubled), each name
    in ``names`` as its field, each in ``constants`` as its text; a ``DataError`` for
    anything else."""
    parts: list[str] = []
    for value in joined.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value.replace("{", "{{").replace("}", "}}"))
            continue
        if (
            isinstance(value, ast.FormattedValue)
            and value.conversion == -1
            and value.format_spec is None
            and isinstance(value.value, ast.Name)
        ):
            name = value.value.id
            if name in names:
                parts.append("{" + names[name] + "}")
                continue
            if name in constants:
                parts.append(constants[name].replace("{", "{{").replace("}", "}}"))
                continue
        raise DataError(f"{path}:{value.lineno}: {function}() formats something other than {what}")
    return "".join(parts)


def _row_fields(function: ast.FunctionDef) -> dict[str, str]:
    """``local -> row field`` for every ``local = row['Field']`` in ``function``."""
    found: dict[str, str] = {}
    for node in ast.walk(function):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if (
            isinstance(target, ast.Name)
            and isinstance(value, ast.Subscript)
            and isinstance(value.slice, ast.Constant)
            and isinstance(value.slice.value, str)
        ):
            found[target.id] = value.slice.value
    return found


def fstring_template(path: Path, data: bytes, function: str, fields: Mapping[str, str]) -> str:
    """The f-string ``function`` in the Python file ``path`` returns, as a ``str.format``
    template over ``fields``' names; a ``DataError`` naming the file when it is not one
    plain f-string over row fields (a changed upstream file must not be half-read)."""
    defined = _function(parsed_source(path, data), path, function, "the judge prompt")
    names = {
        local: fields[field] for local, field in _row_fields(defined).items() if field in fields
    }
    returned = [node.value for node in ast.walk(defined) if isinstance(node, ast.Return)]
    if len(returned) != 1 or not isinstance(returned[0], ast.JoinedStr):
        raise DataError(f"{path}:{defined.lineno}: {function}() does not return one f-string")
    return _format_template(path, function, returned[0], names, {}, "a row field")


def reask_template(path: Path, data: bytes, source: ReaskSource) -> str:
    """The re-ask prompt ``source`` names, as a ``str.format`` template over its fields,
    the caller's constant arguments written in; a ``DataError`` naming the file when the
    file does not build it so (one f-string assigned once, one call passing constants)."""
    tree = parsed_source(path, data)
    defined = _function(tree, path, source.function, "the re-ask prompt")
    assigned = [
        node.value
        for node in ast.walk(defined)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == source.variable
    ]
    if len(assigned) != 1 or not isinstance(assigned[0], ast.JoinedStr):
        raise DataError(
            f"{path}:{defined.lineno}: {source.function}() does not assign one f-string "
            f"to {source.variable}"
        )
    caller = _function(tree, path, source.caller, f"the call of {source.function}()")
    calls = [
        node
        for node in ast.walk(caller)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == source.function
    ]
    if len(calls) != 1:
        raise DataError(f"{path}:{caller.lineno}: {source.caller}() does not call "
                        f"{source.function}() once")  # fmt: skip
    parameters = [argument.arg for argument in defined.args.args]
    passed = [
        *zip(parameters, calls[0].args, strict=False),
        *((k.arg, k.value) for k in calls[0].keywords),
    ]
    constants = {
        name: value.value
        for name, value in passed
        if isinstance(name, str)
        and isinstance(value, ast.Constant)
        and isinstance(value.value, str)
    }
    return _format_template(
        path, source.function, assigned[0], dict(source.fields), constants,
        "its fields or its caller's constants",
    )  # fmt: skip
