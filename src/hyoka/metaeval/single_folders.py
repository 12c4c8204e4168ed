"""A judge's single-grading folder read as its grades, for ``hyoka judge agreement --single``.

A folder is FastChat's ``model_judgment/<judge>_single`` layout: ``*.jsonl`` files of
``SingleJudgmentLine`` (the one single-grade line, as the leaderboard and verify read it),
one grade a line (FastChat's, or hyoka's with ``trial``). Lines are read as the run store
reads every log: a file that is not UTF-8 JSON Lines is one error naming it; an identical
repeated line (concatenated or re-run files) is dropped with a warning; a second, different
grade of the same turn (and trial) is an error naming both lines; a line of the second
judge's folder that is a line of the first's (renamed or not: ``JudgmentCopies``) is an
error naming both. The statistics of two
judges' grades (``stats.preferences``) take what is read here, never files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from hyoka.errors import InputError
from hyoka.metaeval.judgment_copies import JudgmentCopies
from hyoka.mtbench import NO_RATING, SingleGradingLine, SingleJudgmentLine
from hyoka.stats import Grades, JudgeGrades, PreferenceTable, preferences
from hyoka.store import read_objects, read_records, unique_records

#: FastChat's question file, two folders above ``model_judgment/<judge>_single``
QUESTION_FILE = "question.jsonl"


def preferences_from_folders(
    reference: Path, other: Path, questions: Path | None = None
) -> PreferenceTable:
    """``stats.preferences`` of two judges' judgment folders (``reference`` first).

    Categories come from ``questions``, else from the ``question.jsonl`` two folders above
    ``reference`` (FastChat's layout) when there is one, else there are none.
    """
    copies = JudgmentCopies()  # the second judge's lines are no copy of the first's
    first = read_single_grades(reference, copies)
    second = read_single_grades(other, copies)
    if questions is None:
        guess = reference.resolve().parent.parent / QUESTION_FILE
        questions = guess if guess.is_file() else None
    categories = read_categories(questions) if questions is not None else None
    return preferences(first, second, categories)


def _key(line: SingleJudgmentLine) -> tuple[str, int, str, int]:
    """(question id, turn, model, trial) of a grade; the trial is 0 where lines name none."""
    return (str(line.question_id), line.turn, line.model, line.trial or 0)


def read_single_grades(folder: Path, copies: JudgmentCopies | None = None) -> JudgeGrades:
    """All ``*.jsonl`` judgment files of one judge (FastChat ``model_judgment`` layout),
    read as the module says; ``copies``: the judgments of other folders read before, of
    which a line here must be no copy (``JudgmentCopies``: renamed or not)."""
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of judgment files")
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise InputError(f"{folder}: no *.jsonl judgment files")
    grades: Grades = {}
    judges: Counter[str] = Counter()
    for path in files:
        for line in unique_records(path, _seen(path, folder, copies), key=_key):
            if _key(line) in grades:
                raise InputError(f"{path}: {_key(line)} is graded in another file of {folder}")
            grades[_key(line)] = float(line.score)
            judges[line.judge[0]] += 1
    if len(judges) != 1:
        raise InputError(f"{folder}: judgments by several judges: {sorted(judges)}")
    return JudgeGrades(next(iter(judges)), folder, grades)


def _seen(
    path: Path, folder: Path, copies: JudgmentCopies | None
) -> Iterator[tuple[int, SingleJudgmentLine]]:
    """The checked lines of ``path``, each refused where it is a copy of a line of another
    folder (repeats within ``folder`` are the module's rule's)."""
    for number, line in _checked(path):
        if copies is not None:
            copies.see(path, number, line, group=folder.resolve())
        yield number, line


def _checked(path: Path) -> Iterator[tuple[int, SingleJudgmentLine]]:
    for number, read in read_records(path, SingleGradingLine):
        line = read.root
        if not isinstance(line, SingleJudgmentLine):
            raise InputError(
                f"{path}:{number}: score is a list: a swallow-evaluation line (every trial's "
                "grades of a turn in one line), not read here; this reads one grade a line "
                "(FastChat's, or hyoka's with trial)"
            )
        if not (line.score == NO_RATING or 0 <= line.score <= 10):
            raise InputError(
                f"{path}:{number}: score {float(line.score)} outside 0..10 (or -1 for a failure)"
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
