"""How a pfgen-bench result was produced: its signature, and how its summation was chosen.

A ``result.json`` hyoka writes holds every upstream field unchanged plus one key,
``signature``, so upstream's tools still read it and a reader can tell how the numbers were
made: which benchmark data (a short hash of the question files, reference sets included),
which float summation, the prompt mode, how many questions, and why that summation
(``sum-from``): ``result.json`` when it reproduces the run's earlier result.json exactly,
``default`` for a new run (summed compensated, as current Python does), ``flag`` when forced.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from hyoka.pfgen._pysum import Summation
from hyoka.signature import SIGNATURE_KEY, Signature
from hyoka.store import pfgen_runs

KIND = "pfgen"

#: Signature fields that describe a run without changing how its numbers are computed from
#: its answers: rows differing only in these are not flagged on a leaderboard.
DESCRIPTIVE_FIELDS = frozenset({"sum-from", "mode"})


class SumFrom(StrEnum):
    """Why a run was summed the way it was."""

    #: the summation that reproduces the run's earlier result.json
    RESULT_JSON = pfgen_runs.RESULT_FILE
    DEFAULT = "default"  # nothing to reproduce (or nothing reproduced): current Python's sum
    FLAG = "flag"  # forced with --summation


def data_id(metadata_hash: str) -> str:
    """The benchmark data as the signature names it: ``pfgen@`` and 8 hex digits of the hash
    over every question file (questions, rules and reference sets) that scoring loads."""
    return f"pfgen@{metadata_hash[:8]}"


def run_signature(
    *,
    metadata_hash: str,
    summation: Summation,
    sum_from: SumFrom,
    config: Mapping[str, Any] | None,
    questions: int,
) -> Signature:
    mode = (config or {}).get("mode")
    return Signature.of(
        KIND,
        data=data_id(metadata_hash),
        sum=summation.value,
        mode=str(mode) if mode is not None else "?",
        questions=questions,
        sum_from=sum_from.value,
    )


def signature_of(result: Mapping[str, Any]) -> Signature | None:
    """The signature a stored result carries (``None`` for upstream's own files)."""
    return Signature.from_json(result.get(SIGNATURE_KEY))


def with_signature(result: Mapping[str, Any], signature: Signature) -> dict[str, Any]:
    """``result`` with its upstream fields unchanged, in order, and the signature last."""
    out = {k: v for k, v in result.items() if k != SIGNATURE_KEY}
    out[SIGNATURE_KEY] = signature.to_json()
    return out


def number_differences(row: Signature, common: Signature) -> list[str]:
    """``Signature.differences`` less the descriptive fields."""
    return [d for d in row.differences(common) if d.partition(":")[0] not in DESCRIPTIVE_FIELDS]
