"""The per-category leaderboard from single-grading judgment files (the paper's Table 1).

Per model and category: the mean of both turns' scores, rule-based zeros (no answer, wrong
language) included and -1 (no rating) left out; overall: the plain mean of the category
means. Means are kept as exact fractions and rounded half-up only for display, so a mean of
exactly 8.125 shows as 8.13 (binary floats and Python's ``round`` would give 8.12).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from hyoka._jsonl import read_records
from hyoka.errors import InputError
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.records import JudgmentRecord

#: a turn whose judge reply held no rating; left out of the means
NO_RATING = -1
_CENT = Decimal("0.01")


def round_half_up(value: Fraction, places: int = 2) -> Decimal:
    """``value`` rounded half away from zero to ``places`` decimals, exactly."""
    scaled = abs(value) * 10**places
    whole = int(scaled + Fraction(1, 2))  # floor(x + 1/2) for x >= 0
    result = Decimal(whole).scaleb(-places)
    return -result if value < 0 else result


def display_name(model: str) -> str:
    """Upstream file names write ``org/model`` as ``org_model``; show the slash again."""
    return model.replace("_", "/", 1)


@dataclass
class ModelScores:
    """One model's scores, summed exactly, by category and by turn."""

    model: str
    categories: tuple[str, ...]
    _sums: dict[tuple[str, int], Fraction] = field(default_factory=lambda: defaultdict(Fraction))
    _counts: dict[tuple[str, int], int] = field(default_factory=lambda: defaultdict(int))
    judged: int = 0
    unrated: int = 0

    def add(self, category: str, turn: int, score: float) -> None:
        self.judged += 1
        if score == NO_RATING:
            self.unrated += 1
            return
        # through str: the float 8.1 means the decimal 8.1, not its binary neighbour
        self._sums[category, turn] += Fraction(Decimal(str(score)))
        self._counts[category, turn] += 1

    def category_mean(self, category: str, turn: int | None = None) -> Fraction | None:
        turns = (1, 2) if turn is None else (turn,)
        count = sum(self._counts[category, t] for t in turns)
        if not count:
            return None
        return sum((self._sums[category, t] for t in turns), Fraction()) / count

    def means(self, turn: int | None = None) -> dict[str, Fraction | None]:
        return {c: self.category_mean(c, turn) for c in self.categories}

    def overall(self, turn: int | None = None) -> Fraction | None:
        """Mean of the category means (categories without any rated turn are skipped)."""
        present = [m for m in self.means(turn).values() if m is not None]
        return sum(present, Fraction()) / len(present) if present else None


@dataclass(frozen=True)
class Leaderboard:
    bench: Bench
    models: tuple[ModelScores, ...]
    expected_turns: int

    def ranked(self, turn: int | None = None) -> list[ModelScores]:
        """Best overall first (ties by name), as upstream sorts."""

        def key(m: ModelScores) -> tuple[Fraction, str]:
            return (-(m.overall(turn) or Fraction(-10)), m.model)

        return sorted(self.models, key=key)

    def incomplete(self) -> list[ModelScores]:
        return [m for m in self.models if m.judged != self.expected_turns]


def judgment_files(paths: list[Path]) -> list[Path]:
    """The ``*.jsonl`` files of the given folders (or the files themselves), sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(path.glob("*.jsonl"))
        elif path.is_file():
            found.append(path)
        else:
            raise InputError(f"--judgments: {path} does not exist")
    if not found:
        shown = ", ".join(str(p) for p in paths)
        raise InputError(f"--judgments: no *.jsonl judgment files in {shown}")
    return found


def build_leaderboard(bench: Bench, files: list[Path]) -> Leaderboard:
    """Read every judgment; an ``InputError`` at the first line that cannot be right."""
    questions = bench.by_id
    scores: dict[str, ModelScores] = {}
    seen: dict[tuple[str, int, int], str] = {}
    for path in files:
        for number, record in read_records(path, JudgmentRecord):
            where = f"{path}:{number}"
            question = questions.get(record.question_id)
            if question is None:
                raise InputError(
                    f"{where}: question_id {record.question_id} is not a {bench.spec.title} "
                    "question (a judgment file of another benchmark?)"
                )
            if record.user_prompt and question.turns[0] not in record.user_prompt:
                raise InputError(
                    f"{where}: the judged conversation is not {bench.spec.title} question "
                    f"{record.question_id} (a judgment file of another benchmark?)"
                )
            key = (record.model, record.question_id, record.turn)
            if key in seen:
                raise InputError(
                    f"{where}: {record.model} question_id {record.question_id} turn "
                    f"{record.turn} judged twice (first at {seen[key]})"
                )
            seen[key] = where
            if record.model not in scores:
                scores[record.model] = ModelScores(record.model, bench.spec.categories)
            scores[record.model].add(question.category, record.turn, record.score)
    return Leaderboard(bench, tuple(scores.values()), 2 * len(questions))
