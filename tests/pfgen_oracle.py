"""A deliberately simple, pure-Python oracle for pfgen-bench scoring (pfgen-spec.md §3).

Written from the text of the spec, not from ``hyoka.pfgen``: plain dicts, sets and character
loops, every formula in the order the spec writes it. It is slow (seconds for a real reference
set) and exists only so that tests can compare the vectorised engine with it, float for float.

Where §3 is silent, the choices below are the reference implementation's (which the spec says
is the judge), and each is marked "spec silent":

* Truthfulness: the "best s_i at i >= 100" starts from 0.0, so the result is never negative.
* Helpfulness: the name reported for a missed rule is its ``name``, else for ``t`` the regex
  itself, else for ``and``/``or`` the reported name of the part that decided its end (the first
  part with the largest end for ``and``, the smallest for ``or``). Only top-level rules carry
  an importance; an absent one is the float 1.0, so a missed rule's factor prints as ``0.0``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

#: Longest n-gram of Fluency (and of the document-frequency table).
FLUENCY_N = 10
#: n-gram length of Truthfulness.
TRUTH_N = 3
#: Characters of the answer that Fluency and Helpfulness look at.
WINDOW = 200
#: Characters of the wrapped answer ``^answer$`` that Truthfulness looks at.
WRAPPED_WINDOW = 202
#: Characters Truthfulness skips.
SKIPPED = "^$、。・「」『』（）【】［］〈〉《》"


# --- n-grams and document frequency ------------------------------------------------------------


def new_grams_by_end(x: str, nmax: int = FLUENCY_N) -> list[list[str]]:
    """For each end position of ``x`` (1..len), the n-grams ending there seen for the first time.

    Enumeration order is "by end position, then by length"; each distinct substring appears
    once, at its first end position.
    """
    seen: set[str] = set()
    result: list[list[str]] = []
    for end in range(1, len(x) + 1):
        fresh: list[str] = []
        for n in range(1, nmax + 1):
            if n > end:
                break
            g = x[end - n : end]
            if g not in seen:
                seen.add(g)
                fresh.append(g)
        result.append(fresh)
    return result


def grams(x: str, nmax: int = FLUENCY_N) -> list[str]:
    """The distinct substrings of ``x`` of length 1..nmax, in enumeration order."""
    return [g for fresh in new_grams_by_end(x, nmax) for g in fresh]


def document_frequency(answers: Iterable[str], nmax: int = FLUENCY_N) -> dict[str, int]:
    """``df(g)``: how many answers contain ``g`` (full answers, no truncation)."""
    df: dict[str, int] = {}
    for answer in answers:
        for g in grams(answer, nmax):
            df[g] = df.get(g, 0) + 1
    return df


def discount(length: int) -> float:
    """``d(L) = 1 - max(L - 100, 0) / 50``."""
    return 1 - max(length - 100, 0) / 50


# --- Fluency -----------------------------------------------------------------------------------


def fluency(df: dict[str, int], answer: str, baseline: float | None = None) -> float:
    """max over prefix lengths L of S(L)·d(L) (divided by ``baseline`` if given); 0 if none > 0."""
    text = answer[:WINDOW]
    best = 0.0
    total = 0
    for index, fresh in enumerate(new_grams_by_end(text)):
        length = index + 1
        for g in fresh:
            total += df.get(g, 0)
        value = total * discount(length)
        if baseline is not None:
            value = value / baseline
        if value > best:
            best = value
    return best


def fluency_baseline(df: dict[str, int], answers: Sequence[str]) -> float:
    """Mean unnormalised Fluency of a set's own answers (summed left to right)."""
    total = 0.0
    for answer in answers:
        total += fluency(df, answer)
    return total / len(answers)


# --- Truthfulness ------------------------------------------------------------------------------


def truthfulness(df: dict[str, int], num_answers: int, answer: str) -> float:
    w = ("^" + answer + "$")[:WRAPPED_WINDOW]
    support = [0] * len(w)
    for j in range(len(w)):
        for start in range(j - TRUTH_N + 1, j + 1):
            if start < 0 or start + TRUTH_N > len(w):
                continue
            g = w[start : start + TRUTH_N]
            if g in df and df[g] > support[j]:
                support[j] = df[g]
    total = 0.0
    count = 0
    best_late = 0.0  # spec silent: the reference starts the "best at i >= 100" from 0
    last = 0.0
    for i, c in enumerate(w):
        if c in SKIPPED:
            continue
        v = min(1.0, support[i] / num_answers * 200)
        total += v
        count += 1
        s = total / count * (1 - max(i - 100, 0) / 50)
        if i >= 100 and s > best_late:
            best_late = s
        last = s
    return max(best_late, last)


# --- Helpfulness -------------------------------------------------------------------------------


def rule_end(rule: dict[str, Any], h: str) -> tuple[float, str]:
    """Where ``rule`` is first satisfied in ``h`` (``math.inf`` if never), and its name."""
    if "t" in rule:
        found = re.search(rule["t"], h)
        end: float = found.end() if found else math.inf
        return end, rule.get("name", rule["t"])
    if "and" in rule:
        parts = [rule_end(p, h) for p in rule["and"]]
        chosen = parts[0]
        for part in parts[1:]:
            if part[0] > chosen[0]:
                chosen = part
        return chosen[0], rule.get("name", chosen[1])
    if "or" in rule:
        parts = [rule_end(p, h) for p in rule["or"]]
        chosen = parts[0]
        for part in parts[1:]:
            if part[0] < chosen[0]:
                chosen = part
        return chosen[0], rule.get("name", chosen[1])
    raise ValueError(f"not a rule: {rule!r}")


def helpfulness(
    rules: Sequence[dict[str, Any]], answer: str
) -> tuple[float, list[tuple[str, Any]]]:
    """(score, missed rules as (name, factor), plus the over-length note)."""
    h = answer[:WINDOW]
    cuts = [i for i in range(len(h) + 1) if discount(i) >= 0]
    values = {i: discount(i) for i in cuts}
    checked: list[tuple[float, str, Any]] = []
    for rule in rules:
        end, name = rule_end(rule, h)
        factor = 1 - rule.get("importance", 1.0)  # spec: default 1; result.json prints 0.0
        for i in cuts:
            if i < end:
                values[i] = values[i] * factor
        checked.append((end, name, factor))
    cut = cuts[0]
    for i in cuts:
        if values[i] >= values[cut]:
            cut = i  # ties go to the longest cut
    score = values[cut]
    missed: list[tuple[str, Any]] = [(name, factor) for end, name, factor in checked if cut < end]
    if cut > 100 and score > 0:
        missed.append((f"{cut - 100}字超過", discount(cut)))
    return score, missed


# --- One answer, all metrics, with the rounding of §3 -------------------------------------------


def sequential_sum(values: Iterable[float]) -> float:
    """CPython <= 3.11 ``sum`` of floats: left to right."""
    total = 0.0
    for v in values:
        total += v
    return total


def compensated_sum(values: Iterable[float]) -> float:
    """CPython >= 3.12 ``sum`` of floats: Neumaier's compensated summation."""
    total = 0.0
    carry = 0.0
    for v in values:
        t = total + v
        if abs(total) >= abs(v):
            carry += (total - t) + v
        else:
            carry += (v - t) + total
        total = t
    if carry and math.isfinite(carry):
        total += carry
    return total


@dataclass(frozen=True)
class OracleSet:
    name: str
    df: dict[str, int]
    size: int
    baseline: float

    @classmethod
    def build(cls, name: str, answers: Sequence[str]) -> OracleSet:
        df = document_frequency(answers)
        return cls(name, df, len(answers), fluency_baseline(df, answers))


@dataclass(frozen=True)
class OracleScore:
    fluency: dict[str, float]
    truthfulness: dict[str, float]
    helpfulness: float
    missed: list[tuple[str, Any]]
    average: float


def score_answer(
    sets: Sequence[OracleSet],
    rules: Sequence[dict[str, Any]],
    answer: str,
    *,
    compensated: bool = True,
) -> OracleScore:
    k = len(sets)
    fl = {s.name: round(fluency(s.df, answer, s.baseline) / k, 6) for s in sets}
    tr = {s.name: round(truthfulness(s.df, s.size, answer) / k, 6) for s in sets}
    raw_help, missed = helpfulness(rules, answer)
    rounded_help = round(raw_help, 5)
    add = compensated_sum if compensated else sequential_sum
    average = round((add(fl.values()) + add(tr.values()) + rounded_help) / 3, 5)
    return OracleScore(fl, tr, rounded_help, missed, average)
