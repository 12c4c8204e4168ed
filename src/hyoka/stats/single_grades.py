"""Two judges' single grades (1–10) turned into pairwise preferences between models.

For every question, turn and pair of models (X, Y) both judges graded, each judge's
preference is A if X scored higher, B if lower, C if equal; where the answers hold several
trials (``mtbench judge`` on ``generate --trials N``: lines with ``trial``), trial i of X is
compared with trial i of Y. The agreement of the two
judges is then measured with the same statistics as human-vs-judge agreement. Failed
gradings (score −1, FastChat's marker for a reply without a rating) leave that comparison
out for both judges, and the numbers left out are reported, never hidden. The comparisons
of one question share its answers, so the bootstrap resamples whole questions. The grades
come read (``metaeval.read_single_grades``: FastChat's single-grading folders), never as
files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from hyoka.errors import InputError
from hyoka.stats.labels import LabelTable

#: (question id, turn, model, trial) -> score; the trial is 0 where lines name none
Grades = dict[tuple[str, int, str, int], float]
FAILED_SCORE = -1


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
