"""Agreement between label sets: concordance, kappas, robustness, confusion, by category.

Definitions follow seed 001. Concordance of a method is computed against each human rater
(the share of items where the method's verdict equals that rater's label) and then averaged
over raters; an invalid verdict is a miss. Robustness is the share of items whose two
presentation orders gave the same outcome. Intervals come from resampling *items*, so every
label of one item travels together and the dependence between raters is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from hyoka.stats.additive import Additive, additive_interval, cohen, fleiss, share
from hyoka.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, IntArray, Interval
from hyoka.stats.kappa import category_counts
from hyoka.stats.labels import AGREE, LETTERS, UNKNOWN, VERDICT_NAMES, LabelTable

CATEGORIES = len(VERDICT_NAMES)


def concordance(human: dict[str, IntArray], auto: IntArray) -> tuple[float, dict[str, float]]:
    """Seed 001's concordance rate: per rater, then the mean over raters."""
    per_rater = {rater: float(np.mean(labels == auto)) for rater, labels in human.items()}
    return float(np.mean(list(per_rater.values()))), per_rater


def robustness(orders: IntArray) -> float:
    """Share of items whose two orders agree, among items where both orders are known."""
    known = orders[orders != UNKNOWN]
    return float(np.mean(known == AGREE)) if len(known) else float("nan")


def confusion(reference: IntArray, other: IntArray) -> list[list[int]]:
    """Counts with rows = the reference's A/B/C and columns = the other's A/B/C/invalid."""
    cells = np.bincount(reference * CATEGORIES + other, minlength=len(LETTERS) * CATEGORIES)
    return cells[: len(LETTERS) * CATEGORIES].reshape(len(LETTERS), CATEGORIES).tolist()


@dataclass(frozen=True)
class PairAgreement:
    """Two label sets: the share of identical labels and Cohen's kappa."""

    first: str
    second: str
    agreement: Interval
    kappa: Interval

    def to_json(self) -> dict[str, Any]:
        return {
            "first": self.first,
            "second": self.second,
            "agreement": self.agreement.to_json(),
            "cohen_kappa": self.kappa.to_json(),
        }


@dataclass(frozen=True)
class AgreementReport:
    n_items: int
    #: resampling units of the intervals: groups (e.g. questions) if given, else items
    n_groups: int
    raters: list[str]
    methods: list[str]
    fleiss: Interval | None
    concordance: dict[str, Interval]
    concordance_per_rater: dict[str, dict[str, float]]
    robustness: dict[str, tuple[Interval, int]]
    pairs: list[PairAgreement]
    confusion: dict[str, dict[str, list[list[int]]]]
    by_category: dict[str, AgreementReport] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "n_items": self.n_items,
            "n_groups": self.n_groups,
            "raters": self.raters,
            "methods": self.methods,
            "fleiss_kappa": self.fleiss.to_json() if self.fleiss is not None else None,
            "concordance": {
                m: {**ci.to_json(), "per_rater": self.concordance_per_rater[m]}
                for m, ci in self.concordance.items()
            },
            "robustness": {m: {**ci.to_json(), "n": n} for m, (ci, n) in self.robustness.items()},
            "pairs": [p.to_json() for p in self.pairs],
            "confusion": {
                "rows": list(LETTERS),
                "columns": list(VERDICT_NAMES),
                "matrices": self.confusion,
            },
            "by_category": {c: r.to_json() for c, r in self.by_category.items()},
        }


def agreement_report(
    table: LabelTable,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
    by_category: bool = True,
) -> AgreementReport:
    """Every statistic of ``hyoka judge agreement`` for one label table.

    Intervals resample the table's groups when it has them (whole questions), else items.
    """
    groups = table.group_codes()

    def interval(statistic: Additive) -> Interval:
        return additive_interval(
            statistic, groups, resamples=resamples, confidence=confidence, seed=seed
        )

    raters, methods = list(table.human), list(table.auto)
    fleiss_ci = None
    if len(raters) >= 2:
        stacked = np.stack([table.human[r] for r in raters])
        fleiss_ci = interval(fleiss(category_counts(stacked, CATEGORIES)))

    concord: dict[str, Interval] = {}
    per_rater: dict[str, dict[str, float]] = {}
    matrices: dict[str, dict[str, list[list[int]]]] = {}
    for method, verdicts in table.auto.items():
        if raters:
            hits = np.mean([table.human[r] == verdicts for r in raters], axis=0)
            concord[method] = interval(share(hits))
            per_rater[method] = concordance(table.human, verdicts)[1]
        reference = {r: table.human[r] for r in raters} or {
            m: table.auto[m] for m in methods[:1] if m != method
        }
        matrices[method] = {r: confusion(labels, verdicts) for r, labels in reference.items()}

    robust: dict[str, tuple[Interval, int]] = {}
    for method, orders in table.orders.items():
        known = (orders != UNKNOWN).astype(np.float64)
        if known.any():
            agree = (orders == AGREE).astype(np.float64)
            robust[method] = (interval(share(agree, known)), int(known.sum()))

    sets = {**table.human, **table.auto}
    pairs = [
        PairAgreement(
            first,
            second,
            interval(share((sets[first] == sets[second]).astype(np.float64))),
            interval(cohen(sets[first], sets[second], CATEGORIES)),
        )
        for first, second in combinations(sets, 2)
    ]
    categories: dict[str, AgreementReport] = {}
    if by_category:
        for name in table.category_names():
            categories[name] = agreement_report(
                table.subset(table.category_positions(name)),
                resamples=resamples,
                confidence=confidence,
                seed=seed,
                by_category=False,
            )
    return AgreementReport(
        n_items=table.size,
        n_groups=table.group_count,
        raters=raters,
        methods=methods,
        fleiss=fleiss_ci,
        concordance=concord,
        concordance_per_rater=per_rater,
        robustness=robust,
        pairs=pairs,
        confusion=matrices,
        by_category=categories,
    )
