"""What the batch rounds of one command did (``providers.batch``): kept in the client's
totals (``ClientStats.batch``), so a command says it beside its calls and tokens."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class BatchProgress:
    """What the batch rounds of one command did, for its summary line and ``--json``."""

    #: replies read from ended batches into the cache
    collected: int = 0
    #: requests of ended batches that failed, expired or were cancelled (asked again)
    failed: int = 0
    #: why they failed, by the API's word (``expired``, ``errored``, ``HTTP 500``)
    reasons: Counter[str] = field(default_factory=Counter)
    #: requests the API refused for good (too long, invalid): never asked again; the run
    #: fails on them as an online run does
    refused: int = 0
    #: result lines for requests the batch was not noted with (ignored, never stored)
    foreign: int = 0
    #: result lines that could not be read (their requests asked again)
    unreadable: int = 0
    #: what happened to a batch that the counts do not say, one line each: a batch the
    #: API does not know, one cancelled or failed (and why), one found by its mark
    notices: list[str] = field(default_factory=list)
    #: requests left for a later run (submitted now, or in a running batch)
    deferred: int = 0
    #: batches submitted now, and those still running, by id
    submitted: list[str] = field(default_factory=list)
    running: list[str] = field(default_factory=list)
    #: batches kept noted that could not be read (the API does not know them; a lost
    #: submission waiting for its candidates): by id, or ``mark …``
    held: list[str] = field(default_factory=list)

    @property
    def pending(self) -> bool:
        """Whether the command must be run again to finish."""
        return bool(self.submitted or self.running or self.held or self.deferred)

    def to_json(self) -> dict[str, Any]:
        return {
            "collected": self.collected,
            "failed": self.failed,
            "reasons": dict(sorted(self.reasons.items())),
            "refused": self.refused,
            "foreign": self.foreign,
            "unreadable": self.unreadable,
            "notices": list(self.notices),
            "deferred": self.deferred,
            "submitted": list(self.submitted),
            "running": list(self.running),
            "held": list(self.held),
            "pending": self.pending,
        }

    def line(self) -> str:
        """One line for the user: what happened and what to do next (after a line for
        each of ``notices``)."""
        parts = [f"batch: {self.collected} reply(ies) collected"]
        if self.failed:
            why = ", ".join(f"{reason} {n}" for reason, n in sorted(self.reasons.items()))
            parts.append(f"{self.failed} failed or expired ({why}; asked again in a new batch)")
        if self.refused:
            parts.append(
                f"{self.refused} refused by the API for good (not asked again: the run fails "
                "on them, as online)"
            )
        if self.foreign:
            parts.append(
                f"{self.foreign} result line(s) for requests hyoka did not submit (ignored)"
            )
        if self.unreadable:
            parts.append(f"{self.unreadable} result line(s) could not be read (a fault each)")
        if self.running:
            parts.append(f"still running: {', '.join(self.running)}")
        if self.held:
            parts.append(f"kept noted: {', '.join(self.held)}")
        if self.submitted:
            parts.append(f"submitted: {', '.join(self.submitted)}")
        if self.deferred:
            parts.append(f"{self.deferred} request(s) left for a later run")
        tail = (
            "; run the same command again to finish (`hyoka batch status` lists the batches)"
            if self.pending
            else "; nothing left in flight"
        )
        return "".join(f"batch: {notice}\n" for notice in self.notices) + "; ".join(parts) + tail
