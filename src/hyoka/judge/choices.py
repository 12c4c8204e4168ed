"""The choices the judging flags offer, as enums: a command line lists them in ``--help``
and refuses any other value with one line, before any file is read.

Each enum spells exactly the values of the library type it stands for (``Aggregate``,
``Method``; ``--criteria``'s two words; the style features, ``stats.STYLE_CONTROLS``; the
Brier score's rules for ties, ``stats.BRIER_TIES``),
which a test holds them to; the library goes on taking those values (a member is the
string it spells).
"""

from __future__ import annotations

from enum import StrEnum


class AggregateChoice(StrEnum):
    """How a grade's repeated ratings combine (``JudgeSettings.aggregate``)."""

    MEAN = "mean"
    MEDIAN = "median"


class MethodChoice(StrEnum):
    """A pairwise verdict method (``Method``), or ``all`` of them (``parse_methods``)."""

    PROB = "prob"
    BS1 = "bs1"
    BS2 = "bs2"
    ALL = "all"


class CriteriaChoice(StrEnum):
    """Criteria per question: generated (``auto``, seed 001) or ``none``
    (``template_name``, ``check_criteria_use``)."""

    AUTO = "auto"
    NONE = "none"


class StyleControlChoice(StrEnum):
    """A group of style features the controlled Bradley–Terry ratings hold equal
    (``stats.STYLE_CONTROLS``; arena-hard's ``--control-features``)."""

    LENGTH = "length"
    MARKDOWN = "markdown"


class BrierTiesChoice(StrEnum):
    """What ``judge rankings``' pair-rank Brier score does with a pair the reference ties
    (``stats.BrierTies``): score it as arena-hard's notebook does, or leave it out."""

    UPSTREAM = "upstream"
    OMIT = "omit"
