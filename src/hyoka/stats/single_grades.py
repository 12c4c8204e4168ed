"""Two judges' single grades (1–10) turned into pairwise preferences between models.

For every question, turn and pair of models (X, Y) both judges graded, each judge's
preference is A if X scored higher, B if lower, C if equal; where the answers hold several
trials (``mtbench judge`` on ``generate --trials N``: lines with ``trial``), trial i of X is
compared with trial i of Y. The agreement of the two
judges is then measured with the same statistics as human-vs-judge agreement. Failed
gradings (score −1, FastChat's marker for a reply without a rating) leave that comparison
out for both judges, and the numbers left out are reported, never hidden. The comparisons
of one question share its answers, so the bootstrap resamples whole questions.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt

from hyoka.errors import InputError
from hyoka.stats.labels import LabelTable
from hyoka.store import read_objects, read_records, unique_records

#: (question id, turn, model, trial) -> score; the trial is 0 where lines name none
Grades = dict[tuple[str, int, str, int], float]
FAILED_SCORE = -1
#: FastChat's question file, two folders above ``model_judgment/<judge>_single``
QUESTION_FILE = "question.jsonl"


@dataclass(frozen=True)
class JudgeGrades:
    judge: str
    folder: Path
    grades: Grades


@dataclass
class PreferenceTable:
    """The label table plus what was left out and why."""

    table: LabelTable
    models: list[str]
    judges: list[str]
    only_in_one: dict[str, list[str]] = field(default_factory=dict)
    dropped_failed: int = 0
    failures: dict[str, int] = field(default_factory=dict)

    def notes(self) -> dict[str, Any]:
        """What a reader needs beside the statistics: who, over which models, what was
        left out (models graded by one judge only, comparisons with a failed grade)."""
        return {
            "source": "single grades turned into pairwise preferences",
            "judges": self.judges,
            "models": self.models,
            "models_left_out": self.only_in_one,
            "comparisons_left_out_for_failed_grades": self.dropped_failed,
            "failed_grades": self.failures,
        }


def preferences_from_folders(
    reference: Path, other: Path, questions: Path | None = None
) -> PreferenceTable:
    """``preferences`` of two judges' judgment folders (``reference`` first).

    Categories come from ``questions``, else from the ``question.jsonl`` two folders above
    ``reference`` (FastChat's layout) when there is one, else there are none.
    """
    first, second = read_single_grades(reference), read_single_grades(other)
    if questions is None:
        guess = reference.resolve().parent.parent / QUESTION_FILE
        questions = guess if guess.is_file() else None
    categories = read_categories(questions) if questions is not None else None
    return preferences(first, second, categories)


class GradeLine(BaseModel):
    """One line of a FastChat single-grading file, as far as agreement needs it; the other
    fields (the judge's reply, the prompt) are kept so that repeats compare whole."""

    model_config = ConfigDict(extra="allow", frozen=True)

    question_id: StrictInt | str
    model: str
    #: a list only in swallow-evaluation's lines (refused: ``_checked``); a JSON number,
    #: never ``true`` (Python's bool is an int) nor ``"8"``
    score: StrictFloat | list[Any]
    judge: str | list[Any]
    turn: int = 1
    #: hyoka's: the choice graded where the answers hold several (``--trials``)
    trial: int | None = None

    @property
    def grade(self) -> float:
        """``score`` as a number (a list never gets this far: ``_checked`` refuses it)."""
        return math.nan if isinstance(self.score, list) else self.score

    @property
    def key(self) -> tuple[str, int, str, int]:
        return (str(self.question_id), self.turn, self.model, self.trial or 0)

    @property
    def judge_name(self) -> str:
        return (
            str(self.judge[0]) if isinstance(self.judge, list) and self.judge else str(self.judge)
        )


def read_single_grades(folder: Path) -> JudgeGrades:
    """All ``*.jsonl`` judgment files of one judge (FastChat ``model_judgment`` layout).

    Lines are read as the run store reads every log: a file that is not UTF-8 JSON Lines
    is one error naming it; an identical repeated line (concatenated or re-run files) is
    dropped with a warning; a second, different grade of the same turn (and trial) is an
    error naming both lines.
    """
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of judgment files")
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise InputError(f"{folder}: no *.jsonl judgment files")
    grades: Grades = {}
    judges: Counter[str] = Counter()
    for path in files:
        lines = unique_records(path, _checked(path), key=lambda line: line.key)
        for line in lines:
            if line.key in grades:
                raise InputError(f"{path}: {line.key} is graded in another file of {folder}")
            grades[line.key] = line.grade
            judges[line.judge_name] += 1
    if len(judges) != 1:
        raise InputError(f"{folder}: judgments by several judges: {sorted(judges)}")
    return JudgeGrades(next(iter(judges)), folder, grades)


def _checked(path: Path) -> Iterator[tuple[int, GradeLine]]:
    for number, line in read_records(path, GradeLine):
        if isinstance(line.score, list):
            raise InputError(
                f"{path}:{number}: score is a list: a swallow-evaluation line (every trial's "
                "grades of a turn in one line), not read here; this reads one grade a line "
                "(FastChat's, or hyoka's with trial)"
            )
        if not (line.score == FAILED_SCORE or 0 <= line.score <= 10):
            raise InputError(
                f"{path}:{number}: score {line.score} outside 0..10 (or -1 for a failure)"
            )
        yield number, line


def read_categories(path: Path) -> dict[str, str]:
    """question id -> category from a ``question.jsonl``."""
    categories: dict[str, str] = {}
    for number, row in read_objects(path):
        try:
            categories[str(row["question_id"])] = str(row["category"])
        except KeyError:
            raise InputError(f"{path}:{number}: expected question_id and category") from None
    return categories


def preferences(
    first: JudgeGrades, second: JudgeGrades, categories: dict[str, str] | None = None
) -> PreferenceTable:
    """Both judges' preferences over every (question, turn, model pair) both graded.

    The first judge is the reference (the "rater" of the table), the second the method.
    """
    if first.judge == second.judge:
        raise InputError(f"{first.folder} and {second.folder} hold the same judge {first.judge}")
    models_a = {m for _, _, m, _ in first.grades}
    models_b = {m for _, _, m, _ in second.grades}
    models = sorted(models_a & models_b)
    if len(models) < 2:
        raise InputError(f"{first.folder}, {second.folder}: fewer than two models in common")
    slots = {(q, t, i) for q, t, _, i in first.grades} & {(q, t, i) for q, t, _, i in second.grades}
    if not slots:
        raise InputError(f"{first.folder}, {second.folder}: no question/turn graded by both")
    items: list[str] = []
    cats: list[str | None] = []
    groups: list[str] = []
    labels: dict[str, list[int]] = {first.judge: [], second.judge: []}
    dropped = 0
    for question, turn, trial in sorted(slots, key=lambda s: (_numeric(s[0]), *s[1:])):
        for x, y in combinations(models, 2):
            pair = [_pair_label(g.grades, (question, turn), trial, x, y) for g in (first, second)]
            if pair[0] is None or pair[1] is None:
                dropped += 1
                continue
            items.append(f"q{question}/t{turn}/{x} vs {y}" + (f"/trial {trial}" if trial else ""))
            cats.append(categories.get(question) if categories else None)
            groups.append(question)
            labels[first.judge].append(pair[0])
            labels[second.judge].append(pair[1])
    if categories is not None:
        missing = sorted({q for q, _, _ in slots if q not in categories}, key=_numeric)
        if missing:
            raise InputError(f"questions without a category: {', '.join(missing[:5])}")
    table = LabelTable(
        items=items,
        categories=cats,
        human={first.judge: np.array(labels[first.judge], dtype=np.int64)},
        auto={second.judge: np.array(labels[second.judge], dtype=np.int64)},
        groups=groups,
    )
    return PreferenceTable(
        table=table,
        models=models,
        judges=[first.judge, second.judge],
        only_in_one={
            first.judge: sorted(models_a - models_b),
            second.judge: sorted(models_b - models_a),
        },
        dropped_failed=dropped,
        failures={
            g.judge: sum(1 for s in g.grades.values() if s == FAILED_SCORE) for g in (first, second)
        },
    )


def _pair_label(grades: Grades, slot: tuple[str, int], trial: int, x: str, y: str) -> int | None:
    sx, sy = grades.get((*slot, x, trial)), grades.get((*slot, y, trial))
    if sx is None or sy is None or sx == FAILED_SCORE or sy == FAILED_SCORE:
        return None
    return 0 if sx > sy else 1 if sx < sy else 2


def _numeric(question: str) -> tuple[int, str]:
    return (int(question), "") if question.isdigit() else (1 << 30, question)
