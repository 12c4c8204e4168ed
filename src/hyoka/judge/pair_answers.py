"""Two answer files lined up into pairs, every mismatch found before any judge call.

An answer file is JSONL, one answer per line: ``id``, ``question``, ``answer`` and
optionally ``reference``, ``model`` and ``category``; a pfgen-bench run folder can stand
for one (``hyoka.pfgen.judge.run_answers``). The two must hold the same ids with the same
questions: a comparison over half-matched files would quietly judge fewer pairs than the
user thinks, so any difference is an error naming the file and the first ids concerned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.judge.pairwise import PairItem
from hyoka.store import read_objects, unique_records

_SHOWN = 5


@dataclass(frozen=True)
class Answer:
    id: str
    question: str
    answer: str
    reference: str | None
    model: str | None
    category: str | None


def _text(row: dict[str, Any], key: str, where: str, *, required: bool) -> str | None:
    value = row.get(key)
    if value is None:
        if required:
            raise InputError(f"{where}: no {key!r}")
        return None
    if key == "id" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise InputError(f"{where}: {key!r} must be a string, got {type(value).__name__}")
    return value


def read_answers(path: Path) -> dict[str, Answer]:
    """Answers by id, in file order; missing fields are errors, and duplicates follow the
    store's rule (``unique_records``): a line repeated identically is read once, with a
    warning, two different answers under one id are an error naming both lines."""
    answers = {
        answer.id: answer
        for answer in unique_records(path, _answers(path), key=lambda answer: ("id", answer.id))
    }
    if not answers:
        raise InputError(f"{path}: no answers")
    return answers


def _answers(path: Path) -> Iterator[tuple[int, Answer]]:
    for number, row in read_objects(path):
        where = f"{path}:{number}"
        yield (
            number,
            Answer(
                id=_text(row, "id", where, required=True) or "",
                question=_text(row, "question", where, required=True) or "",
                answer=_text(row, "answer", where, required=True) or "",
                reference=_text(row, "reference", where, required=False),
                model=_text(row, "model", where, required=False),
                category=_text(row, "category", where, required=False),
            ),
        )


def _listed(ids: list[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:_SHOWN])
    return shown + (f" and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN else "")


def _merged(
    name: str, x: str | None, y: str | None, item: str, paths: tuple[Path, Path]
) -> str | None:
    if x is not None and y is not None and x != y:
        raise InputError(f"id {item!r}: the {name} differs between {paths[0]} and {paths[1]}")
    return x if x is not None else y


def model_name(answers: dict[str, Answer], path: Path) -> str:
    """The ``model`` the file names (on its first line), else the file's stem."""
    first = next(iter(answers.values()))
    return first.model or path.stem


def _label(path: Path) -> str:
    return path.name if path.is_dir() else path.stem


def _same_place(first: Path, second: Path) -> bool:
    """Whether two paths are one file or folder (a link to it, another spelling of it)."""
    try:
        return first.samefile(second)
    except OSError:  # one is missing: reading it says so
        return False


def load_pairs(
    path_x: Path,
    path_y: Path,
    answers_of: Callable[[Path], dict[str, Answer]] = read_answers,
) -> list[PairItem]:
    """Pairs in the order of the first file; the ids and questions must match exactly.
    One file (or run folder) on both sides is refused: its answers against themselves give
    win rates of nothing (two runs of one model, two files, are a comparison)."""
    if _same_place(path_x, path_y):
        raise InputError(
            f"{path_y}: the same answers as {path_x}, a model against itself: give two "
            "different answer files"
        )
    xs, ys = answers_of(path_x), answers_of(path_y)
    missing_in_y = [i for i in xs if i not in ys]
    if missing_in_y:
        raise InputError(f"{path_y}: no answer for id(s) {_listed(missing_in_y)} of {path_x}")
    missing_in_x = [i for i in ys if i not in xs]
    if missing_in_x:
        raise InputError(f"{path_x}: no answer for id(s) {_listed(missing_in_x)} of {path_y}")
    paths = (path_x, path_y)
    model_x, model_y = model_name(xs, path_x), model_name(ys, path_y)
    if model_x == model_y:
        # two runs of one model: named by their files (a run folder's name is its commit),
        # so that another pair of runs of that model gets other names and another file
        tell_x, tell_y = _label(path_x), _label(path_y)
        if tell_x == tell_y:
            tell_x, tell_y = "X", "Y"
        model_x, model_y = f"{model_x} ({tell_x})", f"{model_y} ({tell_y})"
    pairs = []
    for item, x in xs.items():
        y = ys[item]
        question = _merged("question", x.question, y.question, item, paths)
        pairs.append(
            PairItem(
                id=item,
                question=question or "",
                answer_x=x.answer,
                answer_y=y.answer,
                reference=_merged("reference", x.reference, y.reference, item, paths),
                model_x=model_x,
                model_y=model_y,
                category=_merged("category", x.category, y.category, item, paths),
            )
        )
    return pairs
