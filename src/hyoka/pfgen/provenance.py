"""How a pfgen-bench result was produced: its signature, and how its summation was chosen.

A ``result.json`` hyoka writes holds every upstream field unchanged plus one key,
``signature``, so upstream's tools still read it and a reader can tell how the numbers were
made: which benchmark data (a short hash of the question files, reference sets included,
and ``+custom`` when they are not the pinned release), which float summation, the prompt
mode, how many questions, and why that summation
(``sum-from``): ``result.json`` when it reproduces the run's earlier result.json exactly,
``default`` for a new run (summed compensated, as current Python does), ``flag`` when forced;
and the thinking rule the answers were made with, when its ``config.json`` names one
(``keep``; the default ``strip-think`` is named nowhere, so every other run, upstream's
included, keeps its signature: ``providers.signed_rule``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

from hyoka.errors import DataError, InputError
from hyoka.pfgen._pysum import Summation
from hyoka.signature import SIGNATURE_KEY, Signature, SignatureType, only_when_set
from hyoka.store import pfgen_runs

KIND = "pfgen"


@dataclass(frozen=True, kw_only=True)
class PfgenSignature(SignatureType):
    """How a pfgen-bench result was computed from its answers (see the module docstring).

    No package's version is recorded: the numbers are exact by construction (upstream's
    rules, every rounding and float summation reproduced in Python, which the parity tests
    prove byte for byte); numpy only finds candidate n-grams, never decides a value, and
    the summation is hyoka's own (``sum``), not the running Python's ``sum``.
    """

    kind: ClassVar[str] = KIND
    data: str
    sum: str
    mode: str
    questions: int
    sum_from: str
    thinking: str | None = only_when_set()


#: Signature fields that describe a run without changing how its numbers are computed from
#: its answers: rows differing only in these are not flagged on a leaderboard.
DESCRIPTIVE_FIELDS = frozenset({"sum-from", "mode"})


class SumFrom(StrEnum):
    """Why a run was summed the way it was."""

    #: the summation that reproduces the run's earlier result.json
    RESULT_JSON = pfgen_runs.RESULT_FILE
    DEFAULT = "default"  # nothing to reproduce (or nothing reproduced): current Python's sum
    FLAG = "flag"  # forced with --summation


#: Added to the data's name when it is not the release hyoka pins: scoring with one's own
#: reference sets is legitimate, and its numbers must say so wherever they go.
CUSTOM_DATA = "+custom"
_DATA_PREFIX = "pfgen@"
_SHORT = 8


def pinned_metadata_hash() -> str:
    """Upstream's ``metadata_hash`` of the pinned data release (from its manifest)."""
    from hyoka.data import upstream_data_hash

    pinned = upstream_data_hash("pfgen")
    if pinned is None:  # a packaging error, not a user's
        raise DataError("manifest 'pfgen' shipped with hyoka names no upstream_data_hash")
    return pinned


def is_pinned(metadata_hash: str) -> bool:
    """Whether ``metadata_hash`` (whole, or the 8 digits a signature keeps) is the pinned
    release's."""
    return len(metadata_hash) >= _SHORT and pinned_metadata_hash().startswith(metadata_hash)


def data_id(metadata_hash: str) -> str:
    """The benchmark data as the signature names it: ``pfgen@`` and 8 hex digits of the hash
    over every question file (questions, rules and reference sets) that scoring loads, with
    ``+custom`` when that is not the pinned release (``pfgen@1a2b3c4d+custom``)."""
    short = metadata_hash[:_SHORT]
    return _DATA_PREFIX + short + ("" if is_pinned(short) else CUSTOM_DATA)


def result_data_id(result: Mapping[str, Any], where: str | Path) -> str | None:
    """The data a stored result was scored with, named as ``data_id`` names it: from its
    signature's ``data`` field, else (upstream's own files) from its ``metadata_hash``;
    ``None`` when it records neither. A signature written before ``+custom`` existed is
    named again by the same rule, so old and new rows compare alike. ``where``: the file
    ``result`` was read from (``signature_of``)."""
    signature = signature_of(result, where)
    short = _signed_data(signature.get("data") if signature is not None else None)
    if short is not None:
        return data_id(short)
    metadata_hash = result.get("metadata_hash")
    if isinstance(metadata_hash, str) and re.fullmatch(r"[0-9a-f]{8,40}", metadata_hash):
        return data_id(metadata_hash)
    return None


def _signed_data(recorded: str | None) -> str | None:
    """The 8 or more hex digits of a signature's ``data`` field (``pfgen@1a2b3c4d``,
    ``+custom`` or not), ``None`` when it names none."""
    if recorded is None or not recorded.startswith(_DATA_PREFIX):
        return None
    short = recorded.removeprefix(_DATA_PREFIX).split("+", 1)[0]
    return short if re.fullmatch(r"[0-9a-f]{8,40}", short) else None


def signature_problem(result: Mapping[str, Any]) -> str | None:
    """Which field of ``result``'s signature says something else than the file it signs:
    its ``data`` is named by the file's ``metadata_hash``, its ``mode`` and ``thinking`` by
    its ``config``, its ``questions`` by how many it lists, and ``sum`` and ``sum-from``
    are among the values scoring writes (``run_signature`` makes them so). ``None`` for a
    file without one (upstream's) or one that agrees. A reader trusts a signature only this
    far: whether ``sum`` made the numbers is what ``pfgen verify`` finds by rescoring."""
    try:
        signature = signature_of(result, pfgen_runs.RESULT_FILE)
    except InputError:
        return None  # a newer format: every reader names it with its file (``signature_of``)
    if signature is None:
        return None
    if signature.get("kind") != KIND:
        return f"kind {signature.get('kind')!r} is not {KIND!r}"
    metadata_hash = result.get("metadata_hash")
    named = data_id(metadata_hash) if isinstance(metadata_hash, str) else None
    short = _signed_data(signature.get("data"))
    if short is None or named is None or not str(metadata_hash).startswith(short):
        return f"data {signature.get('data')} is not the data its metadata_hash names ({named})"
    config = result.get("config")
    settings: Mapping[str, Any] = config if isinstance(config, Mapping) else {}
    expected = {
        "mode": ("mode", str(settings["mode"]) if settings.get("mode") is not None else "?"),
        "thinking": ("thinking", _optional(settings.get("thinking"))),
    }
    for field, (what, value) in expected.items():
        if signature.get(field) != value:
            return f"{field} {signature.get(field)} is not the {what} its config records ({value})"
    questions = result.get("questions")
    count = str(len(questions)) if isinstance(questions, Mapping) else None
    if signature.get("questions") != count:
        return f"questions {signature.get('questions')} is not how many it lists ({count})"
    for field, values in (("sum", set(Summation)), ("sum-from", set(SumFrom))):
        if signature.get(field) not in values:
            shown = ", ".join(sorted(values))
            return f"{field} {signature.get(field)} is none of what scoring signs ({shown})"
    return None


def _optional(value: object) -> str | None:
    return None if value is None else str(value)


def run_signature(
    *,
    metadata_hash: str,
    summation: Summation,
    sum_from: SumFrom,
    config: Mapping[str, Any] | None,
    questions: int,
) -> Signature:
    mode = (config or {}).get("mode")
    thinking = (config or {}).get("thinking")
    return PfgenSignature(
        data=data_id(metadata_hash),
        sum=summation.value,
        mode=str(mode) if mode is not None else "?",
        questions=questions,
        sum_from=sum_from.value,
        thinking=str(thinking) if thinking is not None else None,
    ).signature()


def signature_of(result: Mapping[str, Any], where: str | Path) -> Signature | None:
    """The signature a stored result carries (``None`` for upstream's own files), in the
    current format; ``where``: the file it was read from, named if its format is newer
    than this hyoka reads."""
    return Signature.from_json(result.get(SIGNATURE_KEY), where)


def with_signature(result: Mapping[str, Any], signature: Signature) -> dict[str, Any]:
    """``result`` with its upstream fields unchanged, in order, and the signature last."""
    out = {k: v for k, v in result.items() if k != SIGNATURE_KEY}
    out[SIGNATURE_KEY] = signature.to_json()
    return out


def number_differences(row: Signature, common: Signature) -> list[str]:
    """``Signature.differences`` less the descriptive fields."""
    return [d for d in row.differences(common) if d.partition(":")[0] not in DESCRIPTIVE_FIELDS]


#: Signature fields that say why or by which version, not what: checking a result against
#: its answers cannot recompute them.
_UNCHECKED_FIELDS = frozenset({"hyoka", "packages", "sum-from"})


def signature_difference(
    published: Signature, recomputed: Signature
) -> tuple[str, str, str] | None:
    """The first field of a stored result's signature that rescoring its answers says
    otherwise (``pfgen verify``): ``(field, published, recomputed)``, ``-`` for a field only
    one side has; ``None`` when they agree. Versions and ``sum-from`` (why a summation was
    chosen) are not compared; a ``data`` written before ``+custom`` existed is named again
    as ``data_id`` names it (``result_data_id``)."""

    def compared(signature: Signature) -> dict[str, str]:
        fields = {k: v for k, v in signature.fields if k not in _UNCHECKED_FIELDS}
        short = _signed_data(fields.get("data"))
        if short is not None:
            fields["data"] = data_id(short)
        return fields

    mine, theirs = compared(published), compared(recomputed)
    for key in dict.fromkeys([*theirs, *mine]):
        if mine.get(key) != theirs.get(key):
            return key, published.get(key) or "-", recomputed.get(key) or "-"
    return None
