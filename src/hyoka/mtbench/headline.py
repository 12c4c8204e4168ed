"""How a benchmark's own script turns judgments into the numbers of its table: one object
per rule (``HeadlineRule``), carried by a definition (``BenchSpec.headline``) or a variant
(``Variant.headline``), signed by its name in the table's signature.

A rule answers three questions the same way its upstream script does: a category's cell (a
model's mean over the category's judged turns), the headline ("Avg."), and how a pairwise
turn counts towards a win rate. The readers (the leaderboard, ``mtbench judge --mode
pairwise``, the report) ask the rule and never test its name, so a benchmark whose script
averages another way adds a rule here, not a branch there.

- ``turn-mean`` (lm-sys FastChat ``show_result.py``): every rated turn pooled, for a cell
  and for the headline; a pair whose method gives no verdict (a game without one) is left
  out of the win rate's denominator.
- ``category-mean`` (pfmt-bench-fin-ja ``make_leaderboard.py``): cells pooled, the headline
  the plain mean of the category cells; pairs as FastChat's.
- ``swallow-trials`` (swallow-evaluation 57c4ecd, ``fastchat/fastchat/llm_judge/
  show_result.py``, ``calculate_averages``): within each trial the mean of that trial's
  rated turns, then the mean over the trials, for a category's cell and for the headline
  alike; pooled means differ once trials have different numbers of rated turns (-1 is left
  out per trial). A trial without a rated turn in a cell is left out of it (upstream's is a
  NaN). Pairs as FastChat's.
- ``every-line`` (ku-nlp/ja-vicuna-qa-benchmark 128a862, ``llm_judge/show_result.py``):
  the mean over every line read, a score of -1 (no rating) counted as the -1 it is; and
  every pairwise game in the win rate's denominator: a pair whose two games disagree, or
  one of them without a verdict, counts as a tie, and one where neither game has a verdict
  as ``model_2``'s win (what its tally does with two equal ``error`` winners).

The rules are described here, not copied; the commits above are the ones read.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from hyoka.errors import InputError


@dataclass
class Tally:
    """Rated turns' sum and count, and the unrated turns (-1), of one cell of one trial."""

    total: Fraction = Fraction()
    rated: int = 0
    unrated: int = 0

    def add(self, other: Tally) -> None:
        self.total += other.total
        self.rated += other.rated
        self.unrated += other.unrated


class Tallies(Protocol):
    """A model's judged turns as a rule reads them: per trial, summed over ``categories``
    and ``turns`` (``leaderboard.ModelScores``)."""

    def tally(self, categories: Collection[str], turns: Collection[int]) -> Mapping[int, Tally]:
        """Per trial that has any of these turns judged, its tally."""
        ...


def _pooled(by_trial: Mapping[int, Tally]) -> Fraction | None:
    total = sum((t.total for t in by_trial.values()), Fraction())
    rated = sum(t.rated for t in by_trial.values())
    return total / rated if rated else None


class HeadlineRule:
    """One benchmark script's aggregation: a cell, the headline, a pair's count."""

    #: the name the table's signature carries and ``--headline`` takes
    name: str = ""
    #: whose script it is, for listings and ``--help``
    source: str = ""
    #: the line under a table saying what "Avg." is
    note: str = ""
    #: what "Avg." is, in a few words (a column's tip)
    summary: str = ""
    #: how a pairwise turn counts in a win rate, in a line
    pair_note: str = (
        "a turn whose games disagree is a tie; one without a verdict (a game without one) "
        "is left out of the denominator (lm-sys FastChat's show_result.py)"
    )

    def cell(self, scores: Tallies, category: str, turns: Collection[int]) -> Fraction | None:
        """``category``'s mean over ``turns``; ``None`` where it has nothing to average."""
        return _pooled(scores.tally((category,), turns))

    def overall(
        self, scores: Tallies, categories: Collection[str], turns: Collection[int]
    ) -> Fraction | None:
        """The headline over ``turns``; ``None`` without a rated turn."""
        return _pooled(scores.tally(categories, turns))

    def pair_verdict(
        self, verdict: str | None, letters: tuple[str | None, str | None]
    ) -> str | None:
        """How a judged pair counts in a win rate (A: ``model_1`` wins, B: ``model_2``,
        C: tie, ``None``: left out of the denominator), from its method's ``verdict`` and
        the letters of its two games (A = the answer shown first)."""
        return verdict

    @property
    def counts_unrated(self) -> bool:
        """Whether a turn without a rating enters the means (as -1)."""
        return False

    @property
    def unrated_note(self) -> str:
        """What the means do with a turn without a rating (-1), as a row's note says it."""
        if self.counts_unrated:
            return "counted as -1 in the means (upstream's mean over every line)"
        return "left out of the means"


class TurnMean(HeadlineRule):
    name = "turn-mean"
    source = "lm-sys FastChat show_result.py"
    note = "Avg.: mean of every rated turn (FastChat's show_result.py)"
    summary = "mean of every rated turn"


class CategoryMean(HeadlineRule):
    name = "category-mean"
    source = "pfmt-bench-fin-ja make_leaderboard.py"
    note = "Avg.: mean of the category means (upstream's make_leaderboard.py)"
    summary = "mean of the category means"

    def overall(
        self, scores: Tallies, categories: Collection[str], turns: Collection[int]
    ) -> Fraction | None:
        present = [m for c in categories if (m := self.cell(scores, c, turns)) is not None]
        return sum(present, Fraction()) / len(present) if present else None


class SwallowTrials(HeadlineRule):
    name = "swallow-trials"
    source = "swallow-evaluation show_result.py (calculate_averages)"
    note = (
        "Avg. and each category: per trial the mean of its rated turns, then the mean over "
        "the trials (swallow-evaluation's show_result.py)"
    )
    summary = "mean over the trials of each trial's mean"

    def cell(self, scores: Tallies, category: str, turns: Collection[int]) -> Fraction | None:
        return _trial_mean(scores.tally((category,), turns))

    def overall(
        self, scores: Tallies, categories: Collection[str], turns: Collection[int]
    ) -> Fraction | None:
        return _trial_mean(scores.tally(categories, turns))


def _trial_mean(by_trial: Mapping[int, Tally]) -> Fraction | None:
    means = [t.total / t.rated for t in by_trial.values() if t.rated]
    return sum(means, Fraction()) / len(means) if means else None


class EveryLine(HeadlineRule):
    name = "every-line"
    source = "ja-vicuna-qa-benchmark show_result.py"
    note = (
        "Avg.: mean over every judgment line, a turn without a rating counted as -1; win "
        "rates over every judged pair (ja-vicuna-qa-benchmark's show_result.py)"
    )
    summary = "mean over every judgment line"
    pair_note = (
        "every judged turn in the denominator: games that disagree, or one game without a "
        "verdict, a tie; both games without one, model_2's win (ja-vicuna-qa-benchmark's "
        "show_result.py)"
    )

    def cell(self, scores: Tallies, category: str, turns: Collection[int]) -> Fraction | None:
        return _every(scores.tally((category,), turns))

    def overall(
        self, scores: Tallies, categories: Collection[str], turns: Collection[int]
    ) -> Fraction | None:
        return _every(scores.tally(categories, turns))

    def pair_verdict(
        self, verdict: str | None, letters: tuple[str | None, str | None]
    ) -> str | None:
        if verdict is not None:
            return verdict
        return "C" if any(letter is not None for letter in letters) else "B"

    @property
    def counts_unrated(self) -> bool:
        return True


def _every(by_trial: Mapping[int, Tally]) -> Fraction | None:
    total = sum((t.total - t.unrated for t in by_trial.values()), Fraction())
    lines = sum(t.rated + t.unrated for t in by_trial.values())
    return total / lines if lines else None


TURN_MEAN = TurnMean()
CATEGORY_MEAN = CategoryMean()
SWALLOW_TRIALS = SwallowTrials()
EVERY_LINE = EveryLine()
#: every rule by name, the ``--headline`` choices
RULES: dict[str, HeadlineRule] = {
    rule.name: rule for rule in (TURN_MEAN, CATEGORY_MEAN, SWALLOW_TRIALS, EVERY_LINE)
}
#: lm-sys FastChat's rule: the named option where a benchmark's own rule is the default
FASTCHAT_RULE = TURN_MEAN


def headline_rule(name: str) -> HeadlineRule:
    """The rule called ``name``; an ``InputError`` naming the known ones otherwise."""
    rule = RULES.get(name)
    if rule is None:
        raise InputError(f"`headline` must be one of {', '.join(RULES)}, got {name!r}")
    return rule
