"""Win rates from pairwise verdicts, as FastChat's MT-bench tables define them.

For each model, over the comparisons it took part in:

* ``win_rate = wins / (wins + losses + ties)``;
* ``adjusted_win_rate = (wins + ties / 2) / (wins + losses + ties)``: a tie is half a win
  and half a loss.

FastChat drops judgments that failed to parse (``error``) before counting and turns two
orders that disagree into a tie; here a method's verdict already says how disagreement is
treated (``bs2`` makes it a tie, ``prob`` resolves it, ``bs1`` makes it invalid), and an
invalid verdict (``None``) is likewise left out of the denominator but counted, so that a
rate over few valid verdicts is visible as such. Verdicts are seed 001's letters from the
pair's point of view: A = the first model (X) wins, B = the second (Y) wins, C = tie.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

#: The first model's (X's) share of a win for each verdict letter: a tie is half a win.
WIN_SHARE = {"A": 1.0, "B": 0.0, "C": 0.5}


@dataclass
class WinCounts:
    """One model's record against the others."""

    model: str
    wins: int = 0
    losses: int = 0
    ties: int = 0
    invalid: int = 0

    @property
    def valid(self) -> int:
        return self.wins + self.losses + self.ties

    @property
    def win_rate(self) -> float | None:
        """Wins over valid comparisons; ``None`` without any."""
        return self.wins / self.valid if self.valid else None

    @property
    def adjusted_win_rate(self) -> float | None:
        """Wins plus half the ties, over valid comparisons; ``None`` without any."""
        return (self.wins + 0.5 * self.ties) / self.valid if self.valid else None


def win_share(
    verdict: str | None, probabilities: Mapping[str, float] | None = None
) -> float | None:
    """X's share of the win in one judged pair, as Bradley–Terry ratings take it: from the
    judge's averaged probabilities when given (P(A) + P(C)/2 of the mass on A, B and C),
    else from the verdict letter (``WIN_SHARE``); ``None`` for no valid verdict."""
    if probabilities is not None:
        total = sum(probabilities.get(letter, 0.0) for letter in WIN_SHARE)
        if total > 0:
            return (probabilities.get("A", 0.0) + probabilities.get("C", 0.0) / 2) / total
    return WIN_SHARE.get(verdict) if verdict is not None else None


def win_counts(verdicts: Iterable[tuple[str, str, str | None]]) -> dict[str, WinCounts]:
    """Per model, from ``(model_x, model_y, verdict)`` triples; models in first-seen order."""
    counts: dict[str, WinCounts] = {}
    _tally(verdicts, lambda model, _: counts.setdefault(model, WinCounts(model)))
    return counts


def head_to_head(
    verdicts: Iterable[tuple[str, str, str | None]],
) -> dict[tuple[str, str], WinCounts]:
    """Per ordered pair ``(model, opponent)``: the model's record against that opponent
    alone, from the same triples as ``win_counts``; ``(x, y)`` and ``(y, x)`` mirror."""
    counts: dict[tuple[str, str], WinCounts] = {}
    _tally(verdicts, lambda model, other: counts.setdefault((model, other), WinCounts(model)))
    return counts


def _tally(
    verdicts: Iterable[tuple[str, str, str | None]], of: Callable[[str, str], WinCounts]
) -> None:
    """Count each triple into ``of(x, y)`` (X's record) and ``of(y, x)`` (Y's)."""
    for model_x, model_y, verdict in verdicts:
        x, y = of(model_x, model_y), of(model_y, model_x)
        if verdict == "A":
            x.wins += 1
            y.losses += 1
        elif verdict == "B":
            y.wins += 1
            x.losses += 1
        elif verdict == "C":
            x.ties += 1
            y.ties += 1
        elif verdict is None:
            x.invalid += 1
            y.invalid += 1
        else:
            raise ValueError(f"a pairwise verdict is A, B, C or None, got {verdict!r}")
