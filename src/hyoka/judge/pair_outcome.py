"""One judged pair, whatever file it came from, and what the statistics read from it.

A pairwise judgment is stored in the shape its upstream writes: the engine's
``JudgmentRecord``, FastChat's and ja-vicuna-qa-benchmark's ``_pair`` lines, Rakuda's
matches. Each converts to ``PairOutcome`` once (``outcome_of``,
``mtbench.PairJudgmentLine.outcome``, ``mtbench.RakudaPairLine.outcome``), and every count,
rating and control is made from outcomes here. So a verdict's share of the win, which
turns a bootstrap draws together, and how a battle, a styled battle or a verdict against a
baseline is built from a judged pair each have one home, and ``judge pairwise``,
``mtbench judge --mode pairwise`` and the report's pairwise pages give the same numbers
for the same verdicts. (A judging run's result, ``SingleRun``/``PairwiseRun``, is
``judge.outcome``'s.)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from hyoka.judge.records import JudgmentRecord
from hyoka.judge.winrate import win_share
from hyoka.stats import (
    STYLE_CONTROLS,
    BaselineVerdict,
    Battles,
    LengthControlled,
    RawAndControlled,
    StyleControlled,
    StyleCounts,
    StyledBattle,
    length_controlled_winrates,
    rate_with_style,
    style_controlled_bradley_terry,
)

#: the method of an item judged in one order only (Rakuda's matches): its one verdict
ONE_ORDER = "one-order"


@dataclass(frozen=True)
class PairOutcome:
    """One judged item: X's answer against Y's, each method's verdict (A = X wins, B = Y
    wins, C = a tie, ``None`` = no valid verdict), the letters the judge wrote with X
    shown first and with Y shown first (``None``: that order held none, or was not
    judged), and the probabilities averaged over both orders (A = X wins)."""

    item: str
    x: str
    y: str
    verdicts: Mapping[str, str | None]
    letters: tuple[str | None, str | None]
    mean: Mapping[str, float] | None = None
    #: (question id, turn) where the item is a turn of a dialogue (FastChat's lines)
    turn: tuple[int, int] | None = None
    #: X's and Y's answer lengths in characters, where the answers are known
    lengths: tuple[int, int] | None = None
    #: X's and Y's answer style, where the answers' texts are known
    styles: tuple[StyleCounts, StyleCounts] | None = None
    #: the judge as the line names it (a label where the line is FastChat's or Rakuda's)
    judge: str = ""

    def styled(self, styles: tuple[StyleCounts, StyleCounts]) -> PairOutcome:
        """This outcome with both answers' style, and their lengths from it."""
        return replace(self, styles=styles, lengths=(styles[0].chars, styles[1].chars))

    def share(self, method: str) -> float | None:
        """X's share of the win under ``method`` (``None``: no valid verdict):
        ``judge.win_share`` of the method's verdict, or for ``prob`` of the averaged
        probabilities."""
        probabilities = self.mean if method == "prob" else None
        return win_share(self.verdicts.get(method), probabilities)


def outcome_of(record: JudgmentRecord, names: tuple[str, str] | None = None) -> PairOutcome:
    """A pairwise ``JudgmentRecord`` as an outcome: X and Y as its ``models`` name them
    (or as ``names`` gives them), the first order (``xy``) showing X first."""
    x, y = names if names is not None else (record.models[0], record.models[1])
    return PairOutcome(
        record.id, x, y, dict(record.verdicts), (record.letter("xy"), record.letter("yx")),
        (record.probabilities or {}).get("mean"), judge=record.judge.judge,
    )  # fmt: skip


def rated(outcomes: Sequence[PairOutcome], method: str) -> list[tuple[PairOutcome, float]]:
    """The outcomes with a valid verdict under ``method``, each with X's share, in order."""
    found = []
    for outcome in outcomes:
        value = outcome.share(method)
        if value is not None:
            found.append((outcome, value))
    return found


def two_turn(outcomes: Sequence[PairOutcome]) -> bool:
    """Whether the outcomes are turns of two-turn dialogues (every one a turn, some after
    the first): a bootstrap then draws whole questions, as every statistic of two-turn
    judgments does (signatures say ``resample:question``)."""
    turns = [outcome.turn for outcome in outcomes]
    return bool(turns) and None not in turns and any(t[1] > 1 for t in turns if t is not None)


def _group(outcome: PairOutcome, grouped: bool) -> str | None:
    return str(outcome.turn[0]) if grouped and outcome.turn is not None else None


def battles(outcomes: Sequence[PairOutcome], method: str) -> tuple[Battles, list[str] | None]:
    """``method``'s battles for ``stats.bradley_terry`` (X took its share from Y; items
    without a valid verdict left out) and each battle's question where ``two_turn``."""
    grouped = two_turn(outcomes)
    found = rated(outcomes, method)
    plain = Battles.of((outcome.x, outcome.y, value) for outcome, value in found)
    groups = [str(o.turn[0]) for o, _ in found if o.turn is not None] if grouped else None
    return plain, groups


def styled_battles(outcomes: Sequence[PairOutcome], method: str) -> list[StyledBattle]:
    """``method``'s battles with both answers' style, for ``stats.rate_with_style``: items
    without a valid verdict or without styles left out."""
    grouped = two_turn(outcomes)
    return [
        StyledBattle(o.x, o.y, value, *o.styles, group=_group(o, grouped))
        for o, value in rated(outcomes, method)
        if o.styles is not None
    ]


def baseline_verdicts(
    outcomes: Sequence[PairOutcome], method: str, baseline: str
) -> list[BaselineVerdict]:
    """``method``'s verdicts of every other model against ``baseline``, for
    ``stats.length_controlled_winrates``: the model's share of the win and both answers'
    lengths; items without the baseline, a valid verdict or lengths left out."""
    grouped = two_turn(outcomes)
    found = []
    for o, value in rated(outcomes, method):
        if o.lengths is None or baseline not in (o.x, o.y):
            continue
        first = o.x != baseline
        model, own = (o.x, value) if first else (o.y, 1.0 - value)
        mine, theirs = o.lengths if first else (o.lengths[1], o.lengths[0])
        found.append(BaselineVerdict(model, o.item, own, mine, theirs, _group(o, grouped)))
    return found


def length_controlled(
    outcomes: Sequence[PairOutcome], method: str, baseline: str
) -> LengthControlled | None:
    """Each model's raw and length-controlled win rate against ``baseline`` under
    ``method`` (``baseline_verdicts``); ``None`` where no verdict counts."""
    verdicts = baseline_verdicts(outcomes, method, baseline)
    return length_controlled_winrates(verdicts, baseline=baseline) if verdicts else None


def style_rated(
    outcomes: Sequence[PairOutcome], method: str, controls: Sequence[str] = STYLE_CONTROLS
) -> RawAndControlled | None:
    """Every model's Bradley–Terry rating under ``method``, raw and controlled for the
    style features of ``controls`` (``stats.rate_with_style`` of ``styled_battles``);
    ``None`` where no battle has both answers' style."""
    found = styled_battles(outcomes, method)
    return rate_with_style(found, controls=controls) if found else None


def style_controlled(
    outcomes: Sequence[PairOutcome], method: str, rounds: int, seed: int
) -> StyleControlled | None:
    """The style-controlled ratings alone of ``method``'s battles (those ``battles``
    gives, in the same order: for a caller that fits the raw ones itself), or ``None``
    where an item with a valid verdict lacks its answers' style."""
    found = rated(outcomes, method)
    styles = [outcome.styles for outcome, _ in found]
    if not found or None in styles:
        return None
    plain, groups = battles(outcomes, method)
    return style_controlled_bradley_terry(
        plain, [s[0] for s in styles if s is not None], [s[1] for s in styles if s is not None],
        rounds=rounds, seed=seed, groups=groups,
    )  # fmt: skip


def length_controlled_per_method(
    outcomes: Sequence[PairOutcome], methods: Collection[str], baseline: str
) -> dict[str, LengthControlled]:
    """``length_controlled`` of each method that has a verdict against ``baseline``."""
    found = {method: length_controlled(outcomes, method, baseline) for method in methods}
    return {method: rates for method, rates in found.items() if rates is not None}


def style_rated_per_method(
    outcomes: Sequence[PairOutcome], methods: Collection[str], controls: Sequence[str]
) -> dict[str, RawAndControlled]:
    """``style_rated`` of each method that has a battle with both answers' style."""
    found = {method: style_rated(outcomes, method, controls) for method in methods}
    return {method: rates for method, rates in found.items() if rates is not None}


def with_answers(
    outcomes: Sequence[PairOutcome],
    lengths: Mapping[str, tuple[int, int]] | None = None,
    styles: Mapping[str, tuple[StyleCounts, StyleCounts]] | None = None,
) -> list[PairOutcome]:
    """The outcomes with X's and Y's answer lengths and style from the mappings (item ->
    X's, Y's), where they hold the item."""
    found = []
    for outcome in outcomes:
        known_lengths = (lengths or {}).get(outcome.item)
        known_styles = (styles or {}).get(outcome.item)
        found.append(replace(outcome, lengths=known_lengths, styles=known_styles))
    return found
