"""Win, loss and tie counts per method from pairwise judgment records, with FastChat's rates.

Each record is one turn of one dialogue, read as the one pairwise outcome
(``PairJudgmentLine.outcome``: the counts, ratings and controls are ``judge``'s, as
``judge pairwise`` and the report's pages make them); its verdict under a method is read
from the record's ``verdicts`` (A = ``model_1`` wins). Records from FastChat's own files,
which have no ``verdicts``, are read the way FastChat reads them: both games agreeing give
the winner, disagreement a tie (``bs2``), and a game with ``error`` leaves the turn out
(``bs1`` keeps disagreement invalid instead). A game whose reply came back without log probabilities
leaves its turn without a ``prob`` verdict; those turns are listed, so a judge server that
drops log probabilities cannot pass for a judge that found no verdict.

Against a baseline, each method also gives every other model's length-controlled win rate
(``judge.length_controlled``, as ``hyoka judge pairwise`` computes X's against Y):
one verdict per judged turn, lengths the characters of the two answers to that turn.

With or without a baseline, each method's verdicts also rate every model by Bradley–Terry,
raw and style-controlled (``judge.style_rated_per_method``: arena-hard's length and Markdown
features of the two answers to the turn, fitted jointly), one battle per judged turn.

The turns of one question are not independent of each other (the second follows the
first), so where the records hold second turns both bootstraps draw whole questions, as
every statistic of two-turn judgments does (the signatures say ``resample:question``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

from hyoka.judge import (
    PairOutcome,
    WinCounts,
    length_controlled_per_method,
    style_rated_per_method,
    win_counts,
)
from hyoka.mtbench.headline import FASTCHAT_RULE, HeadlineRule
from hyoka.mtbench.pairwise import TurnLengths, TurnStyles
from hyoka.mtbench.records import PairJudgmentLine
from hyoka.stats import STYLE_CONTROLS, LengthControlled, RawAndControlled

T = TypeVar("T")
#: (question_id, turn, model): whose answer to which turn
Turn = tuple[int, int, str]


def method_counts(
    records: Sequence[PairJudgmentLine],
    methods: Collection[str],
    rule: HeadlineRule = FASTCHAT_RULE,
) -> dict[str, dict[str, WinCounts]]:
    """Per method, per model (first seen first): wins, losses, ties, invalid verdicts, each
    turn counted as ``rule`` counts it (``HeadlineRule.pair_verdict``: FastChat's leaves a
    turn without a verdict out of the rates, ja-vicuna-qa-benchmark's counts every one)."""
    outcomes = [record.outcome() for record in records]
    return {
        method: win_counts(
            (o.x, o.y, rule.pair_verdict(o.verdicts.get(method), o.letters)) for o in outcomes
        )
        for method in methods
    }


def length_controlled(
    records: Sequence[PairJudgmentLine],
    methods: Collection[str],
    baseline: str,
    lengths: TurnLengths,
) -> dict[str, LengthControlled]:
    """Per method, each model's length-controlled win rate against ``baseline``, from its
    turns judged against the baseline (``judge.length_controlled``: the model's share of
    the win from the two games' averaged probabilities under ``prob``, else from the
    verdict); ``lengths`` (question_id, turn, model -> characters,
    ``pairwise.turn_lengths``) gives both answers' lengths. A method with no valid verdict
    against the baseline has none."""
    return length_controlled_per_method(outcomes(records, lengths=lengths), methods, baseline)


def style_controlled(
    records: Sequence[PairJudgmentLine],
    methods: Collection[str],
    styles: TurnStyles,
    controls: Sequence[str] = STYLE_CONTROLS,
) -> dict[str, RawAndControlled]:
    """Per method, every model's Bradley–Terry rating raw and controlled for the style
    features of ``controls`` (``judge.style_rated_per_method``): one battle per judged turn
    with a valid verdict, ``model_1``'s share, both answers' style from ``styles``
    (``pairwise.turn_styles``). A method with no valid verdict has none."""
    return style_rated_per_method(outcomes(records, styles=styles), methods, controls)


def outcomes(
    records: Sequence[PairJudgmentLine],
    lengths: TurnLengths | None = None,
    styles: TurnStyles | None = None,
) -> list[PairOutcome]:
    """The lines as outcomes (``PairJudgmentLine.outcome``), with both answers' lengths
    and style where ``lengths`` and ``styles`` hold them (question_id, turn, model)."""
    found = []
    for record in records:
        keys = [(record.question_id, record.turn, m) for m in (record.model_1, record.model_2)]
        known = replace(record.outcome(), lengths=_both(lengths, keys), styles=_both(styles, keys))
        found.append(known)
    return found


def _both(known: Mapping[Turn, T] | None, keys: Sequence[Turn]) -> tuple[T, T] | None:
    """What ``known`` holds of both answers (``keys``), or ``None`` where it lacks one."""
    one, two = (None, None) if known is None else (known.get(keys[0]), known.get(keys[1]))
    return (one, two) if one is not None and two is not None else None


def no_logprobs(
    records: Sequence[PairJudgmentLine],
) -> list[tuple[PairJudgmentLine, list[str]]]:
    """Each record with a game (``g1``/``g2``) that came back without log probabilities."""
    found: list[tuple[PairJudgmentLine, list[str]]] = []
    for record in records:
        games = [game for game, status in (record.prob_status or {}).items()
                 if status == "no-logprobs"]  # fmt: skip
        if games:
            found.append((record, games))
    return found


def turn_label(record: PairJudgmentLine, games: Sequence[str] = ()) -> str:
    """``question/turn model_1 vs model_2``, and the games concerned: how a warning names it."""
    label = f"{record.question_id}/{record.turn} {record.model_1} vs {record.model_2}"
    return f"{label} ({'+'.join(games)})" if games else label
