"""How far a bootstrap estimate lies from a known truth, in its own standard errors.

The synthetic-recovery tests of the judge statistics set a truth, draw data from it and
check that an estimate recovers it. Checking that the truth lies inside a 95% or 99%
interval fails by luck in 1 run of 20 or 100 per interval; these tests instead read the
estimator's standard error off the interval the library reports (a percentile interval
of a near-normal statistic is estimate ± z·se) and allow five of them: a normal estimate
lies further out with probability 6·10⁻⁷, and the sample sizes are chosen so that five
standard errors are still far less than the bias the raw statistics show.
"""

from __future__ import annotations

from statistics import NormalDist

from hyoka.stats.bootstrap import Interval

#: how many standard errors a recovered value may lie from the truth
ALLOWED = 5.0


def standard_error(interval: Interval) -> float:
    """The standard error a percentile interval implies: its width over 2·z."""
    z = NormalDist().inv_cdf((1.0 + interval.confidence) / 2.0)
    return (interval.high - interval.low) / (2.0 * z)


def errors_off(interval: Interval, truth: float) -> float:
    """(estimate − truth) in the interval's standard errors (signed)."""
    return (interval.estimate - truth) / standard_error(interval)
