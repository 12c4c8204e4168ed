"""The choices pfgen commands offer (prompt modes, leaderboard formats), apart from the code
that uses them, so that a command line can list them without loading that code first."""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    """How the examples reach the model: a raw prompt, one user turn, or system + user."""

    COMPLETION = "completion"
    QA = "qa"
    CHAT = "chat"


class LeaderboardFormat(StrEnum):
    """How a leaderboard is written (``upstream``: the table of upstream's README, to paste)."""

    MD = "md"
    CSV = "csv"
    JSON = "json"
    UPSTREAM = "upstream"
