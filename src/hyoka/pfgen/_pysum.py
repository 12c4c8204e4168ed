"""Python's built-in ``sum`` over floats, pinned to the algorithm a result was made with.

The reference scorer adds floats with ``sum()``, and how CPython's ``sum`` adds floats
changed in 3.12: it became compensated (Neumaier's variant of Kahan summation), where 3.11
added left to right. After rounding to 4-5 decimals the two differ in the last digit now and
then, and the public leaderboard holds results of both eras: every result folder in the
sample whose answers date from 2024-08 reproduces only with left-to-right sums, every one
from 2024-12 on only with compensated sums. So both are implemented, chosen explicitly or
by the era of a run's answers (``summation_for``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from enum import StrEnum


class Summation(StrEnum):
    """How float sums are formed; part of a result's signature."""

    COMPENSATED = "compensated"  # CPython >= 3.12 sum(): the upstream scorer today
    SEQUENTIAL = "sequential"  # CPython <= 3.11 sum(): leaderboard entries scored in 2024


#: Answers generated before this date were scored upstream under Python 3.11. The sample's
#: last such run dates from 2024-08-14 and its first 3.12-era run from 2024-12-22.
COMPENSATED_ERA_START = "2024-12-01"


def summation_for(timestamps: Iterable[object]) -> Summation:
    """The summation of the era a run belongs to, judged by its newest answer timestamp."""
    newest = max((t for t in timestamps if isinstance(t, str)), default=None)
    if newest is not None and newest < COMPENSATED_ERA_START:
        return Summation.SEQUENTIAL
    return Summation.COMPENSATED


def float_sum(values: Iterable[float], summation: Summation = Summation.COMPENSATED) -> float:
    """``sum(values)`` exactly as the CPython version of that summation computes it."""
    total = 0.0
    if summation is Summation.SEQUENTIAL:
        for value in values:
            total += value
        return total
    compensation = 0.0
    for value in values:
        x = float(value)
        t = total + x
        if abs(total) >= abs(x):
            compensation += (total - t) + x
        else:
            compensation += (x - t) + total
        total = t
    if compensation and math.isfinite(compensation):
        total += compensation
    return total
