"""Win, loss and tie counts per method from pairwise judgment records, with FastChat's rates.

Each record is one turn of one dialogue; its verdict under a method is read from the
record's ``verdicts`` (A = ``model_1`` wins). Records from FastChat's own files, which have
no ``verdicts``, are read the way FastChat reads them: both games agreeing give the winner,
disagreement a tie (``bs2``), and a game with ``error`` leaves the turn out (``bs1`` keeps
disagreement invalid instead). A game whose reply came back without log probabilities
leaves its turn without a ``prob`` verdict; those turns are listed, so a judge server that
drops log probabilities cannot pass for a judge that found no verdict.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from hyoka.judge import WinCounts, win_counts
from hyoka.mtbench.records import PairJudgmentLine


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
