"""Ratings that cannot be compared: a comparison graph in pieces, in the words every
output uses.

A Bradley–Terry fit (raw, style-controlled, Rakuda's with a home advantage) only sees
differences of strengths between models that played each other. Where the models fall
into groups that never met, directly or through others, each group's strengths can move
together by any amount without changing the likelihood: it has a maximum, but not a
single one, and a rating of one group against another is wherever the optimiser (or the
ridge) happened to put their offsets. Upstream tools (arena-hard-auto, FastChat, the
Chatbot Arena notebook, Rakuda's ``make_ranking.py``) rank such models against each other
all the same; hyoka does not. A rating that depends on that offset is never shown: it is
``n/a: not comparable (models {a, b} never met {c, d})``, and JSON carries ``null`` with
``not_comparable``: the reason, as a fit without a maximum carries ``no_maximum``.

Which ratings depend on it depends on how the scale is fixed. Centred (the mean rating at
1000, or strengths summing to zero, as Rakuda's are) every rating does, once there are two
groups. Anchored (a model at a given rating) the anchor's group is placed and every other
model is n/a. What does not depend on the strengths' offsets (the home advantage, a style
coefficient) is still shown.

Groups are found on the graph of games played (``linked_groups``: a tie or a fractional
outcome links as a win does), one label per model and per row, so every bootstrap draw
is checked at once. A draw whose games fall apart leaves its ratings undetermined: like a
draw without a maximum it is counted (``draws_apart``), and its undetermined numbers are
``separation.EITHER``, which ``separation.extended_quantiles`` counts as −∞ for a lower
percentile and +∞ for an upper one (every placement of the offsets lies within the
interval) and leaves out of a median.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hyoka.stats.bootstrap import FloatArray, IntArray
from hyoka.stats.logistic import BoolArray
from hyoka.stats.separation import EITHER, draws_line, draws_without_maximum, names_of

#: what a rating the groups leave unplaced is shown as, before its reason
NOT_COMPARABLE = "not comparable"
#: groups listed in a reason before the rest are counted
_GROUPS_SHOWN = 4


def not_comparable(reason: str) -> str:
    """``not comparable (<reason>)``: the words for a rating the groups leave unplaced."""
    return f"{NOT_COMPARABLE} ({reason})"


def draws_apart(count: int, rounds: int) -> str:
    """Why an interval is n/a: some bootstrap draws fall into groups that never met."""
    return f"{count} of {rounds} bootstrap draws leave models {NOT_COMPARABLE}"


def pair_links(models: int, left: IntArray, right: IntArray, games: FloatArray) -> BoolArray:
    """rows × models × models: whether two models played in each row of ``games`` (rows ×
    pairs; pair p is ``left[p]`` against ``right[p]``)."""
    links = np.zeros((games.shape[0], models, models), dtype=bool)
    played = games > 0
    links[:, left, right] = played
    links[:, right, left] |= played
    return links


def battle_links(models: int, first: IntArray, second: IntArray, weights: FloatArray) -> BoolArray:
    """rows × models × models: whether two models played, battle k (``first[k]`` against
    ``second[k]``) counting where ``weights[row, k]`` (how often a draw drew it) is
    positive."""
    m = models
    pair = np.minimum(first, second) * m + np.maximum(first, second)
    slots, slot = np.unique(pair, return_inverse=True)
    member = np.zeros((len(pair), len(slots)))
    member[np.arange(len(pair)), slot.reshape(-1)] = 1.0
    left, right = (slots // m).astype(np.int64), (slots % m).astype(np.int64)
    return pair_links(m, left, right, weights @ member)


def linked_groups(links: BoolArray) -> IntArray:
    """rows × models: each model's group in each row of ``links`` (rows × models ×
    models, symmetric), labelled by the lowest model number that a chain of games links
    it to (a model without a game is a group of its own)."""
    rows, m = links.shape[0], links.shape[1]
    label: IntArray = np.broadcast_to(np.arange(m, dtype=np.int64), (rows, m)).copy()
    while True:  # each pass spreads the lowest label one game further
        reached = np.min(np.where(links, label[:, None, :], m), axis=2)
        spread: IntArray = np.minimum(label, reached)
        if np.array_equal(spread, label):
            return label
        label = spread


def undetermined(groups: IntArray, present: BoolArray, anchor: int | None) -> BoolArray:
    """rows × models: the ratings a row's groups leave unplaced. Centred (``anchor``
    None: the scale fixed over the ``present`` models), every present model where they
    fall into two groups or more; anchored, every model outside the anchor's group."""
    if anchor is not None:
        apart: BoolArray = groups != groups[:, anchor : anchor + 1]
        return apart
    m = groups.shape[1]
    lowest = np.min(np.where(present, groups, m), axis=1)
    highest = np.max(np.where(present, groups, -1), axis=1)
    found: BoolArray = present & (lowest != highest)[:, None]
    return found


def mark_undetermined(runaway: FloatArray, unplaced: BoolArray) -> FloatArray:
    """``runaway`` (``separation.directions``: +1, −1, 0 per draw and number) with the
    numbers a draw leaves unplaced marked ``EITHER``, for ``extended_quantiles``."""
    marked: FloatArray = np.where(unplaced, EITHER, runaway)
    return marked


def _group_text(models: Sequence[str], members: IntArray) -> str:
    return "{" + names_of(models, members) + "}"


def apart_reasons(
    models: Sequence[str], groups: IntArray, anchor: int | None = None
) -> list[str | None]:
    """Per model, why its rating is n/a (``not comparable (...)``), or ``None`` where the
    fit places it (``groups``: one row of ``linked_groups``): centred, every model where
    there are two groups or more (``models {a, b} never met {c, d}``); anchored, the
    models outside the anchor's group (``models {c, d} never met {a, b}, a's group``)."""
    labels = list(dict.fromkeys(groups.tolist()))
    if len(labels) < 2:
        return [None] * len(models)
    members = {label: np.flatnonzero(groups == label) for label in labels}
    if anchor is not None:
        home = _group_text(models, members[int(groups[anchor])])
        own = {
            label: not_comparable(
                f"models {_group_text(models, found)} never met {home}, {models[anchor]}'s group"
            )
            for label, found in members.items()
        }
        return [None if g == groups[anchor] else own[int(g)] for g in groups.tolist()]
    shown = [_group_text(models, members[label]) for label in labels[:_GROUPS_SHOWN]]
    if len(labels) == 2:
        reason = f"models {shown[0]} never met {shown[1]}"
    else:
        rest = len(labels) - len(shown)
        listed = ", ".join(shown[:-1]) + f" and {shown[-1]}" if not rest else ", ".join(shown)
        more = f" and {rest} more groups" if rest else ""
        reason = f"models {listed}{more} never met one another"
    return [not_comparable(reason)] * len(models)


def apart_lines(models: Sequence[str], reasons: Sequence[str | None], what: str) -> list[str]:
    """``<what> n/a: not comparable (...)``, or ``<what> of c, d n/a: ...`` where only
    some are (anchored): one line per reason, in the order the models come."""
    found: dict[str, list[str]] = {}
    for model, reason in zip(models, reasons, strict=True):
        if reason is not None:
            found.setdefault(reason, []).append(model)
    if not found:
        return []
    if len(found) == 1 and all(reason is not None for reason in reasons):
        return [f"{what} n/a: {next(iter(found))}"]
    return [
        f"{what} of {names_of(named, np.arange(len(named)))} n/a: {reason}"
        for reason, named in found.items()
    ]


def reasons_na(
    no_maximum: str | None,
    apart: str | None,
    separated: int,
    apart_draws: int,
    rounds: int,
    numbers: Sequence[float],
) -> tuple[str | None, str | None]:
    """Why one of ``numbers`` (an estimate and its bounds) is n/a: ``(no maximum, not
    comparable)``, each ``None`` where it is not why. The fit's own reasons first
    (``no_maximum``; ``apart``: this model's ``apart_reasons``); where the fit has none,
    its bootstrap draws without a maximum (``separated``) and those that fall apart
    (``apart_draws``), as many as there are; ``(None, None)`` where all are finite."""
    if all(np.isfinite(numbers)):
        return None, None
    if no_maximum is not None or apart is not None:
        return no_maximum, apart
    return (
        draws_without_maximum(separated, rounds) if separated else None,
        draws_apart(apart_draws, rounds) if apart_draws else None,
    )


def apart_draws_line(draws: int, rounds: int, reached: bool) -> str:
    """The line under a table whose fits had draws that fell apart (``draws_line``)."""
    return draws_line(draws, rounds, reached, said=draws_apart(draws, rounds))
