"""The choices the ``hyoka mtbench`` flags offer, as enums: a command line lists them in
``--help`` and refuses any other value with one line, before any file is read.

Each enum spells exactly the values of the library type it stands for (``Layout``,
``Template``, ``Injection``, ``Check``, ``Format``, ``headline.RULES``), which a test holds
them to; the library goes on taking those values (a member is the string it spells).
"""

from __future__ import annotations

from enum import StrEnum


class LayoutChoice(StrEnum):
    """Where files go under ``--results-dir`` (``Layout``)."""

    HYOKA = "hyoka"
    UPSTREAM = "upstream"


class TemplateChoice(StrEnum):
    """How a dialogue reaches the model (``Template``)."""

    AUTO = "auto"
    CHAT = "chat"
    BASE = "base"
    COMPLETIONS = "completions"


class InjectionChoice(StrEnum):
    """What an answer that writes a role marker becomes (``Injection``)."""

    STRICT = "strict"
    LENIENT = "lenient"


class LangCheckChoice(StrEnum):
    """How an answer's language is checked (``Check``)."""

    UPSTREAM = "upstream"
    SCRIPT = "script"


class FormatChoice(StrEnum):
    """How a leaderboard is written (``Format``)."""

    MD = "md"
    CSV = "csv"
    JSON = "json"


class HeadlineChoice(StrEnum):
    """Which script's rule computes a table's cells, "Avg." and win rates
    (``headline.RULES``): FastChat's ``turn-mean`` beside each benchmark's own."""

    TURN_MEAN = "turn-mean"
    CATEGORY_MEAN = "category-mean"
    SWALLOW_TRIALS = "swallow-trials"
    EVERY_LINE = "every-line"


class JudgeModeChoice(StrEnum):
    """Grade each answer (``single``) or compare answer files (``pairwise``)."""

    SINGLE = "single"
    PAIRWISE = "pairwise"
