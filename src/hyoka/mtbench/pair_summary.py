"""Win, loss and tie counts per method from pairwise judgment records, with FastChat's rates.

Each record is one turn of one dialogue; its verdict under a method is read from the
record's ``verdicts`` (A = ``model_1`` wins). Records from FastChat's own files, which have
no ``verdicts``, are read the way FastChat reads them: both games agreeing give the winner,
disagreement a tie (``bs2``), and a game with ``error`` leaves the turn out (``bs1`` keeps
disagreement invalid instead). A game whose reply came back without log probabilities
leaves its turn without a ``prob`` verdict; those turns are listed, so a judge server that
drops log probabilities cannot pass for a judge that found no verdict.

Against a baseline, each method also gives every other model's length-controlled win rate
(``stats.length_controlled_winrates``, as ``hyoka judge pairwise`` computes X's against Y):
one verdict per judged turn, lengths the characters of the two answers to that turn.

With or without a baseline, each method's verdicts also rate every model by Bradley–Terry,
raw and style-controlled (``stats.rate_with_style``: arena-hard's length and Markdown
features of the two answers to the turn, fitted jointly), one battle per judged turn.

The turns of one question are not independent of each other (the second follows the
first), so where the records hold second turns both bootstraps draw whole questions, as
every statistic of two-turn judgments does (the signatures say ``resample:question``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from hyoka.judge import WinCounts, win_counts, win_share
from hyoka.mtbench.pairwise import TurnLengths, TurnStyles
from hyoka.mtbench.records import PairJudgmentLine
from hyoka.stats import (
    STYLE_CONTROLS,
    BaselineVerdict,
    LengthControlled,
    RawAndControlled,
    StyledBattle,
    length_controlled_winrates,
    rate_with_style,
)


def verdict(record: PairJudgmentLine, method: str) -> str | None:
    """The record's verdict under ``method``; from the two winners when it has none stored."""
    return record.method_verdicts().get(method)


def method_counts(
    records: Sequence[PairJudgmentLine], methods: Collection[str]
) -> dict[str, dict[str, WinCounts]]:
    """Per method, per model (first seen first): wins, losses, ties, invalid verdicts."""
    return {
        method: win_counts((r.model_1, r.model_2, verdict(r, method)) for r in records)
        for method in methods
    }


def length_controlled(
    records: Sequence[PairJudgmentLine],
    methods: Collection[str],
    baseline: str,
    lengths: TurnLengths,
) -> dict[str, LengthControlled]:
    """Per method, each model's length-controlled win rate against ``baseline``, from its
    turns judged against the baseline: the model's share of the win from the two games'
    averaged probabilities under ``prob`` (``judge.win_share``), else from the verdict;
    ``lengths`` (question_id, turn, model -> characters, ``pairwise.turn_lengths``) gives
    both answers' lengths. A method with no valid verdict against the baseline has none."""
    found: dict[str, LengthControlled] = {}
    two_turn = _two_turn(records)
    for method in methods:
        verdicts = []
        for record in records:
            if baseline not in record.models:
                continue
            share = first_share(record, method)
            if share is None:
                continue
            first = record.model_1 != baseline
            model = record.model_1 if first else record.model_2
            turn = (record.question_id, record.turn)
            verdicts.append(
                BaselineVerdict(
                    model, f"{record.question_id}/{record.turn}", share if first else 1.0 - share,
                    lengths[(*turn, model)], lengths[(*turn, baseline)],
                    group=str(record.question_id) if two_turn else None,
                )
            )  # fmt: skip
        if verdicts:
            found[method] = length_controlled_winrates(verdicts, baseline=baseline)
    return found


def _two_turn(records: Sequence[PairJudgmentLine]) -> bool:
    """Whether the records are turns of two-turn dialogues (some turn after the first):
    the bootstraps then draw whole questions."""
    return any(record.turn > 1 for record in records)


def first_share(record: PairJudgmentLine, method: str) -> float | None:
    """``model_1``'s share of the win under ``method``: from the two games' averaged
    probabilities under ``prob`` (``judge.win_share``), else from the verdict."""
    mean = (record.probabilities or {}).get("mean") if method == "prob" else None
    return win_share(verdict(record, method), mean)


def style_controlled(
    records: Sequence[PairJudgmentLine],
    methods: Collection[str],
    styles: TurnStyles,
    controls: Sequence[str] = STYLE_CONTROLS,
) -> dict[str, RawAndControlled]:
    """Per method, every model's Bradley–Terry rating raw and controlled for the style
    features of ``controls``: one battle per judged turn with a valid verdict,
    ``model_1``'s share (``first_share``), both answers' style from ``styles``
    (``pairwise.turn_styles``). A method with no valid verdict has none."""
    found: dict[str, RawAndControlled] = {}
    two_turn = _two_turn(records)
    for method in methods:
        battles = []
        for record in records:
            share = first_share(record, method)
            one = styles.get((record.question_id, record.turn, record.model_1))
            two = styles.get((record.question_id, record.turn, record.model_2))
            if share is not None and one is not None and two is not None:
                battles.append(
                    StyledBattle(
                        record.model_1, record.model_2, share, one, two,
                        group=str(record.question_id) if two_turn else None,
                    )
                )  # fmt: skip
        if battles:
            found[method] = rate_with_style(battles, controls=controls)
    return found


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
