"""What a file of pairwise judgments says: counts per method, win rates, robustness, and the
verdict files ``hyoka judge agreement`` reads.

Robustness is seed 001's share of pairs whose two orders agree (no position bias), over
the pairs where both replies held a verdict letter; pairs without one are counted apart.

Where the answers' lengths are known, each method's X win rate also comes length-controlled
(``pair_outcome.length_controlled``: alpaca_eval's logistic model with Y as the baseline,
lengths in characters, X's share from the averaged probabilities under ``prob``), beside
the raw rates, never instead of them. Where the answers' texts are known, each method's
verdicts also give Bradley–Terry ratings of X and Y, raw and style-controlled
(``pair_outcome.style_rated``: arena-hard's length and Markdown features fitted jointly),
with the judge's fitted style coefficients. Both read the records as ``PairOutcome``s,
as ``mtbench judge --mode pairwise`` and the report's pages read theirs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.judge.pair_outcome import length_controlled, outcome_of, style_rated, with_answers
from hyoka.judge.pairwise import Method, lacks_logprobs, order_agreement
from hyoka.judge.records import JudgmentRecord
from hyoka.judge.winrate import WinCounts, win_counts
from hyoka.providers import Usage
from hyoka.signature import Signature
from hyoka.stats import STYLE_CONTROLS, Interval, RawAndControlled, StyleCounts
from hyoka.store import atomic_write_text


@dataclass
class MethodSummary:
    method: str
    x_wins: int = 0
    y_wins: int = 0
    ties: int = 0
    invalid: int = 0
    #: FastChat's rates of the first (X) and second (Y) model, from this method's verdicts
    x: WinCounts | None = None
    y: WinCounts | None = None
    #: X's length-controlled win rate against Y, where lengths were given and verdicts valid
    x_length_controlled: Interval | None = None
    #: X's and Y's Bradley–Terry ratings, raw and style-controlled (answers' texts known)
    ratings: RawAndControlled | None = None

    def to_json(self) -> dict[str, Any]:
        def rate(counts: WinCounts | None, adjusted: bool) -> float | None:
            if counts is None:
                return None
            return counts.adjusted_win_rate if adjusted else counts.win_rate

        return {
            "x_wins": self.x_wins,
            "y_wins": self.y_wins,
            "ties": self.ties,
            "invalid": self.invalid,
            "x_win_rate": rate(self.x, False),
            "x_adjusted_win_rate": rate(self.x, True),
            "y_win_rate": rate(self.y, False),
            "y_adjusted_win_rate": rate(self.y, True),
            "x_length_controlled_win_rate": (
                self.x_length_controlled.to_json() if self.x_length_controlled else None
            ),
            "bradley_terry": self.ratings.to_json() if self.ratings else None,
        }


@dataclass
class PairwiseSummary:
    pairs: int
    methods: dict[str, MethodSummary]
    agree: int
    disagree: int
    missing_letter: int  # pairs where at least one order's reply held no verdict letter
    no_logprobs: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    #: how the length-controlled rates were made (None: no lengths given)
    length_control: Signature | None = None
    #: how the style-controlled ratings were made (None: no answers' texts given)
    style_control: Signature | None = None

    @property
    def robustness(self) -> float | None:
        both = self.agree + self.disagree
        return self.agree / both if both else None

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "methods": {name: counts.to_json() for name, counts in self.methods.items()},
            "robustness": self.robustness,
            "orders_agree": self.agree,
            "orders_disagree": self.disagree,
            "missing_letter": self.missing_letter,
            "no_logprobs": self.no_logprobs,
            "usage": self.usage.model_dump(),
            "length_control_signature": (
                self.length_control.to_json() if self.length_control else None
            ),
            "style_control_signature": (
                self.style_control.to_json() if self.style_control else None
            ),
        }


def summarise(
    records: Sequence[JudgmentRecord],
    methods: Sequence[Method],
    lengths: Mapping[str, tuple[int, int]] | None = None,
    styles: Mapping[str, tuple[StyleCounts, StyleCounts]] | None = None,
    controls: Sequence[str] = STYLE_CONTROLS,
) -> PairwiseSummary:
    """The summary of ``records``; with ``lengths`` (pair id -> X's and Y's answer length
    in characters) each method's X win rate length-controlled too; with ``styles`` (pair
    id -> X's and Y's answer style) each method's ratings raw and controlled for the
    features of ``controls``."""
    summary = PairwiseSummary(pairs=len(records), methods={}, agree=0, disagree=0, missing_letter=0)
    names = _two_models(records)
    outcomes = with_answers([outcome_of(r, names) for r in records], lengths, styles)
    for method in methods:
        rates = win_counts(("X", "Y", o.verdicts.get(method)) for o in outcomes)
        x, y = rates.get("X"), rates.get("Y")
        counts = MethodSummary(method, x=x, y=y)
        if x is not None:
            counts.x_wins, counts.y_wins, counts.ties = x.wins, x.losses, x.ties
            counts.invalid = x.invalid
        summary.methods[method] = counts
    for method in methods if lengths is not None else ():
        controlled = length_controlled(outcomes, method, baseline=names[1])
        if controlled is not None:  # X's rate against Y: X is the first model rated
            summary.methods[method].x_length_controlled = controlled.rates[0].controlled
            summary.length_control = controlled.signature
    for method in methods if styles is not None else ():
        rated = style_rated(outcomes, method, controls)
        if rated is not None:
            summary.methods[method].ratings = rated
            summary.style_control = rated.controlled.signature
    orders = order_agreement(outcome.letters for outcome in outcomes)
    summary.agree, summary.disagree = orders.agree, orders.disagree
    summary.missing_letter = orders.missing
    for record in records:
        if "prob" in methods and lacks_logprobs(record):
            summary.no_logprobs.append(record.id)
        summary.usage = summary.usage + record.usage
    return summary


def _two_models(records: Sequence[JudgmentRecord]) -> tuple[str, str]:
    """The names X and Y stand for, as the records name them (``X``/``Y`` otherwise)."""
    named = records[0].models if records else ()
    return (named[0], named[1]) if len(named) > 1 and named[0] != named[1] else ("X", "Y")


def export_verdicts(
    records: Sequence[JudgmentRecord],
    method: Method,
    path: Path,
    categories: Mapping[str, str | None] | None = None,
) -> int:
    """Write ``method``'s verdicts as the JSONL ``hyoka judge agreement --auto`` reads:
    item, verdict (null when invalid), order_xy, order_yx, category (when known)."""
    lines = []
    for record in records:
        if method not in record.verdicts:
            raise InputError(
                f"judgment {record.id!r} has no {method} verdict (judged without "
                f"{'log probabilities' if method == 'prob' else 'that method'})"
            )
        xy, yx = record.letter("xy"), record.letter("yx")
        row: dict[str, str | None] = {
            "item": record.id,
            "verdict": record.verdicts[method],
            "order_xy": xy,
            "order_yx": yx,
        }
        category = (categories or {}).get(record.id)
        if category is not None:
            row["category"] = category
        lines.append(json.dumps(row, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, "".join(line + "\n" for line in lines))
    return len(lines)
