"""Bradley–Terry ratings from single grades, raw and style-controlled.

``hyoka mtbench leaderboard --answers … --style-control`` turns the table's single grades
into battles and rates them (``stats.rate_with_style``): on every judged turn, each pair
of models meets once, and the one its judge graded higher wins (share 1), equal grades
tie (0.5). This is how the MT-bench paper sets its single-answer grader beside pairwise
votes (Zheng et al. 2023, "Judging LLM-as-a-Judge": a win when one answer's score is
higher, a tie when equal); each answer's style is that of the judged turn's answer read
from ``--answers`` (arena-hard's length and Markdown features, lengths in characters).

The battles of one question are not independent: every pair of models meets on it, and
its two turns share a topic. So the bootstrap draws whole questions with replacement
(``RESAMPLED``: all battles of a question, both turns, together; ``groups`` in
``stats.style_controlled_bradley_terry``), never single battles, for the raw and the
controlled ratings alike. Unrated turns (-1) make no battle; a model with a judged turn
whose answer is not in the files is counted and left out, as the length-adjusted column
leaves it out; answers judged in several trials are refused (which trial's answer?).

The ratings stand beside Avg., never instead of it: they say how the models would rank
were every answer as long and as richly formatted as the other's (γ > 0: the judge grades
more of that feature higher).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from hyoka.errors import InputError
from hyoka.mtbench.leaderboard import Leaderboard
from hyoka.mtbench.length_columns import AnswerTurns, judged_turns
from hyoka.stats import (
    RESAMPLED_GROUP,
    STYLE_CONTROLS,
    RawAndControlled,
    StyleCounts,
    StyledBattle,
    held_equal,
    rate_with_style,
)

#: what the bootstrap draws: a question id with all its battles, both turns
RESAMPLED = RESAMPLED_GROUP


@dataclass(frozen=True)
class GradeRatings:
    """The ratings of the battles made from single grades, how many battles and
    questions they came from, and per model its judged turns without an answer (such a
    model is left out)."""

    rated: RawAndControlled
    battles: int
    questions: int
    missing: dict[str, int]

    @property
    def note(self) -> str:
        """What the table is, in one line."""
        return (
            f"Bradley-Terry from single grades: {self.battles} battles (on every judged turn "
            "each pair of models, the higher grade wins, equal grades tie), raw and "
            f"style-controlled ({held_equal(self.rated.controlled.features)} held equal; "
            "lengths in characters); 95% "
            f"CI resampling the {self.questions} questions (all battles of a question together)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "battles": self.battles,
            "questions": self.questions,
            "resampled": RESAMPLED,
            **self.rated.to_json(),
        }


def grade_battles(
    board: Leaderboard, answers: AnswerTurns
) -> tuple[list[StyledBattle], dict[str, int]]:
    """The battles of ``board``'s single grades (see the module's docstring), in the
    table's model order per judged turn, each with its question as its group; and per
    model left out, its judged turns without an answer."""
    judged, missing = judged_turns(board, answers, "Bradley-Terry from single grades")
    graded: dict[tuple[int, int], list[tuple[str, float, StyleCounts]]] = {}
    for t in judged:
        graded.setdefault((t.question_id, t.turn), []).append(
            (t.model, t.score, StyleCounts.of(t.answer))
        )
    battles = [
        StyledBattle(
            a, b, 1.0 if grade_a > grade_b else 0.0 if grade_a < grade_b else 0.5,
            style_a, style_b, group=str(question_id),
        )
        for (question_id, _turn), entries in sorted(graded.items())
        for (a, grade_a, style_a), (b, grade_b, style_b) in combinations(entries, 2)
    ]  # fmt: skip
    return battles, missing


def grade_ratings_of(
    board: Leaderboard,
    answers: AnswerTurns,
    *,
    rounds: int,
    seed: int,
    controls: Sequence[str] = STYLE_CONTROLS,
) -> GradeRatings:
    """Raw and style-controlled Bradley–Terry ratings of ``board``'s single grades, the
    bootstrap drawing whole questions; an ``InputError`` where fewer than two models have
    every answer."""
    battles, missing = grade_battles(board, answers)
    if not battles:
        raise InputError("Bradley-Terry from single grades needs two models with every answer")
    rated = rate_with_style(battles, controls=controls, rounds=rounds, seed=seed)
    questions = len({b.group for b in battles})
    return GradeRatings(rated, len(battles), questions, missing)
